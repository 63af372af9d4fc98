// Settings › Reminders: reminders from the vault on or off, a default
// reminder for events without one (and how many minutes before), how many
// days ahead vault reminders are planned, and how old a missed reminder may
// be to still fire on start. Each applies at once.

import { $, clearFieldError, flashSaved, saveSettings, showFieldError } from './settings_shared.js';

/** Switches: element id → key in `settings.reminders`. */
const SWITCHES = { 'vault-reminders': 'vaultReminders', 'default-reminders': 'defaultReminders' };
/** Number fields: input id → key in `settings.reminders`. */
const NUMBERS = { 'default-minutes': 'defaultMinutes', 'horizon-days': 'horizonDays', 'grace-hours': 'graceWindowHours' };

let current = null;

async function save(key, value, fieldId) {
  clearFieldError(fieldId);
  try {
    show(await saveSettings({ reminders: { [key]: value } }));
    flashSaved('reminders-message');
    return true;
  } catch (refusal) {
    showFieldError(fieldId, refusal.message);
    return false;
  }
}

for (const [id, key] of Object.entries(SWITCHES)) {
  const input = $(id);
  // A switch's error slot is the section's status line.
  input.addEventListener('change', async () => {
    const wanted = input.checked;
    $('reminders-message').textContent = '';
    try {
      show(await saveSettings({ reminders: { [key]: wanted } }));
      flashSaved('reminders-message');
    } catch (refusal) {
      input.checked = !wanted;
      $('reminders-message').classList.remove('ok');
      $('reminders-message').classList.add('error');
      $('reminders-message').textContent = refusal.message;
    }
  });
}

for (const [id, key] of Object.entries(NUMBERS)) {
  const input = $(id);
  $(`${id}-form`).addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    // Not a whole number: nothing the core could take, so say so here.
    if (!/^-?\d+$/.test(text)) {
      showFieldError(id, 'Enter a whole number.');
      return;
    }
    save(key, Number(text), id);
  });
}

export function show(settings) {
  current = settings.reminders;
  for (const [id, key] of Object.entries(SWITCHES)) $(id).checked = Boolean(current[key]);
  for (const [id, key] of Object.entries(NUMBERS)) {
    if (document.activeElement !== $(id) && current[key] !== undefined) $(id).value = current[key];
  }
  // Default minutes matter only while default reminders are on.
  $('default-minutes').disabled = !current.defaultReminders;
  $('default-minutes-form').querySelector('button').disabled = !current.defaultReminders;
}
