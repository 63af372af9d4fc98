// Settings › API & Security: "Changes…" on a token's row lists what was
// written with it (the core's history, newest first) and undoes everything
// it did since one of those changes, newest first, stopping at the first
// change that cannot be undone (a note edited since): the core's undo_all.

import { el, errorText, formatDateTime } from './format.js';
import { invoke } from './ipc.js';

const $ = (id) => document.getElementById(id);
const dialog = $('token-changes-dialog');
const ACTION = { created: 'created', edited: 'edited', deleted: 'deleted' };

/** One change as a line: when, and what it did to each note. */
function changeItem(change) {
  const what = change.files.map((f) => `${ACTION[f.action] ?? f.action} ${f.path}`).join('; ');
  const undid = change.undoes ? ` (undid change ${change.undoes})` : '';
  return el('li', { dataset: { changeId: change.id } }, el('time', { dateTime: change.at }, formatDateTime(change.at)), ` — ${what}${undid}`);
}

/** Fills the dialog with the token `name`'s changes. */
async function fill(name) {
  const changes = await invoke('token_changes', { name });
  $('token-changes-list').replaceChildren(...changes.map(changeItem));
  $('token-changes-none').hidden = changes.length > 0;
  $('token-changes-undo-form').hidden = changes.length === 0;
  // Oldest last: "since" defaults to the oldest shown.
  $('token-changes-since').replaceChildren(
    ...changes.map((c) => el('option', { value: String(c.id) }, `${formatDateTime(c.at)} (change ${c.id})`)),
  );
  $('token-changes-since').selectedIndex = changes.length - 1;
}

/** Opens the list of changes made with the token `token` (a TokenInfo). */
export async function openTokenChanges(token) {
  $('token-changes-name').textContent = token.name;
  $('token-changes-status').textContent = '';
  try {
    await fill(token.name);
  } catch (error) {
    $('token-changes-status').textContent = `Could not list the changes: ${errorText(error)}`;
  }
  $('token-changes-undo-form').onsubmit = async (e) => {
    e.preventDefault();
    try {
      const report = await invoke('token_undo_since', { name: token.name, from: Number($('token-changes-since').value) });
      const undid = `Undid ${report.undone.length} change${report.undone.length === 1 ? '' : 's'}.`;
      $('token-changes-status').textContent = report.refused
        ? `${undid} Stopped at change ${report.refused.id}: ${report.refused.message}`
        : undid;
      await fill(token.name);
    } catch (error) {
      $('token-changes-status').textContent = `Could not undo: ${errorText(error)}`;
    }
  };
  dialog.showModal();
}
