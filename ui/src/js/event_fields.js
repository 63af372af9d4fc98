// Small helpers over the engine's event fields, shared by the dialog and by
// dragging in the calendar.

/** A task: an event with `completed` (false when open). */
export const isTask = (event) => event?.completed !== undefined && event?.completed !== null;

/** A done task: `completed` is true or a date. */
export const isDone = (event) => isTask(event) && event.completed !== false;

/** `fields` without its `null` values (on create, absent and unset are the same). */
export function withoutNulls(fields) {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null));
}

/**
 * The keys of `fields` whose value differs from the engine event's, so an
 * update rewrites only what changed and the note keeps every other byte.
 */
export function changedFrom(event, fields) {
  const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  return Object.fromEntries(Object.entries(fields).filter(([key, v]) => !same(event[key], v)));
}

/** The id FullCalendar knows engine event `event` by: an occurrence's carries its date. */
export const shownId = (event) => (event.instanceDate ? `${event.id}#${event.instanceDate}` : event.id);

/**
 * Says that the event FullCalendar knew as `from` is now `to` (a rename, a
 * move, an occurrence replaced), so the calendar keeps its focus on it.
 */
export function followRename(from, to) {
  document.dispatchEvent(new CustomEvent('almanac:event-renamed', { detail: { from, to } }));
}

/**
 * Says that the event FullCalendar knew as `id` was deleted (and with it
 * every occurrence of `series`, when a whole series went), so the calendar
 * hands its focus to a neighbour instead of letting it fall to the page.
 */
export function followDelete(id, series = null) {
  document.dispatchEvent(new CustomEvent('almanac:event-deleted', { detail: { id, series } }));
}
