#!/usr/bin/env bash
# Prints the path of a Python virtualenv holding the ICS differential test's
# oracle (`icalendar` + `recurring-ical-events`, pinned in
# src-tauri/core/tests/ics_corpus/requirements.txt), created from PyPI on
# first use and cached, like every other test venv, by pip-venv.sh.
set -euo pipefail
here="$(dirname "$0")"
mapfile -t pins < <(grep -v '^[[:space:]]*\(#\|$\)' "$here/../src-tauri/core/tests/ics_corpus/requirements.txt")
exec "$here/pip-venv.sh" ics-oracle "${pins[@]}"
