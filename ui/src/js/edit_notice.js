// The line under the calendar's toolbar (#edit-hint, polite live region):
// why something did not move, and after a move, edit or delete what was
// done with an "Undo" button that lives ten seconds (or until the next
// notice). Ctrl+Z undoes the window's last change and Ctrl+Shift+Z redoes;
// which change is the core's call (`history_step`), said back in words.
// In a field or an open dialog the keys stay the browser's own text undo.

import { typingInto } from './calendar_keys.js';
import { invoke } from './ipc.js';

const hint = document.getElementById('edit-hint');
/** How long a notice offers its Undo. */
const UNDO_OFFERED_MS = 10_000;
let withdraw = null;

const messageOf = (error) => error?.message ?? String(error);

/** Shows (or with '' hides) a notice; it replaces the one before, and its Undo. */
export function showHint(message) {
  clearTimeout(withdraw);
  hint.replaceChildren(message);
  hint.hidden = !message;
}

/** Shows what was just done ("Moved “Standup”.") with an Undo button. */
export function showDone(message) {
  showHint(message);
  const undo = document.createElement('button');
  undo.type = 'button';
  undo.id = 'edit-undo';
  undo.className = 'link-button';
  undo.textContent = 'Undo';
  undo.setAttribute('aria-keyshortcuts', 'Control+Z');
  undo.addEventListener('click', () => step(false));
  hint.append(' ', undo);
  withdraw = setTimeout(() => undo.remove(), UNDO_OFFERED_MS);
}

/** Undoes (or with `redo` redoes) the window's last change, and says what it did or why not. */
export async function step(redo) {
  try {
    showHint(await invoke('history_step', { redo }));
  } catch (error) {
    showHint(`Could not ${redo ? 'redo' : 'undo'}: ${messageOf(error)}`);
  }
}

/** Ctrl+Z and Ctrl+Shift+Z (Cmd on macOS), wherever nothing is being typed into. */
export function setupUndoKeys() {
  document.addEventListener('keydown', (e) => {
    if (!(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== 'z') return;
    if (e.defaultPrevented || typingInto(e.target)) return;
    e.preventDefault();
    step(e.shiftKey);
  });
}
