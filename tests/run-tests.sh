#!/usr/bin/env bash
# Runs every unit-test binary (build/asan/unit/**) and integration script
# (tests/integration/**/*.test.sh), each printing TAP lines; prints one line per
# test file and a closing "N passed, N failed" counting individual checks.
# Arguments, when given, are substrings selecting which test files run.
set -u
cd "$(dirname "$0")/.."
export TALLY PROGS TALLY_RELEASE
export TALLY_TEST_ROOT=$PWD
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
per_test_timeout=${TALLY_TEST_TIMEOUT:-900}
logdir=build/test-logs
rm -rf "$logdir" && mkdir -p "$logdir"

mapfile -t files < <( { find build/asan/unit -type f -perm -u+x 2>/dev/null; \
                        find tests/integration -name '*.test.sh' 2>/dev/null; } | sort)
passed=0 failed=0 broken_files=()
for f in "${files[@]}"; do
  if [ $# -gt 0 ]; then
    keep=0; for pat in "$@"; do [[ "$f" == *"$pat"* ]] && keep=1; done
    [ $keep = 1 ] || continue
  fi
  log="$logdir/$(echo "$f" | tr '/' '_').log"
  start=$(date +%s.%N)
  if [[ "$f" == *.sh ]]; then timeout -k 10 "$per_test_timeout" bash "$f" >"$log" 2>&1; else timeout -k 10 "$per_test_timeout" "$f" >"$log" 2>&1; fi
  status=$?
  secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
  if [ ! -f "$log" ]; then # a run of the tests started beside this one empties $logdir
    mkdir -p "$logdir"
    echo "not ok - $f: its log vanished (another run of the tests removed $logdir?)" >"$log"
  fi
  p=$(grep -cE '^ok ' "$log"); n=$(grep -cE '^not ok ' "$log")
  if [ "$status" -ne 0 ] && [ "$n" -eq 0 ]; then n=1; echo "not ok - $f exited with status $status" >>"$log"; fi
  if [ "$p" -eq 0 ] && [ "$n" -eq 0 ]; then n=1; echo "not ok - $f ran no check" >>"$log"; fi
  passed=$((passed + p)); failed=$((failed + n))
  if [ "$n" -gt 0 ]; then
    printf 'FAIL %-60s %4d ok %3d failed (%ss)\n' "$f" "$p" "$n" "$secs"
    grep -E '^not ok ' "$log" | head -20 | sed 's/^/     /'
    tail -n 15 "$log" | grep -vE '^(not )?ok ' | sed 's/^/     | /'
    broken_files+=("$f")
  else
    printf 'pass %-60s %4d ok (%ss)\n' "$f" "$p" "$secs"
  fi
done
echo
[ ${#broken_files[@]} -gt 0 ] && echo "failing test files: ${broken_files[*]} (logs in $logdir)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
