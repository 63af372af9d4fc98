// The sidebar's mini-month: the month around the day the calendar shows,
// browsed on its own with ‹ and ›; a click on a day takes the calendar
// there in its current view. Days holding events of the calendars shown
// are marked: the engine counts them (`calendar_events_per_day` with no
// event kept per day, so it builds no event), and a change in the vault
// or in the calendars shown marks them again. Week numbers (ISO 8601)
// are a display choice of this window, kept with its state (window_state.js).
//
// The grid's days are dates, so they are Luxon dates in UTC: in a named
// zone Luxon works the offset out through `Intl` at every date it makes,
// slow in WebKit (see zone.js), some hundred times a redraw. Only today
// and the counts' bounds are asked in the calendar's zone.

import { DateTime } from 'luxon';

import { shownCalendarIds } from './events.js';
import { el } from './format.js';
import { invoke, listen } from './ipc.js';
import { saveWindowState, windowState } from './window_state.js';

const root = document.getElementById('mini-month');
const title = document.getElementById('mini-title');
const grid = document.getElementById('mini-grid');
const weekNumbers = document.getElementById('week-numbers');

/** Monday…Sunday as Luxon numbers them (1–7) → FullCalendar's 0 = Sunday. */
const fcDay = (luxonWeekday) => luxonWeekday % 7;

/** A `YYYY-MM-DD` day as a date (see the top of this file). */
const dateOf = (iso) => DateTime.fromISO(iso, { zone: 'utc' });

/**
 * Runs `work` once the frame being prepared is on screen. The next
 * animation frame comes only when that frame has been painted (a timer
 * set from the first one ran while a software-rendered WebKit was still
 * painting the calendar's new month, and competed with it for the CPU:
 * BENCHMARKS.md, "Calendar window"), so the mini-month is drawn again
 * in the frame after the calendar's new month is shown.
 */
const afterPaint = (work) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(work)));

