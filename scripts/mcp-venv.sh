#!/usr/bin/env bash
# Prints the path of a Python virtualenv holding the official MCP client (the
# PyPI `mcp` SDK) the MCP tests drive, created from PyPI on first use and cached.
exec "$(dirname "$0")/pip-venv.sh" mcp mcp==2.3.0
