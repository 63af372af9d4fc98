// The event dialog: "New event" and an existing event, in one form. It writes
// through the shell's editing commands (the engine's rules, the API's
// errors) and shows a refusal next to the field the engine names.

import { changedFrom, followDelete, followRename, isDone, isTask, shownId, withoutNulls } from './event_fields.js';
import { showDone } from './edit_notice.js';
import { invoke } from './ipc.js';
import { fillRecurrence, noRecurrence, readRecurrence, setupRecurrence, withoutRecurrence } from './recurrence_form.js';

const $ = (id) => document.getElementById(id);
const dialog = $('event-dialog');

/** Engine fields whose message shows by another control. */
const SLOT_OF = {
  startDate: 'date',
  startRecur: 'date',
  type: 'repeat',
  isTask: 'form',
  completed: 'form',
  skipDates: 'form',
  instanceDate: 'form',
  id: 'form',
  event: 'form',
};

/** What the dialog shows: a new event (`event` null) or an engine event. */
let shown = { event: null, readOnly: false, sources: [] };

const recurring = (event) => event && event.type !== 'single';
const seriesStart = (event) => event.startRecur ?? event.startDate ?? event.date;
const occurrenceScope = () => recurring(shown.event)
  && document.querySelector('input[name=ev-scope]:checked').value === 'occurrence';
const text = (id) => $(id).value.trim() || null;

