// Editing in the calendar window: select a range (or click a day) to create,
// click an event to open it, drag to move, resize to change the end, tick a
// task's box, and the keys for all of it (Enter opens a focused event,
// Delete asks to delete it). Writes go through the shell's editing commands.

import interactionPlugin from '@fullcalendar/interaction';
import { DateTime } from 'luxon';

import { detachOccurrence, openDelete, openEvent, openNew } from './event_dialog.js';
import { changedFrom, followRename, isDone, isTask, withoutNulls } from './event_fields.js';
import { showDone, showHint } from './edit_notice.js';
import { invoke } from './ipc.js';

export { interactionPlugin };

const engineEvent = (fcEvent) => fcEvent.extendedProps.event;
const messageOf = (error) => error?.message ?? String(error);

/** `YYYY-MM-DD` minus one day (FullCalendar's all-day ends are exclusive). */
function previousDay(date) {
  return DateTime.fromISO(date, { zone: 'utc' }).minus({ days: 1 }).toISODate();
}

/**
 * The date and time keys of an event FullCalendar moved or resized, as the
 * note writes them: wall times in the event's own zone (or else `zone`).
 */
function placedFields(fcEvent, event, zone) {
  if (fcEvent.allDay) {
    const date = fcEvent.startStr.slice(0, 10);
    const last = fcEvent.endStr ? previousDay(fcEvent.endStr.slice(0, 10)) : date;
    return { allDay: true, date, endDate: last > date ? last : null, startTime: null, endTime: null };
  }
  // `startStr` carries its offset, so it is one instant whatever the zones.
  const wall = (iso) => DateTime.fromISO(iso, { setZone: true }).setZone(event.timezone ?? zone);
  const start = wall(fcEvent.startStr);
  const fields = { allDay: false, date: start.toISODate(), startTime: start.toFormat('HH:mm') };
  if (fcEvent.end) {
    const end = wall(fcEvent.endStr);
    fields.endTime = end.toFormat('HH:mm');
    fields.endDate = end.toISODate() > fields.date ? end.toISODate() : null;
  }
  return fields;
}

/** The fields of the single event that stands in for one occurrence of a series. */
function occurrenceFields(event) {
  const keys = ['title', 'allDay', 'startTime', 'endTime', 'timezone', 'category', 'description', 'url', 'location', 'notify'];
  return withoutNulls({ ...Object.fromEntries(keys.map((k) => [k, event[k] ?? null])), date: event.instanceDate });
}

/**
 * Ticks (`done`) or unticks the task `event`. An occurrence of a series is
 * ticked as Full Calendar does it: a done single event takes its place and
 * the series skips that date; unticking that single event gives the date
 * back to the series.
 */
async function setDone(event, done) {
  if (event.type !== 'single') {
    if (done) await detachOccurrence(event, event.calendarId, { ...occurrenceFields(event), completed: true });
    return;
  }
  const series = done ? null : await invoke('event_replaced_series', { id: event.id });
  if (!series) {
    await invoke('event_update', { id: event.id, fields: { completed: done } });
    return;
  }
  // The series first: a failure in between shows the date twice, never not at all.
  const skipDates = series.skipDates.filter((date) => date !== event.date);
  await invoke('event_update', { id: series.id, fields: { skipDates } });
  await invoke('event_delete', { id: event.id, options: {} });
  followRename(event.id, `${series.id}#${event.date}`);
}

/** The id of the event that had the keyboard focus in the calendar, if any. */
let focusedId = null;
/**
 * Old id → new id of the events renamed (or the neighbour of one deleted),
 * so a focus handed back to an old element follows.
 */
const renamed = new Map();
document.addEventListener('focusin', (e) => {
  // Focus in the dialog (outside the calendar) keeps the place to come back to.
  if (!e.target.closest?.('.fc')) return;
  const id = e.target.closest('.fc-event')?.dataset.eventId ?? null;
  focusedId = renamed.has(id) ? renamed.get(id) : id;
});
document.addEventListener('almanac:event-renamed', ({ detail }) => {
  renamed.set(detail.from, detail.to);
  if (focusedId === detail.from) focusedId = detail.to;
});
/**
 * When the focused event is deleted, the focus goes to the event after it
 * in the calendar (or else the one before), skipping what went with it.
 */
