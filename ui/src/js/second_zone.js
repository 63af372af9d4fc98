// A second time zone beside the first on the week and day views' time
// axis, for people who work across zones (FullCalendar draws one zone:
// the label hook adds the other). Chosen in the sidebar, kept with the
// window's state. A week in which the two zones' difference changes
// (a daylight-saving change in one of them) shows both of its times,
// the week's first day's and last day's, so every day's label is right.

import { DateTime } from 'luxon';

import { hourCycle } from './clock.js';
import { el } from './format.js';
import { saveWindowState, windowState } from './window_state.js';

const input = document.getElementById('second-zone');
const error = document.getElementById('second-zone-error');

/** `name` if this WebKit knows the zone. */
function known(name) {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * The second zone's time when it is `ms` after midnight (a slot's wall
 * time) on `date` (`YYYY-MM-DD`) in `shown`, the calendar's zone.
 */
function timeIn(zone, shown, date, ms) {
  const minutes = Math.round(ms / 60_000);
  const wall = DateTime.fromISO(date, { zone: shown }).set({ hour: Math.floor(minutes / 60), minute: minutes % 60 });
  return wall.setZone(zone).toLocaleString({ ...DateTime.TIME_SIMPLE, hourCycle: hourCycle() });
}

/** Wires the choice to `calendar` (FullCalendar) and draws the labels. */
export async function setupSecondZone(calendar) {
  let zone = (await windowState()).secondZone ?? null;
  input.value = zone ?? '';

  const label = (arg) => {
    if (!zone || !arg.view.type.startsWith('timeGrid')) return arg.text;
    // The label's date is no day of the view (FullCalendar draws one axis
    // for all of them): the slot's time on the view's first and last day.
    const shown = calendar.getOption('timeZone');
    const firstDay = calendar.formatIso(arg.view.activeStart, true);
    const lastDay = calendar.formatIso(new Date(arg.view.activeEnd.valueOf() - 1), true);
    const first = timeIn(zone, shown, firstDay, arg.time.milliseconds);
    const last = timeIn(zone, shown, lastDay, arg.time.milliseconds);
    return {
      domNodes: [
        el('span', { class: 'zone-first' }, arg.text),
        el('span', { class: 'zone-second', title: zone }, first === last ? first : `${first} / ${last}`),
      ],
    };
  };
  // A new function each time: FullCalendar redraws the labels only when
  // the option changes.
  calendar.setOption('slotLabelContent', (arg) => label(arg));
  // FullCalendar keeps the axis when the dates change, but the second
  // zone's times depend on the dates: draw the labels again.
  let drawnFor = null;
  calendar.on('datesSet', (info) => {
    const range = `${info.view.type}:${info.startStr}`;
    if (!zone || !info.view.type.startsWith('timeGrid') || range === drawnFor) return;
    drawnFor = range;
    calendar.setOption('slotLabelContent', (arg) => label(arg));
  });

  input.addEventListener('change', () => {
    const name = input.value.trim();
    if (name && !known(name)) {
      error.textContent = `“${name}” is no time zone this window knows.`;
      return;
    }
    error.textContent = '';
    zone = name || null;
    saveWindowState({ secondZone: zone });
    document.body.dataset.secondZone = zone ?? '';
    calendar.setOption('slotLabelContent', (arg) => label(arg));
  });
  document.body.dataset.secondZone = zone ?? '';
}
