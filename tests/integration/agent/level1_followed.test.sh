#!/usr/bin/env bash
# 'tally run --level 1 --agent': the agent follows the task's tree with its
# one machine-wide scan per tick and the tally run that started it only
# waits (no timer: it does not wake while the task runs). Its summary is the
# agent's peaks merged with the kernel's exact totals: the memory of two
# processes alive together (a sum no single process shows), their CPU time
# and their count. The agent's requests see the task's processes.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock
start_agent "$S" --no-archive || { not_ok "the agent starts"; finish; }

"$TALLY" run --level 1 --agent="$S" --app quiet -o "$WORK/q" -- sh -c \
  "'$PROGS/hold_memory' 30 0 '$WORK/r1' '$WORK/release' & '$PROGS/hold_memory' 20 0 '$WORK/r2' '$WORK/release' & wait" \
  2>"$WORK/run.err" &
RUN=$!
check "both processes are ready" wait_until 20 sh -c "[ -s '$WORK/r1' ] && [ -s '$WORK/r2' ]"
P1=$(cat "$WORK/r1") P2=$(cat "$WORK/r2")
check "the agent follows both" wait_until 10 sh -c \
  "\"$TALLY\" request --agent '$S' ':app_get_proclist([app_quiet])' | grep -q 'p_$P1@' &&
   \"$TALLY\" request --agent '$S' ':app_get_proclist([app_quiet])' | grep -q 'p_$P2@'"
switches() { awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s }' "/proc/$RUN/status"; }
c0=$(switches)
sleep 2.5 # two and a half sampling intervals of the agent
c1=$(switches)
check_eq "tally run does not wake while the task runs (context switches)" "$c1" "$c0"
hwm=$(( $(awk '/^VmHWM/ { print $2 }' /proc/$P1/status) + $(awk '/^VmHWM/ { print $2 }' /proc/$P2/status) ))
touch "$WORK/release"
wait "$RUN"
check_eq "tally run exits with the task's status" "$?" 0
check_eq "nothing said on stderr" "$(cat "$WORK/run.err")" ""
s=$WORK/q.summary
check_eq "level 1" "$(jq -r .level "$s")" 1
# The two processes together (the shell adds its own ~1-2 MB): a sum that
# only the agent's samples can give, the kernel keeps the largest process only.
check_near "memory: both processes' peaks together (+ the shell)" \
  "$(summary_value "$s" memory)" "$(echo "$hwm / 1024 + 1.5" | bc -l)" 1.5
check_eq "max_concurrent_processes (the shell and both)" "$(summary_value "$s" max_concurrent_processes)" 3
check_eq "total_processes" "$(summary_value "$s" total_processes)" 3
check_cmp "cpu_time: the kernel's total of the reaped tree (> 0)" "$(summary_value "$s" cpu_time)" ">" 0
check_near "wall_time is tally run's own" "$(summary_value "$s" wall_time)" 4 2
"$TALLY" agent --socket "$S" stop >/dev/null 2>&1
wait "$AGENT_PID"
check_eq "the agent stops when asked (nothing left running)" "$?" 0
finish
