#!/usr/bin/env bash
# Runs libFuzzer harnesses for a bounded time each ('make fuzz'):
#   tests/fuzz/run.sh build/fuzz/NAME_fuzz...
# FUZZ_SECONDS (default 300) per harness; FUZZ_ARGS adds libFuzzer options.
# Each harness starts from its committed seeds (tests/fuzz/corpus/NAME, read
# only) and a working corpus build/fuzz/corpus/NAME that grows from run to run;
# tests/fuzz/NAME.dict is used when present. Crashing inputs are written to
# build/fuzz/artifacts/NAME-*; logs to build/fuzz/logs/NAME.log. Prints one
# line per harness (executions, coverage, result); exits 1 if any failed.
set -u
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-300}
# the trace harnesses write (and fsync, through atomic_file) a file per
# input: in memory when /dev/shm is there, not on the disk other builds share
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
mkdir -p build/fuzz/logs build/fuzz/artifacts
failed=0
for bin in "$@"; do
  name=$(basename "$bin"); name=${name%_fuzz}
  work=build/fuzz/corpus/$name seeds=tests/fuzz/corpus/$name log=build/fuzz/logs/$name.log
  mkdir -p "$work"
  args=(-max_total_time="$seconds" -timeout=25 -print_final_stats=1
        -artifact_prefix=build/fuzz/artifacts/"$name"-)
  [ -f tests/fuzz/$name.dict ] && args+=(-dict=tests/fuzz/$name.dict)
  dirs=("$work"); [ -d "$seeds" ] && dirs+=("$seeds")
  # shellcheck disable=SC2086 # FUZZ_ARGS is a list of options
  "$bin" "${args[@]}" ${FUZZ_ARGS:-} "${dirs[@]}" >"$log" 2>&1
  status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1)
  if [ $status -eq 0 ]; then
    printf '%-12s ok     %10s executions in %ss, %s, corpus %s inputs\n' "$name" "${execs:-?}" \
      "$seconds" "${cov:-cov: ?}" "$(ls "$work" | wc -l)"
  else
    failed=1
    printf '%-12s FAILED %10s executions (status %d): see %s and build/fuzz/artifacts/%s-*\n' \
      "$name" "${execs:-?}" "$status" "$log" "$name"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -3 | sed 's/^/    /'
  fi
done
exit $failed
