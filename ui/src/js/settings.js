// The settings window. Its sections are tabs (settings_tabs.js): Calendars,
// Vault, Display and Reminders have modules of their own (settings_*.js);
// this one holds "API & Security": the REST server switch and port, the
// CalDAV server's switch, port and subscription feeds (settings_feeds.js),
// webhooks (settings_webhooks.js), and personal access tokens (generate, show
// the secret once, list, revoke, and the changes made with each:
// settings_token_changes.js). A token allowed in a consent dialog
// (`almanac --request-access`) has its secret shown here too, taken from the
// shell once. Above it all, a banner says why the vault cannot be used, while
// it cannot.

import '../css/settings.css';
import './autostart.js';
import './first_start.js';
import { el, errorText, formatDateTime } from './format.js';
import { invoke, listen } from './ipc.js';
import * as calendars from './settings_calendars.js';
import * as display from './settings_display.js';
import * as feeds from './settings_feeds.js';
import * as reminders from './settings_reminders.js';
import { secretShownOnce } from './settings_shared.js';
import { openTokenChanges } from './settings_token_changes.js';
import { showSection, startTabs } from './settings_tabs.js';
import * as vault from './settings_vault.js';
import * as webhooks from './settings_webhooks.js';

const $ = (id) => document.getElementById(id);

// ---- Vault ------------------------------------------------------------------

const vaultProblem = $('vault-problem');

/** The vault's status as reported by the shell (see `vault_status`). */
function showVaultStatus(status) {
  vaultProblem.hidden = status.state !== 'unavailable';
  vaultProblem.textContent = vaultProblem.hidden
    ? ''
    : `The vault cannot be used, so your notes' calendars are empty: ${status.reason}. ` +
      'Almanac keeps trying and picks it up as soon as it can.';
}

async function refreshVaultStatus() {
  showVaultStatus(await invoke('vault_status'));
}

// ---- REST server ----------------------------------------------------------

const restSwitch = $('rest-enabled');
const restStatus = $('rest-status');
const portInput = $('rest-port');
const portMessage = $('port-message');

/** Shows the settings in every section: on start, and live on every change. */
function showSettings(settings) {
  calendars.show(settings);
  feeds.show(settings);
  vault.show(settings);
  display.show(settings);
  reminders.show(settings);
  restSwitch.checked = settings.restServerEnabled;
  $('port-in-url').textContent = settings.localServerPort;
  if (document.activeElement !== portInput) portInput.value = settings.localServerPort;
  showCaldav(settings.caldavServer);
  mcpSwitch.checked = settings.mcpServer.enabled;
  $('mcp-port-in-url').textContent = settings.localServerPort;
}

/** The listener's state as reported by the shell (see `rest_status`). */
function showRestState(state) {
  restStatus.className = state.state === 'failed' ? 'error' : state.state === 'running' ? 'ok' : 'muted';
  restStatus.dataset.state = state.state;
  restStatus.textContent =
    state.state === 'running' ? `Listening on 127.0.0.1:${state.port}`
    : state.state === 'failed' ? `Not running: ${state.error}`
    : 'Stopped';
}

restSwitch.addEventListener('change', async () => {
  const wanted = restSwitch.checked;
  try {
    showSettings(await invoke('settings_update', { patch: { restServerEnabled: wanted } }));
  } catch (error) {
    restSwitch.checked = !wanted;
    restStatus.className = 'error';
    restStatus.textContent = errorText(error);
  }
});

$('port-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  portMessage.className = '';
  try {
    showSettings(await invoke('settings_update', { patch: { localServerPort: Number(portInput.value) } }));
    portMessage.className = 'ok';
    portMessage.textContent = 'Saved';
  } catch (error) {
    portMessage.className = 'error';
    portMessage.textContent = errorText(error);
  }
});

// ---- MCP server ---------------------------------------------------------------

const mcpSwitch = $('mcp-enabled');

