// The consent dialog for `request_access` from the in-process API: shows who
// asks for which scopes and returns the user's answer to the waiting caller.
// Closing the window without answering counts as Deny (the shell sees to it).

import { el, errorText } from './format.js';
import { invoke } from './ipc.js';

const id = Number(new URLSearchParams(location.search).get('request'));
const request = await invoke('consent_request', { id });

document.getElementById('token-name').textContent = request.name;
document.getElementById('reason').textContent = request.reason || 'No reason given.';
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
  try {
    const days = document.getElementById('expiry').value;
    await invoke('consent_answer', { id, allow, expiresInDays: days ? Number(days) : null });
  } catch (error) {
    document.getElementById('error').textContent = errorText(error);
  }
}
document.getElementById('allow').addEventListener('click', () => answer(true));
document.getElementById('deny').addEventListener('click', () => answer(false));
document.body.dataset.ready = 'true';
