#!/usr/bin/env bash
# A process of an application that ended since the agent's last scan (a
# shell's short child) is no longer part of the application: asked for by
# scope (proc_get_info([app_X])), it is left out without an error, so a
# request about a live application does not fail by chance (the README's
# ./sim starts a short 'sleep' every 0.3 s: 'tally request' exited 1 with
# "process N does not exist" in CI). Named by p_, the same process is still
# an error. The agent's tick is long (5 s) so that its table holds the dead
# child for a while.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock
start_agent "$S" --interval 5
check "the agent answers" wait_agent "$S"
"$TALLY" run --agent "$S" --app shorty -o "$WORK/shorty" -- \
  sh -c 'sleep 2.5 & echo $! > "$0/kid"; wait $!; exec sleep 60' "$WORK" 2>"$WORK/run.err" &
RUN=$!
check "the child started" wait_file "$WORK/kid"
KID=$(cat "$WORK/kid")
listed() { "$TALLY" request --agent "$S" ':app_get_proclist([app_shorty])' 2>/dev/null | grep -q "\"p_$KID@"; }
check "the agent lists the short child in app_shorty" wait_until 20 listed
check "the child ends" wait_until 10 sh -c "! kill -0 $KID 2>/dev/null"
check "... and the agent still lists it (its next scan has not come)" listed
out=$("$TALLY" request --agent "$S" ':proc_get_info([app_shorty], 0x1)' 2>&1); st=$?
check_eq "proc_get_info([app_shorty]): exit 0" "$st" 0
check_eq "... no error" "$(printf '%s\n' "$out" | jq -c 'select(.errors != null and .errors != []) | .errors')" ""
check_eq "... the live processes answered, the ended child not" \
  "$(printf '%s\n' "$out" | jq -r 'select(.service) | .result.command' | sort | tr '\n' ' ')" "sleep "
out=$("$TALLY" request --agent "$S" ":proc_get_info([p_$KID], 0x1)" 2>&1); st=$?
check_eq "named by p_, the ended child is an error: exit 1" "$st" 1
check_contains "... saying so" "$out" "process $KID does not exist"
kill $RUN 2>/dev/null
"$TALLY" agent --socket "$S" stop >/dev/null 2>&1
wait
finish
