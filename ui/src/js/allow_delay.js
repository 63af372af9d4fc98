// The Allow (Yes) button of the dialogs that grant something: the access
// request (consent.js) and an assistant's destructive write (confirm.js).
//
// It starts disabled and is enabled only once the dialog's text has been
// painted and then stayed on screen for ALLOW_DELAY_MS, as browsers do for
// install prompts: nobody can be rushed (or clicked, or Enter-ed) into
// allowing what they never saw. The delay starts again whenever the window
// comes back into view or regains focus, and hiding it disables the button.

const ALLOW_DELAY_MS = 1000;

/** Keeps `button` disabled until the dialog has been seen; arms it now. */
export function enableWhenSeen(button) {
  // Each arming cancels the one before, so only the latest delay can enable.
  let arming = 0;
  function arm() {
    const mine = ++arming;
    button.disabled = true;
    // The first frame callback runs before the text's frame is painted, the
    // second after it: only then is the dialog's text on screen.
    requestAnimationFrame(() =>
      requestAnimationFrame(() =>
        setTimeout(() => {
          if (mine === arming && document.visibilityState === 'visible') {
            button.disabled = false;
          }
        }, ALLOW_DELAY_MS),
      ),
    );
  }
  window.addEventListener('focus', arm);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') arm();
    else button.disabled = true;
  });
  arm();
}
