// The sidebar, docked at the right edge of the screen by the shell: quick-add,
// the next reminder, and an agenda of today and the coming week. Times are in
// the settings' `displayTimezone` and follow its changes live.

import { Calendar } from '@fullcalendar/core';
import listPlugin from '@fullcalendar/list';

import { eventSource, followChanges, showAnnouncements } from './events.js';
import { displayZone, el, errorText, followDisplayZone, formatDateTime } from './format.js';
import { invoke, listen } from './ipc.js';
import { EXAMPLE, QuickAddError, parseQuickAdd } from './quickadd.js';
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

/** "Tue, Nov 24, 12:30 – 13:30" under the field while typing. */
function describe({ fields, start, end }) {
  if (fields.allDay) {
    const last = end && fields.endDate ? ` – ${end.toLocaleString({ weekday: 'short', month: 'short', day: 'numeric' })}` : '';
    return `${fields.title}: ${start.toLocaleString({ weekday: 'short', month: 'short', day: 'numeric' })}${last}, all day`;
  }
  return `${fields.title}: ${start.toLocaleString({ weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })} – ${end.toFormat('HH:mm')}`;
}

input.addEventListener('input', () => {
  showQuickError(null);
  try {
    preview.textContent = input.value.trim() ? describe(parseQuickAdd(input.value, displayZone())) : '';
  } catch (error) {
    preview.textContent = '';
  }
});

form.addEventListener('submit', async (submitted) => {
  submitted.preventDefault();
  let parsed;
  try {
    parsed = parseQuickAdd(input.value, displayZone());
  } catch (error) {
    showQuickError(error instanceof QuickAddError ? error.message : errorText(error));
    return;
  }
  if (!calendarChoice.value) {
    showQuickError('There is no calendar to add to: add a notes folder or daily notes calendar in Settings.');
    return;
  }
  form.setAttribute('aria-busy', 'true');
  try {
    await invoke('event_create', { calendarId: calendarChoice.value, fields: parsed.fields });
    showQuickError(null);
    form.dataset.created = parsed.fields.title;
    input.value = '';
    preview.textContent = `Added “${parsed.fields.title}”.`;
  } catch (error) {
    // The engine's refusal (a note of that name exists, a bad field) as sent.
    showQuickError(errorText(error));
  } finally {
    form.removeAttribute('aria-busy');
  }
});

// ---- agenda -------------------------------------------------------------------

const settings = await followDisplayZone((changed) => {
  calendar.setOption('timeZone', changed.displayTimezone);
  showNextReminder();
});

const calendar = new Calendar(document.getElementById('calendar'), {
  plugins: [listPlugin, zonePlugin],
  initialView: 'agenda',
  // Today and the six days after it.
  views: { agenda: { type: 'list', duration: { days: 7 }, buttonText: 'Agenda' } },
  timeZone: settings.displayTimezone,
  height: '100%',
  headerToolbar: { left: 'title', right: 'prev,next today' },
  // Text arrows: FullCalendar's icon font would need `font-src data:`.
  buttonIcons: false,
  buttonText: { prev: '‹', next: '›', today: 'Today' },
  noEventsContent: 'Nothing planned this week',
  events: eventSource(showError),
});
calendar.render();
await followChanges(calendar);
await fillCalendars();
await listen('calendar-changed', fillCalendars);
await showNextReminder();
await listen('reminders-changed', showNextReminder);
await showAnnouncements(document.getElementById('announce'));
document.body.dataset.ready = 'true';
