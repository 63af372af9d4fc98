#!/usr/bin/env bash
# `make release`: the optimised binaries and the Linux bundles (.deb and
# AppImage), copied to artifacts/, then both are checked by installing the
# .deb into a scratch root and starting everything headless
# (scripts/check-deb.sh).
#
# Heavy: a full optimised (thin-LTO) build of the Tauri stack, so it is not
# part of `make test`. Set CARGO_TARGET_DIR to keep it apart from debug builds.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/build-ui.sh >/dev/null
target="${CARGO_TARGET_DIR:-$PWD/target}"
bundle="$target/release/bundle"
rm -rf artifacts && mkdir -p artifacts

# Tauri builds the binaries and the .deb. Its AppImage bundler needs
# linuxdeploy and AppRun, published only on GitHub, so the AppImage is
# assembled from the .deb with the AppImage runtime from crates.io and
# Debian's mksquashfs (scripts/appimage.sh).
scripts/tauri.sh build --bundles deb
cp "$target/release/almanac" "$target/release/almanac-server" "$bundle"/deb/*.deb artifacts/
deb="$(ls artifacts/*.deb)"
scripts/appimage.sh "$deb" "${deb%.deb}.AppImage"

scripts/check-deb.sh "$deb" "${deb%.deb}.AppImage"
ls -l artifacts/
