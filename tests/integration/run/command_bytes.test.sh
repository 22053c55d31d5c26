#!/usr/bin/env bash
# Command lines with any bytes (newlines, tabs, quotes, bytes that are not
# UTF-8) through every output: the summary's "command" (valid JSON, the words
# quoted as a shell reads them back), the .series header (one line), trace
# from-runs, the archive (tally archive add, and through the agent), the
# resource_monitor front end.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"

ARGS=(printf '%s|' $'import time\nt=1' $'tab\there' "q\"uo'te" $'\xff\xfe' 'caf'$'\xc3\xa9' '$HOME' '')
$TALLY run --time-series --interval 0.1 --name bytes --category bytes -o b -- "${ARGS[@]}" >out.txt
check_eq "the task got its argv intact" "$(od -An -c out.txt | tr -s ' ')" \
  "$(printf '%s|' "${ARGS[@]:2}" | od -An -c | tr -s ' ')"
check "the summary is valid JSON with a command" jq -e '.command | type == "string"' b.summary
check_eq "command quoted as bash reads it" "$(jq -r .command b.summary)" \
  "printf '%s|' \$'import time\\nt=1' \$'tab\\there' 'q\"uo'\\''te' \$'\\xff\\xfe' 'café' '\$HOME' ''"
eval "back=($(jq -r .command b.summary))"
check_eq "read back: as many words" "${#back[@]}" "${#ARGS[@]}"
same=yes
for i in "${!ARGS[@]}"; do [ "${back[$i]}" == "${ARGS[$i]}" ] || same="no: word $i"; done
check_eq "read back: the same bytes" "$same" yes
check_eq "series: every line a comment or a row of numbers" \
  "$(grep -v '^#' b.series | grep -vcE '^[0-9. e+-]+$')" 0
check_contains "series header names the command on one line" "$(head -1 b.series)" "\$'import time\\nt=1'"
$TALLY trace from-runs b -o b.paje 2>from.err
check_eq "trace from-runs reads the run" "$?/$(cat from.err)" "0/"

DB=$WORK/a.db
$TALLY archive --db "$DB" add b.summary >/dev/null
check_eq "archive: the command as the summary has it" \
  "$($TALLY archive --db "$DB" query --format json 'name = bytes' | jq -r '.[0].command')" "$(jq -r .command b.summary)"
# no name or category: the program is the first word, read as a shell would
jq 'del(.name, .category) | .command = "\u0027/opt/my tools/rmapper\u0027 -x"' b.summary >noname.summary
$TALLY archive --db "$DB" add noname.summary >/dev/null
check_eq "archive: a quoted program gives the name" \
  "$($TALLY archive --db "$DB" query --format json 'name = rmapper' | jq -r 'length')" 1

# -c LINE: kept as written (JSON keeps its newline), one line in the series
$TALLY run --time-series -o sh -c $'true\ntrue'
check_eq "-c: the line as written" "$(jq -r .command sh.summary)" $'true\ntrue'
check_eq "-c: the series header on one line" "$(head -1 sh.series)" '# tally time series of: true\ntrue'

# through the agent: register, then the summary it archives
S=$WORK/sock/agent.sock
start_agent "$S" --interval 0.2 --archive "$WORK/agent.db"
$TALLY run --agent "$S" --app bytes --name bytes2 -o b2 -- "${ARGS[@]}" >/dev/null 2>run.err
check_eq "run --agent: exit 0, nothing said" "$?/$(cat run.err)" "0/"
check "the agent archived it" wait_until 20 sh -c \
  "[ \"\$('$TALLY' archive --db '$WORK/agent.db' query --format json 'name = bytes2' | jq length)\" = 1 ]"
check_eq "agent's archive: the same command" \
  "$($TALLY archive --db "$WORK/agent.db" query --format json 'name = bytes2' | jq -r '.[0].command')" \
  "$(jq -r .command b.summary)"
"$TALLY" agent --socket "$S" stop >/dev/null 2>&1
wait "$AGENT_PID" 2>/dev/null

# resource_monitor's front end: its joined words, valid JSON when not UTF-8
"$TALLY" rm -O r -- printf '%s' $'a\nb' $'\xff' >/dev/null
check_eq "rm: the words joined, not UTF-8 quoted" "$(jq -r .command r.summary)" "printf %s \$'a\\nb' \$'\\xff'"
"$TALLY" rm -O r2 -- printf '%s' $'a\nb' >/dev/null
check_eq "rm: UTF-8 words joined as resource_monitor writes them" "$(jq -r .command r2.summary)" $'printf %s a\nb'
finish