function clearErrors() {
  for (const slot of dialog.querySelectorAll('.field-error')) {
    slot.hidden = true;
    slot.textContent = '';
  }
  for (const input of dialog.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  $('ev-status').textContent = '';
}

/** Shows an engine refusal (`{error, message, field}`) by its field and focuses that control. */
function showError(error) {
  const { field, message } = error && typeof error === 'object' ? error : { message: String(error) };
  const slot = $(`err-${SLOT_OF[field] ?? field}`) ?? $('err-form');
  slot.textContent = message;
  slot.hidden = false;
  const control = dialog.querySelector(`[aria-describedby~="${slot.id}"]`);
  if (control) {
    control.setAttribute('aria-invalid', 'true');
    control.focus();
  }
}

function showTimed() {
  const allDay = $('ev-allday').checked;
  for (const part of dialog.querySelectorAll('.ev-timed')) part.hidden = allDay;
  $('ev-done-label').hidden = !$('ev-task').checked;
}

function paintCalendarColor() {
  const source = shown.sources.find((s) => s.id === $('ev-calendar').value);
  dialog.style.setProperty('--event-color', source?.color ?? 'var(--accent)');
}

/** Fills the calendar list: the editable calendars, plus the event's own. */
function fillCalendars(calendarId) {
  const select = $('ev-calendar');
  select.replaceChildren(...shown.sources
    .filter((s) => s.editable || s.id === calendarId)
    .map((s) => {
      const option = document.createElement('option');
      option.value = s.id;
      option.textContent = s.name;
      return option;
    }));
  if (calendarId) select.value = calendarId;
}

/** The date, times and recurrence as the scope shows them. */
function fillWhen(event, scope) {
  const series = scope === 'series';
  const date = series ? seriesStart(event) : (event.instanceDate ?? event.date);
  $('ev-date').value = date ?? '';
  // A series' end is its recurrence's ("Ends on"); a single event's is its last day.
  const lastDay = series && recurring(event) ? null : event.endDate;
  $('ev-end-date').value = !lastDay || lastDay === event.date ? '' : lastDay;
  fillRecurrence(series ? event : {}, date);
  $('ev-repeat').disabled = shown.readOnly || (recurring(event) && !series);
}

function fill(event, readOnly) {
  clearErrors();
  $('ev-heading').textContent = event.id ? 'Edit event' : 'New event';
  $('ev-title').value = event.title ?? '';
  fillCalendars(event.calendarId);
  // Another calendar moves the event there (the engine says what cannot move).
  $('ev-calendar').disabled = readOnly;
  $('ev-allday').checked = event.allDay !== false;
  $('ev-start').value = event.startTime ?? '';
  $('ev-end').value = event.endTime ?? '';
  $('ev-timezone').value = event.timezone ?? '';
  $('ev-task').checked = isTask(event);
  $('ev-done').checked = isDone(event);
  $('ev-notify').value = event.notify?.value ?? '';
  $('ev-scope').hidden = !recurring(event) || !event.instanceDate || readOnly;
  document.querySelector('input[name=ev-scope][value=occurrence]').checked = true;
  $('ev-occurrence').textContent = event.instanceDate ?? '';
  fillWhen(event, recurring(event) && event.instanceDate ? 'occurrence' : 'series');
  $('ev-readonly').hidden = !readOnly;
  for (const control of dialog.querySelectorAll('input, select')) {
    if (control.id !== 'ev-calendar' && control.id !== 'ev-repeat') control.disabled = readOnly;
  }
  for (const button of dialog.querySelectorAll('.ev-existing')) button.hidden = !event.id;
  $('ev-open-note').hidden = !event.filePath;
  $('ev-delete').hidden = !event.id || readOnly;
  $('ev-save').hidden = readOnly;
  hideConfirm();
  showTimed();
  paintCalendarColor();
}

/** The dialog's fields in the engine's keys; `null` where the dialog holds nothing. */
function readForm() {
  const allDay = $('ev-allday').checked;
  const date = text('ev-date');
  const notify = text('ev-notify');
  const fields = {
    title: $('ev-title').value,
    allDay,
    startTime: allDay ? null : text('ev-start'),
    endTime: allDay ? null : text('ev-end'),
    timezone: allDay ? null : text('ev-timezone'),
    notify: notify === null ? null : { value: Number.isFinite(Number(notify)) ? Number(notify) : notify },
  };
  const recurrence = readRecurrence(date);
  return recurrence
    ? { ...fields, ...recurrence }
    : { ...fields, ...noRecurrence(), date, endDate: text('ev-end-date') };
}

/** The task keys: only what changed, as the engine reads them. */
function taskFields(event) {
  const task = $('ev-task').checked;
  const done = task && $('ev-done').checked;
  if (!task) return isTask(event) ? { isTask: false } : {};
  if (isTask(event) && done === isDone(event)) return {};
  return { completed: done };
}

/**
 * "This occurrence" of the series `event`: a single event (`fields`) in its
 * place in calendar `calendarId`, then the series skips that date.
 */
export async function detachOccurrence(event, calendarId, fields) {
  const created = await invoke('event_create', { calendarId, fields: withoutNulls(fields) });
  try {
    await invoke('event_delete', { id: event.id, options: { instanceDate: event.instanceDate } });
  } catch (error) {
    // Keep the calendar as it was: no copy next to an occurrence still shown.
    await invoke('event_delete', { id: created.id, options: {} }).catch(() => {});
    throw error;
  }
  followRename(shownId(event), created.id);
}

/**
 * "This occurrence" of a CalDAV series, changed in place: the series keeps
 * it as an edited occurrence (`RECURRENCE-ID`), so other CalDAV clients
 * still see one series rather than a copy next to a gap. Answers whether
 * anything changed.
 */
async function updateOccurrence(event, fields) {
  const patch = {
    ...changedFrom({ ...event, date: event.instanceDate }, withoutRecurrence(fields)),
    ...taskFields(event),
  };
  if (!Object.keys(patch).length) return false;
  const saved = await invoke('event_update', {
    id: event.id,
    calendarId: null,
    fields: patch,
    options: { instanceDate: event.instanceDate },
  });
  followRename(shownId(event), shownId(saved));
  return true;
}

/** Whether `event` is in a CalDAV calendar (one that holds edited occurrences). */
const inCaldav = (event) => shown.sources.find((s) => s.id === event.calendarId)?.type === 'caldav';

async function save() {
  clearErrors();
  const event = shown.event;
  const fields = readForm();
  const calendarId = $('ev-calendar').value;
  // What the notice says, when the save was one change an undo takes back whole.
  let done = null;
  try {
    if (!event.id) {
      await invoke('event_create', {
        calendarId: $('ev-calendar').value,
        fields: withoutNulls({ ...fields, ...taskFields(null) }),
      });
      done = `Created “${fields.title}”.`;
    } else if (occurrenceScope() && calendarId === event.calendarId && inCaldav(event)) {
      if (await updateOccurrence(event, fields)) done = `Saved “${fields.title}”.`;
    } else if (occurrenceScope()) {
      await detachOccurrence(event, calendarId, { ...fields, ...taskFields(null) });
    } else {
      const patch = { ...changedFrom(event, fields), ...taskFields(event) };
      const moved = calendarId !== event.calendarId;
      if (moved || Object.keys(patch).length) {
        const saved = await invoke('event_update', { id: event.id, calendarId: moved ? calendarId : null, fields: patch });
        followRename(event.id, saved.id);
        done = `Saved “${fields.title}”.`;
      }
    }
    dialog.close('saved');
    if (done) showDone(done);
  } catch (error) {
    showError(error);
  }
}

function showConfirm() {
  const event = shown.event;
  if (!event?.id || shown.readOnly) return;
  $('ev-confirm-text').textContent = occurrenceScope()
    ? `Delete the ${event.instanceDate} occurrence of “${event.title}”?`
    : `Delete “${event.title}”? ${event.filePath ? 'Its note is removed.' : ''}`.trim();
  $('ev-confirm').hidden = false;
  $('ev-confirm-delete').focus();
}

function hideConfirm() {
  $('ev-confirm').hidden = true;
}

async function confirmDelete() {
  const event = shown.event;
  const occurrence = occurrenceScope();
  const options = occurrence ? { instanceDate: event.instanceDate } : {};
  try {
    await invoke('event_delete', { id: event.id, options });
    followDelete(shownId(event), event.instanceDate && !occurrence ? event.id : null);
    dialog.close('deleted');
    showDone(occurrence ? `Deleted the ${event.instanceDate} occurrence of “${event.title}”.` : `Deleted “${event.title}”.`);
  } catch (error) {
    hideConfirm();
    showError(error);
  }
}

async function openNote() {
  clearErrors();
  try {
    const how = await invoke('event_open_note', { id: shown.event.id });
    $('ev-status').textContent = how === 'obsidian' ? 'Opened in Obsidian.' : 'Opened the note’s file.';
  } catch (error) {
    showError(error);
  }
}

/** Typing goes to the field; elsewhere in the dialog, Delete asks to delete. */
function onKey(keyEvent) {
  const typing = keyEvent.target.matches('input[type=text], input[type=number], textarea');
  if (keyEvent.key === 'Delete' && !typing) {
    keyEvent.preventDefault();
    showConfirm();
  }
}

async function open(event, readOnly) {
  shown = { event, readOnly, sources: await invoke('calendar_sources') };
  fill(event, readOnly);
  if (!dialog.open) dialog.showModal();
  $('ev-title').focus();
}

/** Wires the dialog's controls; `firstDay` orders the weekday boxes. */
export function setupEventDialog(firstDay) {
  setupRecurrence(firstDay);
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  $('ev-zones').replaceChildren(...zones.map((zone) => {
    const option = document.createElement('option');
    option.value = zone;
    return option;
  }));
  $('ev-form').addEventListener('submit', (e) => {
    e.preventDefault();
    save();
  });
  $('ev-allday').addEventListener('change', showTimed);
  $('ev-task').addEventListener('change', showTimed);
  $('ev-calendar').addEventListener('change', paintCalendarColor);
  for (const radio of document.getElementsByName('ev-scope')) {
    radio.addEventListener('change', () => fillWhen(shown.event, radio.value));
  }
  $('ev-cancel').addEventListener('click', () => dialog.close('cancelled'));
  $('ev-delete').addEventListener('click', showConfirm);
  $('ev-confirm-keep').addEventListener('click', () => {
    hideConfirm();
    $('ev-delete').focus();
  });
  $('ev-confirm-delete').addEventListener('click', confirmDelete);
  $('ev-open-note').addEventListener('click', openNote);
  dialog.addEventListener('keydown', onKey);
  // Esc first takes back a pending "Delete?", then closes.
  dialog.addEventListener('cancel', (e) => {
    if (!$('ev-confirm').hidden) {
      e.preventDefault();
      hideConfirm();
    }
  });
}

/** "New event" for a selected range: `start`/`end` as FullCalendar's `startStr`/`endStr`. */
export function openNew({ calendarId, date, endDate, startTime, endTime, allDay }) {
  return open({ title: '', calendarId, date, endDate, startTime, endTime, allDay, type: 'single' }, false);
}

/** The engine event `event`, to edit (or only read, when `readOnly`). */
export function openEvent(event, readOnly) {
  return open(event, readOnly);
}

/** The engine event `event`, asking at once whether to delete it. */
export async function openDelete(event) {
  await open(event, false);
  showConfirm();
}
