#!/usr/bin/env bash
# Prints the path of a Python virtualenv holding the Standard Webhooks
# reference library (`standardwebhooks`, pinned in
# src-tauri/testkit/webhook_receiver/requirements.txt) that the webhook
# tests verify deliveries with, created from PyPI on first use and cached,
# like every other test venv, by pip-venv.sh.
set -euo pipefail
here="$(dirname "$0")"
mapfile -t pins < <(grep -v '^[[:space:]]*\(#\|$\)' "$here/../src-tauri/testkit/webhook_receiver/requirements.txt")
exec "$here/pip-venv.sh" webhooks "${pins[@]}"
