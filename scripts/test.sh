#!/usr/bin/env bash
# Every test Almanac has, as CI runs it: formatting; the Windows and macOS
# type-checks; one build that lints as it compiles; every test of the
# workspace, each in a process of its own (cargo-nextest) inside a private
# desktop session (scripts/session.sh) so that keyring, D-Bus notifications
# and windows are real; the documentation examples; a short fuzz of every
# parser. Last, checks that the run left no process of its own behind and the
# work tree as it found it. Each stage prints its time.
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
# A run from nothing writes about 10 GiB: 8.3 GiB of builds (target/: the
# debug build and the platform checks; fuzz/target/: the fuzz build), the
# rest in the crate, npm and virtualenv caches (BENCHMARKS.md). Short of
# that, a build stops part-way with "No space left on device"; say so before
# it starts.
build_dir=${CARGO_TARGET_DIR:-target}
mkdir -p "$build_dir"
free_kib=$(df -Pk "$build_dir" | awk 'NR == 2 { print $4 }')
echo "$((free_kib / 1048576)) GiB free under $build_dir"
if [ "$free_kib" -lt $((11 * 1048576)) ]; then
  echo "warning: a run from nothing needs about 10 GiB; this one may run out of space" >&2
fi

# Each stage says how long it took (BENCHMARKS.md, "make test").
stage_started=$(date +%s)
stage() {
  local now
  now=$(date +%s)
  [ -n "${stage_name:-}" ] && echo "-- $stage_name: $((now - stage_started)) s"
  stage_name="$1"
  stage_started=$now
  [ -n "$1" ] && echo "== $1"
  return 0
}

# What the tree looked like before: the run must leave it so (last stage).
tree_state() { git status --porcelain=v1 --untracked-files=all; git diff --no-ext-diff | sha256sum; }
tree_before=$(tree_state)

# The web UI (ui/dist) is built by scripts/setup.sh, which `make test` runs
# first; the shell embeds it at compile time.

stage format
cargo fmt --all --check

# Before the Linux build: the shell's build script rewrites the capability
# schemas for the target it checks, and the Linux build then writes the
# committed ones (scripts/check-platforms.sh).
stage "Windows and macOS (cargo check)"
scripts/check-platforms.sh

# One compilation lints and builds (scripts/lint-env.sh): every target of
# every workspace crate (libraries, binaries, tests, examples, benches), as
# `cargo clippy --all-targets -- -D warnings` checked them.
# shellcheck source=scripts/lint-env.sh
. scripts/lint-env.sh
stage "lint and build"
cargo build --workspace --all-targets --locked

stage tests
# Every test in a process of its own, side by side (.config/nextest.toml),
# inside the private desktop session; then the documentation examples,
# which nextest does not run.
scripts/session.sh cargo nextest run --workspace --locked --no-fail-fast
cargo test --workspace --doc --locked

stage "fuzz (short)"
# Every parser of outside input, fuzzed briefly from its seeds (fuzz/).
scripts/fuzz-short.sh

stage "tree unchanged"
# Generated files (the capability schemas, the fuzz lockfile) are committed up
# to date, so a run changes nothing that git tracks.
if [ "$(tree_state)" != "$tree_before" ]; then
  echo "the test run changed the work tree:" >&2
  git status --short >&2
  git diff --stat >&2
  exit 1
fi
echo "unchanged"

stage ""
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
