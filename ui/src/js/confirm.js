// The confirmation dialog of an assistant's destructive write (an MCP delete
// or whole-series edit) when its client cannot ask the person itself. Like
// the access request dialog (consent.js), and with it (grant_dialog.js): No
// has the focus, Yes is enabled only after the question has stayed on screen,
// and closing the window or letting it time out counts as No (the shell sees
// to it). The core has made the text safe to show and cut out the event's
// title, which is the note's words and is marked as such.

import { answerThrough, requestId, showWarnings } from './grant_dialog.js';
import { invoke } from './ipc.js';

const write = await invoke('write_confirmation', { id: requestId });

document.getElementById('token-name').textContent = write.tokenName;
document.getElementById('action-before').textContent = write.before;
document.getElementById('action-title').textContent = write.title;
document.getElementById('action-after').textContent = write.after;
document.getElementById('action-title-wrap').hidden = write.title === '';
document.getElementById('title-origin').hidden = write.title === '';
showWarnings(write.warnings);
answerThrough('write_confirmation_answer', () => ({}));
