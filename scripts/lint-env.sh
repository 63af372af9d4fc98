# Sourced by the test scripts: every build of the workspace's own crates goes
# through clippy-driver with clippy's deny-all-warnings, so one compilation
# both lints and builds (`cargo clippy` would compile everything a second
# time, in check mode). Dependencies are built by plain rustc; cargo keys the
# workspace crates' artifacts on this wrapper and these arguments, so every
# script that sources this file shares one set of artifacts in target/.
RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
# clippy-driver reads its own arguments from CLIPPY_ARGS, split on this marker
# (what `cargo clippy -- -D warnings` hands it).
CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
export RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
if [ ! -x "$RUSTC_WORKSPACE_WRAPPER" ]; then
  echo "clippy-driver is missing: rustup component add clippy" >&2
  exit 1
fi
