#!/usr/bin/env bash
# Builds the web UI into ui/dist from the locked npm dependencies. Fast when
# nothing changed; the Tauri build embeds ui/dist, so run this before it.
set -euo pipefail
cd "$(dirname "$0")/../ui"

# npm ci reinstalls from scratch; skip it while node_modules matches the lock.
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.lock-installed; then
  npm ci --no-audit --no-fund
  cp package-lock.json node_modules/.lock-installed
fi
npm run build
