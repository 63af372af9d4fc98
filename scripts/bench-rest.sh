#!/usr/bin/env bash
# REST server load benchmark (targets in BENCHMARKS.md): wrk with 64 connections on a
# generated 10k-note vault, GET /api/v1/events for one day and for one week with
# a valid token, next to a bare hyper "hello" server measured in the same run.
#
#   scripts/bench-rest.sh [DURATION (default 20s)] [NOTES (default 10000)]
#
# WRK_THREADS (default 2) sets wrk's threads: on a 2-core machine the load
# generator competes with the server for the same cores.
# Runs itself inside scripts/session.sh (tokens live in the OS keyring).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${ALMANAC_IN_SESSION:-}" ]; then
  exec scripts/session.sh "$0" "$@"
fi
duration="${1:-20s}"
notes="${2:-10000}"
threads="${WRK_THREADS:-2}"
target="${CARGO_TARGET_DIR:-target}"

cargo build -q -p almanac-core --release \
  --example gen_vault --example bench_hello --example rest_instance
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

"$target/release/examples/gen_vault" "$work/vault" "$notes" >&2

hello_port=18541
rest_port=18540
"$target/release/examples/bench_hello" "$hello_port" >/dev/null &
pids+=($!)
# The token arrives through a pipe (a coprocess), never through a file.
coproc REST { exec "$target/release/examples/rest_instance" "$work/vault" "$rest_port"; }
pids+=("$REST_PID")
read -r word token <&"${REST[0]}"
[ "$word" = TOKEN ] || { echo "rest_instance did not start" >&2; exit 1; }
until exec 3<>/dev/tcp/127.0.0.1/$hello_port 2>/dev/null; do sleep 0.05; done
exec 3>&-

# One wrk run; prints: requests/s, p50, p99, errors (socket errors + non-2xx).
measure() {
  local out
  out="$(wrk -t"$threads" -c64 -d"$duration" --latency "$@")"
  echo "$out" >&2
  local rps p50 p99 non2xx sockets
  rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")"
  p50="$(awk '$1 == "50%" {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  non2xx="$(awk '/Non-2xx/ {print $NF}' <<<"$out")"
  sockets="$(awk -F'[ ,]+' '/Socket errors/ {print $4+$6+$8+$10}' <<<"$out")"
  echo "$rps $p50 $p99 $(( ${non2xx:-0} + ${sockets:-0} ))"
}

day="/api/v1/events?start=2025-03-12&end=2025-03-12"
week="/api/v1/events?start=2025-03-10&end=2025-03-16"
auth="Authorization: Bearer $token"
count() { curl -s -H "$auth" "http://127.0.0.1:$rest_port$1" | sed -n 's/.*"count":\([0-9]*\).*/\1/p'; }
day_count="$(count "$day")"
week_count="$(count "$week")"

# A random day of the vault's four years per request: answers are mostly
# computed, not served from the answer cache (128 entries for ~1460 days).
cat >"$work/random-day.lua" <<'LUA'
math.randomseed(os.time())
request = function()
  local day = os.date("!%Y-%m-%d", 1672531200 + math.random(0, 1459) * 86400)
  return wrk.format(nil, "/api/v1/events?start=" .. day .. "&end=" .. day)
end
LUA

read -r h_rps h_p50 h_p99 h_err < <(measure "http://127.0.0.1:$hello_port/")
read -r d_rps d_p50 d_p99 d_err < <(measure -H "$auth" "http://127.0.0.1:$rest_port$day")
read -r w_rps w_p50 w_p99 w_err < <(measure -H "$auth" "http://127.0.0.1:$rest_port$week")
# The occurrence index builds a four-week page the first time a read reaches
# it; a first pass over the four years builds them, so the measured run is
# the steady state: answers computed from the index, not served from the
# answer cache. (`bench_calendar` measures building the pages.)
wrk -t1 -c8 -d3s -H "$auth" -s "$work/random-day.lua" "http://127.0.0.1:$rest_port" >/dev/null
read -r r_rps r_p50 r_p99 r_err < <(measure -H "$auth" -s "$work/random-day.lua" "http://127.0.0.1:$rest_port")
empty="/api/v1/events?start=2025-03-12&end=2025-03-12&calendar=none"
read -r e_rps e_p50 e_p99 e_err < <(measure -H "$auth" "http://127.0.0.1:$rest_port$empty")

ratio() { awk -v a="$1" -v b="$h_rps" 'BEGIN {printf "%.2f×", a / b}'; }
cat <<TABLE

| case (wrk -t$threads -c64 -d$duration, $notes notes) | requests/s | vs hello | p50 | p99 | errors |
|---|---|---|---|---|---|
| baseline: bare hyper "hello" | $h_rps | 1.00× | $h_p50 | $h_p99 | $h_err |
| GET /events, one day ($day_count events) | $d_rps | $(ratio "$d_rps") | $d_p50 | $d_p99 | $d_err |
| GET /events, one week ($week_count events) | $w_rps | $(ratio "$w_rps") | $w_p50 | $w_p99 | $w_err |
| GET /events, a random day per request (index warm, answer uncached) | $r_rps | $(ratio "$r_rps") | $r_p50 | $r_p99 | $r_err |
| GET /events, one day of an unknown calendar (0 events) | $e_rps | $(ratio "$e_rps") | $e_p50 | $e_p99 | $e_err |
TABLE
