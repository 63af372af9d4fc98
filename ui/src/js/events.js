// Loads the cached events into FullCalendar and keeps them live: the shell
// emits `calendar-changed` whenever the engine's cache changes.

import { invoke, listen } from './ipc.js';

/** Adds one day to a `YYYY-MM-DD` date (FullCalendar's all-day ends are exclusive). */
function nextDay(date) {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** One engine event (see almanac_core::calendar::Event) as a FullCalendar event. */
function toFullCalendar(event, colors) {
  const timed = !event.allDay && event.startMillis;
  return {
    id: event.instanceDate ? `${event.id}#${event.instanceDate}` : event.id,
    title: event.title,
    allDay: !timed,
    start: timed ? event.startMillis : event.date,
    end: timed ? (event.endMillis ?? undefined) : nextDay(event.endDate ?? event.date),
    color: colors.get(event.calendarId),
    classNames: event.completed && event.completed !== false ? ['almanac-done'] : [],
    // The engine's event as is: the calendar window's dialog edits it.
    extendedProps: { calendarName: event.calendarName, filePath: event.filePath, event },
  };
}

/**
 * A FullCalendar event source function over the shell's cache. `onError`
 * gets a message when loading fails (shown in the window, not swallowed).
 */
export function eventSource(onError) {
  let colors = null;
  return async (range, success, failure) => {
    try {
      if (!colors) {
        const sources = await invoke('calendar_sources');
        colors = new Map(sources.map((s) => [s.id, s.color]));
      }
      const events = await invoke('calendar_events', {
        start: range.start.valueOf(),
        end: range.end.valueOf() - 1,
      });
      onError(null);
      success(events.map((e) => toFullCalendar(e, colors)));
    } catch (error) {
      onError(String(error));
      failure(error);
    }
  };
}

/** Refetches whenever the vault changes. */
export function followChanges(calendar) {
  return listen('calendar-changed', () => calendar.refetchEvents());
}

/** Shows, for a while, what a script just changed through the API. */
export function showAnnouncements(element) {
  let timer = null;
  return listen('announce', (message) => {
    element.textContent = message;
    element.hidden = false;
    clearTimeout(timer);
    timer = setTimeout(() => {
      element.hidden = true;
    }, 8000);
  });
}
