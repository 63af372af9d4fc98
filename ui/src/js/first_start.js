// The first start (the start-at-login question not yet answered): above that
// question, the vaults Obsidian knows on this computer (its vault list, read
// by the core), most recently opened first, marked when they hold Full
// Calendar settings. Choosing one makes it the vault and offers its import,
// exactly as Settings › Vault does (the user confirms). None found: how to
// choose the folder in Settings › Vault.

import { el, errorText } from './format.js';
import { invoke } from './ipc.js';
import { showSection } from './settings_tabs.js';
import { useVault } from './settings_vault.js';

const $ = (id) => document.getElementById(id);
const section = $('first-start');

function choice(vault) {
  const button = el('button', { type: 'button', class: 'choose-vault' }, vault.name);
  button.addEventListener('click', () => {
    section.hidden = true;
    useVault(vault.path);
  });
  const marked = vault.hasFullCalendar
    ? el('span', { class: 'has-plugin' }, 'Full Calendar settings to import')
    : null;
  return el('li', { dataset: { path: vault.path } }, button, el('span', { class: 'vault-path muted' }, vault.path), marked);
}

async function offerVaults() {
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
  section.scrollIntoView();
}

$('first-start-to-vault').addEventListener('click', () => {
  showSection('vault', { focus: true });
  $('vault-path').focus();
});

if (!(await invoke('autostart_state')).asked) await offerVaults();
section.dataset.ready = 'true';
