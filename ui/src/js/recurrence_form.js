// The Repeat part of the event dialog. It translates between the dialog's
// controls and the Full Calendar plugin's frontmatter keys the engine reads:
// `type`, `daysOfWeek` (U M T W R F S), `repeatInterval`, `dayOfMonth`,
// `month`, `repeatOn` ({week, weekday}), `rrule`, `startRecur`, `endRecur`
// and `startDate`.

const DAY_LETTERS = ['U', 'M', 'T', 'W', 'R', 'F', 'S'];
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July',
  'August', 'September', 'October', 'November', 'December'];
const UNITS = { weekly: 'weeks', 'monthly-day': 'months', 'monthly-weekday': 'months', yearly: 'years' };

/** Every key this form writes: a kind that does not use one sends `null`. */
const RECURRENCE_KEYS = ['daysOfWeek', 'repeatInterval', 'dayOfMonth', 'month', 'repeatOn',
  'rrule', 'startRecur', 'endRecur', 'startDate'];

const $ = (id) => document.getElementById(id);

function option(value, text) {
  const element = document.createElement('option');
  element.value = String(value);
  element.textContent = text;
  return element;
}

/** Builds the day checkboxes and the month and weekday lists; shows the part of the kind chosen. */
export function setupRecurrence(firstDay) {
  const days = $('ev-days');
  for (let i = 0; i < 7; i += 1) {
    const day = (firstDay + i) % 7;
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.name = 'ev-dow';
    box.value = DAY_LETTERS[day];
    box.setAttribute('aria-label', DAY_NAMES[day]);
    label.append(box, DAY_NAMES[day].slice(0, 3));
    days.append(label);
  }
  MONTH_NAMES.forEach((name, i) => $('ev-month').append(option(i + 1, name)));
  DAY_NAMES.forEach((name, i) => $('ev-weekday').append(option(i, name)));
  $('ev-repeat').addEventListener('change', showKind);
}

function showKind() {
  const kind = $('ev-repeat').value;
  $('ev-recurrence').hidden = kind === 'none';
  for (const part of document.querySelectorAll('#ev-recurrence [data-repeat]')) {
    part.hidden = !part.dataset.repeat.split(' ').includes(kind);
  }
  $('ev-interval-unit').textContent = UNITS[kind] ?? '';
  $('ev-date-label').textContent = kind === 'none' ? 'Date' : 'Starts';
  // A series' occurrences last one day; only a one-off event spans days.
  for (const part of document.querySelectorAll('#event-dialog .ev-once')) part.hidden = kind !== 'none';
}

/** The kind of repetition an engine event has, as the Repeat list names it. */
export function repeatKind(event) {
  if (event.type === 'rrule') return 'rrule';
  if (event.type !== 'recurring') return 'none';
  if (event.daysOfWeek?.length) return 'weekly';
  if (event.repeatOn) return 'monthly-weekday';
  if (event.month) return 'yearly';
  return 'monthly-day';
}

/** The controls for `event`, with defaults taken from `date` (YYYY-MM-DD) where it has none. */
export function fillRecurrence(event, date) {
  const [y, m, d] = date.split('-').map(Number);
  const weekday = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  const kind = repeatKind(event);
  $('ev-repeat').value = kind;
  const days = event.daysOfWeek?.length ? event.daysOfWeek : [DAY_LETTERS[weekday]];
  for (const box of document.getElementsByName('ev-dow')) box.checked = days.includes(box.value);
  $('ev-interval').value = String(event.repeatInterval ?? 1);
  $('ev-day-of-month').value = String(event.dayOfMonth ?? d);
  $('ev-month').value = String(event.month ?? m);
  $('ev-week').value = String(event.repeatOn?.week ?? Math.min(Math.ceil(d / 7), 4));
  $('ev-weekday').value = String(event.repeatOn?.weekday ?? weekday);
  $('ev-rrule').value = event.rrule ?? '';
  $('ev-end-recur').value = event.endRecur ?? '';
  showKind();
}

/** A number control's value: a number, `null` when empty, or the text itself for the engine to refuse. */
function number(id) {
  const text = $(id).value.trim();
  if (text === '') return null;
  const value = Number(text);
  return Number.isInteger(value) ? value : text;
}

/**
 * The recurrence keys for a series starting on `date`: every key of
 * RECURRENCE_KEYS, `null` where the chosen kind does not use it, and `type`.
 * `null` for a one-off event.
 */
export function readRecurrence(date) {
  const kind = $('ev-repeat').value;
  if (kind === 'none') return null;
  const fields = Object.fromEntries(RECURRENCE_KEYS.map((key) => [key, null]));
  if (kind === 'rrule') {
    return { ...fields, type: 'rrule', rrule: $('ev-rrule').value.trim(), startDate: date };
  }
  const interval = number('ev-interval');
  Object.assign(fields, {
    type: 'recurring',
    startRecur: date,
    endRecur: $('ev-end-recur').value || null,
    // Every 1 is the default: a note does not need to say it.
    repeatInterval: interval === 1 ? null : interval,
  });
  if (kind === 'weekly') {
    // In the engine's order (Sunday first), whatever the week's first day.
    fields.daysOfWeek = DAY_LETTERS.filter((letter) =>
      [...document.getElementsByName('ev-dow')].some((b) => b.checked && b.value === letter));
  } else if (kind === 'monthly-weekday') {
    fields.repeatOn = { week: Number($('ev-week').value), weekday: Number($('ev-weekday').value) };
  } else {
    fields.dayOfMonth = number('ev-day-of-month');
    if (kind === 'yearly') fields.month = Number($('ev-month').value);
  }
  return fields;
}

/** The keys a one-off event sends to drop any recurrence it had. */
export function noRecurrence() {
  return { type: 'single', ...Object.fromEntries(RECURRENCE_KEYS.map((key) => [key, null])) };
}

/** `fields` without the keys that say how an event repeats (one occurrence's own fields). */
export function withoutRecurrence(fields) {
  return Object.fromEntries(Object.entries(fields).filter(([key]) => key !== 'type' && !RECURRENCE_KEYS.includes(key)));
}
