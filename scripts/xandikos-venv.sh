#!/usr/bin/env bash
# Prints the path of a Python virtualenv holding a real Xandikos CalDAV
# server, the second server implementation the published-calendar tests
# sync against (so the sync is not tuned to Radicale's quirks); created from
# PyPI on first use and cached.
exec "$(dirname "$0")/pip-venv.sh" xandikos xandikos==0.4.10
