#!/usr/bin/env bash
# tally run --level 1 --retry: the second attempt is held to its raised limit
# like the first. Before, tally run was still a child subreaper from the first
# attempt when the second started its guardian: the guardian was re-parented
# to tally run, counted in the task's tree and ended with it (2 s of SIGTERM
# grace), so a raised wall-time limit of 2 s stopped the task at 4 s. With
# --agent, after a limit set live (proc_set_limits) on a first attempt the
# agent sampled, and broken, the second attempt is measured and held to the
# raised limit by tally run itself.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
trap 'kill "${AGENT_PID:-}" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT

# without an agent: 1 s broken, the retry at 2 s
"$TALLY" run --level 1 --retry --limits "wall_time: 1 s" -o "$WORK/solo" -- sleep 4 2>"$WORK/solo.err"
check_eq "no agent: exit 124 (the raised limit broke too)" "$?" 124
check_contains "no agent: the retry is announced" "$(cat "$WORK/solo.err")" "wall_time limit 1 s broken; retrying with 2 s"
check_near "no agent: the first attempt stopped at 1 s" "$(summary_value "$WORK/solo.attempt1.summary" wall_time)" 1 0.3
check_near "no agent: the second attempt stopped at its raised limit, 2 s" "$(summary_value "$WORK/solo.summary" wall_time)" 2 0.3

# with an agent that samples the first attempt: a limit set live, broken, raised
mkdir -m 700 "$WORK/a"
S=$WORK/a/agent.sock
start_agent "$S" --no-archive || { not_ok "the agent starts"; finish; }
"$TALLY" run --level 1 --agent="$S" --retry --app rt -o "$WORK/rt" -- sleep 4 2>"$WORK/rt.err" &
RUN=$!
followed() { [ "$(req "$S" ':app_get_proclist([app_rt])' | jq -r 'select(.service) | .result.processes | length')" -gt 0 ]; }
check "the agent follows the first attempt" wait_until 10 followed
out=$(req "$S" ':proc_set_limits([app_rt], "wall_time: 1 s")')
check_contains "proc_set_limits: sent to the task's tally run" "$out" '"watchdog":"sent to its tally run"'
wait "$RUN"
check_eq "agent: exit 124" "$?" 124
check_contains "agent: the retry is announced" "$(cat "$WORK/rt.err")" "wall_time limit 1 s broken; retrying with 2 s"
check_near "agent: the second attempt stopped at its raised limit, 2 s" "$(summary_value "$WORK/rt.summary" wall_time)" 2 0.3
check_eq "agent: nothing in the agent's log" "$(grep -c . "$WORK/agent.err")" 0
finish