mcpSwitch.addEventListener('change', async () => {
  const wanted = mcpSwitch.checked;
  const message = $('mcp-message');
  message.className = '';
  message.textContent = '';
  try {
    showSettings(await invoke('settings_update', { patch: { mcpServer: { enabled: wanted } } }));
  } catch (error) {
    mcpSwitch.checked = !wanted;
    message.className = 'error';
    message.textContent = errorText(error);
  }
});

// ---- CalDAV server ----------------------------------------------------------

const caldavSwitch = $('caldav-enabled');
const caldavPort = $('caldav-port');
const caldavMessage = $('caldav-message');

function showCaldav(caldav) {
  caldavSwitch.checked = caldav.enabled;
  $('caldav-port-in-url').textContent = caldav.port;
  if (document.activeElement !== caldavPort) caldavPort.value = caldav.port;
}

/** Applies a change of `caldavServer`, showing a refusal next to the port. */
async function updateCaldav(change) {
  caldavMessage.className = '';
  caldavMessage.textContent = '';
  try {
    showSettings(await invoke('settings_update', { patch: { caldavServer: change } }));
    return true;
  } catch (error) {
    caldavMessage.className = 'error';
    caldavMessage.textContent = errorText(error);
    return false;
  }
}

caldavSwitch.addEventListener('change', async () => {
  const wanted = caldavSwitch.checked;
  if (!(await updateCaldav({ enabled: wanted }))) caldavSwitch.checked = !wanted;
});

$('caldav-port-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (await updateCaldav({ port: Number(caldavPort.value) })) {
    caldavMessage.className = 'ok';
    caldavMessage.textContent = 'Saved';
  }
});

// ---- Tokens ---------------------------------------------------------------

const generateOpen = $('generate-open');
const generateForm = $('generate-form');
const generateError = $('generate-error');
const revokeDialog = $('revoke-dialog');

function renderScopes(scopes) {
  $('scope-list').replaceChildren(
    ...scopes.map((scope) =>
      el(
        'label',
        { class: scope.dangerous ? 'dangerous' : '' },
        el('input', { type: 'checkbox', name: 'scope', value: scope.id }),
        el('span', {}, el('code', {}, scope.id), scope.dangerous ? el('span', { class: 'badge danger' }, 'Dangerous') : null),
        el('span', { class: 'desc' }, scope.description),
        // settings:write and system:full-access: which settings a script may change.
        scope.settings ? el('span', { class: 'desc settings-reach' }, scope.settings) : null,
      ),
    ),
  );
}

const STATUS_TEXT = { active: 'Active', expired: 'Expired', revoked: 'Revoked', secretMissing: 'Secret missing' };

/** One row of the token list; `token` is the core's TokenInfo. */
function tokenRow(token) {
  const revoke = el('button', { type: 'button', class: 'danger revoke', onclick: () => askRevoke(token) }, 'Revoke');
  revoke.disabled = token.status === 'revoked';
  revoke.setAttribute('aria-label', `Revoke ${token.name}`);
  const changes = el('button', { type: 'button', class: 'token-changes', onclick: () => openTokenChanges(token) }, 'Changes…');
  changes.setAttribute('aria-label', `Changes made with ${token.name}`);
  return el(
    'tr',
    { dataset: { tokenId: token.id, tokenName: token.name, status: token.status } },
    el('td', {}, token.name),
    el('td', {}, ...token.scopes.flatMap((s, i) => [i ? ', ' : '', el('code', {}, s)])),
    el('td', {}, formatDateTime(token.createdAt)),
    el('td', {}, formatDateTime(token.lastUsedAt, 'Never')),
    el('td', {}, formatDateTime(token.expiresAt, 'Never')),
    el('td', { class: `state state-${token.status}` }, STATUS_TEXT[token.status] ?? token.status),
    el('td', {}, changes, ' ', revoke),
  );
}

async function refreshTokens() {
  try {
    const tokens = await invoke('tokens_list');
    $('token-rows').replaceChildren(...tokens.map(tokenRow));
    $('no-tokens').hidden = tokens.length > 0;
    $('token-table').hidden = tokens.length === 0;
    $('tokens-error').textContent = '';
  } catch (error) {
    $('tokens-error').textContent = `Could not list tokens: ${errorText(error)}`;
  }
}

