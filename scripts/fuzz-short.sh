#!/usr/bin/env bash
# A short run of every fuzz target (fuzz/, cargo-fuzz): each target runs for
# FUZZ_SECONDS (default 15) from its seeds (fuzz/seeds/<target>) and what
# earlier runs found (fuzz/corpus/<target>, git-ignored), with its token
# dictionary (fuzz/dicts/). A crash, a panic, a failed assertion, an input
# slower than FUZZ_TIMEOUT seconds or over 2 GB fails the run; the input is in
# fuzz/artifacts/<target>/ and its last lines are printed.
#
#   scripts/fuzz-short.sh                 # every target
#   FUZZ_SECONDS=300 scripts/fuzz-short.sh ics_put dav_server
#   FUZZ_CODEGEN_UNITS=1 FUZZ_SECONDS=3600 scripts/fuzz-short.sh   # a long run
#
# Built without a sanitizer (`-s none`): the targets' code is safe Rust, and
# an uninstrumented build is several times quicker to build and to run;
# libFuzzer still catches panics and aborts, and the targets turn a stack
# overflow into an abort (fuzz_targets/common/stack.rs).
#
# Before fuzzing, each target replays every reproducer kept in
# fuzz/crashes/<target>/ (the crashes found so far): one crashing again
# fails the run, so a fixed crash cannot come back unnoticed.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds=${FUZZ_SECONDS:-15}
timeout=${FUZZ_TIMEOUT:-20}
# The fuzz crate is built with nightly flags; RUSTC_BOOTSTRAP unlocks them on
# the stable toolchain.
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --help >/dev/null 2>&1; then
  echo "fuzz: cargo-fuzz is missing; run scripts/setup.sh" >&2
  exit 1
fi

targets=("$@")
if ((${#targets[@]} == 0)); then
  mapfile -t targets < <(cargo fuzz list)
fi

# Each target's extra libFuzzer flags: its dictionary, and for iCalendar
# inputs long enough to nest thousands of components, tried at full length
# from the start (libFuzzer's gradual length control stays near 2 KiB for
# minutes, too short for a nesting that overflows the stack).
flags_of() {
  case "$1" in
    ics_* | caldav_copy | vtimezone) echo -dict=dicts/ical.dict -max_len=65536 -len_control=0 ;;
    dav_*) echo -dict=dicts/dav.dict ;;
    rest_* | settings_file) echo -dict=dicts/rest.dict ;;
    tasks_line) echo -dict=dicts/tasks.dict ;;
    quick_add) echo -dict=dicts/quick_add.dict ;;
    mcp_params) echo -dict=dicts/mcp.dict ;;
  esac
}

# The fuzz crate has a workspace (and lockfile) of its own; a lockfile that
# lags the main workspace's crates would be rewritten by the build and leave
# the tree changed. Refuse it first, saying how to fix it.
if ! cargo metadata --locked --format-version 1 >/dev/null; then
  echo "fuzz: fuzz/Cargo.lock is out of date: run 'cargo update -w --manifest-path fuzz/Cargo.toml' and commit it" >&2
  exit 1
fi

# cargo-fuzz builds a release build in one codegen unit per crate (best for
# long runs: ThinLTO cannot import across sancov-instrumented units). A short
# run replays known crashes and explores for seconds: sixteen units build
# several times faster on two cores, for fewer inputs a second.
build=(-O -s none --codegen-units "${FUZZ_CODEGEN_UNITS:-16}")
started=$(date +%s)
nice -n 19 cargo fuzz build "${build[@]}"
echo "fuzz: built in $(($(date +%s) - started)) s"

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failed=()
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target"
  # A fixed seed: the short run tries the same inputs, in the same order, on
  # every machine (a slower one just gets fewer of them), so a run that
  # passed here cannot fail elsewhere on an input nobody has seen. Long runs
  # (FUZZ_SEED=0: libFuzzer picks one) explore.
  args=(-seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1)
  read -ra extra <<<"$(flags_of "$target")"
  args+=("${extra[@]}")
  seeds=()
  [ -d "seeds/$target" ] && seeds=("seeds/$target")
  log="$logs/$target.log"
  known=()
  [ -d "crashes/$target" ] && mapfile -t known < <(find "crashes/$target" -type f | sort)
  if ((${#known[@]})); then
    # Files, not a folder: libFuzzer runs each once and stops.
    if (ulimit -s 2048 && nice -n 19 cargo fuzz run "${build[@]}" "$target" "${known[@]}" -- \
      -timeout="$timeout" -rss_limit_mb=2048) >"$log" 2>&1; then
      echo "fuzz: $target: ${#known[@]} known crash(es) replayed, none crashes"
    else
      echo "fuzz: $target FAILED replaying fuzz/crashes/$target/:" >&2
      grep -E -A4 'panicked at|^==fuzz==|ERROR: libFuzzer|^Running:|build failed|^error' "$log" |
        grep -Ev '^ *[0-9]+: |^ +at ' | head -n 24 >&2 || true
      failed+=("$target")
      continue
    fi
  fi
  # The stack of a runtime worker thread (2 MiB), on which production
  # parses: a recursion too deep for it crashes here too.
  if (ulimit -s 2048 && nice -n 19 cargo fuzz run "${build[@]}" "$target" "corpus/$target" "${seeds[@]}" -- "${args[@]}") >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    corpus=$(find "corpus/$target" -type f | wc -l)
    echo "fuzz: $target: ${runs:-?} inputs in ${seconds} s (${rate:-?}/s), corpus ${corpus}, no crash"
  else
    echo "fuzz: $target FAILED:" >&2
    # What failed (the panic, the signal, the timeout) and where the input
    # is, without libFuzzer's progress lines or backtrace frames.
    grep -E -A4 'panicked at|^==fuzz==|ERROR: libFuzzer|build failed|^error' "$log" |
      grep -Ev '^ *[0-9]+: |^ +at ' | head -n 24 >&2 || true
    grep -E 'Test unit written' "$log" >&2 || true
    failed+=("$target")
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: crashes in ${failed[*]}; inputs in fuzz/artifacts/" >&2
  exit 1
fi
