#!/usr/bin/env bash
# Updates the screenshots in docs/screenshots/ (shown in
# docs/screenshots.md): the calendar window with its sidebar (search box,
# mini-month, calendars), its search and its agenda, light and dark. They
# are taken by the screenshot test (tests/window_screenshots.rs), which
# writes every window's shots to the git-ignored artifacts/screenshots/
# (so `make test` changes no file of the repository); this copies the
# documented ones. Run it after a change to how the calendar window looks,
# and commit the PNGs.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/build-ui.sh
scripts/session.sh cargo nextest run --locked -p almanac \
  -E 'test(=window_screenshots::calendar_month_and_week_populated_light_and_dark)'
mkdir -p docs/screenshots
for shot in calendar-month calendar-search calendar-agenda; do
  for theme in light dark; do
    cp "artifacts/screenshots/$shot-$theme.png" docs/screenshots/
  done
done
ls -l docs/screenshots
