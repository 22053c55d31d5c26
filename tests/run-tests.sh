#!/usr/bin/env bash
# Runs every unit-test binary (build/asan/unit/**) and integration script
# (tests/integration/**/*.test.sh), each printing TAP lines; prints one line per
# test file and a closing "N passed, N failed" counting individual checks.
# Arguments, when given, are substrings selecting which test files run.
#
# Two at a time where that is safe: an integration script whose header holds
# the line "# make check: runs beside other tests" (it measures no CPU share,
# rate or time that another test's load would change, and uses no system-wide
# service, fixed port, user account or process name another test uses) is
# run beside another such script, TALLY_TEST_JOBS at once (default: 2 when
# the machine has 2 CPUs or more). Every other file then runs alone.
set -u
cd "$(dirname "$0")/.."
export TALLY PROGS TALLY_RELEASE
export TALLY_TEST_ROOT=$PWD
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
per_test_timeout=${TALLY_TEST_TIMEOUT:-900}
jobs=${TALLY_TEST_JOBS:-$( [ "$(nproc)" -ge 2 ] && echo 2 || echo 1 )}
shares_marker='^# make check: runs beside other tests$'
logdir=build/test-logs
rm -rf "$logdir" && mkdir -p "$logdir"

mapfile -t files < <( { find build/asan/unit -type f -perm -u+x 2>/dev/null; \
                        find tests/integration -name '*.test.sh' 2>/dev/null; } | sort)
shared=() alone=()
for f in "${files[@]}"; do
  if [ $# -gt 0 ]; then
    keep=0; for pat in "$@"; do [[ "$f" == *"$pat"* ]] && keep=1; done
    [ $keep = 1 ] || continue
  fi
  if [[ "$f" == *.sh ]] && grep -q "$shares_marker" "$f"; then shared+=("$f"); else alone+=("$f"); fi
done

log_of() { echo "$logdir/$(echo "$1" | tr '/' '_').log"; }

# run_file FILE: runs one test file into its log, then writes "STATUS SECONDS"
# into the log's .status file
run_file() {
  local f=$1 log start status
  log=$(log_of "$f")
  start=$(date +%s.%N)
  if [[ "$f" == *.sh ]]; then timeout -k 10 "$per_test_timeout" bash "$f" >"$log" 2>&1; else timeout -k 10 "$per_test_timeout" "$f" >"$log" 2>&1; fi
  status=$?
  echo "$status $(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")" >"$log.status"
}

passed=0 failed=0 broken_files=()
# report FILE: one line for a file that has run, its checks counted
report() {
  local f=$1 log status secs p n
  log=$(log_of "$f")
  if [ ! -f "$log" ] || [ ! -f "$log.status" ]; then # a run of the tests started beside this one empties $logdir
    mkdir -p "$logdir"
    echo "not ok - $f: its log vanished (another run of the tests removed $logdir?)" >"$log"
    echo "1 0.0" >"$log.status"
  fi
  read -r status secs <"$log.status"
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
}

# the files that may share the machine, $jobs at a time, each reported as it ends
declare -A running=()
for f in "${shared[@]}"; do
  while [ ${#running[@]} -ge "$jobs" ]; do
    wait -n -p done_pid; report "${running[$done_pid]}"; unset "running[$done_pid]"
  done
  run_file "$f" & running[$!]=$f
done
while [ ${#running[@]} -gt 0 ]; do
  wait -n -p done_pid; report "${running[$done_pid]}"; unset "running[$done_pid]"
done
# then the others, one at a time
for f in "${alone[@]}"; do
  run_file "$f"; report "$f"
done
echo
[ ${#broken_files[@]} -gt 0 ] && echo "failing test files: ${broken_files[*]} (logs in $logdir)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
