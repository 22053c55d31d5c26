#!/usr/bin/env bash
# The fuzz harnesses (tests/fuzz/*_fuzz.c, built by make check with clang)
# in the test suite: for each one, (1) replay every committed input of
# tests/fuzz/corpus/NAME (seeds and the inputs of crashes found and fixed),
# then (2) fuzz for a fixed number of inputs, FUZZ_CHECK_RUNS (default
# 5000), from a fixed seed. A fixed count rather than a time bound: the same
# binary tries the same inputs on any machine, however loaded, so a failure
# here reproduces with the command printed (a 120 s cap per harness only
# guards against a machine so slow the count cannot be reached; the ok line
# says how many inputs ran). 5000 inputs cost under 1 s of CPU for the text
# harnesses and 10-15 s for the trace ones (they read and write a trace per
# input); on a shared, loaded machine the wall time is a few times that.
# Longer runs, time-bounded, with a growing corpus: make fuzz. The harnesses
# run side by side, as many at once as there are CPUs.
# (3) The harnesses of parsers that read files an adversary may craft and
# tally maps or follows offsets in (FUZZ_FORK_HARNESSES, default "elf":
# executables given to run --marker/--mpi) are fuzzed again in libFuzzer's
# fork mode for FUZZ_FORK_SECONDS (default 30): child processes, fresh
# mutations from a time-dependent seed, stopping at the first crash. This one
# is time-bounded, not count-bounded: its purpose is to explore beyond the
# fixed inputs of (2); a crash it finds is written to build/fuzz/artifacts.
ROOT=${TALLY_TEST_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$ROOT/tests/integration/lib.sh"
FUZZ=${FUZZ:-$ROOT/build/fuzz}
runs=${FUZZ_CHECK_RUNS:-5000}
fork_harnesses=" ${FUZZ_FORK_HARNESSES-elf} " fork_seconds=${FUZZ_FORK_SECONDS:-30}
artifacts=$ROOT/build/fuzz/artifacts
# the trace harnesses write (and fsync, through atomic_file) a file per
# input: in memory when /dev/shm is there, not on the disk other builds share
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
mkdir -p "$artifacts"
# libFuzzer's own leak and crash reports; stop at the first UB as make check does
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

shopt -s nullglob
harnesses=("$FUZZ"/*_fuzz)
command -v "${FUZZ_CC:-clang}" >/dev/null || echo "# no clang: scripts/install-deps.sh installs it"
check_cmp "fuzz harnesses built (one per tests/fuzz/*_fuzz.c)" "${#harnesses[@]}" ">=" \
  "$(ls "$ROOT"/tests/fuzz/*_fuzz.c | wc -l)"
# fuzz_one BIN: (1), (2) and (3) for one harness. Its results are lines
# "ok MESSAGE" or "not_ok MESSAGE" followed by what to show, on stdout:
# the harnesses run side by side, one per CPU (each alone is one process
# bound by its fixed input count), and the results are told in order below.
fuzz_one() {
  local bin=$1 name seeds inputs dict dirs execs
  name=$(basename "$bin"); name=${name%_fuzz}
  seeds=$ROOT/tests/fuzz/corpus/$name
  inputs=("$seeds"/*)
  if [ ${#inputs[@]} -gt 0 ]; then
    if "$bin" -timeout=25 "${inputs[@]}" >"replay-$name.log" 2>&1; then
      echo "ok $name: replays its ${#inputs[@]} committed inputs"
    else
      echo "not_ok $name: a committed input fails: $bin $seeds/*"
      grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|Running:)' "replay-$name.log" | tail -4
    fi
  else
    echo "not_ok $name: no committed inputs in tests/fuzz/corpus/$name"
  fi
  dict=(); [ -f "$ROOT/tests/fuzz/$name.dict" ] && dict=(-dict="$ROOT/tests/fuzz/$name.dict")
  mkdir -p "corpus-$name"
  dirs=("corpus-$name"); [ -d "$seeds" ] && dirs+=("$seeds")
  if "$bin" -runs="$runs" -seed=1 -max_total_time=120 -timeout=25 "${dict[@]}" -print_final_stats=1 \
       -artifact_prefix="$artifacts/$name-" "${dirs[@]}" >"fuzz-$name.log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz-$name.log")
    echo "ok $name: $execs inputs fuzzed (-runs=$runs -seed=1), no crash, leak or UB"
  else
    echo "not_ok $name: fuzzing found a failure; reproduce: $bin $artifacts/$name-*"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|fuzz:)' "fuzz-$name.log" | head -4
  fi
  case $fork_harnesses in *" $name "*) ;; *) return 0 ;; esac
  mkdir -p "fork-corpus-$name"
  if "$bin" -fork=1 -max_total_time="$fork_seconds" -timeout=25 "${dict[@]}" \
       -artifact_prefix="$artifacts/$name-fork-" "fork-corpus-$name" "${dirs[@]}" >"fork-$name.log" 2>&1; then
    execs=$(grep -oE '^#[0-9]+' "fork-$name.log" | tail -1)
    echo "ok $name: fork mode for ${fork_seconds}s (${execs#\#} inputs), no crash, leak, timeout or UB"
  else
    echo "not_ok $name: fork-mode fuzzing found a failure; reproduce: $bin $artifacts/$name-fork-*"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|INFO: log from the inner)' "fork-$name.log" | head -4
  fi
}

jobs_max=$(nproc 2>/dev/null || echo 1)
running=0
for bin in "${harnesses[@]}"; do
  [ -x "$bin" ] || continue
  if [ "$running" -ge "$jobs_max" ]; then wait -n; running=$((running - 1)); fi
  fuzz_one "$bin" >"result-$(basename "$bin")" 2>&1 &
  running=$((running + 1))
done
wait
for bin in "${harnesses[@]}"; do
  [ -x "$bin" ] || continue
  while IFS= read -r line; do
    case $line in
      "ok "*) ok "${line#ok }" ;;
      "not_ok "*) not_ok "${line#not_ok }" ;;
      *) echo "# $line" ;;
    esac
  done <"result-$(basename "$bin")"
done
finish
