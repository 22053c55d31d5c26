#!/usr/bin/env bash
# The agent's launch_keep message (a Slurm rank's run handing its segments
# over for the step's gatherer, tally-slurm(7)): refused without a
# registered task, for a bad launch id, and for a directory that is not
# private; several directories kept under one launch, all answered by one
# launch_ranks, and all removed by its "release"; one never asked for is
# removed when the agent stops (nobody will gather it).
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/a/agent.sock
start_agent "$S" --interval 0.2 --no-archive
sleep 60 & RUNNER=$!

# send LINES...: the agent's answers to one connection's lines
send() { printf '%s\n' "$@" | timeout 5 socat -t 1 - "UNIX-CONNECT:$S" 2>&1; }
reg="{\"op\":\"register\",\"runner\":$RUNNER,\"app\":\"slurm_7\"}"
mkdir -m 700 "$WORK/k1" "$WORK/k2"
mkdir -m 755 "$WORK/open"

out=$(send "{\"op\":\"launch_keep\",\"launch\":\"slurm-7-0\",\"segments\":\"$WORK/k1\"}")
check_contains "without a registered task: refused" "$out" '"error"'
out=$(send "$reg" "{\"op\":\"launch_keep\",\"launch\":\"../x\",\"segments\":\"$WORK/k1\"}")
check_contains "a bad launch id: refused, named" "$out" "launch_keep: launch '../x' is not a launch id"
out=$(send "$reg" "{\"op\":\"launch_keep\",\"launch\":\"slurm-7-0\",\"segments\":\"$WORK/open\"}")
check_contains "a directory others can read: refused" "$out" "is not a private directory of this user"
out=$(send "$reg" "{\"op\":\"launch_keep\",\"launch\":\"slurm-7-0\"}")
check_contains "no directory: refused" "$(printf '%s\n' "$out" | jq -r '.error // empty')" 'launch_keep: needs "launch"'

out=$(send "$reg" "{\"op\":\"launch_keep\",\"launch\":\"slurm-7-0\",\"segments\":\"$WORK/k1\"}" \
  "{\"op\":\"launch_keep\",\"launch\":\"slurm-7-0\",\"segments\":\"$WORK/k2\"}")
check_eq "two directories kept under one launch" "$(printf '%s\n' "$out" | grep -c '"launch_kept"')" 2
out=$(send '{"op":"launch_ranks","launch":"slurm-7-1","release":true}')
check_eq "another step's launch: nothing, done" "$(printf '%s\n' "$out" | jq -c 'select(.done) | .ranks')" 0
check "  and the directories stay" test -d "$WORK/k1" -a -d "$WORK/k2"
out=$(send '{"op":"launch_ranks","launch":"slurm-7-0","release":true}')
check_eq "the launch's ranks: done (the directories hold none)" "$(printf '%s\n' "$out" | jq -c 'select(.done) | .ranks')" 0
check "release removed both directories" sh -c "! test -e '$WORK/k1' && ! test -e '$WORK/k2'"
check "the directory that was refused is untouched" test -d "$WORK/open"
# a FIFO named like a segment in a kept directory is not waited on (the
# agent hung on it, answering nobody) and is no rank
mkdir -m 700 "$WORK/kf"; mkfifo "$WORK/kf/5.seg"
out=$(send "$reg" "{\"op\":\"launch_keep\",\"launch\":\"slurm-7-9\",\"segments\":\"$WORK/kf\"}")
check_contains "a directory holding a FIFO named 5.seg kept" "$out" '"launch_kept"'
out=$(send '{"op":"launch_ranks","launch":"slurm-7-9","release":true}')
check_eq "its launch_ranks: done, no rank (the FIFO is no segment)" "$(printf '%s\n' "$out" | jq -c 'select(.done) | .ranks')" 0
check "the agent still answers" timeout 10 "$TALLY" agent --socket "$S" status
mkdir -m 700 "$WORK/k3"
out=$(send "$reg" "{\"op\":\"launch_keep\",\"launch\":\"slurm-7-2\",\"segments\":\"$WORK/k3\"}")
check_contains "a third directory kept" "$out" '"launch_kept"'
"$TALLY" agent stop --socket "$S" >/dev/null 2>&1
check "the agent stops" wait_until 10 sh -c "! kill -0 $AGENT_PID 2>/dev/null"
check "the directory nobody gathered is removed with it" sh -c "! test -e '$WORK/k3'"
check "the refused one is still untouched" test -d "$WORK/open"
kill "$RUNNER"
finish
