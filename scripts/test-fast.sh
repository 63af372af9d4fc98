#!/usr/bin/env bash
# The inner loop: formatting, then the GUI-free core crate linted, built and
# tested (as `make test` lints and builds: one compilation, artifacts shared
# with it), then the tests of the surface you are changing, named with
# cargo-nextest's own options. Inside the private desktop session, so the
# keyring, D-Bus and windows are real. `make test` stays the whole truth.
#
#   scripts/test-fast.sh                                    # almanac-model and almanac-core only
#   scripts/test-fast.sh -p almanac-reminders               # and the daemon
#   scripts/test-fast.sh -p almanac -E 'test(/^window_sidebar::/)'
#   make test-fast ARGS="-p almanac -E 'test(/^headless::/)'"
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all --check
# shellcheck source=scripts/lint-env.sh
. scripts/lint-env.sh

echo "== almanac-model, almanac-core"
scripts/session.sh cargo nextest run --locked -p almanac-model -p almanac-core
if (($#)); then
  # The shell embeds the web UI at compile time.
  scripts/build-ui.sh >/dev/null
  echo "== $*"
  scripts/session.sh cargo nextest run --locked "$@"
fi
