#!/usr/bin/env bash
# Runs a command inside the desktop services Almanac's tests talk to for real:
# a private D-Bus session bus, an unlocked gnome-keyring (Secret Service), a
# virtual X display (Xvfb) and a notification server (dunst).
#
#   scripts/session.sh cargo test -p almanac-core
#
# Everything it starts dies with the session; nothing touches the caller's desktop.
set -euo pipefail

if [ -z "${ALMANAC_IN_SESSION:-}" ]; then
  export ALMANAC_IN_SESSION=1
  exec dbus-run-session -- "$0" "$@"
fi

# Keep the test keyring away from the user's real one.
export XDG_DATA_HOME="${ALMANAC_SESSION_HOME:-$(mktemp -d)}/data"
mkdir -p "$XDG_DATA_HOME"
eval "$(printf 'almanac-test' | gnome-keyring-daemon --unlock --components=secrets)"
export GNOME_KEYRING_CONTROL

if [ -z "${DISPLAY:-}" ] && command -v Xvfb >/dev/null; then
  # -displayfd prints the display number once the server accepts connections.
  exec {fd}< <(Xvfb -displayfd 1 -screen 0 1280x800x24 -nolisten tcp 2>/dev/null)
  read -r -u "$fd" display_number
  export DISPLAY=":$display_number"
fi

if command -v dunst >/dev/null; then
  dunst >/dev/null 2>&1 &
  # Wait until the notification server owns its bus name.
  for _ in $(seq 100); do
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null \
      | grep -q 'boolean true' && break
    sleep 0.05
  done
fi

"$@"
