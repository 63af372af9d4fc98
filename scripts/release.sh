#!/usr/bin/env bash
# `make release`: the optimised binaries and Tauri's Linux bundles (.deb and
# AppImage), copied to artifacts/, then the .deb is checked by installing it
# into a scratch root and starting it headless (scripts/check-deb.sh).
#
# Heavy: a full optimised (thin-LTO) build of the Tauri stack, so it is not
# part of `make test`. Set CARGO_TARGET_DIR to keep it apart from debug builds.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/build-ui.sh >/dev/null
target="${CARGO_TARGET_DIR:-$PWD/target}"
bundle="$target/release/bundle"
rm -rf artifacts && mkdir -p artifacts

# Build once and bundle the .deb; the AppImage is bundled from the same build.
# The .deb comes first: the AppImage bundler downloads its tools (linuxdeploy
# and its plugins) from GitHub, and when that fails the .deb must still be made.
scripts/tauri.sh build --bundles deb
cp "$target/release/almanac" "$target/release/almanac-server" "$bundle"/deb/*.deb artifacts/
if scripts/tauri.sh bundle --bundles appimage; then
  cp "$bundle"/appimage/*.AppImage artifacts/
else
  echo "release: the AppImage could not be bundled (see above); the .deb is in artifacts/" >&2
  appimage_failed=1
fi

scripts/check-deb.sh artifacts/*.deb
ls -l artifacts/
exit "${appimage_failed:-0}"
