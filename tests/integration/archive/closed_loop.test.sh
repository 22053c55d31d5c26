#!/usr/bin/env bash
# The closed loop end to end with a real 'tally run': --limits-from-archive
# takes the archive's predicted first allocation as limits, --retry runs a
# task stopped by a limit again with the maximum seen, --archive stores both
# attempts linked; an archive that cannot be reached loses nothing.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
DB=$WORK/archive.db
# history of 'grow': 9 runs at 50 MB, one at 120 MB, 2 s each. Expected waste
# per task: a = 50 → (50·2 [the stopped run] + 0 [retry at 120 = its peak]) / 10 = 10;
# a = 120 → 9·70·2 / 10 = 126. First allocation: 50 MB; maximum seen: 120 MB.
for i in $(seq 1 9); do printf '{"name":"grow","seq":%d,"memory":[50,"MB"],"wall_time":[20,"s"],"disk":[500,"MB"]}\n' "$i"; done > hist.jsonl
echo '{"name":"grow","seq":10,"memory":[120,"MB"],"wall_time":[20,"s"],"disk":[500,"MB"]}' >> hist.jsonl
"$TALLY" archive --db "$DB" add -q hist.jsonl
check_near "predicted first allocation" "$("$TALLY" archive --db "$DB" predict --format json grow | jq .memory.allocation)" 50 0

# a task growing to 80 MB: stopped at 50 MB + 25 % = 62.5 MB, retried at
# 120 MB + 25 % = 150 MB, succeeds. The history's disk (the working
# directory's size) gives no limit; it has no bytes_written: no limit on it.
"$TALLY" run --name grow --limits-from-archive="$DB" --archive="$DB" --retry --time-series -o loop -- "$PROGS/grow_memory" 200 80 2> err.txt; st=$?
check_eq "retried task succeeds" "$st" 0
check_contains "the limits and their margin are said" "$(cat err.txt)" "limits from the archive (10 runs of name 'grow', first allocation + 25%): memory 62.5 MB, wall_time 25 s"
check "no disk limit from the working directory's size" bash -c "! grep -q 'disk\|bytes_written' err.txt"
check_contains "the retry is announced" "$(cat err.txt)" "memory limit 62.5 MB broken; retrying with 150 MB"
check_eq "first attempt stopped by the memory limit" "$(jq -r .exit_type loop.attempt1.summary)" limits
check_near "first attempt's limit was the prediction + 25 %" "$(jq '.limits_exceeded.memory[0]' loop.attempt1.summary)" 62.5 0
check_eq "second attempt ran to its end" "$(jq -r .exit_type loop.summary)" normal
check "each attempt has its own time series" test -s loop.attempt1.series -a -s loop.series
check_cmp "second attempt used its 80 MB" "$(jq '.memory[0]' loop.summary)" ">=" 80
rows=$(sqlite3 "$DB" "select attempt || ' ' || coalesce(previous_attempt, '-') || ' ' || exit_type from summaries where name = 'grow' and attempt is not null order by id")
check_eq "both attempts archived" "$(echo "$rows" | wc -l)" 2
first_id=$(sqlite3 "$DB" "select id from summaries where attempt = 1")
check_eq "attempts linked" "$(echo "$rows" | tr '\n' '|')" "1 - limits|2 $first_id normal|"
check_eq "archived attempt = the local summary" "$("$TALLY" archive --db "$DB" query --format json 'attempt = 2' | jq -S -c '.[0] | del(.archive_id)')" "$(jq -S -c . loop.summary)"

# without --retry: exit 124, one attempt archived
"$TALLY" run --name grow --limits-from-archive="$DB" --archive="$DB" -o once -- "$PROGS/grow_memory" 200 80 2>/dev/null; st=$?
check_eq "no retry: the limit's exit status" "$st" 124
check_eq "no retry: archived, no attempt number" "$(sqlite3 "$DB" "select count(*) from summaries where name = 'grow' and exit_type = 'limits' and attempt is null")" 1

