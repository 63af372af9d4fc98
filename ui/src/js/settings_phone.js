// Settings › Calendars' "Show on my phone": a calendar kept in a collection
// of the user's CalDAV account, which their phone already syncs (the core's
// `publish`). The dialog signs in to the account (the core discovers its
// collections, as for a CalDAV calendar), offers them and a new collection
// (made with the calendar's name and colour), then publishes: the password
// goes into the system keyring, the calendar into `publishedCalendars`. Each
// published calendar's row shows its sync — the first push's progress, then
// the last sync, the changes waiting, the last error and the conflicts —
// with "Sync now" and "Stop publishing" (the setting and the password go;
// the collection and the notes stay).

import { el, errorText, formatDateTime } from './format.js';
import { invoke } from './ipc.js';
import { $, clearFieldError, showFieldError } from './settings_shared.js';

const FIELDS = ['url', 'username', 'password', 'collection'];
const dialog = $('phone-dialog');

let publishable = new Set(); // ids of the calendars whose kind can be published
let reports = new Map(); // calendar id → its sync (GET /calendars' `published`)
let changed = () => {};
let pollTimer = null;

/** Calls `callback` whenever what the rows show of publishing changed. */
export function onChange(callback) {
  changed = callback;
}

let reading = null; // the refresh under way
let readAgain = false;

/**
 * Rereads which calendars can be published and how the published ones sync.
 * One read at a time (each counts what waits in the calendars' notes, and
 * every vault change asks for one): asked meanwhile, it reads once more
 * after, so an older answer never replaces a newer one.
 */
export function refresh() {
  if (reading) {
    readAgain = true;
    return reading;
  }
  reading = (async () => {
    clearTimeout(pollTimer);
    do {
      readAgain = false;
      await readStatus();
    } while (readAgain);
    reading = null;
    // Nothing announces a pass' progress: look again, often while a push
    // runs or a first sync is awaited, now and then while anything is
    // published.
    const all = [...reports.values()];
    if (all.length) {
      const busy = all.some((report) => report.progress || (!report.lastSync && !report.lastError));
      pollTimer = setTimeout(refresh, busy ? 500 : 10_000);
    }
  })();
  return reading;
}

async function readStatus() {
  try {
    const status = await invoke('publish_status');
    publishable = new Set(status.publishable);
    reports = new Map(status.published.map((report) => [report.calendarId, report]));
    $('phone-error').textContent = '';
  } catch (error) {
    $('phone-error').textContent = `Could not read how your calendars sync with your phone: ${errorText(error)}`;
  }
  changed();
}

/** A published calendar's sync, in words. */
export function syncText(report) {
  if (report.progress) return `Sending ${report.progress.sent} of ${report.progress.total}…`;
  const parts = [report.lastSync ? `On your phone: synced ${formatDateTime(report.lastSync)}` : 'On your phone: not synced yet'];
  if (report.waiting) parts.push(report.waiting === 1 ? '1 change waiting' : `${report.waiting} changes waiting`);
  return parts.join(', ');
}

/** The latest conflict in words, and how many there were. */
function conflictText(report) {
  const latest = report.conflicts.at(-1);
  if (!latest) return '';
  const count = report.conflicts.length === 1 ? '1 conflict' : `${report.conflicts.length} conflicts`;
  return `${count}: the latest, ${latest.note}, kept this computer’s version; the phone’s is in ${latest.conflictNote}`;
}

/**
 * A calendar row's publishing part: its sync in words and its buttons.
 * `update()` shows the latest state.
 */
