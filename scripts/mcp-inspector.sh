#!/usr/bin/env bash
# Prints the path of the MCP Inspector's launcher (`@modelcontextprotocol/inspector`
# from npm), installed on first use into a cache folder keyed by its version
# (~/.cache/almanac/mcp-inspector-VERSION, or under $XDG_CACHE_HOME). Pinned
# to 0.14.3: later releases need Node >= 22.7.5, and Debian's Node is 20.
# Fails loudly, never silently skips. Made once under an flock, like pip-venv.sh.
set -euo pipefail
version=0.14.3
cache="${XDG_CACHE_HOME:-$HOME/.cache}/almanac"
dir="$cache/mcp-inspector-$version"
if [ ! -f "$dir/.complete" ]; then
  mkdir -p "$cache"
  exec 9>"$dir.lock"
  flock 9
  if [ ! -f "$dir/.complete" ]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
      "@modelcontextprotocol/inspector@$version" >&2 || {
      echo "mcp-inspector: npm install @modelcontextprotocol/inspector@$version failed" >&2
      exit 1
    }
    touch "$dir/.complete"
  fi
  exec 9>&-
fi
echo "$dir/node_modules/.bin/mcp-inspector"
