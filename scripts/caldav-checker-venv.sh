#!/usr/bin/env bash
# Prints the path of a Python virtualenv holding caldav-server-tester (the
# python-caldav project's CalDAV server checker), which the conformance test
# runs against Almanac and Radicale; created from PyPI on first use and cached.
exec "$(dirname "$0")/pip-venv.sh" caldav-checker caldav-server-tester==1.7.0
