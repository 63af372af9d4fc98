// Settings, section "Start-up": the "Start Almanac when I log in" switch, and
// on the first run the one-time question above it (the shell remembers the
// answer). The switch always shows whether the autostart entry exists: off
// until the user says yes, since nothing is written before an answer. The
// shell writes or removes the entry. (first_start.js brings the first run's
// questions into view.)

import { errorText } from './format.js';
import { invoke } from './ipc.js';

const $ = (id) => document.getElementById(id);
const section = $('startup');
const question = $('autostart-question');
const toggle = $('autostart-enabled');
const status = $('autostart-status');

function show(state) {
  toggle.checked = state.enabled;
  question.hidden = state.asked;
  status.textContent = state.enabled && state.entry ? `Autostart entry: ${state.entry}` : '';
}

async function set(enabled) {
  toggle.disabled = true;
  try {
    show(await invoke('autostart_set', { enabled }));
  } catch (error) {
    status.textContent = `Could not change it: ${errorText(error)}`;
  } finally {
    toggle.disabled = false;
  }
}

show(await invoke('autostart_state'));
toggle.addEventListener('change', () => set(toggle.checked));
$('autostart-yes').addEventListener('click', () => set(true));
$('autostart-no').addEventListener('click', () => set(false));
section.dataset.ready = 'true';
