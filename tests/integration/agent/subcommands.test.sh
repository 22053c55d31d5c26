#!/usr/bin/env bash
# tally agent's subcommands as the man page writes them: options after the
# subcommand (status/stop --socket S act on S, not on the default agent),
# status --help, status saying what the agent follows (apps, tasks,
# processes, csrs, NATS through a real nats-server), attach starting an
# agent when none runs.
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
# a conditional request lives as long as the tool that defined it
"$TALLY" request --agent "$S1" --follow 'proc_terminated([app_sim]): proc_get_info([app_sim])' \
  >follow.out 2>&1 &
FOLLOW=$!
csrs() { [ "$("$TALLY" agent status --socket "$S1" | jq .csrs)" = "$1" ]; }
check "status: the csr a tool defined" wait_until 10 csrs 1
kill -INT "$FOLLOW"; wait "$FOLLOW"
check "  and none once that tool has gone" wait_until 10 csrs 0
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

# status says the NATS state: a real nats-server with per-user accounts
. "$TALLY_TEST_ROOT/tests/integration/live/nats-sites.sh"
user=$(id -un)
nats_sites_start "$user" || { not_ok "nats-servers start"; finish; }
S4=$WORK/a4/agent.sock
start_agent "$S4" --no-archive --nats "$NATS_ALPHA" --creds "$WORK/creds/$user"
A4=$AGENT_PID
connected() { [ "$("$TALLY" agent status --socket "$S4" | jq .nats.connected)" = true ]; }
check "status: NATS connected" wait_until 20 connected
"$TALLY" run --agent "$S4" --app nsim -o "$WORK/nsim" -- sleep 30 &
RUN=$!
hosts_nsim() { [ "$("$TALLY" agent status --socket "$S4" | jq -c .nats.apps)" = '["nsim"]' ]; }
check "status: the applications served over NATS" wait_until 20 hosts_nsim
out=$("$TALLY" agent status --socket "$S4")
check_eq "status: the server and the user" "$(printf '%s' "$out" | jq -r '[.nats.url, .nats.user] | join(" ")')" \
  "$NATS_ALPHA $user"
kill "$RUN"; wait "$RUN" 2>/dev/null
_nats_stop
disconnected() { [ "$("$TALLY" agent status --socket "$S4" | jq .nats.connected)" = false ]; }
check "status: NATS disconnected once the server has stopped" wait_until 20 disconnected
kill "$A4"; wait "$A4" 2>/dev/null
finish
