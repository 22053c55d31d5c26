#!/usr/bin/env bash
# 'tally run --level 1 --agent' while the agent follows the tree (tally run
# only waits): what the runner must still do itself.
# - proc_set_limits on such a task goes to its tally run, which then samples
#   the tree and enforces the limit as 'tally run --limits' does (exit 124,
#   one line naming the limit), and keeps enforcing it when the agent is
#   killed right after (the limit is not lost with the agent).
# - many runs killed together: the agent ends every tree (one line each in
#   its log, with the count of the tree's processes), all in one go.
# - the agent killed while a run waits: tally run measures the rest itself;
#   its summary has both processes' memory together (its own samples after
#   taking over) and the CPU time of a busy loop (the kernel's totals).
# - the agent stopped ('tally agent stop') while a run waits: the run
#   measures the rest itself and spools its summary; the next agent archives
#   it, and the task is in the archive once (the stopping agent does not
#   archive its part of a task whose tally run is still there).
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock
start_agent "$S" --no-archive || { not_ok "the agent starts"; finish; }
# followed APP: the agent lists a process of APP's tree
followed() {
  [ "$(req "$S" ":app_get_proclist([app_$1])" | jq -r 'select(.service) | .result.processes | length')" -gt 0 ]
}

# 20 runs killed together: every tree ended (the shell and its two sleeps).
runs=()
for i in $(seq 20); do
  "$TALLY" run --level 1 --agent="$S" --app many$i -o /dev/null -- \
    sh -c "sleep 71$$ & sleep 72$$" 2>/dev/null &
  runs+=($!)
done
count_sleeps() { pgrep -f "^sleep 7[12]$$\$" | wc -l; }
check "20 trees of 3 processes run" wait_until 20 eval '[ "$(count_sleeps)" -eq 40 ]'
sleep 2.5 # the agent's scans (every second) have seen every tree
{ kill -KILL "${runs[@]}"; wait "${runs[@]}"; } 2>/dev/null
check "the runs killed together: nothing of their trees left" wait_until 10 eval '[ "$(count_sleeps)" -eq 0 ]'
check_eq "the agent's log: each tree ended, 3 processes each" \
  "$(grep -c 'is gone without ending it: 3 processes of its tree ended' "$WORK/agent.err")" 20

# A limit while the agent samples: tally run enforces it.
"$TALLY" run --level 1 --agent="$S" --app lim -o "$WORK/lim" -- sleep 20 2>"$WORK/lim.err" &
RUN=$!
check "the agent follows the task" wait_until 10 followed lim
out=$(req "$S" ':proc_set_limits([app_lim], "wall_time: 2 s")')
check_contains "proc_set_limits: sent to the task's tally run" "$out" '"watchdog":"sent to its tally run"'
wait "$RUN"
check_eq "tally run exits 124: the limit broke" "$?" 124
check_contains "tally run says which limit broke" "$(cat "$WORK/lim.err")" "wall_time"
check_near "the task ended at the limit" "$(summary_value "$WORK/lim.summary" wall_time)" 2 0.6

# A limit set, then the agent killed: tally run takes over and still enforces it.
"$TALLY" run --level 1 --agent="$S" --app lim2 -o "$WORK/lim2" -- sleep 20 2>"$WORK/lim2.err" &
RUN=$!
check "the agent follows the second task" wait_until 10 followed lim2
req "$S" ':proc_set_limits([app_lim2], "wall_time: 3 s")' >/dev/null
kill -KILL "$AGENT_PID"
wait "$AGENT_PID" 2>/dev/null
wait "$RUN"
check_eq "agent killed after the limit: tally run still exits 124" "$?" 124
check_contains "agent killed: tally run says which limit broke" "$(cat "$WORK/lim2.err")" "wall_time"
check_near "agent killed: the task ended at the limit" "$(summary_value "$WORK/lim2.summary" wall_time)" 3 0.6

# The agent killed while a run waits: tally run takes over the measuring.
B=$WORK/sock3/agent.sock
start_agent "$B" --no-archive || { not_ok "a third agent starts"; finish; }
"$TALLY" run --level 1 --agent="$B" --app over -o "$WORK/over" -- sh -c \
  "'$PROGS/hold_memory' 40 0 '$WORK/o1' '$WORK/orelease' & '$PROGS/hold_memory' 30 0 '$WORK/o2' '$WORK/orelease' &
   i=0; while [ \$i -lt 400000 ]; do i=\$((i + 1)); done; wait" 2>"$WORK/over.err" &
RUN=$!
check "both memory holders are ready" wait_until 20 sh -c "[ -s '$WORK/o1' ] && [ -s '$WORK/o2' ]"
kill -KILL "$AGENT_PID"
wait "$AGENT_PID" 2>/dev/null
check "agent killed: tally run says it measures the task itself" \
  wait_until 10 grep -q "tally run measures the task itself" "$WORK/over.err"
sleep 1.5 # tally run's own samples (warm-up at 10, 20, 40 ms ...) see both holders
touch "$WORK/orelease"
wait "$RUN"
check_eq "agent killed: tally run exits with the task's status" "$?" 0
check_cmp "agent killed: memory has both holders together (>= 70 MB)" \
  "$(summary_value "$WORK/over.summary" memory)" ">=" 70
check_cmp "agent killed: cpu_time has the shell's busy loop (kernel totals, > 0.2 s)" \
  "$(summary_value "$WORK/over.summary" cpu_time)" ">" 0.2

# 'tally agent stop' while a run waits: the task archived once, whole.
A=$WORK/sock2/agent.sock
start_agent "$A" --archive "$WORK/archive.db" || { not_ok "the archiving agent starts"; finish; }
"$TALLY" run --level 1 --agent="$A" --app stopped -o "$WORK/stopped" -- sleep 3 2>"$WORK/stopped.err" &
RUN=$!
S=$A
check "the archiving agent follows the task" wait_until 10 followed stopped
"$TALLY" agent --socket "$A" stop >/dev/null 2>&1
wait "$AGENT_PID"
wait "$RUN"
check_eq "the agent stopped: tally run exits with the task's status" "$?" 0
check_contains "the agent stopped: the summary waits in the spool" "$(cat "$WORK/stopped.err")" "the summary waits in"
start_agent "$A" --archive "$WORK/archive.db" || { not_ok "the next agent starts"; finish; }
check_eq "the next agent archived the spooled summary: the task is archived once" \
  "$(sqlite3 "$WORK/archive.db" "select count(*) from summaries where name = 'stopped'")" 1
check_near "the archived task is the whole one (wall_time)" \
  "$(sqlite3 "$WORK/archive.db" "select wall_time from summaries where name = 'stopped'")" 3 0.5
"$TALLY" agent --socket "$A" stop >/dev/null 2>&1
wait "$AGENT_PID"
finish
