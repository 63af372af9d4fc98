#!/usr/bin/env bash
# Usage: pip-venv.sh NAME PIN...
# Prints the path of a Python virtualenv holding the pinned PyPI packages,
# creating it on first use and caching it (keyed by the pins) under
# ~/.cache/almanac as NAME-venv-KEY. Fails loudly, never silently skips: a
# test that needs these programs must not pass without them.
set -euo pipefail
name="$1"
shift
pins=("$@")
key="$(printf '%s\n' "${pins[@]}" | sha256sum | cut -c1-12)"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/almanac/$name-venv-$key"
if [ ! -f "$venv/.complete" ]; then
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv" >&2 || {
    echo "$name-venv: python3 -m venv failed; install python3-venv (scripts/setup.sh)" >&2
    exit 1
  }
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}" >&2 || {
    echo "$name-venv: installing ${pins[*]} from PyPI failed" >&2
    exit 1
  }
  touch "$venv/.complete"
fi
echo "$venv"
