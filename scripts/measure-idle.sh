#!/usr/bin/env bash
# Idle cost of `almanac --headless` with an empty vault, both servers on:
# CPU ticks used over 20 s and resident memory split into heap (anonymous)
# and mapped files (the binary and its shared libraries).
# Run inside the desktop session: scripts/session.sh scripts/measure-idle.sh [BINARY]
set -euo pipefail
bin="${1:-target/debug/almanac}"
export HOME=$(mktemp -d) XDG_CONFIG_HOME=$(mktemp -d)
mkdir -p $XDG_CONFIG_HOME/almanac
printf '{"restServerEnabled": true, "localServerPort": 18541, "reminders": {"daemonPort": 18542}}' > $XDG_CONFIG_HOME/almanac/settings.json
"$bin" --headless 2>/tmp/idle.err &
pid=$!
sleep 3
t0=$(awk '{print $14+$15}' /proc/$pid/stat)
sleep 20
t1=$(awk '{print $14+$15}' /proc/$pid/stat)
echo "cpu ticks over 20 s idle: $((t1-t0)) (of $((20*$(getconf CLK_TCK))) per core)"
grep -E "VmRSS|RssAnon|RssFile|RssShmem" /proc/$pid/status
curl -s -o /dev/null -w "daemon /status %{http_code}\n" http://127.0.0.1:18542/status
kill -TERM $pid; wait $pid; echo "exit $?"
