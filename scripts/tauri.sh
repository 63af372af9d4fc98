#!/usr/bin/env bash
# Runs the Tauri CLI (ui's locked @tauri-apps/cli) on this repository from
# anywhere. The one real configuration is ./tauri.conf.json; src-tauri/ holds
# a symlink to it, because that is where `cargo build` (tauri-build and
# generate_context!) looks, and both follow the link. The CLI is pointed at
# src-tauri explicitly: started at the root it would otherwise take the root,
# a virtual workspace with no [package], for the Rust project.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ -x "$root/ui/node_modules/.bin/tauri" ] || "$root/scripts/build-ui.sh" >/dev/null
export TAURI_APP_PATH="$root/src-tauri" TAURI_FRONTEND_PATH="$root/ui"
exec "$root/ui/node_modules/.bin/tauri" "$@"
