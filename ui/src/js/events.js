// Loads the cached events into FullCalendar and keeps them live: the shell
// emits `calendar-changed` whenever the engine's cache changes.

import { DateTime } from 'luxon';

import { shownId } from './event_fields.js';
import { invoke, listen } from './ipc.js';

/** Adds one day to a `YYYY-MM-DD` date (FullCalendar's all-day ends are exclusive). */
function nextDay(date) {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** One engine event (see almanac_core::calendar::Event) as a FullCalendar event. */
export function toFullCalendar(event, colors) {
  const timed = !event.allDay && event.startMillis;
  return {
    id: shownId(event),
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
/**
 * Events a day in month-long views, before "+N more": what a month cell of
 * the default window (1000×720) holds without growing; each drawn event is
 * work in every step to the next month (BENCHMARKS.md).
 */
const PER_DAY_IN_MONTH = 3;
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
 * Answers of `calendar_events_per_day` by range, as promises: a month the
 * user steps to was usually fetched while the one before was on screen
 * (`prefetchNeighbours`). Emptied whenever the vault or the settings change;
 * a few months at most.
 */
const answers = new Map();
const ANSWERS_KEPT = 8;
/**
 * The answers in `answers` that have arrived, by the same keys: the source
 * hands these to FullCalendar at once, inside the navigation itself, so the
 * new month is drawn once with its events instead of empty first and again
 * a moment later (half the layout work of a step).
 */
const arrived = new Map();

const answerKey = (bounds, perDay) => `${bounds.start}:${bounds.end}:${perDay}`;

/**
 * The calendars the window shows (null: all of them), asked of the engine
 * itself so that a day's "+N more" counts only what is shown.
 */
let shownCalendars = null;

function eventsPerDay(bounds, perDay) {
  const key = answerKey(bounds, perDay);
  let answer = answers.get(key);
  if (!answer) {
    answer = invoke('calendar_events_per_day', { ...bounds, perDay, calendars: shownCalendars });
    answer.then(
      (value) => answers.get(key) === answer && arrived.set(key, value),
      () => answers.delete(key),
    );
    answers.set(key, answer);
    while (answers.size > ANSWERS_KEPT) {
      const oldest = answers.keys().next().value;
      answers.delete(oldest);
      arrived.delete(oldest);
    }
  }
  return answer;
}

function forgetAnswers() {
  answers.clear();
  arrived.clear();
}

/**
 * The grid the month view shows `step` months from the month at `millis`:
 * the month's own weeks (`fixedWeekCount: false`), from the week start
 * (`firstDay`) on or before its first day to the end of the week holding its
 * last, in `zone` (bounds as the source gets them).
 */
function monthGrid(millis, step, zone, firstDay) {
  const first = DateTime.fromMillis(millis, { zone }).startOf('month').plus({ months: step });
  const start = first.minus({ days: (first.weekday - firstDay + 7) % 7 }).startOf('day');
  const days = Math.ceil(Math.round(first.plus({ months: 1 }).diff(start, 'days').days) / 7) * 7;
  return { start: start.toMillis(), end: start.plus({ days }).toMillis() - 1 };
}

/** The calendar the source serves, once `followChanges` has it. */
let served = null;

/**
 * After a month grid is answered, fetches the months before and after it in
 * the background, so stepping to them need not wait for the engine. Only
 * when the grid is the one `monthGrid` computes (the month view).
 */
function prefetchNeighbours(bounds, zone) {
  const firstDay = served?.getOption('firstDay') ?? 0;
  // Two weeks in: always inside the month shown, whatever its first weekday.
  const middle = bounds.start + 14 * DAY_MS;
  const shown = monthGrid(middle, 0, zone, firstDay);
  if (shown.start !== bounds.start || shown.end !== bounds.end) return;
  for (const step of [-1, 1]) {
    eventsPerDay(monthGrid(middle, step, zone, firstDay), PER_DAY_IN_MONTH).catch(() => {});
  }
}

/**
 * A FullCalendar event source function over the shell's cache. `onError`
 * gets a message when loading fails (shown in the window, not swallowed).
 * A view of several days gets a few events a day and "+N more" for the rest:
 * a month of a large vault holds more events than any grid can draw.
 */
export function eventSource(onError) {
  let colors = null;
  const perDayEvents = (answer) => [
    ...answer.events.map((e) => toFullCalendar(e, colors)),
    ...answer.more.map(moreEvent),
  ];
  return async (range, success, failure) => {
    const bounds = { start: range.start.valueOf(), end: range.end.valueOf() - 1 };
    const days = (bounds.end - bounds.start) / DAY_MS;
    const perDay = days > WEEK_DAYS ? PER_DAY_IN_MONTH : PER_DAY_IN_WEEK;
    const ready = days > 1 && colors && arrived.get(answerKey(bounds, perDay));
    if (ready) {
      // Synchronously, before any `await` (see `arrived`).
      onError(null);
      success(perDayEvents(ready));
      if (perDay === PER_DAY_IN_MONTH) prefetchNeighbours(bounds, range.timeZone);
      return;
    }
    try {
      if (!colors) {
        const sources = await invoke('calendar_sources');
        colors = new Map(sources.map((s) => [s.id, s.color]));
      }
      let events;
      if (days > 1) {
        const answer = await eventsPerDay(bounds, perDay);
        if (perDay === PER_DAY_IN_MONTH) prefetchNeighbours(bounds, range.timeZone);
        events = perDayEvents(answer);
      } else {
        events = (await invoke('calendar_events', { ...bounds, calendars: shownCalendars })).map((e) =>
          toFullCalendar(e, colors),
        );
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
  served = calendar;
  listen('settings-changed', forgetAnswers);
  return listen('calendar-changed', () => {
    forgetAnswers();
    calendar.refetchEvents();
  });
}

/**
 * Shows only the calendars `ids` (null: all) in `calendar` from now on
 * (the sidebar's list of calendars).
 */
export function showCalendars(calendar, ids) {
  if (JSON.stringify(ids) === JSON.stringify(shownCalendars)) return;
  shownCalendars = ids;
  forgetAnswers();
  calendar.refetchEvents();
  document.dispatchEvent(new CustomEvent('almanac:calendars-shown'));
}

/** The calendars the window shows (null: all), for other reads of the same events. */
export const shownCalendarIds = () => shownCalendars;

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
