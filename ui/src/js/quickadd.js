// Quick-add: one line such as "Lunch tomorrow 12:30" read as a new event's
// fields, in the user's display zone. chrono-node (English) finds the date
// and time; what is left of the line is the title.
//
// - a time ("tomorrow 12:30", "friday 9am") makes a timed event of one hour;
// - a time range ("14:00-15:30 tomorrow") sets the end;
// - a date alone ("next monday", "Dec 3") makes an all-day event, and a date
//   range ("Dec 3 - Dec 5") a multi-day one.
// Dates never fall in the past: "friday" is the coming Friday.

import * as chrono from 'chrono-node/en';
import { DateTime } from 'luxon';

/** What a user can type; shown in the field's placeholder and in errors. */
export const EXAMPLE = 'Lunch tomorrow 12:30';

/** Words that joined the title to the date ("Lunch at 12:30") and end no title. */
const CONNECTORS = /\s+(at|on|from|by|for)$/i;

/** A line quick-add cannot read; `message` is shown next to the field. */
export class QuickAddError extends Error {}

/**
 * The event `text` describes, as `{ fields, start, end }`: `fields` for the
 * engine (`title`, `date`, `allDay`, `startTime`, `endTime`, `endDate`, as
 * wall times in `zone`), `start`/`end` as luxon DateTimes for a preview.
 * Throws [`QuickAddError`] when the line has no date or no title.
 */
export function parseQuickAdd(text, zone, now = DateTime.now()) {
  const line = text.trim().replace(/\s+/g, ' ');
  if (!line) throw new QuickAddError(`Type what and when, e.g. “${EXAMPLE}”.`);
  const today = now.setZone(zone);
  // chrono reads the reference's local fields: hand it the display zone's
  // wall clock, so "tomorrow" is tomorrow there, whatever the machine's zone.
  const reference = new Date(today.year, today.month - 1, today.day, today.hour, today.minute);
  const [found] = chrono.parse(line, reference, { forwardDate: true });
  if (!found) throw new QuickAddError(`No date or time in “${line}”; try e.g. “${EXAMPLE}”.`);

  const title = (line.slice(0, found.index) + line.slice(found.index + found.text.length))
    .replace(/\s+/g, ' ')
    .trim()
    .replace(CONNECTORS, '')
    .replace(/^(at|on)\s+/i, '');
  if (!title) throw new QuickAddError(`Add a title before or after “${found.text}”.`);

  const timed = found.start.isCertain('hour');
  const start = wallTime(found.start, zone, timed);
  let end = found.end ? wallTime(found.end, zone, timed) : null;
  if (end && end <= start && timed) {
    throw new QuickAddError(`“${found.text}” ends before it starts.`);
  }
  if (timed) {
    end = end ?? start.plus({ hours: 1 });
    const fields = { title, allDay: false, date: start.toISODate(), startTime: start.toFormat('HH:mm'), endTime: end.toFormat('HH:mm') };
    if (end.toISODate() !== start.toISODate()) fields.endDate = end.toISODate();
    return { fields, start, end };
  }
  const fields = { title, allDay: true, date: start.toISODate() };
  if (end && end.toISODate() > start.toISODate()) fields.endDate = end.toISODate();
  return { fields, start, end };
}

/** chrono's parsed fields as a wall time in `zone` (midnight when untimed). */
function wallTime(components, zone, timed) {
  const wanted = {
    year: components.get('year'),
    month: components.get('month'),
    day: components.get('day'),
    hour: timed ? components.get('hour') : 0,
    minute: timed ? components.get('minute') : 0,
  };
  const time = DateTime.fromObject(wanted, { zone });
  // Luxon moves a time in a DST gap forward; the user asked for one that
  // does not exist there.
  if (!time.isValid || time.hour !== wanted.hour || time.minute !== wanted.minute) {
    throw new QuickAddError(
      `${String(wanted.hour).padStart(2, '0')}:${String(wanted.minute).padStart(2, '0')} does not exist in ${zone} on ${time.toISODate() ?? 'that day'} (the clocks change).`,
    );
  }
  return time;
}
