// The reminders window: upcoming and recently fired reminders, each with Open
// (the reminder's action_url through the system opener) and Snooze. Each row
// says where the reminder comes from (a host that synced it, or the vault
// itself) and which event it is for; times are in the display zone.

import { el, errorText, followDisplayZone, formatDateTime } from './format.js';
import { reminderOrigin } from './reminder_origin.js';
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

/** One row; `reminder` has the daemon's snake_case fields. */
function reminderRow(reminder, when, note) {
  const minutes = el(
    'select',
    { 'aria-label': `Snooze ${reminder.title} for` },
    ...SNOOZE_MINUTES.map((m) => el('option', { value: String(m) }, `${m} min`)),
  );
  return el(
    'tr',
    { dataset: { reminderId: reminder.id } },
    el(
      'td',
      {},
      el('strong', {}, reminder.title),
      el('br'),
      el('span', { class: 'muted' }, reminder.body),
      originLine(reminder),
    ),
    el('td', { class: 'when' }, formatDateTime(when), note ? el('br') : null, note ? el('span', { class: 'muted' }, note) : null),
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

/** "Vault · Dentist" under the reminder's text: its source and event. */
function originLine(reminder) {
  const { source, event } = reminderOrigin(reminder);
  return el(
    'div',
    { class: 'reminder-origin' },
    el('span', { class: `badge source-${source}`, dataset: { source } }, source === 'vault' ? 'Vault' : 'Host'),
    event ? el('span', { class: 'reminder-event' }, event) : null,
  );
}

function fill(tableId, rows) {
  const table = document.getElementById(tableId);
  table.tBodies[0].replaceChildren(...rows);
  table.hidden = rows.length === 0;
  document.getElementById(`${tableId}-empty`).hidden = rows.length > 0;
}

const OUTCOMES = { fired: '', missed: 'missed while closed', dropped: 'too old, not shown' };

async function refresh() {
  try {
    const { upcoming, recentlyFired, problem } = await invoke('reminders_list');
    errorBox.textContent = problem ? `The reminder daemon is not running: ${problem}` : '';
    fill('upcoming', upcoming.map((r) => reminderRow(r, r.trigger_at_epoch * 1000, r.origin === 'snoozed' ? 'snoozed' : '')));
    fill('fired', recentlyFired.map((h) => reminderRow(h.reminder, h.recorded_at_ms, OUTCOMES[h.outcome])));
  } catch (error) {
    errorBox.textContent = `Could not load reminders: ${errorText(error)}`;
  }
}

await followDisplayZone(refresh);
// Listen first, then read: a reminder changed meanwhile is not missed.
await listen('reminders-changed', refresh);
await refresh();
document.body.dataset.ready = 'true';
