#!/usr/bin/env bash
# Checks a built Almanac .deb end to end without touching the system:
# its metadata, its files (binaries, menu entry, icons), then installs it into
# a scratch root (dpkg-deb -x) and starts the installed binaries headless with
# a throw-away profile on free ports, until both servers answer and /doctor
# names the installed executable; then SIGTERM must stop each cleanly.
# Given the AppImage too, starts it the same way (extracted and run, as on a
# machine without FUSE).
# Usage: scripts/check-deb.sh path/to/almanac_<version>_<arch>.deb [path/to/Almanac.AppImage]
set -euo pipefail
deb="$(realpath "$1")"
appimage="${2:+$(realpath "$2")}"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT

fail() { echo "check-deb: $*" >&2; exit 1; }

# Metadata: what `apt show` and the software centre display.
info="$(dpkg-deb --field "$deb" Package Version Description Depends)"
echo "$info"
grep -q '^Package: almanac$' <<<"$info" || fail "package name"
grep -q "^Version: $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)$" <<<"$info" \
  || fail "version differs from the workspace's"
grep -q 'Markdown notes' <<<"$info" || fail "description"
grep -q 'libwebkit2gtk-4.1' <<<"$info" || fail "WebKitGTK dependency"

dpkg-deb -x "$deb" "$root/install"
for file in usr/bin/almanac usr/bin/almanac-server; do
  [ -x "$root/install/$file" ] || fail "$file missing"
done
desktop="$(find "$root/install/usr/share/applications" -name '*.desktop' | head -1)"
[ -n "$desktop" ] || fail "no menu entry"
grep -q '^Exec=almanac' "$desktop" || fail "menu entry does not start almanac: $(cat "$desktop")"
find "$root/install/usr/share/icons/hicolor" -name '*.png' | grep -q . || fail "no icons"
echo "check-deb: metadata, binaries, $(basename "$desktop"), icons ok"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Starts `$2 $3…` on a fresh profile and waits for both ports; /doctor must
# name an executable matching `$1`.
run_headless() {
  local expected="$1"; shift
  local home="$root/home-$(basename "$1")" rest daemon pid
  rest="$(free_port)"; daemon="$(free_port)"
  mkdir -p "$home/config/almanac" "$home/data" "$home/vault"
  printf '{"restServerEnabled": true, "localServerPort": %s, "vaultPath": "%s", "reminders": {"daemonPort": %s}}' \
    "$rest" "$home/vault" "$daemon" >"$home/config/almanac/settings.json"
  env -u DISPLAY -u WAYLAND_DISPLAY HOME="$home" XDG_CONFIG_HOME="$home/config" \
    XDG_DATA_HOME="$home/data" APPIMAGE_EXTRACT_AND_RUN=1 TMPDIR="$home" "$@" >"$home/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do
    if curl -fs "http://127.0.0.1:$daemon/doctor" >"$home/doctor" 2>/dev/null \
      && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$rest/api/v1/events")" = 401 ]; then
      break
    fi
    kill -0 "$pid" 2>/dev/null || { cat "$home/log"; fail "$1 exited"; }
    sleep 0.1
  done
  grep -Eq "\"executable_path\":\"$expected\"" "$home/doctor" \
    || { cat "$home/log"; fail "$1: /doctor did not answer from the installed binary"; }
  # SIGTERM to the app: the one listening (an extracted AppImage runs it as
  # a child of the AppImage runtime, which exits with its status).
  kill -TERM "$(ss -Hltnp "sport = :$daemon" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)"
  wait "$pid" || fail "$1 did not stop cleanly on SIGTERM"
  echo "check-deb: $* served both ports and stopped cleanly"
}

run_headless "$root/install/usr/bin/almanac" "$root/install/usr/bin/almanac" --headless
run_headless "$root/install/usr/bin/almanac-server" "$root/install/usr/bin/almanac-server"
if [ -n "$appimage" ]; then
  run_headless "/.*/usr/bin/almanac" "$appimage" --headless
fi
