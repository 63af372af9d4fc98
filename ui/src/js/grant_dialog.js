// What the dialogs that grant something share: the access request
// (consent.js) and an assistant's destructive write (confirm.js). Each answers
// one request, named by the window's address; No/Deny has the focus.
//
// The Allow (Yes) button starts disabled and is enabled only once the dialog's text has been
// painted and then stayed on screen for ALLOW_DELAY_MS, as browsers do for
// install prompts: nobody can be rushed (or clicked, or Enter-ed) into
// allowing what they never saw. The delay starts again whenever the window
// comes back into view or regains focus, and hiding it disables the button.

import { el, errorText } from './format.js';
import { invoke } from './ipc.js';

const ALLOW_DELAY_MS = 1000;

/** The id of the request this dialog answers. */
export const requestId = Number(new URLSearchParams(location.search).get('request'));

/** Lists what the core found suspicious in the text shown (hidden if nothing). */
export function showWarnings(warnings) {
  const list = document.getElementById('text-warnings');
  list.replaceChildren(...warnings.map((warning) => el('li', {}, warning)));
  list.hidden = warnings.length === 0;
}

/**
 * Sends the answer through `command` with `args(allow)` when Allow or Deny is
 * clicked (Allow only once it has been seen), shows a failure in the dialog,
 * and marks the page ready.
 */
export function answerThrough(command, args) {
  const allowButton = document.getElementById('allow');
  async function answer(allow) {
    if (allow && allowButton.disabled) return;
    try {
      await invoke(command, { id: requestId, allow, ...args(allow) });
    } catch (error) {
      document.getElementById('error').textContent = errorText(error);
    }
  }
  allowButton.addEventListener('click', () => answer(true));
  document.getElementById('deny').addEventListener('click', () => answer(false));
  enableWhenSeen(allowButton);
  document.body.dataset.ready = 'true';
}

/** Keeps `button` disabled until the dialog has been seen; arms it now. */
function enableWhenSeen(button) {
  // Each arming cancels the one before, so only the latest delay can enable.
  let arming = 0;
  function arm() {
    const mine = ++arming;
    button.disabled = true;
    // The first frame callback runs before the text's frame is painted, the
    // second after it: only then is the dialog's text on screen.
    requestAnimationFrame(() =>
      requestAnimationFrame(() =>
        setTimeout(() => {
          if (mine === arming && document.visibilityState === 'visible') {
            button.disabled = false;
          }
        }, ALLOW_DELAY_MS),
      ),
    );
  }
  window.addEventListener('focus', arm);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') arm();
    else button.disabled = true;
  });
  arm();
}
