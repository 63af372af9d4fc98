#!/usr/bin/env bash
# Runs the Tauri CLI (@tauri-apps/cli, pinned in scripts/tauri-cli/) on this repository from
# anywhere. The one real configuration is ./tauri.conf.json; src-tauri/ holds
# a symlink to it, because that is where `cargo build` (tauri-build and
# generate_context!) looks, and both follow the link. The CLI is pointed at
# src-tauri explicitly: started at the root it would otherwise take the root,
# a virtual workspace with no [package], for the Rust project.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# (Kept out of ui/'s locked packages: npm writes a lock that `npm ci` refuses
# for the CLI's per-platform optional packages, and the tests need none of it.)
cli="$root/scripts/tauri-cli"
[ -x "$cli/node_modules/.bin/tauri" ] || npm install --prefix "$cli" --no-audit --no-fund --no-package-lock >&2
export TAURI_APP_PATH="$root/src-tauri" TAURI_FRONTEND_PATH="$root/ui"
exec "$cli/node_modules/.bin/tauri" "$@"
