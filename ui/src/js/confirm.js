// The confirmation dialog of an assistant's destructive write (an MCP delete
// or whole-series edit) when its client cannot ask the person itself. Like
// the access request dialog (consent.js): No has the focus, Yes is enabled
// only after the question has stayed on screen, and closing the window or
// letting it time out counts as No (the shell sees to it). The core has made
// the text safe to show and cut out the event's title, which is the note's
// words and is marked as such.

import { enableWhenSeen } from './allow_delay.js';
import { el, errorText } from './format.js';
import { invoke } from './ipc.js';

const id = Number(new URLSearchParams(location.search).get('request'));
const allowButton = document.getElementById('allow');
const write = await invoke('write_confirmation', { id });

document.getElementById('token-name').textContent = write.tokenName;
document.getElementById('action-before').textContent = write.before;
document.getElementById('action-title').textContent = write.title;
document.getElementById('action-after').textContent = write.after;
document.getElementById('action-title-wrap').hidden = write.title === '';
document.getElementById('title-origin').hidden = write.title === '';
const warnings = document.getElementById('text-warnings');
warnings.replaceChildren(...write.warnings.map((warning) => el('li', {}, warning)));
warnings.hidden = write.warnings.length === 0;

async function answer(allow) {
  if (allow && allowButton.disabled) return;
  try {
    await invoke('write_confirmation_answer', { id, allow });
  } catch (error) {
    document.getElementById('error').textContent = errorText(error);
  }
}
allowButton.addEventListener('click', () => answer(true));
document.getElementById('deny').addEventListener('click', () => answer(false));
enableWhenSeen(allowButton);
document.body.dataset.ready = 'true';