export function rowParts(source) {
  const status = el('span', { class: 'muted phone-sync' });
  const problem = el('span', { class: 'error phone-problem' });
  const conflicts = el('span', { class: 'muted phone-conflicts' });
  const button = (className, text, label, onclick) => {
    const node = el('button', { type: 'button', class: className, onclick }, text);
    node.setAttribute('aria-label', `${label} ${source.name}`);
    return node;
  };
  const publish = button('phone-publish', 'Show on my phone', 'Show on my phone:', () => askPublish(source));
  const syncNow = button('phone-sync-now', 'Sync now', 'Sync now:', () => requestSync(status));
  const stopButton = button('phone-stop', 'Stop publishing', 'Stop publishing', () => stop(source.id, problem));
  const node = el('div', { class: 'phone' }, status, problem, conflicts, el('div', { class: 'phone-actions' }, publish, syncNow, stopButton));
  return {
    node,
    update() {
      const report = reports.get(source.id);
      publish.hidden = Boolean(report) || !publishable.has(source.id);
      syncNow.hidden = !report;
      stopButton.hidden = !report;
      status.textContent = report ? syncText(report) : '';
      if (report) problem.textContent = report.lastError ?? '';
      conflicts.textContent = report ? conflictText(report) : '';
      node.hidden = publish.hidden && !report;
    },
  };
}

async function requestSync(status) {
  try {
    await invoke('publish_sync_now');
    status.textContent = 'Syncing…';
  } catch (error) {
    status.textContent = `Could not sync: ${errorText(error)}`;
  }
  setTimeout(refresh, 500);
}

/** Whether calendar `id` is published. */
export function isPublished(id) {
  return reports.has(id);
}

/**
 * Stops publishing calendar `calendarId` (the setting and the password go);
 * a refusal is shown in `errorSlot`. Whether it stopped.
 */
export async function stop(calendarId, errorSlot) {
  try {
    await invoke('publish_stop', { calendarId });
    errorSlot.textContent = '';
    return true;
  } catch (refusal) {
    errorSlot.textContent = errorText(refusal);
    return false;
  } finally {
    await refresh();
  }
}

// ---- The dialog -------------------------------------------------------------

let target = null; // the source being published

function askPublish(source) {
  target = source;
  $('phone-calendar').textContent = source.name;
  $('phone-password').value = '';
  for (const field of FIELDS) clearFieldError(`phone-${field}`);
  $('phone-message').textContent = '';
  showCollections(null);
  dialog.showModal();
  $('phone-url').focus();
}

function account() {
  return { url: $('phone-url').value.trim(), username: $('phone-username').value.trim(), password: $('phone-password').value };
}

/** Offers the account's collections and a new one (`null`: none found yet). */
function showCollections(found) {
  $('phone-choice').hidden = !found;
  $('phone-publish').disabled = !found;
  if (!found) return;
  $('phone-collection').replaceChildren(
    el('option', { value: '' }, `A new collection “${target.name}”`),
    ...found.map((collection) => el('option', { value: collection.url }, `${collection.name} (${collection.url})`)),
  );
}

/** Shows a refusal next to the field it names. */
function refused(refusal) {
  $('phone-message').textContent = '';
  const field = FIELDS.includes(refusal?.field) ? `phone-${refusal.field}` : 'phone-collection';
  showFieldError(field, errorText(refusal));
  if (!$(field).closest('[hidden]')) $(field).focus();
}

// Another account: the collections found with the one before do not apply.
for (const field of ['url', 'username', 'password']) {
  $(`phone-${field}`).addEventListener('input', () => showCollections(null));
}

$('phone-find').addEventListener('click', async () => {
  for (const field of FIELDS) clearFieldError(`phone-${field}`);
  $('phone-message').textContent = 'Connecting to the server…';
  $('phone-find').disabled = true;
  try {
    showCollections(await invoke('publish_collections', { account: account() }));
    $('phone-message').textContent = 'Choose where the calendar goes on your account.';
    $('phone-collection').focus();
  } catch (refusal) {
    refused(refusal);
  } finally {
    $('phone-find').disabled = false;
  }
});

$('phone-cancel').addEventListener('click', () => dialog.close());

$('phone-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  for (const field of FIELDS) clearFieldError(`phone-${field}`);
  const collectionUrl = $('phone-collection').value || null;
  $('phone-message').textContent = collectionUrl ? 'Publishing…' : 'Making the collection…';
  $('phone-publish').disabled = true;
  try {
    await invoke('publish_calendar', { calendarId: target.id, account: account(), collectionUrl });
    $('phone-password').value = '';
    dialog.close();
    await refresh();
  } catch (refusal) {
    refused(refusal);
  } finally {
    $('phone-publish').disabled = $('phone-choice').hidden;
  }
});