document.addEventListener('almanac:event-deleted', ({ detail }) => {
  const gone = (id) => id === detail.id || (detail.series !== null && id.startsWith(`${detail.series}#`));
  if (!focusedId || !gone(focusedId)) return;
  const ids = [...document.querySelectorAll('.fc-event[data-event-id]')].map((el) => el.dataset.eventId);
  const at = ids.indexOf(focusedId);
  const after = ids.slice(at + 1).find((id) => !gone(id));
  const before = ids.slice(0, Math.max(at, 0)).reverse().find((id) => !gone(id));
  // The dialog hands focus back to the deleted event's element while it is
  // still drawn: that focus means its neighbour.
  renamed.set(focusedId, after ?? before ?? null);
  focusedId = after ?? before ?? null;
});

/**
 * A redraw (after a save, or a change in the vault) replaces the focused
 * event's element, and focus falls back to the page: give it to the event's
 * new element, so a keyboard user keeps their place. Runs after the frame,
 * once the old element is gone.
 */
function restoreFocus() {
  requestAnimationFrame(() => {
    if (!focusedId || !focusLost()) return;
    document.querySelector(`.fc-event[data-event-id="${CSS.escape(focusedId)}"]`)?.focus({ preventScroll: true });
  });
}

/**
 * Whether the keyboard focus is nowhere a user can use it: on the page, on
 * an element already removed or in a closed dialog (the dialog hands focus
 * back to the element that opened it, which a redraw may have replaced
 * first), or on an event still drawn under the id it no longer has.
 */
function focusLost() {
  const active = document.activeElement;
  if (!active || active === document.body || !active.isConnected) return true;
  if (active.closest('dialog:not([open])')) return true;
  const event = active.closest('.fc-event');
  return Boolean(event && renamed.has(event.dataset.eventId));
}
// Closing the dialog hands focus back to the element that opened it, which a
// redraw may have replaced meanwhile.
document.getElementById('event-dialog').addEventListener('close', restoreFocus);

/**
 * FullCalendar options for editing. `sources()` gives the current calendars
 * (id → SourceInfo): feeds are read-only, and a series moves through its
 * dialog (one occurrence or all of them), not by dragging.
 */
