#!/usr/bin/env bash
# A small Makeflow workflow run locally with --monitor, once with cctools'
# resource_monitor and once with tally as --monitor-exe: Makeflow must treat
# both the same (rule states, its exit status, the rule that breaks its
# MEMORY limit failed with code 2 and reported from the summary's
# limits_exceeded), and tally's summaries must go on into cctools' reader,
# 'tally archive add' and 'tally trace from-runs'.
# make check: runs beside other tests
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/rmcompat/common.sh"

# run_workflow DIR MONITOR: makeflow's status in DIR/rc
run_workflow() {
  mkdir -p "$1" && write_workflow "$1/Makeflow"
  (cd "$1" && timeout 120 makeflow --monitor=mon --monitor-exe="$2" --monitor-with-time-series \
     -d all -o debug.log Makeflow >out.log 2>&1; echo $? >rc)
}
run_workflow real "$RM_REAL"
run_workflow tally "$RM_TALLY"

check_eq "makeflow's exit status as with resource_monitor" "$(cat tally/rc)" "$(cat real/rc)"
check_eq "rule states as with resource_monitor (2 done, 3 failed)" "$(makeflow_states tally/Makeflow.makeflowlog)" \
  "$(makeflow_states real/Makeflow.makeflowlog)"
check_eq "  which are: three rules done, the big one failed" "$(makeflow_states tally/Makeflow.makeflowlog)" "0:2 1:2 2:2 3:3 "
check_contains "the big rule failed with the monitor's code 2" "$(cat tally/out.log)" "big.txt failed with exit code 2"
check_contains "  as with resource_monitor" "$(cat real/out.log)" "big.txt failed with exit code 2"
# Makeflow's monitor hook read limits_exceeded from the summary (rmsummary_parse_file_single)
check_eq "makeflow read limits_exceeded from tally's summary" \
  "$(grep -A1 'rule 3 failed because it exceeded the resources limits' tally/debug.log | tail -1 | sed 's/.*makeflow_hook: //')" \
  '{"memory":[20,"MB"]}'
check_eq "  as from resource_monitor's" \
  "$(grep -A1 'rule 3 failed because it exceeded the resources limits' real/debug.log | tail -1 | sed 's/.*makeflow_hook: //')" \
  '{"memory":[20,"MB"]}'
check_eq "makeflow measured every finished rule (no 'failed to measure')" \
  "$(grep -c 'failed to measure' tally/debug.log)" 0
check_eq "tally wrote the reports resource_monitor writes" "$(cd tally/mon && ls | tr '\n' ' ')" "$(cd real/mon && ls | tr '\n' ' ')"
check "rules' outputs" test -s tally/ab.txt -a ! -e tally/big.txt

# cctools' own reader: Makeflow's parse and the histograms' accumulation by category
"$CCTOOLS_READER" tally/mon/resource-rule-*.summary >reader.out 2>reader.err
check_eq "cctools' parser reads tally's summaries, no notice" "$?/$(wc -c < reader.err)" "0/0"
check_contains "  category small: three tasks" "$(cat reader.out)" "category small tasks=3"
line=$(grep 'resource-rule-1.summary' reader.out)
check_eq "  rule 1: category, exit" "$(field "$line" category)/$(field "$line" exit_type)/$(field "$line" exit_status)" small/normal/0
check_cmp "  rule 2 ran at least its 1 s sleep" "$(field "$(grep 'resource-rule-2.summary' reader.out)" wall_time)" ">=" 1

# on into tally's archive and traces
"$TALLY" archive --db "$WORK/archive.db" add tally/mon/ >add.out 2>&1
check_eq "tally archive add takes them" "$?/$(cat add.out)" "0/added 3, already archived 0, rejected 0"
"$TALLY" archive --db "$WORK/archive.db" query 'category = small and wall_time >= 1' >query.out 2>&1
check_eq "  and finds rule 2 by category and wall time" "$(grep -c ' small ' query.out)" 1
"$TALLY" trace from-runs tally/mon/resource-rule-0 tally/mon/resource-rule-1 tally/mon/resource-rule-2 -o runs.paje 2>from.err
check_eq "tally trace from-runs reads their summaries and series" "$?/$(cat from.err)" "0/"
check_contains "  category small in the trace" "$(cat runs.paje)" '"cpu.small"'
finish
