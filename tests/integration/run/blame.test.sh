#!/usr/bin/env bash
# Errors that name the right cause: a full disk is reported as a full disk
# (a stale errno said "No child processes"); an agent that cannot start says
# why where it was started (the message pointed to an agent.log that was
# empty or did not exist); a 'tally run --agent' whose agent died says so
# and keeps its summary in the spool beside the socket, which the next
# agent started there archives.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"

# A full disk: a 64 KB tmpfs filled up, in a private mount namespace.
if unshare -rm true 2>/dev/null; then
  mkdir mnt
  unshare -rm sh -c "mount -t tmpfs -o size=64k tmpfs mnt && { cat /dev/zero >mnt/fill 2>/dev/null; \
    '$TALLY' run --time-series --interval 0.01 -o mnt/r -- sleep 0.5; echo \"status \$?\"; }" >full.out 2>full.err
  check_contains "full disk: tally run fails" "$(cat full.out)" "status 125"
  check_contains "full disk: the series is reported as a full disk" "$(cat full.err)" \
    "tally: mnt/r.series: No space left on device"
  check "full disk: no stale errno in the message" sh -c "! grep -q 'No child processes' full.err"
else
  ok "# SKIP full disk: no user namespace to mount a small tmpfs in (unshare -rm)"
fi

# An agent that cannot start says why, where it was started.
out=$("$TALLY" agent --socket "$WORK/no/such/dir/agent.sock" 2>&1); rc=$?
check_eq "agent in a missing directory: status" "$rc" 125
check_contains "... says why" "$out" "cannot create $WORK/no/such/dir"
check "... and points to no log" sh -c "! printf '%s' '$out' | grep -q agent.log"
PORT=$(free_port)
python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',$PORT)); s.listen(); open('held','w').close(); time.sleep(30)" &
HOLD=$!
wait_until 10 test -e held
out=$("$TALLY" agent --socket "$WORK/m/agent.sock" --metrics ":$PORT" 2>&1); rc=$?
kill "$HOLD"
check_eq "detached agent whose metrics port is taken: status" "$rc" 125
check_contains "... the caller prints the agent's own reason" "$out" \
  "tally: agent: --metrics cannot listen on :$PORT: Address already in use"
check "... not a pointer to its log" sh -c "! printf '%s' '$out' | grep -q agent.log"

# tally run --agent whose agent dies: says so, keeps the summary, the next agent archives it.
S=$WORK/sock/agent.sock
check "the agent starts" start_agent "$S" --archive "$WORK/a.db"
"$TALLY" run --agent "$S" --app orphan -o run -- "$PROGS/hold_memory" 4 0 ready release 2>run.err &
RUN=$!
check "the task is ready" wait_file ready
kill -KILL "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null
touch release
wait "$RUN"
check_eq "tally run still succeeds" "$?" 0
check_contains "tally run says the agent is gone and where the summary waits" "$(cat run.err)" \
  "tally: run: --agent: the agent at $S is gone: the summary waits in $WORK/sock/spool/"
check_eq "one summary in the spool" "$(ls "$WORK/sock/spool" | grep -c '\.summary$')" 1
out=$("$TALLY" agent --socket "$S" --archive "$WORK/a.db" 2>&1)
check_contains "the next agent archives it, and says so" "$out" \
  "tally: agent: archived 1 summary that tally run kept while no agent ran ($WORK/sock/spool)"
check_eq "the spool is empty" "$(ls "$WORK/sock/spool" | wc -l)" 0
check_contains "the summary is in the archive" "$("$TALLY" archive query --db "$WORK/a.db" 'name = "orphan"')" "orphan"
"$TALLY" agent --socket "$S" stop >/dev/null 2>&1
finish
