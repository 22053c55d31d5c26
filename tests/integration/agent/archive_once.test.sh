#!/usr/bin/env bash
# One path for a finished summary into the archive: 'tally run --agent
# --archive DB' hands its summary to an agent that archives into the same
# DB, and tally run stores it there too; the summary is stored once (one
# row), whichever path got there first.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
trap 'rm -rf "$WORK"' EXIT
S=$WORK/sock/agent.sock
DB=$WORK/a.db
start_agent "$S" --interval 0.2 --archive "$DB"
check "the agent runs with a SQLite archive" wait_agent "$S"
"$TALLY" run --agent "$S" --app onceapp -o "$WORK/t" --archive "$DB" -- true 2>"$WORK/run.err"
check_eq "the task ends normally" "$?" 0
n() { "$TALLY" archive --db "$DB" query --format json 'name = onceapp' 2>/dev/null | jq length; }
# the agent hands it to the archive when it hears the task end: wait until
# it has (a summary already there counts), then count the rows
archived() { [ "$(result_of "$(req "$S" "node_get_info(n_$(hostname))")" node_get_info archived)" = 1 ]; }
check "the agent archived the summary too" wait_until 20 archived
"$TALLY" agent --socket "$S" stop
wait "$AGENT_PID"
check_eq "it is stored exactly once" "$(n)" 1
check_eq "the stored row is the summary tally run wrote" "$(jq -r '.command' "$WORK/t.summary")" \
  "$("$TALLY" archive --db "$DB" query --format json 'name = onceapp' | jq -r '.[0].command')"
check_eq "tally run said nothing about the archive" "$(grep -c archive "$WORK/run.err")" 0
finish
