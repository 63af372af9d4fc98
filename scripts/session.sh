#!/usr/bin/env bash
# Runs a command inside the desktop services Almanac's tests talk to for real:
# a private D-Bus session bus, an unlocked gnome-keyring (Secret Service), a
# virtual X display (Xvfb) and a notification server (dunst).
#
#   scripts/session.sh cargo nextest run -p almanac-core
#
# Nothing touches the caller's desktop, and nothing outlives the command:
# whatever its exit status (or a Ctrl-C), every service is stopped with its
# whole process group and reaped. The command's exit status is the script's.
set -euo pipefail

export ALMANAC_IN_SESSION=1
session_dir=$(mktemp -d)
# The services, each started as a child of this script in a session of its
# own (setsid): its pid is its process group, so a kill reaches everything it
# forked and nothing else, and `wait` reaps it.
services=()

# Whether a process of session `$1` is still running (zombies don't count).
running() { ps -o stat= -s "$1" | grep -qv '^Z'; }

stop_services() {
  local status=$?
  for group in "${services[@]}"; do
    kill -TERM -- "-$group" 2>/dev/null || true
  done
  for group in "${services[@]}"; do
    # Give each a moment to go, then make sure.
    for _ in $(seq 40); do
      running "$group" || break
      sleep 0.05
    done
    kill -KILL -- "-$group" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  rm -rf "$session_dir"
  exit "$status"
}
trap stop_services EXIT

# A signal ends the command too (it runs in the background so that the
# signal is handled at once, not after the command is done).
command_pid=
end_command() {
  if [ -n "$command_pid" ]; then
    kill "-$1" "$command_pid" 2>/dev/null || true
    wait "$command_pid" 2>/dev/null || true
  fi
  exit "$2"
}
trap 'end_command INT 130' INT
trap 'end_command TERM 143' TERM

# Waits until the file `$1` has a line matching `$2`: what service `$3`
# prints once it is ready.
await_line() {
  for _ in $(seq 200); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  echo "session.sh: $3 did not start" >&2
  return 1
}

setsid dbus-daemon --session --nofork --print-address=3 3>"$session_dir/bus" 2>/dev/null &
services+=("$!")
await_line "$session_dir/bus" "^unix:" "dbus-daemon"
DBUS_SESSION_BUS_ADDRESS=$(head -n 1 "$session_dir/bus")
export DBUS_SESSION_BUS_ADDRESS

# Keep the test keyring away from the user's real one.
export XDG_DATA_HOME="${ALMANAC_SESSION_HOME:-$session_dir}/data"
mkdir -p "$XDG_DATA_HOME"
printf 'almanac-test' \
  | setsid gnome-keyring-daemon --foreground --unlock --components=secrets \
    >"$session_dir/keyring" 2>/dev/null &
services+=("$!")
await_line "$session_dir/keyring" "^GNOME_KEYRING_CONTROL=" "gnome-keyring-daemon"
eval "$(grep '^GNOME_KEYRING_CONTROL=' "$session_dir/keyring")"
export GNOME_KEYRING_CONTROL

if [ -z "${DISPLAY:-}" ] && command -v Xvfb >/dev/null; then
  # -displayfd writes the display number once the server accepts connections.
  setsid Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp \
    3>"$session_dir/display" 2>/dev/null &
  services+=("$!")
  await_line "$session_dir/display" "^[0-9]" "Xvfb"
  export DISPLAY=":$(head -n 1 "$session_dir/display")"
fi

if command -v dunst >/dev/null; then
  setsid dunst >/dev/null 2>&1 &
  services+=("$!")
  # Wait until the notification server owns its bus name.
  for _ in $(seq 100); do
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null \
      | grep -q 'boolean true' && break
    sleep 0.05
  done
fi

"$@" <&0 &
command_pid=$!
wait "$command_pid"
