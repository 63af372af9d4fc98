// The consent dialog for `request_access` from the in-process API: shows who
// asks for which scopes and returns the user's answer to the waiting caller.
// Closing the window without answering counts as Deny (the shell sees to it).
//
// Allow starts disabled and is enabled only once the request's text has been
// painted and then stayed on screen for ALLOW_DELAY_MS, as browsers do for
// install prompts: nobody can be rushed (or clicked, or Enter-ed) into
// allowing a request they never saw. The delay starts again whenever the
// window comes back into view or regains focus. Deny has the focus, so Enter
// declines. The core has already made the name and reason safe to show.

import { el, errorText } from './format.js';
import { invoke } from './ipc.js';

const ALLOW_DELAY_MS = 1000;

const id = Number(new URLSearchParams(location.search).get('request'));
const allowButton = document.getElementById('allow');
const request = await invoke('consent_request', { id });

document.getElementById('token-name').textContent = request.name;
document.getElementById('reason').textContent = request.reason || 'No reason given.';
const warnings = document.getElementById('text-warnings');
warnings.replaceChildren(...request.warnings.map((warning) => el('li', {}, warning)));
warnings.hidden = request.warnings.length === 0;
document.getElementById('scopes').replaceChildren(
  ...request.scopes.map((scope) =>
    el(
      'li',
      { class: scope.dangerous ? 'dangerous' : '' },
      el('code', {}, scope.id),
      scope.dangerous ? el('span', { class: 'badge danger' }, 'Dangerous') : null,
      el('span', { class: 'desc' }, ` — ${scope.description}`),
    ),
  ),
);

// Each arming cancels the one before, so only the latest delay can enable.
let arming = 0;
function armAllow() {
  const mine = ++arming;
  allowButton.disabled = true;
  // The first frame callback runs before the text's frame is painted, the
  // second after it: only then is the request on screen.
  requestAnimationFrame(() =>
    requestAnimationFrame(() =>
      setTimeout(() => {
        if (mine === arming && document.visibilityState === 'visible') {
          allowButton.disabled = false;
        }
      }, ALLOW_DELAY_MS),
    ),
  );
}
window.addEventListener('focus', armAllow);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') armAllow();
  else allowButton.disabled = true;
});

async function answer(allow) {
  if (allow && allowButton.disabled) return;
  try {
    const days = document.getElementById('expiry').value;
    await invoke('consent_answer', { id, allow, expiresInDays: days ? Number(days) : null });
  } catch (error) {
    document.getElementById('error').textContent = errorText(error);
  }
}
allowButton.addEventListener('click', () => answer(true));
document.getElementById('deny').addEventListener('click', () => answer(false));
armAllow();
document.body.dataset.ready = 'true';
