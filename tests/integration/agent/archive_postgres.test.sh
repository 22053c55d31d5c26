#!/usr/bin/env bash
# tally agent --archive postgresql://…: a finished task's summary (handed
# over by tally run --agent) lands in a real PostgreSQL archive (a
# throw-away server started here), queryable with tally archive.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/archive/pg-server.sh"
if ! pg_server_start "$WORK/pg"; then
  not_ok "a PostgreSQL server for the test"; finish
fi
trap 'pg_server_stop; rm -rf "$WORK"' EXIT
S=$WORK/sock/agent.sock
start_agent "$S" --interval 0.2 --archive "$PG_URI"
check "the agent runs with a PostgreSQL archive" wait_agent "$S"
"$TALLY" run --agent "$S" --app pgapp --category site-test -o "$WORK/t" -- \
  "$PROGS/hold_memory" 16 1 "$WORK/ready" "$WORK/release" 2>"$WORK/run.err" &
RUN=$!
check "the fixture is ready" wait_file "$WORK/ready"
touch "$WORK/release"
wait $RUN; rc=$?
check_eq "the task ends normally" "$rc" 0
n() { "$TALLY" archive --db "$PG_URI" query --format json 'name = pgapp' 2>/dev/null | jq length; }
check "the summary is in PostgreSQL" wait_until 20 sh -c "[ \"\$($(declare -f n); n)\" = 1 ]"
mem=$("$TALLY" archive --db "$PG_URI" query --format json 'name = pgapp' | jq -r '.[0].memory | if type == "array" then .[0] else . end')
check_cmp "its memory is the fixture's 16 MB and more" "$mem" ">=" 16
check_eq "it is the summary tally run wrote" "$(jq -r '.command' "$WORK/t.summary")" \
  "$("$TALLY" archive --db "$PG_URI" query --format json 'name = pgapp' | jq -r '.[0].command')"
"$TALLY" agent --socket "$S" stop
wait "$AGENT_PID"
finish