# too little history (five runs, as a new user has): predict says so, run
# sets no limit from the archive, and the task runs to its end
for i in 1 2 3 4 5; do printf '{"name":"short","seq":%d,"memory":[8,"MB"],"wall_time":[0.2,"s"],"disk":[0.0039,"MB"],"bytes_written":[0.001,"MB"]}\n' "$i"; done > short.jsonl
"$TALLY" archive --db "$WORK/short.db" add -q short.jsonl
err=$("$TALLY" archive --db "$WORK/short.db" predict short 2>&1 >/dev/null); st=$?
check_eq "predict on five runs: exit 1" "$st" 1
check_eq "predict on five runs: says why" "$err" "tally: archive predict: name 'short': too little history: 5 runs, a prediction needs at least 10 (--min-runs)"
check_near "predict --min-runs 5: answers" "$("$TALLY" archive --db "$WORK/short.db" predict --min-runs 5 --format json short | jq .wall_time.allocation)" 0.2 0
"$TALLY" run --name short --limits-from-archive="$WORK/short.db" --retry -o short -- /bin/sh -c 'sleep 0.5; head -c 100000 /dev/zero > out.bin' 2> err.txt; st=$?
check_eq "five-run history: the task is not stopped" "$st" 0
check_contains "five-run history: said" "$(cat err.txt)" "5 summaries with name 'short'"
check_contains "five-run history: no limits" "$(cat err.txt)" "running without limits from the archive"
# ten such runs: wall_time 0.2 s gets at least 1 s of margin (1.2 s), what
# the task wrote 0.001 MB at least 1 MB; a task of 0.5 s writing 0.1 MB runs
for i in 6 7 8 9 10; do printf '{"name":"short","seq":%d,"memory":[8,"MB"],"wall_time":[0.2,"s"],"disk":[0.0039,"MB"],"bytes_written":[0.001,"MB"]}\n' "$i"; done >> short.jsonl
"$TALLY" archive --db "$WORK/short.db" add -q short.jsonl
"$TALLY" run --name short --limits-from-archive="$WORK/short.db" --retry -o short10 -- /bin/sh -c 'sleep 0.5; head -c 100000 /dev/zero > out.bin' 2> err.txt; st=$?
check_eq "ten short runs: a slightly longer task is not stopped" "$st" 0
check_contains "ten short runs: the margins" "$(cat err.txt)" "memory 10 MB, bytes_written 1.001 MB, wall_time 1.2 s"
# a resource the history never measured (bytes_written always 0) is not limited
for i in $(seq 1 10); do printf '{"name":"nowrite","seq":%d,"memory":[10,"MB"],"wall_time":[1,"s"],"bytes_written":[0,"MB"]}\n' "$i"; done > nowrite.jsonl
"$TALLY" archive --db "$WORK/nowrite.db" add -q nowrite.jsonl
"$TALLY" run --name nowrite --limits-from-archive="$WORK/nowrite.db" --retry -o nowrite -- /bin/sh -c 'head -c 3000000 /dev/zero > out.bin' 2> err.txt; st=$?
check_eq "unmeasured bytes_written: the writing task runs" "$st" 0
check_contains "unmeasured bytes_written: only memory and wall_time limited" "$(cat err.txt)" "): memory 12.5 MB, wall_time 2 s"

# explicit --limits win over the archive's (a history without the runs above)
"$TALLY" archive --db "$WORK/hist.db" add -q hist.jsonl
"$TALLY" run --name grow --limits-from-archive="$WORK/hist.db" --limits 'memory: 200 MB' -o explicit -- "$PROGS/grow_memory" 200 80 2>/dev/null
st=$?; check_eq "explicit limit wins" "$st" 0; [ "$st" = 0 ] || cat explicit.summary

# --archive with a database that cannot be reached: summary kept, one line, task status kept
"$TALLY" run --archive="postgresql://nobody@/x?host=$WORK/no-server" -o lost -- /bin/sh -c 'exit 3' 2> err.txt; st=$?
check_eq "unreachable archive: the task's status" "$st" 3
check "unreachable archive: local summary written" test -s lost.summary
check_eq "unreachable archive: one line" "$(wc -l < err.txt)" 1
check_contains "unreachable archive: says where the summary is" "$(cat err.txt)" "the summary is kept in lost.summary"
"$TALLY" archive --db "$DB" add -q lost.summary
check_eq "the kept summary can be added later" "$(sqlite3 "$DB" "select count(*) from summaries where exit_status = 3")" 1

# --archive without a value: the default archive ($TALLY_DB)
TALLY_DB=$WORK/default.db "$TALLY" run --archive --name hello -o hello -- /bin/true
check_eq "--archive: default archive" "$(sqlite3 "$WORK/default.db" "select name from summaries")" hello
# the DB as a separate word, as the issue writes it: "--archive DB -- CMD"
"$TALLY" run --name spaced --archive "$WORK/spaced.db" -o spaced -- /bin/sh -c 'exit 0'; st=$?
check_eq "--archive DB (separate word): task status" "$st" 0
check_eq "--archive DB (separate word): stored there" "$(sqlite3 "$WORK/spaced.db" "select name from summaries")" spaced
# without "--" the word after --archive is the command, not a database
TALLY_DB=$WORK/default.db "$TALLY" run --archive -o plain /bin/true; st=$?
check_eq "--archive CMD (no --): CMD is run" "$st" 0
check_eq "--archive CMD (no --): default archive used" "$(sqlite3 "$WORK/default.db" "select count(*) from summaries where command like '%true%'")" 2
"$TALLY" run --limits-from-archive="$DB" -o x -- /bin/true 2> err.txt; st=$?
check_eq "--limits-from-archive without --name: 125" "$st" 125
check_contains "--limits-from-archive without --name: said" "$(cat err.txt)" "needs --name"
finish
