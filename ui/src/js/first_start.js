// The first start (the start-at-login question not yet answered) is a short
// welcome in the settings window, the sections and their tabs out of view:
// the vaults Obsidian knows on this computer (its vault list, read by the
// core), most recently opened first, marked when they hold Full Calendar
// settings; choosing one makes it the vault and offers its import, exactly
// as Settings › Vault does (its offer is shown here meanwhile, and the user
// confirms); then start at login (the Start-up section), then the calendar.
// None found: how to choose the folder in Settings › Vault. "All settings"
// ends the welcome where it is, as does a section asked for from elsewhere
// (the calendar list's ⚙).

import { el, errorText } from './format.js';
import { invoke, listen } from './ipc.js';
import { showSection } from './settings_tabs.js';
import { useVault } from './settings_vault.js';

const $ = (id) => document.getElementById(id);
const section = $('first-start');
const offer = $('import-offer');
// Where Settings › Vault keeps the offer, to put it back after the welcome.
const offerHome = { parent: offer.parentElement, next: offer.nextElementSibling };

function choice(vault) {
  const button = el('button', { type: 'button', class: 'choose-vault' }, vault.name);
  button.addEventListener('click', () => {
    for (const item of $('first-start-vaults').children) {
      item.querySelector('button').setAttribute('aria-pressed', String(item.dataset.path === vault.path));
    }
    $('welcome-status').textContent = '';
    useVault(vault.path);
  });
  const marked = vault.hasFullCalendar
    ? el('span', { class: 'has-plugin' }, 'Full Calendar settings to import')
    : null;
  return el('li', { dataset: { path: vault.path } }, button, el('span', { class: 'vault-path muted' }, vault.path), marked);
}

/** The welcome, alone in the window. */
async function welcome() {
  document.body.classList.add('welcoming');
  $('welcome-import').append(offer);
  let vaults = [];
  try {
    vaults = await invoke('obsidian_vaults');
  } catch (error) {
    $('first-start-error').textContent = `Obsidian's vault list could not be read: ${errorText(error)}`;
  }
  $('first-start-vaults').replaceChildren(...vaults.map(choice));
  $('first-start-intro').hidden = vaults.length === 0;
  $('first-start-none').hidden = vaults.length > 0;
  section.hidden = false;
  $('welcome-finish').hidden = false;
  section.scrollIntoView();
}

/** Back to the settings as every other start shows them. */
function endWelcome() {
  document.body.classList.remove('welcoming');
  section.hidden = true;
  $('welcome-finish').hidden = true;
  offerHome.parent.insertBefore(offer, offerHome.next);
}

offer.addEventListener('imported', () => {
  $('welcome-status').textContent = 'Imported. Your calendars and display settings are in place.';
});

$('first-start-to-vault').addEventListener('click', () => {
  endWelcome();
  showSection('vault', { focus: true });
  $('vault-path').focus();
});

$('welcome-all-settings').addEventListener('click', () => {
  endWelcome();
  document.querySelector('[role=tab][aria-selected=true]')?.focus();
});

$('welcome-open-calendar').addEventListener('click', async () => {
  try {
    // The shell opens the calendar and closes this window.
    await invoke('welcome_finish');
  } catch (error) {
    $('welcome-finish-error').textContent = `The calendar could not be opened: ${errorText(error)}`;
  }
});

if (!(await invoke('autostart_state')).asked) {
  await welcome();
  await listen('show-section', () => {
    if (document.body.classList.contains('welcoming')) endWelcome();
  });
}
section.dataset.ready = 'true';
