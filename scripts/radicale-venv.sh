#!/usr/bin/env bash
# Prints the path of a Python virtualenv holding a real Radicale CalDAV
# server, which the CalDAV *source* tests start on loopback; created from
# PyPI on first use and cached.
exec "$(dirname "$0")/pip-venv.sh" radicale radicale==3.9.0
