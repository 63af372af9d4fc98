// The clock the calendar window writes times with: the `timeFormat24h`
// setting (its default is the system locale's clock, decided by the core).
// On a 24-hour clock every time is "09:30"; on a 12-hour one FullCalendar
// keeps its own formats ("9:30a" in a grid, "9am" on the time axis).

let twentyFour = false;

/** Whether times are written on a 24-hour clock. */
export const uses24h = () => twentyFour;

/** The `hourCycle` of an `Intl.DateTimeFormat` on the window's clock. */
export const hourCycle = () => (twentyFour ? 'h23' : 'h12');

/**
 * FullCalendar's time formats for `timeFormat24h`; null leaves a view its
 * own default.
 */
function formats(is24h) {
  const time = is24h ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } : null;
  return { eventTimeFormat: time, slotLabelFormat: time };
}

/** The options a new calendar starts with. */
export function clockOptions(settings) {
  twentyFour = Boolean(settings.timeFormat24h);
  return formats(twentyFour);
}

/** Switches `calendar` to `settings`' clock, if it changed. */
export function followClock(calendar, settings) {
  const is24h = Boolean(settings.timeFormat24h);
  if (is24h === twentyFour) return;
  twentyFour = is24h;
  for (const [name, value] of Object.entries(formats(is24h))) calendar.setOption(name, value);
}
