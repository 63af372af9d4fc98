#!/usr/bin/env bash
# Installs an Almanac .deb into this system with apt, starts Almanac the way a
# user does -- from its menu entry (`gio launch` on the installed .desktop file)
# -- and checks it end to end: the tray app (not headless) serves both ports,
# its /doctor names the installed /usr/bin/almanac and finds the package's
# menu entry; then stops it and purges the package, leaving the system as it
# found it (which is checked too).
#
# It changes the system, so it runs only when asked (`make check-install`),
# as root or with sudo, and refuses if an `almanac` package is installed
# already. It needs a desktop session: run it inside scripts/session.sh.
# (`make release` runs scripts/check-deb.sh instead, which installs into a
# scratch root and touches nothing.)
#
# Usage: scripts/session.sh scripts/check-deb-install.sh path/to/almanac.deb
set -euo pipefail
deb="$(realpath "$1")"
fail() { echo "check-deb-install: $*" >&2; exit 1; }
[ -n "${DISPLAY:-}" ] || fail "no DISPLAY: run it inside scripts/session.sh"
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
if dpkg-query -W -f='${Status}' almanac 2>/dev/null | grep -q 'ok installed'; then
  fail "an almanac package is installed already; not touching it"
fi

scratch="$(mktemp -d)"
pid=""
packages_before="$scratch/packages-before"
dpkg-query -W -f='${Package} ${Version}\n' | sort >"$packages_before"
cleanup() {
  local status=$?
  [ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null || true
  if dpkg-query -W -f='${Status}' almanac 2>/dev/null | grep -q 'ok installed'; then
    echo "+ apt-get purge -y almanac"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq almanac >/dev/null
  fi
  rm -rf "$scratch"
  exit "$status"
}
trap cleanup EXIT

echo "+ apt-get install -y $deb"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$deb" >"$scratch/apt.log" 2>&1 \
  || { cat "$scratch/apt.log"; fail "apt-get install failed"; }
dpkg-query -W -f='installed: ${Package} ${Version} ${Status}\n' almanac
# Installing pulls in nothing else (the build set-up has every dependency), so
# purging almanac alone leaves the system as it was.
diff <(grep -v '^almanac ' "$packages_before") \
  <(dpkg-query -W -f='${Package} ${Version}\n' | grep -v '^almanac ' | sort) \
  || fail "installing the .deb changed other packages (above); purge them by hand"
desktop="$(dpkg -L almanac | grep '^/usr/share/applications/.*\.desktop$')"
echo "menu entry: $desktop ($(grep '^Exec=' "$desktop"))"

# A throw-away profile on free ports, the first-run question answered (it
# would open a window asking it); the session's keyring and display.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rest="$(free_port)"; daemon="$(free_port)"
export HOME="$scratch/home" XDG_CONFIG_HOME="$scratch/config"
mkdir -p "$HOME" "$XDG_CONFIG_HOME/almanac" "$scratch/vault" "${XDG_DATA_HOME:?}/almanac"
printf '{"restServerEnabled": true, "localServerPort": %s, "vaultPath": "%s", "reminders": {"daemonPort": %s}}' \
  "$rest" "$scratch/vault" "$daemon" >"$XDG_CONFIG_HOME/almanac/settings.json"
echo asked >"$XDG_DATA_HOME/almanac/autostart-asked"

echo "+ gio launch $desktop"
gio launch "$desktop" >"$scratch/app.log" 2>&1
for _ in $(seq 1 300); do
  curl -fs "http://127.0.0.1:$daemon/doctor" >"$scratch/doctor" 2>/dev/null \
    && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$rest/api/v1/events")" = 401 ] \
    && break
  sleep 0.1
done
[ -s "$scratch/doctor" ] || fail "the launched app never answered /doctor on 127.0.0.1:$daemon"
# The launcher has gone; the app is whoever listens on the daemon's port.
pid="$(ss -Hltnp "sport = :$daemon" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)"
[ -n "$pid" ] || fail "no process listens on $daemon"
exe="$(readlink "/proc/$pid/exe")"
echo "app: pid $pid, $exe, REST 127.0.0.1:$rest answers 401 without a token, daemon 127.0.0.1:$daemon"
[ "$exe" = /usr/bin/almanac ] || fail "the listening process is $exe, not /usr/bin/almanac"
python3 - "$scratch/doctor" "$desktop" <<'PY' || fail "/doctor: $(cat "$scratch/doctor")"
import json, sys
doctor = json.load(open(sys.argv[1]))
exe = doctor["instance"]["executable_path"]
assert exe == "/usr/bin/almanac", exe
entry = doctor["host"]["osRegistration"]["desktopEntry"]
assert entry["registered"] and entry["path"] == sys.argv[2], entry
print("/doctor: executable_path", exe, "; desktopEntry", entry)
PY
# The tray app, not the headless fallback: it runs GTK on the session's display.
grep -q 'libayatana-appindicator3' "/proc/$pid/maps" || fail "the app has not loaded the tray library"
grep -q "DISPLAY=$DISPLAY" <(tr '\0' '\n' <"/proc/$pid/environ") || fail "the app is not on $DISPLAY"
echo "tray app alive on $DISPLAY (pid $pid)"

kill -TERM "$pid"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "the app did not stop on SIGTERM"
pid=""
echo "+ apt-get purge -y almanac"
DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq almanac >/dev/null
[ ! -e /usr/bin/almanac ] && [ ! -e "$desktop" ] || fail "files left behind after the purge"
diff "$packages_before" <(dpkg-query -W -f='${Package} ${Version}\n' | sort) \
  || fail "the package list differs from before the install"
echo "check-deb-install: installed, launched from the menu entry, served, stopped and purged; system as before"
