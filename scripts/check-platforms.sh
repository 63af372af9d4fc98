#!/usr/bin/env bash
# Type-checks, from Linux, the code that differs per OS and what it depends on,
# so that the Windows and macOS code (keyring stores, notifications, file
# writes, signals, private folders) cannot rot:
#   - the GUI-free crates, where that code lives (almanac-core, the reminder
#     daemon, almanac-loopback and through them almanac-netguard), for both
#     x86_64-pc-windows-gnu (the MinGW C compiler runs the C build scripts:
#     ring, …) and aarch64-apple-darwin (see below);
#   - the desktop shell for macOS only: its one per-OS module (the
#     notification plugin, src/desktop/notifier.rs) is the same code on macOS
#     and Windows (`cfg(any(target_os = "macos", target_os = "windows"))`),
#     and Tauri's stack is the bulk of a check; macOS's stands in its C.
#
# macOS: C build scripts (ring, objc2-exception-helper) need a C compiler for
# the target and Apple's SDK headers. Debian's clang targets arm64-apple-macos,
# but the SDK (libc headers, TargetConditionals.h) cannot be installed on
# Linux: with CC_aarch64_apple_darwin=clang, ring's build fails on
# <bits/libc-header-start.h> (glibc's stdint.h); with -ffreestanding on
# <TargetConditionals.h>; with that one stood in, on <assert.h> (glibc's,
# for another target). `cargo check` links nothing, so a stand-in compiler
# that only creates the object and archive files they ask for lets every Rust
# crate be type-checked; it is never used to build.
#
# The shell's build script writes Tauri's capability schemas for the target
# it builds (src-tauri/gen/schemas/: macOS-schema.json, and desktop-schema.json
# and acl-manifests.json as that target sees them). scripts/test.sh runs this
# before the Linux build, which then writes the committed Linux versions.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add x86_64-pc-windows-gnu aarch64-apple-darwin >/dev/null

if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y -qq --no-install-recommends gcc-mingw-w64-x86-64
fi

crates=(-p almanac-core -p almanac-reminders -p almanac-loopback)

echo "== cargo check --target x86_64-pc-windows-gnu"
cargo check "${crates[@]}" --bins --lib --locked --target x86_64-pc-windows-gnu

stand_in="$(mktemp -d)"
trap 'rm -rf "$stand_in"' EXIT
cat >"$stand_in/cc" <<'CC'
#!/bin/sh
out=""
while [ $# -gt 0 ]; do [ "$1" = -o ] && { out="$2"; shift; }; shift; done
[ -z "$out" ] || : >"$out"
CC
cat >"$stand_in/ar" <<'AR'
#!/bin/sh
for arg in "$@"; do case "$arg" in *.a) : >"$arg" ;; esac; done
AR
chmod +x "$stand_in/cc" "$stand_in/ar"

echo "== cargo check --target aarch64-apple-darwin (C build scripts stood in)"
CC_aarch64_apple_darwin="$stand_in/cc" AR_aarch64_apple_darwin="$stand_in/ar" \
  cargo check "${crates[@]}" -p almanac --bins --lib --locked --target aarch64-apple-darwin