export function editingOptions(sources) {
  const editable = (event) => sources().get(event.calendarId)?.editable ?? false;
  const movable = (event) => editable(event) && event.type === 'single';
  const refusal = (event) => (editable(event)
    ? `“${event.title}” repeats: open it to move this occurrence or the whole series.`
    : `“${event.title}” comes from a read-only calendar (a feed): it cannot be moved.`);

  /** Writes a drag (`did`: "Moved") or a resize ("Resized") and offers to undo it. */
  const place = (did) => async (info) => {
    const event = engineEvent(info.event);
    const zone = info.view.calendar.getOption('timeZone');
    const fields = changedFrom(event, placedFields(info.event, event, zone));
    if (!Object.keys(fields).length) return;
    try {
      await invoke('event_update', { id: event.id, fields });
      showDone(`${did} “${event.title}”.`);
    } catch (error) {
      info.revert();
      showHint(`Could not move “${event.title}”: ${messageOf(error)}`);
    }
  };

  /** Tick or untick a task right on the calendar. */
  function taskBox(event) {
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.className = 'almanac-task';
    box.checked = isDone(event);
    box.disabled = !editable(event);
    box.setAttribute('aria-label', `Done: ${event.title}`);
    // The box is not a click on the event, nor the start of a drag.
    for (const type of ['click', 'pointerdown', 'mousedown', 'keydown']) {
      box.addEventListener(type, (e) => e.stopPropagation());
    }
    box.addEventListener('change', async () => {
      try {
        await setDone(event, box.checked);
        showHint('');
      } catch (error) {
        box.checked = !box.checked;
        showHint(`Could not update “${event.title}”: ${messageOf(error)}`);
      }
    });
    return box;
  }

  /**
   * A drag on an event that cannot move says why instead of doing nothing.
   * One listener for the whole page, not one per event: a month of a busy
   * vault draws over a hundred events at each step (BENCHMARKS.md).
   */
  const refusals = new WeakMap();
  document.addEventListener('pointerdown', (down) => {
    const el = down.target.closest?.('.fc-event');
    const refused = el && refusals.get(el);
    if (!refused) return;
    const moved = (move) => {
      if (Math.hypot(move.clientX - down.clientX, move.clientY - down.clientY) > 4) {
        showHint(refused);
        stop();
      }
    };
    const stop = () => {
      document.removeEventListener('pointermove', moved);
      document.removeEventListener('pointerup', stop);
    };
    document.addEventListener('pointermove', moved);
    document.addEventListener('pointerup', stop);
  });

  return {
    selectable: true,
    editable: true,
    eventDataTransform(input) {
      const event = input.extendedProps?.event;
      // A day's "+N more" link (events.js) is no engine event: nothing to edit.
      if (!event) return { ...input, editable: false };
      const classNames = [...(input.classNames ?? [])];
      if (!editable(event)) classNames.push('almanac-readonly');
      return { ...input, editable: movable(event), classNames };
    },
    select(info) {
      const calendarId = [...sources().values()].find((s) => s.editable)?.id;
      info.view.calendar.unselect();
      if (info.allDay) {
        const date = info.startStr.slice(0, 10);
        const last = previousDay(info.endStr.slice(0, 10));
        openNew({ calendarId, date, endDate: last > date ? last : null, allDay: true });
      } else {
        const endDate = info.endStr.slice(0, 10);
        openNew({
          calendarId,
          date: info.startStr.slice(0, 10),
          endDate: endDate > info.startStr.slice(0, 10) ? endDate : null,
          startTime: info.startStr.slice(11, 16),
          endTime: info.endStr.slice(11, 16),
          allDay: false,
        });
      }
    },
    eventClick(info) {
      info.jsEvent.preventDefault();
      const event = engineEvent(info.event);
      openEvent(event, !editable(event));
    },
    eventDrop: place('Moved'),
    eventResize: place('Resized'),
    eventDidMount(info) {
      if (!info.event.extendedProps.event) return;
      const event = engineEvent(info.event);
      info.el.dataset.eventId = info.event.id;
      info.el.dataset.title = event.title;
      if (event.instanceDate) info.el.dataset.instanceDate = event.instanceDate;
      if (info.event.id === focusedId) restoreFocus();
      if (!movable(event)) {
        const refused = refusal(event);
        info.el.title = refused;
        info.el.setAttribute('aria-description', refused);
        refusals.set(info.el, refused);
      }
      if (!isTask(event)) return;
      const title = info.el.querySelector('.fc-event-title, .fc-list-event-title');
      if (title) title.prepend(taskBox(event));
    },
  };
}

/** Delete on a focused event asks to delete it (Enter opens it: FullCalendar's own). */
export function deleteByKey(calendar, sources) {
  calendar.el.addEventListener('keydown', (e) => {
    const el = e.target.closest?.('.fc-event');
    if (e.key !== 'Delete' || !el) return;
    const fcEvent = calendar.getEventById(el.dataset.eventId);
    if (!fcEvent?.extendedProps.event) return;
    e.preventDefault();
    const event = engineEvent(fcEvent);
    if (sources().get(event.calendarId)?.editable) {
      openDelete(event);
    } else {
      showHint(`“${event.title}” comes from a read-only calendar (a feed): it cannot be deleted.`);
    }
  });
}

/** The toolbar's "New event" button: an all-day event today in the calendar's zone (`zone()`). */
export function newEventButton(zone, sources) {
  return {
    text: 'New event',
    hint: 'Create an event',
    click() {
      const calendarId = [...sources().values()].find((s) => s.editable)?.id;
      openNew({ calendarId, date: DateTime.now().setZone(zone()).toISODate(), allDay: true });
    },
  };
}
