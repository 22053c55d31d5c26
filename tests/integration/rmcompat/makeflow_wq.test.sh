#!/usr/bin/env bash
# The Makeflow workflow of makeflow_local.test.sh through Work Queue
# (makeflow -T wq) with three work_queue_worker processes on localhost, one
# core each, standing for three hosts: Makeflow ships tally to each worker
# as "cctools-monitor" and reads back its summaries, as it does with
# cctools' resource_monitor (run the same way for comparison). Ports are
# chosen free here; workers and managers are stopped at the end.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/rmcompat/common.sh"

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# run_workflow DIR MONITOR: makeflow -T wq with three workers; status in DIR/rc
run_workflow() {
  local dir=$WORK/$1 port
  mkdir -p "$dir" && write_workflow "$dir/Makeflow"
  port=$(free_port) || { echo "no free port" >"$dir/rc"; return; }
  (cd "$dir" && exec timeout 120 makeflow -T wq -p "$port" --monitor=mon --monitor-exe="$2" \
     --monitor-with-time-series -d all -o debug.log Makeflow >out.log 2>&1) &
  local manager=$!
  pids+=("$manager")
  if ! listening 300 "$port"; then
    echo "manager never listened on $port" >"$dir/rc"
    kill "$manager"
    return
  fi
  local workers=()
  for w in 1 2 3; do
    mkdir -p "$dir/w$w"
    timeout 120 work_queue_worker --cores 1 -s "$dir/w$w" -t 60 localhost "$port" >"$dir/w$w.log" 2>&1 &
    workers+=($!)
    pids+=($!)
  done
  wait "$manager"
  echo $? >"$dir/rc"
  for p in "${workers[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
}
run_workflow real "$RM_REAL"
run_workflow tally "$RM_TALLY"
cd "$WORK"

check_eq "makeflow -T wq: exit status as with resource_monitor" "$(cat tally/rc)" "$(cat real/rc)"
check_eq "rule states as with resource_monitor" "$(makeflow_states tally/Makeflow.makeflowlog)" \
  "$(makeflow_states real/Makeflow.makeflowlog)"
check_eq "  three rules done, the big one failed" "$(makeflow_states tally/Makeflow.makeflowlog)" "0:2 1:2 2:2 3:3 "
check_contains "the monitor went to the workers as cctools-monitor" "$(grep 'infile' tally/debug.log | head -1)" "cctools-monitor"
workers_used=$(grep -o 'tx to [^ ]* ([0-9.]*:[0-9]*): infile [^ ]*resource_monitor cctools-monitor' tally/debug.log \
  | sed 's/.*(\(.*\)).*/\1/' | sort -u | wc -l)
check_cmp "tally ran on more than one worker" "$workers_used" ">=" 2
check_contains "the big rule failed with the monitor's code 2" "$(cat tally/out.log)" "big.txt failed with exit code 2"
check_eq "makeflow read limits_exceeded from tally's summary" \
  "$(grep -A1 'rule 3 failed because it exceeded the resources limits' tally/debug.log | tail -1 | sed 's/.*makeflow_hook: //')" \
  "$(grep -A1 'rule 3 failed because it exceeded the resources limits' real/debug.log | tail -1 | sed 's/.*makeflow_hook: //')"
check_eq "  which is the MEMORY of its category" \
  "$(grep -A1 'rule 3 failed because it exceeded the resources limits' tally/debug.log | tail -1 | sed 's/.*makeflow_hook: //')" \
  '{"memory":[20,"MB"]}'
check_eq "reports came back from the workers, named as resource_monitor's" "$(cd tally/mon && ls | tr '\n' ' ')" \
  "$(cd real/mon && ls | tr '\n' ' ')"
"$CCTOOLS_READER" tally/mon/resource-rule-*.summary >reader.out 2>reader.err
check_eq "cctools' parser reads them, no notice" "$?/$(wc -c < reader.err)" "0/0"
check_contains "  category small: three tasks" "$(cat reader.out)" "category small tasks=3"
"$TALLY" archive --db "$WORK/archive.db" add tally/mon/ >add.out 2>&1
check_eq "tally archive add takes them" "$?/$(cat add.out)" "0/added 3, already archived 0, rejected 0"
"$TALLY" trace from-runs tally/mon/resource-rule-0 tally/mon/resource-rule-1 tally/mon/resource-rule-2 -o runs.paje 2>from.err
check_eq "tally trace from-runs reads them" "$?/$(cat from.err)" "0/"
alive=0
for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
check_eq "no manager or worker left running" "$alive" 0
finish
