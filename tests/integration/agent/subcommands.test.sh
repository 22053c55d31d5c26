#!/usr/bin/env bash
# tally agent's subcommands as the man page writes them: options after the
# subcommand (status/stop --socket S act on S, not on the default agent),
# status --help, status saying what the agent follows (apps, tasks,
# processes, csrs, NATS), attach starting an agent when none runs.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S1=$WORK/a1/agent.sock
S2=$WORK/a2/agent.sock
start_agent "$S1" --interval 0.2 --no-archive
A1=$AGENT_PID
start_agent "$S2" --interval 0.2 --no-archive
A2=$AGENT_PID

out=$("$TALLY" agent status --socket "$S2" 2>&1)
check_eq "status --socket S after the subcommand asks S" "$(printf '%s' "$out" | jq -r .pid)" "$A2"
"$TALLY" agent status --help >help.out 2>&1
check_eq "status --help: the usage, exit 0" "$?/$(grep -c '^usage: tally agent' help.out)" "0/1"
"$TALLY" agent stop --socket "$S2" >/dev/null 2>&1
check "stop --socket S after the subcommand stops S" wait_until 10 sh -c "! kill -0 $A2 2>/dev/null"
check "  and not the other agent" kill -0 "$A1"

"$TALLY" run --agent "$S1" --app sim -o "$WORK/sim" -- sh -c 'sleep 30 & sleep 30; wait' &
RUN=$!
check "the task is followed" wait_until 20 sh -c \
  "[ \"\$('$TALLY' agent status --socket '$S1' | jq '.apps.sim.processes')\" -ge 3 ]"
out=$("$TALLY" agent status --socket "$S1")
check_eq "status: the app's tasks" "$(printf '%s' "$out" | jq '.apps.sim.tasks')" 1
check_eq "status: the app's processes (sh and its two sleeps)" "$(printf '%s' "$out" | jq '.apps.sim.processes')" 3
check_eq "status: tasks, csrs, NATS" "$(printf '%s' "$out" | jq -c '[.tasks, .csrs, .nats]')" "[1,0,null]"
check_eq "status: the socket it serves" "$(printf '%s' "$out" | jq -r .socket)" "$S1"
kill "$RUN"; wait "$RUN" 2>/dev/null
"$TALLY" agent --socket "$S1" stop >/dev/null 2>&1

# attach with no agent on the socket: one is started, as tally run --agent does
S3=$WORK/a3/agent.sock
sleep 30 &
VICTIM=$!
"$TALLY" agent attach "$VICTIM" --app held --socket "$S3" >attach.out 2>attach.err
check_eq "attach with no agent running: exit 0" "$?/$(cat attach.err)" "0/"
out=$("$TALLY" agent status --socket "$S3")
check_eq "the started agent follows the attached tree" "$(printf '%s' "$out" | jq -c '.apps.held')" \
  '{"tasks":1,"processes":1}'
A3=$(printf '%s' "$out" | jq -r .pid)
"$TALLY" agent stop --socket "$S3" >/dev/null 2>&1
check "  and stops" wait_until 10 sh -c "! kill -0 $A3 2>/dev/null"
kill "$VICTIM"
finish
