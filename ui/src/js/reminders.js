// The reminders window: upcoming and recently fired reminders, each with Open
// (the reminder's action_url through the system opener) and Snooze.

import { el, errorText, formatDateTime } from './format.js';
import { invoke, listen } from './ipc.js';

const SNOOZE_MINUTES = [5, 10, 15, 30, 60];
const errorBox = document.getElementById('error');

async function act(command, args) {
  try {
    errorBox.textContent = '';
    await invoke(command, args);
  } catch (error) {
    errorBox.textContent = errorText(error);
  }
}

function reminderRow(reminder, when) {
  const minutes = el(
    'select',
    { 'aria-label': `Snooze ${reminder.title} for` },
    ...SNOOZE_MINUTES.map((m) => el('option', { value: String(m) }, `${m} min`)),
  );
  return el(
    'tr',
    { dataset: { reminderId: reminder.id } },
    el('td', {}, el('strong', {}, reminder.title), el('br'), el('span', { class: 'muted' }, reminder.body)),
    el('td', { class: 'when' }, formatDateTime(when * 1000)),
    el(
      'td',
      {},
      el(
        'div',
        { class: 'row-actions' },
        el('button', { type: 'button', class: 'open', onclick: () => act('reminder_open', { id: reminder.id }) }, 'Open'),
        minutes,
        el(
          'button',
          { type: 'button', class: 'snooze', onclick: () => act('reminder_snooze', { id: reminder.id, minutes: Number(minutes.value) }) },
          'Snooze',
        ),
      ),
    ),
  );
}

function fill(tableId, reminders, when) {
  const table = document.getElementById(tableId);
  table.tBodies[0].replaceChildren(...reminders.map((r) => reminderRow(r, when(r))));
  table.hidden = reminders.length === 0;
  document.getElementById(`${tableId}-empty`).hidden = reminders.length > 0;
}

async function refresh() {
  try {
    const { upcoming, recentlyFired } = await invoke('reminders_list');
    fill('upcoming', upcoming, (r) => r.triggerAtEpoch);
    fill('fired', recentlyFired, (r) => r.firedAtEpoch ?? r.triggerAtEpoch);
  } catch (error) {
    errorBox.textContent = `Could not load reminders: ${errorText(error)}`;
  }
}

await refresh();
await listen('reminders-changed', refresh);
document.body.dataset.ready = 'true';
