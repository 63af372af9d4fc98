#!/usr/bin/env bash
# Prints the path of a Python virtualenv holding a real Radicale CalDAV server
# (and bcrypt-free htpasswd "plain" auth), which the CalDAV *source* tests start
# on loopback. Created from PyPI on first use and cached (keyed by the pinned
# version) under ~/.cache/almanac. Fails loudly, never silently skips: a test
# that needs the server must not pass without it.
set -euo pipefail
pins=(radicale==3.9.0)
key="$(printf '%s\n' "${pins[@]}" | sha256sum | cut -c1-12)"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/almanac/radicale-venv-$key"
if [ ! -x "$venv/bin/radicale" ] || [ ! -f "$venv/.complete" ]; then
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv" >&2 || {
    echo "radicale-venv: python3 -m venv failed; install python3-venv (scripts/setup.sh)" >&2
    exit 1
  }
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}" >&2 || {
    echo "radicale-venv: installing ${pins[*]} from PyPI failed" >&2
    exit 1
  }
  touch "$venv/.complete"
fi
echo "$venv"
