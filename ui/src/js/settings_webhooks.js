// Settings › API & Security › Webhooks: add a hook (its signing secret shown
// once, with a Copy button), turn hooks on and off, delete them, and read a
// hook's delivery log. The shell's commands call the core's `webhooks`; no
// token can set a hook, so this section is the only way to.

import { el, errorText, formatDateTime } from './format.js';
import { invoke } from './ipc.js';
import { $, secretShownOnce } from './settings_shared.js';

let shownLog = null; // the hook whose delivery log is open

// A new hook's signing secret, shown once in place of the form.
const signingSecret = secretShownOnce({
  panel: 'webhook-secret-panel',
  value: 'webhook-secret',
  copy: 'webhook-copy',
  message: 'webhook-copy-message',
  done: 'webhook-done',
  replaces: 'webhook-form',
});

/** Lists the hooks, and refreshes the open delivery log. */
export async function refresh() {
  let hooks;
  try {
    hooks = await invoke('webhooks_list');
    $('webhooks-error').textContent = '';
  } catch (error) {
    $('webhooks-error').textContent = `Could not list the webhooks: ${errorText(error)}`;
    return;
  }
  $('webhook-rows').replaceChildren(...hooks.map(row));
  $('webhook-table').hidden = hooks.length === 0;
  $('no-webhooks').hidden = hooks.length > 0;
  const open = hooks.find((hook) => hook.id === shownLog?.id);
  if (open) await showLog(open);
  else closeLog();
}

function row(hook) {
  const toggle = el(
    'button',
    { type: 'button', onclick: () => setEnabled(hook, !hook.enabled) },
    hook.enabled ? 'Turn off' : 'Turn on',
  );
  toggle.setAttribute('aria-label', `${hook.enabled ? 'Turn off' : 'Turn on'} webhook ${hook.url}`);
  const log = el('button', { type: 'button', onclick: () => showLog(hook) }, 'Deliveries');
  log.setAttribute('aria-label', `Deliveries to ${hook.url}`);
  const remove = el('button', { type: 'button', class: 'danger', onclick: () => askDelete(hook) }, 'Delete');
  remove.setAttribute('aria-label', `Delete webhook ${hook.url}`);
  const state = hook.enabled ? 'On' : hook.disabledReason ?? 'Off';
  return el(
    'tr',
    { dataset: { webhookId: hook.id } },
    el('td', {}, el('code', {}, hook.url)),
    el('td', {}, hook.events.join(', ')),
    el('td', { class: hook.disabledReason ? 'error' : '' }, state),
    el('td', {}, toggle, ' ', log, ' ', remove),
  );
}

async function setEnabled(hook, enabled) {
  try {
    await invoke('webhook_set_enabled', { id: hook.id, enabled });
  } catch (error) {
    $('webhooks-error').textContent = errorText(error);
  }
  await refresh();
}

async function showLog(hook) {
  shownLog = hook;
  let deliveries;
  try {
    deliveries = await invoke('webhook_deliveries', { id: hook.id });
  } catch (error) {
    $('webhooks-error').textContent = errorText(error);
    return;
  }
  $('webhook-log-url').textContent = hook.url;
  $('webhook-log-rows').replaceChildren(
    ...deliveries.map((delivery) =>
      el(
        'tr',
        { class: delivery.ok ? '' : 'error' },
        el('td', {}, formatDateTime(delivery.at)),
        el('td', {}, `${delivery.type} #${delivery.entryId}`),
        el('td', {}, String(delivery.attempt)),
        el('td', {}, delivery.ok ? `Delivered (HTTP ${delivery.status})` : delivery.error ?? 'Failed'),
      ),
    ),
  );
  $('webhook-log-table').hidden = deliveries.length === 0;
  $('webhook-log-empty').hidden = deliveries.length > 0;
  $('webhook-log-panel').hidden = false;
}

function closeLog() {
  shownLog = null;
  $('webhook-log-panel').hidden = true;
}

$('webhook-log-refresh').addEventListener('click', refresh);

$('webhook-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('webhook-error').textContent = '';
  const url = $('webhook-url').value.trim();
  const events = [...document.querySelectorAll('#webhook-events input:checked')].map((box) => box.value);
  if (!url || !events.length) {
    $('webhook-error').textContent = 'Give the URL and choose at least one kind of change.';
    return;
  }
  $('webhook-create').disabled = true;
  try {
    const made = await invoke('webhook_create', { url, events });
    $('webhook-url').value = '';
    signingSecret.show(made.secret);
    await refresh();
  } catch (error) {
    $('webhook-error').textContent = errorText(error);
  } finally {
    $('webhook-create').disabled = false;
  }
});


function askDelete(hook) {
  const dialog = $('webhook-delete-dialog');
  $('webhook-delete-url').textContent = hook.url;
  dialog.returnValue = '';
  dialog.onclose = async () => {
    if (dialog.returnValue !== 'delete') return;
    try {
      await invoke('webhook_delete', { id: hook.id });
    } catch (error) {
      $('webhooks-error').textContent = errorText(error);
    }
    await refresh();
  };
  dialog.showModal();
}
