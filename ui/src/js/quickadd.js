// Quick-add: one line such as "Lunch tomorrow 12:30" read as a new event by
// the core's grammar (docs/quick-add.md), the same one REST, the command line
// and MCP use, in the settings' display zone. The page only sends the line
// and shows what the core answered.

import { DateTime } from 'luxon';

import { invoke } from './ipc.js';

/** What a user can type; shown in the field's placeholder. */
export const EXAMPLE = 'Lunch tomorrow 12:30';

/**
 * The event `text` describes, not written: `{ calendarId, event }`, `event`
 * in `POST /events`'s field shape. Rejects with the core's reason when the
 * line cannot be read.
 */
export function readQuickAdd(text, calendarId) {
  return invoke('event_quick_add', { text, calendarId: calendarId || null, dryRun: true });
}

/** Creates the event `text` describes: `{ calendarId, event, created }`. */
export function quickAdd(text, calendarId) {
  return invoke('event_quick_add', { text, calendarId: calendarId || null, dryRun: false });
}

const DAY = { weekday: 'short', month: 'short', day: 'numeric' };
const LETTERS = { U: 'Sun', M: 'Mon', T: 'Tue', W: 'Wed', R: 'Thu', F: 'Fri', S: 'Sat' };

const day = (iso) => DateTime.fromISO(iso).toLocaleString(DAY);

/** How a series repeats, in words: "every Mon, Wed", "every 2 weeks on Fri". */
function repeats(event) {
  if (event.rrule) {
    const days = /INTERVAL=(\d+)/.exec(event.rrule)?.[1];
    return days ? `every ${days} days` : 'repeating';
  }
  const every = (unit, plain) => (event.repeatInterval > 1 ? `every ${event.repeatInterval} ${unit}s` : plain);
  const days = event.daysOfWeek ?? [];
  if (days.length === 7 && !(event.repeatInterval > 1)) return 'every day';
  if (days.length) return `${every('week', 'every')} ${event.repeatInterval > 1 ? 'on ' : ''}${days.map((d) => LETTERS[d]).join(', ')}`;
  if (event.month) return every('year', 'every year');
  return every('month', 'every month');
}

/** "Lunch: Tue, Nov 24, 12:30 – 13:30" under the field while typing. */
export function describe({ event }) {
  const hours = event.allDay ? 'all day' : `${event.startTime} – ${event.endTime}`;
  if (event.type === 'single') {
    const last = event.endDate ? ` – ${day(event.endDate)}` : '';
    if (event.allDay) return `${event.title}: ${day(event.date)}${last}, all day`;
    if (event.endDate) return `${event.title}: ${day(event.date)}, ${event.startTime}${last}, ${event.endTime}`;
    return `${event.title}: ${day(event.date)}, ${hours}`;
  }
  const first = event.startRecur ?? event.startDate;
  const until = event.endRecur ? ` until ${day(event.endRecur)}` : '';
  return `${event.title}: ${repeats(event)} from ${day(first)}${until}, ${hours}`;
}
