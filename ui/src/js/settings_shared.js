// What the settings sections share: saving a settings patch as the user, and
// showing a refusal next to the field it concerns.

import { errorText } from './format.js';
import { invoke } from './ipc.js';

export const $ = (id) => document.getElementById(id);

/**
 * Saves a partial settings object (the shell applies it as the user) and
 * returns the new settings. Rejects with `{ field, message }`: `field` is the
 * setting the core refused (`calendarSources[2].url`), when it names one.
 */
export async function saveSettings(patch) {
  try {
    return await invoke('settings_update', { patch });
  } catch (error) {
    throw { field: error?.field ?? null, message: errorText(error) };
  }
}

/**
 * Shows `message` in the error slot `<id>-error` of the input `id`, marks the
 * input invalid, and clears both once the input changes.
 */
export function showFieldError(id, message) {
  const input = $(id);
  const slot = $(`${id}-error`);
  slot.textContent = message;
  if (input) {
    input.setAttribute('aria-invalid', 'true');
    input.addEventListener('input', () => clearFieldError(id), { once: true });
  }
}

export function clearFieldError(id) {
  $(`${id}-error`).textContent = '';
  $(id)?.removeAttribute('aria-invalid');
}

/** A short "Saved" that fades from a status line after a moment. */
export function flashSaved(id, text = 'Saved') {
  const status = $(id);
  status.classList.remove('error');
  status.classList.add('ok');
  status.textContent = text;
  clearTimeout(status.savedTimer);
  status.savedTimer = setTimeout(() => {
    status.textContent = '';
  }, 4000);
}

/** Whether the user is typing in `input` (a live update must not overwrite it). */
export function editing(input) {
  return document.activeElement === input;
}

/**
 * A secret shown once, in a panel of its own (a token, a feed URL, a signing
 * secret). The page gives each panel only what differs (its heading and
 * warning, and any notice of its own); the row that holds the secret, with
 * Copy and its status, and the "I have copied it" button are made here, once
 * for all three, under the ids given (`value`, `copy`, `message`, `done`),
 * and put before the panel's own notices.
 *
 * `show(text)` puts the secret in `value`, hides `replaces` (the form or
 * button the panel stands in for) and puts Copy at hand; `done` wipes it from
 * the page for good, brings `replaces` back and calls `afterDone`. `showing`
 * says whether one is on screen.
 */
export function secretShownOnce({ panel, value, copy, message, done, replaces, afterDone }) {
  buildPanel({ panel, value, copy, message, done });
  $(copy).addEventListener('click', () => copyText(value, message));
  $(done).addEventListener('click', async () => {
    $(value).textContent = '';
    $(panel).hidden = true;
    $(replaces).hidden = false;
    if (afterDone) await afterDone();
  });
  return {
    show(text) {
      $(value).textContent = text;
      $(message).textContent = '';
      $(replaces).hidden = true;
      $(panel).hidden = false;
      $(copy).focus();
    },
    get showing() {
      return !$(panel).hidden;
    },
  };
}

/** Adds the secret's row after the panel's warning, and the done button last. */
function buildPanel({ panel, value, copy, message, done }) {
  const row = document.createElement('div');
  row.className = 'secret';
  const code = document.createElement('code');
  code.id = value;
  const copyButton = button(copy, 'Copy');
  const status = document.createElement('span');
  status.id = message;
  status.setAttribute('role', 'status');
  status.setAttribute('aria-live', 'polite');
  row.append(code, copyButton, status);
  const warning = $(panel).querySelector('.notice');
  warning.after(row);
  $(panel).append(button(done, 'I have copied it'));
}

function button(id, label) {
  const made = document.createElement('button');
  made.type = 'button';
  made.id = id;
  made.textContent = label;
  return made;
}

/**
 * Copies the text of the element `id` (a secret shown once) to the clipboard,
 * saying so in the status `messageId`; without clipboard permission, selects
 * it so Ctrl+C copies it.
 */
async function copyText(id, messageId) {
  try {
    await navigator.clipboard.writeText($(id).textContent);
    $(messageId).textContent = 'Copied';
  } catch {
    getSelection().selectAllChildren($(id));
    $(messageId).textContent = 'Selected: press Ctrl+C';
  }
}