function closeGenerateForm() {
  generateForm.reset();
  generateForm.hidden = true;
  generateError.textContent = '';
  generateOpen.hidden = false;
}

generateOpen.addEventListener('click', () => {
  $('secret-panel').hidden = true;
  generateOpen.hidden = true;
  generateForm.hidden = false;
  $('token-name').focus();
});
$('generate-cancel').addEventListener('click', () => {
  closeGenerateForm();
  generateOpen.focus();
});

generateForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = $('token-name').value.trim();
  const scopes = [...generateForm.querySelectorAll('input[name=scope]:checked')].map((c) => c.value);
  const expiry = $('token-expiry').value;
  if (!scopes.length) {
    generateError.textContent = 'Pick at least one scope.';
    return;
  }
  $('generate-submit').disabled = true;
  try {
    const created = await invoke('token_create', {
      name,
      scopes,
      expiresInDays: expiry ? Number(expiry) : null,
    });
    showSecretOnce({ name: created.token.name, secret: created.secret });
    await refreshTokens();
  } catch (error) {
    generateError.textContent = errorText(error);
  } finally {
    $('generate-submit').disabled = false;
  }
});

/**
 * Shows a new token's secret (closing the token form); "done" wipes it from
 * the page for good.
 */
function showSecretOnce({ name, secret }) {
  showSection('api');
  closeGenerateForm();
  $('secret-name').textContent = name;
  tokenSecret.show(secret);
}

// In place of the Generate button; once copied, the next token a consent
// dialog granted (if one waits) is shown.
const tokenSecret = secretShownOnce({
  panel: 'secret-panel',
  value: 'secret-value',
  copy: 'secret-copy',
  message: 'copy-message',
  done: 'secret-done',
  replaces: 'generate-open',
  afterDone: async () => {
    if (!(await showGrantedSecret())) generateOpen.focus();
  },
});

/**
 * Shows the secret of a token the user allowed in a consent dialog, if one
 * waits. The shell hands each out once; one already on screen is not replaced.
 */
async function showGrantedSecret() {
  if (tokenSecret.showing) return false;
  const granted = await invoke('granted_secret_take');
  if (granted) showSecretOnce(granted);
  return Boolean(granted);
}


function askRevoke(token) {
  $('revoke-name').textContent = token.name;
  revokeDialog.returnValue = '';
  revokeDialog.onclose = async () => {
    if (revokeDialog.returnValue !== 'revoke') return;
    try {
      await invoke('token_revoke', { id: token.id });
    } catch (error) {
      $('tokens-error').textContent = `Could not revoke: ${errorText(error)}`;
    }
    await refreshTokens();
  };
  revokeDialog.showModal();
}

// ---- Start ----------------------------------------------------------------

// Listen first, then read: a change made while the window starts (the vault
// fixed, a setting saved elsewhere) is shown, not missed.
await listen('settings-changed', showSettings);
await listen('rest-state', showRestState);
await listen('tokens-changed', refreshTokens);
await listen('calendar-changed', () => Promise.all([refreshVaultStatus(), calendars.refreshInfo()]));
const [settings, restState, scopes, vaultStatus] = await Promise.all([
  invoke('settings_get'),
  invoke('rest_status'),
  invoke('token_scopes'),
  invoke('vault_status'),
]);
startTabs();
showSettings(settings);
showRestState(restState);
showVaultStatus(vaultStatus);
renderScopes(scopes);
await Promise.all([refreshTokens(), calendars.refreshInfo(), display.loadZones(), feeds.refresh(), webhooks.refresh()]);
// Listen first, then take: a secret granted in between is not missed.
await listen('secret-granted', showGrantedSecret);
// The calendar window's link beside a calendar (`settings_show_calendars`).
await listen('show-section', (section) => showSection(section, { focus: true }));
await showGrantedSecret();
// "Last used" changes with every request; show it fresh when the user looks.
window.addEventListener('focus', refreshTokens);
// Deliveries happen in the background: show hooks and the log fresh too.
window.addEventListener('focus', webhooks.refresh);
document.body.dataset.ready = 'true';
