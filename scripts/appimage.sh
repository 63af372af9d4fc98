#!/usr/bin/env bash
# Builds Almanac's AppImage from its .deb, with what the package registries
# offer: Tauri's AppImage bundler downloads linuxdeploy and AppRun from GitHub,
# so this assembles the AppImage itself (an AppImage is the type-2 runtime
# with a SquashFS image of an AppDir appended):
#   - the AppDir is the .deb's files (usr/bin, the menu entry, the icons) with
#     AppRun linked to usr/bin/almanac, the menu entry and icon at its top;
#   - the SquashFS image is made by mksquashfs (Debian's squashfs-tools);
#   - the runtime is AppImageKit's, as shipped by the crates.io crate
#     `appimage` (fetched by cargo, see scripts/appimage-runtime/Cargo.toml).
# Unlike linuxdeploy's, this AppImage does not carry the WebKitGTK stack: like
# the .deb, it needs libwebkit2gtk-4.1 and libayatana-appindicator3 on the
# host (and, for a FUSE mount, libfuse2; else run it with
# --appimage-extract-and-run).
#
# Usage: scripts/appimage.sh path/to/almanac.deb OUT.AppImage
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
deb="$(realpath "$1")"
out="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

runtime="$(cargo metadata --locked --format-version 1 \
  --manifest-path "$root/scripts/appimage-runtime/Cargo.toml" \
  | python3 -c 'import json, sys, os
pkg = next(p for p in json.load(sys.stdin)["packages"] if p["name"] == "appimage")
print(os.path.join(os.path.dirname(pkg["manifest_path"]), "assets", "runtime-x86_64"))')"
[ -f "$runtime" ] || { echo "appimage: no runtime at $runtime" >&2; exit 1; }

appdir="$work/Almanac.AppDir"
dpkg-deb -x "$deb" "$appdir"
desktop="$(find "$appdir/usr/share/applications" -name '*.desktop' | head -1)"
icon="$(sed -n 's/^Icon=//p' "$desktop")"
cp "$desktop" "$appdir/"
cp "$appdir/usr/share/icons/hicolor/128x128/apps/$icon.png" "$appdir/$icon.png"
ln -s "$icon.png" "$appdir/.DirIcon"
ln -s usr/bin/almanac "$appdir/AppRun"

mksquashfs "$appdir" "$work/image.squashfs" -root-owned -noappend -comp gzip -quiet >/dev/null
cat "$runtime" "$work/image.squashfs" >"$out"
chmod 0755 "$out"
echo "appimage: $out ($(du -h "$out" | cut -f1))"
