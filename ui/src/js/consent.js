// The consent dialog for `request_access` from the in-process API: shows who
// asks for which scopes and returns the user's answer to the waiting caller.
// Closing the window without answering counts as Deny (the shell sees to it).
//
// Allow is enabled only once the request has been seen, and Deny has the
// focus, so Enter declines (grant_dialog.js). The core has already made the
// name and reason safe to show.

import { el } from './format.js';
import { answerThrough, requestId, showWarnings } from './grant_dialog.js';
import { invoke } from './ipc.js';

const request = await invoke('consent_request', { id: requestId });

document.getElementById('token-name').textContent = request.name;
document.getElementById('reason').textContent = request.reason || 'No reason given.';
showWarnings(request.warnings);
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
answerThrough('consent_answer', () => {
  const days = document.getElementById('expiry').value;
  return { expiresInDays: days ? Number(days) : null };
});