/** Wires the mini-month to `calendar` (FullCalendar), whose options give the zone and the week's first day. */
export async function setupMiniMonth(calendar) {
  const zone = () => calendar.getOption('timeZone');
  let month = dateOf(document.body.dataset.current ?? DateTime.now().toISODate()).startOf('month');
  let drawn = 0;
  /** What the grid was last drawn for: a step that changes none of it draws nothing. */
  let drawnFor = null;

  weekNumbers.checked = (await windowState()).weekNumbers;
  weekNumbers.addEventListener('change', () => {
    saveWindowState({ weekNumbers: weekNumbers.checked });
    calendar.setOption('weekNumbers', weekNumbers.checked);
    draw();
  });
  calendar.setOption('weekNumbers', weekNumbers.checked);

  /** The grid's days: the month's own weeks from the week's first day. */
  function days() {
    const firstDay = calendar.getOption('firstDay') ?? 0;
    const start = month.minus({ days: (fcDay(month.weekday) - firstDay + 7) % 7 });
    const end = month.endOf('month');
    const count = Math.ceil((end.diff(start, 'days').days + 1) / 7) * 7;
    return Array.from({ length: count }, (_, i) => start.plus({ days: i }));
  }

  async function draw() {
    const mine = ++drawn;
    const shown = days();
    const today = DateTime.now().setZone(zone()).toISODate();
    const current = document.body.dataset.current;
    drawnFor = drawKey();
    title.textContent = month.toLocaleString({ month: 'long', year: 'numeric' });
    const head = el('tr', {});
    if (weekNumbers.checked) head.append(el('th', { scope: 'col', class: 'mini-week', title: 'Week' }, 'Wk'));
    for (const day of shown.slice(0, 7)) {
      head.append(el('th', { scope: 'col', title: day.toLocaleString({ weekday: 'long' }) }, day.toLocaleString({ weekday: 'narrow' })));
    }
    const rows = [];
    for (let week = 0; week < shown.length; week += 7) {
      const row = el('tr', {});
      // The week number of the week's Thursday (ISO 8601), whatever day starts the row.
      const thursday = shown.slice(week, week + 7).find((day) => day.weekday === 4);
      if (weekNumbers.checked) row.append(el('td', { class: 'mini-week muted' }, String(thursday.weekNumber)));
      for (const day of shown.slice(week, week + 7)) {
        const date = day.toISODate();
        const classes = [
          day.month !== month.month ? 'mini-other' : '',
          date === today ? 'mini-today' : '',
          date === current ? 'mini-current' : '',
        ].filter(Boolean);
        row.append(
          el(
            'td',
            {},
            el(
              'button',
              {
                type: 'button',
                class: classes.join(' '),
                dataset: { date },
                'aria-label': day.toLocaleString(DateTime.DATE_HUGE),
                onclick: () => calendar.gotoDate(date),
              },
              String(day.day),
            ),
          ),
        );
      }
      rows.push(row);
    }
    grid.replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows));
    // One tab stop (the day shown, today, or the 1st); arrows move from it,
    // so Tab passes the grid on its way to the calendar's events.
    const buttons = [...grid.querySelectorAll('button[data-date]')];
    const stop = buttons.find((b) => b.dataset.date === current) ?? buttons.find((b) => b.dataset.date === today) ?? buttons.find((b) => !b.classList.contains('mini-other'));
    for (const button of buttons) button.tabIndex = button === stop ? 0 : -1;
    root.dataset.month = month.toFormat('yyyy-MM');
    try {
      const counted = await invoke('calendar_events_per_day', {
        start: DateTime.fromISO(shown[0].toISODate(), { zone: zone() }).toMillis(),
        end: DateTime.fromISO(shown[shown.length - 1].toISODate(), { zone: zone() }).endOf('day').toMillis(),
        perDay: 0,
        calendars: shownCalendarIds(),
      });
      if (mine !== drawn) return;
      const busy = new Set(counted.more.map((day) => day.date));
      for (const button of grid.querySelectorAll('button[data-date]')) {
        const marked = busy.has(button.dataset.date);
        button.classList.toggle('mini-busy', marked);
        if (marked) button.setAttribute('aria-description', 'has events');
      }
    } catch {
      // Unmarked days are still days to go to; the calendar shows the error.
    }
  }

  grid.addEventListener('keydown', (e) => {
    const steps = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 };
    const buttons = [...grid.querySelectorAll('button[data-date]')];
    const at = buttons.indexOf(document.activeElement);
    if (!(e.key in steps) || at < 0) return;
    e.preventDefault();
    const next = buttons[Math.min(Math.max(at + steps[e.key], 0), buttons.length - 1)];
    buttons[at].tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });
  document.getElementById('mini-prev').addEventListener('click', () => {
    month = month.minus({ months: 1 });
    draw();
  });
  document.getElementById('mini-next').addEventListener('click', () => {
    month = month.plus({ months: 1 });
    draw();
  });
  /** The month drawn, the day marked, the day and the zone it is today, and the grid's options. */
  function drawKey() {
    const today = DateTime.now().setZone(zone()).toISODate();
    return [month.toISODate(), document.body.dataset.current, today, calendar.getOption('firstDay'), weekNumbers.checked].join(' ');
  }

  // The calendar moved: show its month, and mark the day it is on. After
  // the calendar's new dates are painted, which a step to the next month
  // waits for; not at all when the mini-month would look the same (the
  // same dates drawn again after an option changed).
  calendar.on('datesSet', (info) => {
    const current = dateOf(calendar.formatIso(info.view.currentStart, true)).startOf('month');
    if (!current.hasSame(month, 'month')) month = current;
    afterPaint(() => drawKey() !== drawnFor && draw());
  });
  document.addEventListener('almanac:calendars-shown', () => draw());
  await listen('calendar-changed', () => draw());
  await draw();
}
