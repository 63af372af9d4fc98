#!/usr/bin/env bash
# Every test Almanac has, as CI runs it: formatting and lints, then the whole
# workspace's tests inside a private desktop session (scripts/session.sh) so that
# keyring, D-Bus notifications and windows are real.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== web UI"
scripts/build-ui.sh

echo "== format"
cargo fmt --all --check

echo "== lint"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== tests"
scripts/session.sh cargo test --workspace --locked --no-fail-fast
