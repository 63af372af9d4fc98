// What the calendar window remembers across restarts (the calendars hidden
// in it, week numbers), kept by the shell (`calendar_window_state`). One
// copy for the page's modules; each change saves it whole, in order.

import { invoke } from './ipc.js';

let state = null;
let saving = Promise.resolve();

/** The state as last saved (loaded once). */
export async function windowState() {
  state ??= await invoke('calendar_window_state');
  return state;
}

/** Changes some of the state's keys and saves it. */
export function saveWindowState(changes) {
  state = { ...state, ...changes };
  const whole = state;
  saving = saving.then(() => invoke('calendar_window_state_save', { state: whole })).catch(() => {});
  return saving;
}
