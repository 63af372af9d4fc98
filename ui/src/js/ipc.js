// The one door to the shell: Tauri commands and events through the global
// `window.__TAURI__` object (app.withGlobalTauri), so no npm package is needed.

const tauri = window.__TAURI__;

/** Calls a shell command; rejects with the shell's error message. */
export function invoke(command, args = {}) {
  return tauri.core.invoke(command, args);
}

/** Calls `handler(payload)` on every shell event named `event`. */
export function listen(event, handler) {
  return tauri.event.listen(event, (e) => handler(e.payload));
}
