#!/usr/bin/env bash
# Usage: pip-venv.sh NAME PIN...
# Prints the path of a Python virtualenv holding the pinned PyPI packages,
# creating it on first use and caching it (keyed by the pins) under
# ~/.cache/almanac (or $XDG_CACHE_HOME/almanac) as NAME-venv-KEY. Fails
# loudly, never silently skips: a test that needs these programs must not
# pass without them.
#
# Tests run side by side, so several may ask for the same venv at once: it
# is made once, by whoever asks first, under an flock(1) on NAME-venv-KEY.lock;
# the others wait on the lock and then use it. `.complete` is written last,
# and only a venv with it is ever used; one without it (a killed build) is
# removed and made again under the lock. (It is built in place rather than in
# a temp dir renamed into place: a venv writes its own absolute path into the
# `#!` line of every script it installs, bin/pip and bin/radicale included,
# so a renamed one would not run.)
set -euo pipefail
name="$1"
shift
pins=("$@")
key="$(printf '%s\n' "${pins[@]}" | sha256sum | cut -c1-12)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/almanac"
venv="$cache/$name-venv-$key"

# A finished venv never changes again: no lock needed to use it.
if [ ! -f "$venv/.complete" ]; then
  mkdir -p "$cache"
  exec 9>"$venv.lock"
  flock 9
  if [ ! -f "$venv/.complete" ]; then
    rm -rf "$venv"
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
  exec 9>&-
fi
echo "$venv"
