// The sidebar, docked at the right edge of the screen by the shell: quick-add,
// the next reminder, and an agenda of today and the coming week. Times are in
// the settings' `displayTimezone`, on the clock of `timeFormat24h`, and
// follow their changes live.

import { Calendar } from '@fullcalendar/core';
import listPlugin from '@fullcalendar/list';

import { clockOptions, followClock } from './clock.js';
import { eventSource, followChanges, showAnnouncements } from './events.js';
import { displayZone, el, errorText, followDisplayZone, formatDateTime } from './format.js';
import { invoke, listen } from './ipc.js';
import { EXAMPLE, describe, quickAdd, readQuickAdd } from './quickadd.js';
import { reminderOrigin } from './reminder_origin.js';
import zonePlugin from './zone.js';

const status = document.getElementById('status');
const showError = (message) => {
  status.hidden = !message;
  status.textContent = message ? `Could not load events: ${message}` : '';
};

// ---- next reminder ----------------------------------------------------------

const nextReminder = document.getElementById('next-reminder-text');

async function showNextReminder() {
  try {
    const { upcoming, problem } = await invoke('reminders_list');
    const next = upcoming[0];
    if (!next) {
      nextReminder.replaceChildren(problem ? `Reminders unavailable: ${problem}` : 'No reminders scheduled.');
      nextReminder.dataset.reminderId = '';
      return;
    }
    const { event } = reminderOrigin(next);
    nextReminder.dataset.reminderId = next.id;
    nextReminder.replaceChildren(
      el('strong', { class: 'next-reminder-title' }, next.title),
      ' ',
      el('span', { class: 'next-reminder-when' }, formatDateTime(next.trigger_at_epoch * 1000)),
    );
    if (event && event !== next.title) {
      nextReminder.append(el('span', { class: 'muted next-reminder-event' }, ` · ${event}`));
    }
  } catch (error) {
    nextReminder.textContent = `Could not load reminders: ${errorText(error)}`;
  }
}

// ---- quick-add ----------------------------------------------------------------

const form = document.getElementById('quick-add');
const input = document.getElementById('quick-add-text');
const calendarChoice = document.getElementById('quick-add-calendar');
const preview = document.getElementById('quick-add-preview');
const quickError = document.getElementById('quick-add-error');
input.placeholder = EXAMPLE;

function showQuickError(message) {
  quickError.hidden = !message;
  quickError.textContent = message ?? '';
  input.setAttribute('aria-invalid', message ? 'true' : 'false');
}

/** The writable calendars (ICS feeds are read-only), first one chosen. */
async function fillCalendars() {
  const chosen = calendarChoice.value;
  const sources = (await invoke('calendar_sources')).filter((s) => s.editable);
  calendarChoice.replaceChildren(...sources.map((s) => el('option', { value: s.id }, s.name)));
  if (sources.some((s) => s.id === chosen)) calendarChoice.value = chosen;
  calendarChoice.disabled = sources.length === 0;
}

/** The name of calendar `id` in the list, to say where a line names another. */
function calendarName(id) {
  return [...calendarChoice.options].find((option) => option.value === id)?.textContent ?? id;
}

/** The preview: what the line makes, and where, when it names a calendar. */
function previewText(answer) {
  const elsewhere = answer.calendarId !== calendarChoice.value ? ` · in ${calendarName(answer.calendarId)}` : '';
  return `${describe(answer)}${elsewhere}`;
}

/** Shows what the core read from `text` (empty: nothing it can read yet);
 * `data-line` says which line the preview is for, so tests can await it. */
function showPreview(text, shown) {
  preview.textContent = shown;
  preview.dataset.line = text;
}

// Each keystroke asks the core; only the answer to the latest line shows.
let typed = 0;
input.addEventListener('input', async () => {
  showQuickError(null);
  const line = ++typed;
  const text = input.value;
  if (!text.trim()) {
    showPreview(text, '');
    return;
  }
  try {
    const answer = await readQuickAdd(text, calendarChoice.value);
    if (line === typed) showPreview(text, previewText(answer));
  } catch {
    if (line === typed) showPreview(text, '');
  }
});

form.addEventListener('submit', async (submitted) => {
  submitted.preventDefault();
  typed += 1;
  form.setAttribute('aria-busy', 'true');
  try {
    // The core reads the line and creates the event, or says why not (no
    // date, a note of that name exists, no calendar to add to).
    const { created } = await quickAdd(input.value, calendarChoice.value);
    showQuickError(null);
    form.dataset.created = created.title;
    form.dataset.createdId = created.id;
    input.value = '';
    preview.textContent = `Added “${created.title}”.`;
    delete preview.dataset.line;
  } catch (error) {
    showQuickError(errorText(error));
  } finally {
    form.removeAttribute('aria-busy');
  }
});

// ---- agenda -------------------------------------------------------------------

const settings = await followDisplayZone((changed) => {
  calendar.setOption('timeZone', displayZone());
  showNextReminder();
});

const calendar = new Calendar(document.getElementById('calendar'), {
  plugins: [listPlugin, zonePlugin],
  initialView: 'agenda',
  // Today and the six days after it.
  views: { agenda: { type: 'list', duration: { days: 7 }, buttonText: 'Agenda' } },
  timeZone: displayZone(),
  ...clockOptions(settings),
  height: '100%',
  headerToolbar: { left: 'title', right: 'prev,next today' },
  // Text arrows: FullCalendar's icon font would need `font-src data:`.
  buttonIcons: false,
  buttonText: { prev: '‹', next: '›', today: 'Today' },
  noEventsContent: 'Nothing planned this week',
  events: eventSource(showError),
});
calendar.render();
await listen('settings-changed', (changed) => followClock(calendar, changed));
await followChanges(calendar);
// Listen first, then read: a change made meanwhile is not missed.
await listen('calendar-changed', fillCalendars);
await fillCalendars();
await listen('reminders-changed', showNextReminder);
await showNextReminder();
await showAnnouncements(document.getElementById('announce'));
document.body.dataset.ready = 'true';
