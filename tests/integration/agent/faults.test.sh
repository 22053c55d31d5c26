#!/usr/bin/env bash
# Faults around the agent: 'tally run --agent' starts an agent when none
# runs; the agent killed while an application runs (the application goes
# on, tally run still writes its summary); a whole tree killed; a tool that
# vanishes mid-stream. The agent never goes down with what it follows.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock

# No agent yet: tally run --agent starts one (detached) and registers.
"$TALLY" run --agent "$S" --app first -o "$WORK/first" -- \
  "$PROGS/hold_memory" 8 0 "$WORK/ready1" "$WORK/release1" 2>"$WORK/run1.err" &
RUN=$!
check "the fixture is ready" wait_file "$WORK/ready1"
PID=$(cat "$WORK/ready1")
check "an agent was started and answers" wait_agent "$S"
APID=$(head -1 "$WORK/sock/agent.lock")
check "the agent's pid is in its lock file" kill -0 "$APID"
check "the started agent is not tally run's child" test "$(awk '{ print $4 }' /proc/$APID/stat)" != "$RUN"
check "it follows the fixture" wait_until 20 sh -c "\"$TALLY\" request --agent '$S' ':app_get_proclist([app_first])' | grep -q 'p_$PID@'"
out=$("$TALLY" agent --socket "$S" 2>&1); rc=$?
check_eq "a second agent on the same socket is refused" "$rc" 125
check_contains "... saying another agent serves it" "$out" "another agent (pid $APID) already serves"

# Kill the agent while the application runs.
kill -KILL "$APID"
check "the agent is gone" wait_until 10 sh -c "! kill -0 $APID 2>/dev/null"
check "the application keeps running" kill -0 "$PID"
sleep 0.3 # a sample or two of tally run after the agent died (it must not care)
touch "$WORK/release1"
wait $RUN; rc=$?
check_eq "tally run ends with the application's status" "$rc" 0
check "tally run wrote its summary" test -s "$WORK/first.summary"
check_eq "the summary's exit status" "$(summary_value "$WORK/first.summary" exit_status)" 0
check_cmp "the summary measured the fixture's memory" "$(summary_value "$WORK/first.summary" memory)" ">=" 8

# A fresh agent (the dead one's socket and lock are taken over).
start_agent "$S" --interval 0.2 --no-archive
check "a new agent takes the socket over" wait_agent "$S"

# A tree killed as a whole: tally run reports it, the agent forgets it.
"$TALLY" run --agent "$S" --app doomed -o "$WORK/doomed" -- \
  sh -c "\"$PROGS/hold_memory\" 1 0 '$WORK/ready2' '$WORK/never' & \"$PROGS/hold_memory\" 1 0 '$WORK/ready3' '$WORK/never'" \
  2>"$WORK/run2.err" &
RUN=$!
check "the doomed tree is up" sh -c "wait_file() { for _ in \$(seq 600); do [ -s \"\$1\" ] && return 0; sleep 0.05; done; return 1; }; wait_file '$WORK/ready2' && wait_file '$WORK/ready3'"
check "the agent sees its three processes" wait_until 20 sh -c \
  "[ \$(\"$TALLY\" request --agent '$S' ':app_get_proclist([app_doomed])' | jq -r 'select(.service) | .result.processes | length') = 3 ]"
PIDS=$("$TALLY" request --agent "$S" ':app_get_proclist([app_doomed])' | jq -r 'select(.service) | .result.processes[]' | sed 's/^p_//; s/@.*//')
out=$("$TALLY" request --agent "$S" ':proc_kill([app_doomed], "KILL")')
check_eq "proc_kill on the app answers for its three processes" "$(printf '%s\n' "$out" | grep -c '"service":"proc_kill"')" 3
check_contains "... with no error (one may end before its signal: state gone)" "$out" '"errors":[]'
gone() { for p in $PIDS; do kill -0 "$p" 2>/dev/null && [ "$(proc_state "$p")" != Z ] && return 1; done; return 0; }
check "all three are gone" wait_until 10 gone
wait $RUN; rc=$?
check_eq "tally run reports SIGKILL" "$rc" 137
check "the agent forgets the dead application" wait_until 10 sh -c \
  "[ \$(\"$TALLY\" request --agent '$S' ':app_get_list()' | jq -r 'select(.service) | .result.apps | length') = 0 ]"
check "the agent survived" kill -0 "$AGENT_PID"

# A tool that vanishes mid-stream.
"$TALLY" request --agent "$S" --follow 'timer(20ms): node_get_info([site_local])' >"$WORK/stream.out" 2>&1 &
F=$!
check "the stream flows" wait_until 10 sh -c "[ \$(grep -c node_get_info '$WORK/stream.out') -ge 3 ]"
kill -KILL $F; wait $F 2>/dev/null
sleep 0.1
check "the agent is alive after a tool vanished" sh -c "\"$TALLY\" agent --socket '$S' status >/dev/null"
out=$("$TALLY" request --agent "$S" ':csr_delete([csr_1])')
check_contains "its conditional request went with it" "$out" "csr_1: no such conditional request"

kill -TERM "$AGENT_PID"; wait "$AGENT_PID"; rc=$?
check_eq "SIGTERM shuts the agent down cleanly" "$rc" 0
check "no socket left" test ! -e "$S"
finish
