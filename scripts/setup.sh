#!/usr/bin/env bash
# Installs what building, running and testing Almanac needs on Debian 12:
# the WebKitGTK / appindicator stack Tauri links against, Node.js for the web
# UI's bundler, and the desktop services the tests use for real (D-Bus,
# gnome-keyring, Xvfb, dunst, the WebKit WebDriver, xwininfo), plus wrk for the
# benchmarks, mksquashfs for the AppImage, gio to start the installed menu
# entry, khal (a CalDAV test reads what vdirsyncer synced with it), jq (the
# command-line tests pipe `--json` through it), curl (the reminder hook's push
# recipe in docs/reminders.md is run as written), and Python's venv, in which the ICS differential test's oracle and
# the CalDAV tests' real clients install their packages from PyPI.
# Idempotent: installs only what's missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential pkg-config libssl-dev libdbus-1-dev
  libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev
  dbus dbus-x11 gnome-keyring libsecret-tools xvfb dunst libnotify-bin
  xdg-utils webkit2gtk-driver x11-utils wrk python3 python3-venv
  squashfs-tools libglib2.0-bin khal jq curl
)
# Node.js for the UI bundler: Debian's, unless a Node.js is already installed.
command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing+=("$pkg")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: system packages present"
fi

if ! command -v cargo >/dev/null; then
  echo "setup: cargo not found; install Rust (https://rustup.rs) and rerun" >&2
  exit 1
fi

# The WebDriver bridge the window tests drive the real app through.
if ! command -v tauri-driver >/dev/null; then
  echo "setup: installing tauri-driver"
  cargo install tauri-driver --locked --version '^2'
fi

# The test runner: each test in a process of its own, side by side.
if ! cargo nextest --version >/dev/null 2>&1; then
  echo "setup: installing cargo-nextest"
  cargo install cargo-nextest --locked
fi

# The fuzz targets' runner (make test runs each target briefly).
if ! cargo fuzz --help >/dev/null 2>&1; then
  echo "setup: installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

# The web UI: the shell embeds ui/dist at compile time, so it must exist before
# any build of the `almanac` package (clippy included).
scripts/build-ui.sh
