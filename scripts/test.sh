#!/usr/bin/env bash
# Every test Almanac has, as CI runs it: formatting and lints, then the whole
# workspace's tests inside a private desktop session (scripts/session.sh) so that
# keyring, D-Bus notifications and windows are real. Last, a check that the run
# left no process of its own behind.
set -euo pipefail
cd "$(dirname "$0")/.."

# The programs a test run starts: the session's services, the app, the
# WebDriver bridge. Any of them still running afterwards was leaked.
ours='^(Xvfb|dunst|dbus-daemon|gnome-keyring-d|almanac|almanac-server|reminder-daemon|tauri-driver|WebKitWebDriver)$'
# (`ps` rather than `pgrep`: pgrep refuses patterns longer than a process
# name, 15 characters, and then silently matches nothing.)
running_ours() { ps -eo pid=,comm= | awk -v re="$ours" '$2 ~ re { print $1 }' | sort; }
before=$(running_ours || true)

echo "== disk"
# A run from nothing writes about 11 GiB: 9.2 GiB of builds under target/
# (the debug build, the platform checks, the fuzz build), the rest in the
# crate and npm caches. Short of that, a build stops part-way with "No space
# left on device"; say so before it starts.
build_dir=${CARGO_TARGET_DIR:-target}
mkdir -p "$build_dir"
free_kib=$(df -Pk "$build_dir" | awk 'NR == 2 { print $4 }')
echo "$((free_kib / 1048576)) GiB free under $build_dir"
if [ "$free_kib" -lt $((12 * 1048576)) ]; then
  echo "warning: a run from nothing needs about 11 GiB; this one may run out of space" >&2
fi

echo "== web UI"
scripts/build-ui.sh

echo "== format"
cargo fmt --all --check

echo "== lint"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== Windows and macOS (cargo check)"
scripts/check-platforms.sh

echo "== tests"
scripts/session.sh cargo test --workspace --locked --no-fail-fast

echo "== fuzz (short)"
# Every parser of outside input, fuzzed briefly from its seeds (fuzz/).
scripts/fuzz-short.sh

echo "== leftovers"
# A process that was told to stop may need a moment to go.
for _ in $(seq 50); do
  leaked=$(comm -13 <(echo "$before") <(running_ours || true) | grep . || true)
  [ -z "$leaked" ] && break
  sleep 0.1
done
if [ -n "$leaked" ]; then
  echo "the test run left these processes running:" >&2
  ps -o pid,args -p $leaked >&2 || true
  exit 1
fi
echo "none"
