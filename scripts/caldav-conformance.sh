#!/usr/bin/env bash
# caldav-server-tester (the python-caldav project's server checker) against
# Almanac's CalDAV server and against Radicale, on this machine, side by
# side; prints each feature whose support differs (issue 21). Not part of
# `make test` yet: Almanac is still behind Radicale on some features.
#
#   scripts/caldav-conformance.sh            # builds almanac-server first
#
# Almanac runs from a scratch config and vault (one notes calendar "Work")
# with a token holding events:read, events:write and settings:write, so the
# checker may create its calendars (MKCALENDAR). Runs itself inside
# scripts/session.sh (the token lives in the OS keyring).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${ALMANAC_IN_SESSION:-}" ]; then
  exec scripts/session.sh "$0" "$@"
fi
target="${CARGO_TARGET_DIR:-target}"
cargo build -q -p almanac --bin almanac-server
venv="$(scripts/pip-venv.sh caldav-checker caldav-server-tester==1.7.0 radicale==3.9.0)"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Radicale: no authentication, storage in the scratch folder.
radicale_port="$(free_port)"
cat >"$work/radicale.conf" <<CONF
[server]
hosts = 127.0.0.1:$radicale_port
[auth]
type = none
[storage]
filesystem_folder = $work/radicale
CONF
"$venv/bin/radicale" --config "$work/radicale.conf" >"$work/radicale.log" 2>&1 &
pids+=($!)

# Almanac: its own config, data and vault.
caldav_port="$(free_port)"
mkdir -p "$work/config/almanac" "$work/data" "$work/vault/Work"
cat >"$work/config/almanac/settings.json" <<JSON
{"vaultPath": "$work/vault", "restServerEnabled": false,
 "localServerPort": $(free_port), "reminders": {"daemonPort": $(free_port)},
 "caldavServer": {"enabled": true, "port": $caldav_port},
 "calendarSources": [{"id": "work", "name": "Work", "type": "local", "directory": "Work"}]}
JSON
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
server="$target/debug/almanac-server"
# `token create` shows the secret only to a terminal: script(1) is one.
secret="$(script -qc "$server token create conformance --scopes events:read,events:write,settings:write" /dev/null |
  grep -o 'ofc_pat_[A-Za-z0-9]*' | head -n1)"
"$server" >"$work/almanac.log" 2>&1 &
pids+=($!)
for port in "$radicale_port" "$caldav_port"; do
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    sleep 0.1
  done
done

check() { # NAME URL USER PASSWORD [more options]
  local name="$1" url="$2" user="$3" password="$4"
  shift 4
  echo "checking $name…" >&2
  "$venv/bin/caldav-server-tester" --caldav-url "$url" --caldav-username "$user" \
    --caldav-password "$password" --format json "$@" >"$work/$name.json" 2>"$work/$name.err" || {
    echo "caldav-server-tester did not finish against $name:" >&2
    tail -n 5 "$work/$name.err" >&2
    exit 1
  }
}
check radicale "http://127.0.0.1:$radicale_port/" user password
check almanac "http://127.0.0.1:$caldav_port/" me "$secret" --caldav-calendar Work

python3 - "$work/radicale.json" "$work/almanac.json" <<'PY'
import json, sys
radicale, almanac = (json.load(open(p))["features"] for p in sys.argv[1:])
def support(entry):
    # An empty entry is the checker's "as expected": full support.
    if not entry:
        return "full"
    return entry.get("support", "value " + json.dumps(entry.get("value")))
print("| feature | Radicale 3.9.0 | Almanac |")
print("|---|---|---|")
for name in sorted(set(radicale) | set(almanac)):
    r, a = support(radicale.get(name, {})), support(almanac.get(name, {}))
    if r != a:
        print(f"| `{name}` | {r} | {a} |")
PY
