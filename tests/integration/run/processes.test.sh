#!/usr/bin/env bash
# 1000 short processes in a shell loop: the exact count, and concurrency as
# it really was (resource_monitor reports 223 'concurrent' processes).
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
# '[' and $((...)) are builtins of /bin/sh: the task is sh + 1000 /bin/true.
$TALLY run -o loop -- /bin/sh -c 'i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done'
check_eq "exit status" "$?" 0
check_eq "total_processes exact" "$(summary_value loop.summary total_processes)" 1001
mc=$(summary_value loop.summary max_concurrent_processes)
check_cmp "max_concurrent_processes <= 3" "$mc" "<=" 3
check_cmp "max_concurrent_processes >= 2" "$mc" ">=" 2
# The same without polling for events (TALLY_SPIN_US=0: the tracer always
# sleeps) and with long polls: polling changes how soon tally sees an event,
# never what it counts.
for spin in 0 5000; do
  TALLY_SPIN_US=$spin $TALLY run -o loop$spin -- /bin/sh -c 'i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done'
  check_eq "TALLY_SPIN_US=$spin: exit status" "$?" 0
  check_eq "TALLY_SPIN_US=$spin: total_processes exact" "$(summary_value loop$spin.summary total_processes)" 301
  mc=$(summary_value loop$spin.summary max_concurrent_processes)
  check_cmp "TALLY_SPIN_US=$spin: max_concurrent_processes <= 3" "$mc" "<=" 3
done
finish
