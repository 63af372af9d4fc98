#!/usr/bin/env bash
# caldav-server-tester (the python-caldav project's server checker) against
# Almanac's CalDAV server and against Radicale, on this machine, side by
# side (issue 21): runs the conformance test, which fails when Almanac is
# worse than Radicale on any feature without a stated reason, and writes the
# features on which the two differ into docs/caldav.md.
#
#   scripts/caldav-conformance.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ALMANAC_WRITE_CONFORMANCE=1 exec scripts/session.sh \
  cargo nextest run -p almanac-core -E 'test(/^caldav::conformance/)' --no-capture
