#!/usr/bin/env bash
# Type-checks the whole workspace for Windows and macOS from Linux:
#   cargo check --target x86_64-pc-windows-gnu   (the MinGW C compiler runs the
#                                                 C build scripts: ring, …)
#   cargo check --target aarch64-apple-darwin    (see below)
# so the per-OS code (keyring stores, notifications, file writes) cannot rot.
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
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add x86_64-pc-windows-gnu aarch64-apple-darwin >/dev/null

if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y -qq --no-install-recommends gcc-mingw-w64-x86-64
fi

crates=(-p almanac-core -p almanac-reminders -p almanac-loopback -p almanac)

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
  cargo check "${crates[@]}" --bins --lib --locked --target aarch64-apple-darwin
