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

/** Views of more days than this get at most `PER_DAY_IN_MONTH` events a day. */
const WEEK_DAYS = 8;
/** Events a day in month-long views: about what a month cell shows. */
const PER_DAY_IN_MONTH = 4;
/** Events a day in views of a few days (a week, the sidebar's agenda). */
const PER_DAY_IN_WEEK = 24;
const DAY_MS = 86_400_000;

/**
 * A day's "+N more": a link to that day's own view, where its events are
 * fetched whole. The link's target is the date (see `followChanges`). It is
 * placed at the end of its day (in the display zone) so views list it after
 * the day's events; its time is not shown (fit.css).
 */
function moreEvent({ date, count }) {
  return {
    id: `more:${date}`,
    title: `+${count} more`,
    start: `${date}T23:59:58`,
    end: `${date}T23:59:59`,
    url: `#${date}`,
    editable: false,
    classNames: ['almanac-more'],
  };
}

/**
 * A FullCalendar event source function over the shell's cache. `onError`
 * gets a message when loading fails (shown in the window, not swallowed).
 * A view of several days gets a few events a day and "+N more" for the rest:
 * a month of a large vault holds more events than any grid can draw.
 */
export function eventSource(onError) {
  let colors = null;
  return async (range, success, failure) => {
    try {
      if (!colors) {
        const sources = await invoke('calendar_sources');
        colors = new Map(sources.map((s) => [s.id, s.color]));
      }
      const bounds = { start: range.start.valueOf(), end: range.end.valueOf() - 1 };
      const days = (bounds.end - bounds.start) / DAY_MS;
      let events;
      if (days > 1) {
        const perDay = days > WEEK_DAYS ? PER_DAY_IN_MONTH : PER_DAY_IN_WEEK;
        const answer = await invoke('calendar_events_per_day', { ...bounds, perDay });
        events = [...answer.events.map((e) => toFullCalendar(e, colors)), ...answer.more.map(moreEvent)];
      } else {
        events = (await invoke('calendar_events', bounds)).map((e) => toFullCalendar(e, colors));
      }
      onError(null);
      success(events);
    } catch (error) {
      onError(String(error));
      failure(error);
    }
  };
}

/**
 * Refetches whenever the vault changes, and opens a day's own view from its
 * "+N more" link (before FullCalendar sees the click: it is no event).
 */
export function followChanges(calendar) {
  // What the source answers depends on the range's length (a day is fetched
  // whole, a month a few events a day): a day inside a fetched month must be
  // fetched again, not cut from the month's answer.
  calendar.setOption('lazyFetching', false);
  calendar.el.parentElement.addEventListener(
    'click',
    (click) => {
      const more = click.target.closest?.('.almanac-more');
      if (!more) return;
      click.preventDefault();
      click.stopPropagation();
      const date = more.getAttribute('href').slice(1);
      calendar.changeView(calendar.view.type.startsWith('list') ? 'listDay' : 'timeGridDay', date);
    },
    true,
  );
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
