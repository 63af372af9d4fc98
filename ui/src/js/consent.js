// The consent dialog for `request_access` from the in-process API: shows who
// asks for which scopes and returns the user's answer to the waiting caller.
// Closing the window without answering counts as Deny (the shell sees to it).
//
// Allow is enabled only once the request has been seen (allow_delay.js).
// Deny has the focus, so Enter declines. The core has already made the name
// and reason safe to show.

import { enableWhenSeen } from './allow_delay.js';
import { el, errorText } from './format.js';
import { invoke } from './ipc.js';

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
enableWhenSeen(allowButton);
document.body.dataset.ready = 'true';
