// The calendar window's keys. One table: it drives the handler, the `?`
// panel listing them, and (through a test) the README's list.
//
// A key acts only when nothing is being typed into (a field, a dialog) and
// without Ctrl, Alt or Meta, so the system's and the browser's own shortcuts
// keep working. Enter on an event opens it and Delete asks to delete it
// (calendar_editing.js), Ctrl+Z and Ctrl+Shift+Z undo and redo
// (edit_notice.js); Tab moves through the events in order and Esc
// closes a dialog (the browser's own).

import { invoke } from './ipc.js';

/** Each entry: the keys, what they do, and how. */
export const KEYS = [
  { keys: ['t'], does: 'Go to today', run: (cal) => cal.today() },
  { keys: ['←', 'k'], does: 'Previous day, week or month', run: (cal) => cal.prev() },
  { keys: ['→', 'j'], does: 'Next day, week or month', run: (cal) => cal.next() },
  { keys: ['d'], does: 'Day view', run: (cal) => cal.changeView('timeGridDay') },
  { keys: ['w'], does: 'Week view', run: (cal) => cal.changeView('timeGridWeek') },
  { keys: ['m'], does: 'Month view', run: (cal) => cal.changeView('dayGridMonth') },
  { keys: ['a'], does: 'Agenda: the next seven days and overdue tasks', run: (cal) => cal.changeView('agenda') },
  { keys: ['g'], does: 'Go to a date (“next friday”, “march 3”, “2027-01-15”)', run: (_, ui) => ui.goTo() },
  { keys: ['n'], does: 'New event', run: (_, ui) => ui.newEvent() },
  { keys: ['/', 'Ctrl+F'], does: 'Search every calendar', run: (_, ui) => ui.search() },
  { keys: ['?'], does: 'This list of keys', run: (_, ui) => ui.help() },
  { keys: ['Ctrl+Z'], does: 'Undo the last change made in this window' },
  { keys: ['Ctrl+Shift+Z'], does: 'Redo what Ctrl+Z undid' },
  { keys: ['Enter'], does: 'Open the focused event' },
  { keys: ['Delete'], does: 'Delete the focused event (asks first)' },
  { keys: ['Tab'], does: 'The next event (Shift+Tab: the previous)' },
  { keys: ['Esc'], does: 'Close what is open' },
];

/** The keys as `KeyboardEvent.key` names them. */
const KEY_NAMES = { '←': 'ArrowLeft', '→': 'ArrowRight' };

/** Whether a key pressed on `target` is typing (a field, an open dialog). */
export function typingInto(target) {
  // A field of a dialog just closed may hold the focus a moment longer.
  if (target.closest?.('dialog:not([open])')) return false;
  return Boolean(target.closest?.('input:not([type="checkbox"]), textarea, select, [contenteditable], dialog[open]'));
}

/**
 * Listens for the keys on the window. `newEvent()` opens the new-event
 * dialog, `search()` puts the caret in the search box; the "Go to date" and help dialogs are the page's
 * (`#goto-dialog`, `#keys-dialog`).
 */
export function setupKeys(calendar, { newEvent, search }) {
  const ui = { newEvent, search, goTo: () => openGoTo(calendar), help: openHelp };
  const byKey = new Map();
  for (const entry of KEYS) {
    if (!entry.run) continue;
    // A combination (Ctrl+F) is heard where it acts, in a field too.
    for (const key of entry.keys.filter((k) => !k.includes('+'))) byKey.set(KEY_NAMES[key] ?? key, entry.run);
  }
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.altKey || e.metaKey || e.defaultPrevented || typingInto(e.target)) return;
    const run = byKey.get(e.key);
    if (!run) return;
    e.preventDefault();
    run(calendar, ui);
  });
  fillHelp();
}

function fillHelp() {
  const rows = KEYS.map(({ keys, does }) => {
    const row = document.createElement('tr');
    const shown = document.createElement('td');
    keys.forEach((key, i) => {
      if (i) shown.append(' or ');
      const kbd = document.createElement('kbd');
      kbd.textContent = key;
      shown.append(kbd);
    });
    const what = document.createElement('td');
    what.textContent = does;
    row.append(shown, what);
    return row;
  });
  document.getElementById('keys-rows').replaceChildren(...rows);
}

function openHelp() {
  document.getElementById('keys-dialog').showModal();
}

function openGoTo(calendar) {
  const dialog = document.getElementById('goto-dialog');
  const input = document.getElementById('goto-text');
  const error = document.getElementById('goto-error');
  input.value = '';
  error.textContent = '';
  dialog.showModal();
  input.focus();
  document.getElementById('goto-cancel').onclick = () => dialog.close();
  document.getElementById('goto-form').onsubmit = async (e) => {
    e.preventDefault();
    try {
      const day = await invoke('calendar_read_day', { text: input.value });
      dialog.close();
      calendar.gotoDate(day);
    } catch (refused) {
      error.textContent = String(refused);
    }
  };
}
