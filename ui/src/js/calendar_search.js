// The calendar window's search box (`/` or Ctrl+F): every calendar's events
// whose title or note text (location, description) holds the text, through
// the engine's own text filter (`calendar_search`, the REST `query`'s).
// Results narrow as one types: a query is sent once typing pauses, and an
// answer that arrives after a newer one was asked for is dropped, so the
// list never shows an older text's matches. Enter or a click goes to the
// event's day and highlights it.

import { hourCycle } from './clock.js';
import { shownId } from './event_fields.js';
import { el, errorText } from './format.js';
import { invoke } from './ipc.js';

/**
 * How long typing must pause before a search is sent (ms): long enough to
 * skip the letters of a word typed at speed, short enough that the
 * results follow the last key within 100 ms on a busy vault.
 */
const PAUSE_MS = 50;
/** How long a found event stays highlighted (ms). */
const HIGHLIGHT_MS = 4000;

const box = document.getElementById('search');
const list = document.getElementById('search-results');
const summary = document.getElementById('search-summary');

/** A day as written (`YYYY-MM-DD`), shown as the locale writes dates. */
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/**
 * A start time as the locale writes it in `zone` on the window's clock, the
 * format made once per zone and clock: making an `Intl.DateTimeFormat` is
 * slow in WebKit, and a keystroke's answer holds up to fifty timed events.
 */
let timeFormat = { key: null, format: null };
function timeFormatIn(zone) {
  const cycle = hourCycle();
  const key = `${zone} ${cycle}`;
  if (timeFormat.key !== key) {
    const options = { dateStyle: 'medium', timeStyle: 'short', timeZone: zone, hourCycle: cycle };
    timeFormat = { key, format: new Intl.DateTimeFormat(undefined, options) };
  }
  return timeFormat.format;
}

/** When `event` is: its day, and its start time in the calendar's zone (on the window's clock) when timed. */
function when(event, zone) {
  if (event.allDay || !event.startMillis) return dayFormat.format(new Date(`${event.date}T00:00:00Z`));
  return timeFormatIn(zone).format(new Date(event.startMillis));
}

/**
 * Goes to `event`'s day in the day view (where a busy day's events are all
 * drawn, unlike a month cell's three) and highlights and focuses it once
 * FullCalendar has drawn it.
 */
export function goToEvent(calendar, event) {
  const id = shownId(event);
  const selector = `.fc-event[data-event-id="${CSS.escape(id)}"]`;
  const highlight = () => {
    const found = calendar.el.querySelector(selector);
    if (!found) return false;
    document.querySelectorAll('.almanac-found').forEach((old) => old.classList.remove('almanac-found'));
    found.classList.add('almanac-found');
    found.focus({ preventScroll: false });
    found.scrollIntoView({ block: 'nearest' });
    setTimeout(() => found.classList.remove('almanac-found'), HIGHLIGHT_MS);
    return true;
  };
  const observer = new MutationObserver(() => highlight() && observer.disconnect());
  observer.observe(calendar.el, { childList: true, subtree: true });
  // A day with nothing left to draw never calls back: stop watching.
  setTimeout(() => observer.disconnect(), HIGHLIGHT_MS);
  calendar.changeView('timeGridDay', event.instanceDate ?? event.date);
  if (highlight()) observer.disconnect();
}

function resultRow(calendar, event) {
  const go = () => goToEvent(calendar, event);
  return el(
    'li',
    {},
    el(
      'button',
      { type: 'button', class: 'search-hit', onclick: go, dataset: { eventId: shownId(event) } },
      el('span', { class: 'search-title' }, event.title),
      el('span', { class: 'search-when muted' }, `${when(event, calendar.getOption('timeZone'))} · ${event.calendarName}`),
    ),
  );
}

/** Wires the search box to `calendar` (a FullCalendar `Calendar`). */
export function setupSearch(calendar) {
  let asked = 0;
  let timer = null;
  let shown = [];

  async function search(text) {
    const mine = ++asked;
    try {
      const found = await invoke('calendar_search', { text });
      if (mine !== asked) return;
      shown = found.events;
      list.replaceChildren(...shown.map((event) => resultRow(calendar, event)));
      summary.textContent = !text.trim()
        ? ''
        : !shown.length
          ? 'No events match.'
          : found.reachDays < 366
            ? `Many events match: these are within ${found.reachDays} days of today. Type more to narrow.`
            : found.more
              ? `The first ${shown.length}: type more to narrow.`
              : '';
    } catch (refused) {
      if (mine !== asked) return;
      shown = [];
      list.replaceChildren();
      summary.textContent = errorText(refused);
    }
    document.body.dataset.searched = text;
  }

  box.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => search(box.value), PAUSE_MS);
  });
  box.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && shown.length) {
      e.preventDefault();
      goToEvent(calendar, shown[0]);
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      list.querySelector('button')?.focus();
    } else if (e.key === 'Escape' && box.value) {
      // Esc first empties the box, then (a second time) leaves it.
      e.preventDefault();
      box.value = '';
      search('');
    } else if (e.key === 'Escape') {
      box.blur();
    }
  });
  // Up and down move through the results as through a list.
  list.addEventListener('keydown', (e) => {
    const items = [...list.querySelectorAll('button')];
    const at = items.indexOf(document.activeElement);
    if (at < 0) return;
    if (e.key === 'ArrowDown') items[Math.min(at + 1, items.length - 1)].focus();
    else if (e.key === 'ArrowUp') (at ? items[at - 1] : box).focus();
    else return;
    e.preventDefault();
  });
  // Ctrl+F is the browser's find, which a Tauri window does not have.
  document.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'f') {
      e.preventDefault();
      focusSearch();
    }
  });
}

/** Puts the caret in the search box, its text selected. */
export function focusSearch() {
  box.focus();
  box.select();
}
