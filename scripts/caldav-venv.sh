#!/usr/bin/env bash
# Prints the path of a Python virtualenv holding the real CalDAV / iCalendar
# clients the CalDAV server tests drive (the `caldav` library, vdirsyncer and
# the `icalendar` parser), creating it from PyPI on first use and caching it
# (keyed by the pinned versions) under ~/.cache/almanac. Fails loudly, never
# silently skips: a test that needs the clients must not pass without them.
set -euo pipefail
pins=(caldav==3.6.0 vdirsyncer==0.21.0 icalendar==7.3.0)
key="$(printf '%s\n' "${pins[@]}" | sha256sum | cut -c1-12)"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/almanac/caldav-venv-$key"
if [ ! -x "$venv/bin/vdirsyncer" ] || [ ! -f "$venv/.complete" ]; then
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv" >&2 || {
    echo "caldav-venv: python3 -m venv failed; install python3-venv (scripts/setup.sh)" >&2
    exit 1
  }
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}" >&2 || {
    echo "caldav-venv: installing ${pins[*]} from PyPI failed" >&2
    exit 1
  }
  touch "$venv/.complete"
fi
echo "$venv"
