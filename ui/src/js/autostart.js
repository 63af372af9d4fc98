// Settings, section "Start-up": the "Start Almanac when I log in" switch, and
// on the first run the one-time question above it (the switch starts on; the
// shell remembers the answer). The shell writes or removes the autostart entry.

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

const state = await invoke('autostart_state');
show(state);
if (!state.asked) {
  // Asked once: on by default, until the user says otherwise. The section
  // is the page's last; bring it into view.
  toggle.checked = true;
  section.scrollIntoView();
}
toggle.addEventListener('change', () => set(toggle.checked));
$('autostart-yes').addEventListener('click', () => set(true));
$('autostart-no').addEventListener('click', () => set(false));
section.dataset.ready = 'true';
