#!/usr/bin/env bash
# Nothing escapes: a grandchild that called setsid and double-forked is
# terminated (and counted) when the command exits; with --wait-for-all it is
# waited for instead. SIGTERM to tally ends the task and still writes a
# complete summary.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
alive() { kill -0 "$1" 2>/dev/null && [ "$(ps -o stat= -p "$1" | cut -c1)" != Z ]; }

$TALLY run -o esc -- "$PROGS/escape" pid 30
check_eq "exit status" "$?" 0
gc=$(cat pid)
check "escaped grandchild is gone after tally returns" eval "! alive $gc"
check_eq "all 3 processes counted" "$(summary_value esc.summary total_processes)" 3

$TALLY run --level 1 -o esc1 -- "$PROGS/escape" pid1 30
check_eq "level 1: exit status" "$?" 0
check "level 1: escaped grandchild is gone too (subreaper + /proc scan)" eval "! alive $(cat pid1)"

start=$(date +%s.%N)
$TALLY run -o wait --wait-for-all -- "$PROGS/escape" pid2 1
took=$(echo "$(date +%s.%N) - $start" | bc)
check_cmp "--wait-for-all waited for the grandchild" "$took" ">=" 0.9
check "grandchild finished on its own" eval "! alive $(cat pid2)"

$TALLY run -o term -- /bin/sh -c "$PROGS/escape pid3 30; sleep 30.25" &
tally_pid=$!
for i in $(seq 100); do [ -s pid3 ] && break; sleep 0.05; done
sleep 0.2
kill -TERM $tally_pid
wait $tally_pid
st=$?
check_eq "tally exits with the task's status (SIGTERM: 143)" "$st" 143
check "summary written after SIGTERM" test -s term.summary
check "summary is complete JSON" jq -e '.wall_time and .memory and .exit_type' term.summary
check "summary says tally was interrupted" jq -e '.interrupted == true' term.summary
check "no temporary report left" eval "! ls term.summary.tmp-* >/dev/null 2>&1"
check "grandchild gone after SIGTERM to tally" eval "! alive $(cat pid3)"
check_eq "no process of the task left" "$(pgrep -f "sleep 30.25" | wc -l)" 0

# SIGINT and SIGHUP are handled the same way.
for sig in INT HUP; do
  $TALLY run -o $sig -- /bin/sh -c "sleep 30.5" &
  tally_pid=$!
  handles_term $tally_pid
  sleep 0.1
  kill -$sig $tally_pid
  wait $tally_pid
  check_eq "SIG$sig: tally returns the task's status (143: SIGTERM)" "$?" 143
  check "SIG$sig: complete summary" jq -e '.exit_type == "signal" and .signal == 15' $sig.summary
done
check_eq "SIGINT/SIGHUP: nothing left" "$(pgrep -f "sleep 30.5" | wc -l)" 0

# A task that ignores SIGTERM: the grace is cut short by a second signal.
$TALLY run -o twice --kill-grace 20s -- /bin/sh -c "trap '' TERM; touch trapped; sleep 30.75" &
tally_pid=$!
for _ in $(seq 200); do [ -e trapped ] && break; sleep 0.05; done
kill -TERM $tally_pid
sleep 0.3
start=$(date +%s.%N)
kill -TERM $tally_pid
wait $tally_pid
check_eq "second signal: task killed (SIGKILL: 137)" "$?" 137
took=$(echo "$(date +%s.%N) - $start" | bc)
check_cmp "second signal: no 20 s grace" "$took" "<" 3
check_eq "second signal: nothing left" "$(pgrep -f "sleep 30.75" | wc -l)" 0
finish
