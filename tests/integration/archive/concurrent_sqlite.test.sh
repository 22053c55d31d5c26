#!/usr/bin/env bash
# Concurrent writers lose nothing on the SQLite backend: 10 processes add
# 10,000 distinct summaries each to one new archive file at the same time
# (and all of them the same 100 shared ones, which must be stored once).
# Then two processes creating the same new file at once, 100 times: SQLite
# refuses one of them without waiting in about 1 run in 100 (both want to
# upgrade a shared lock); tally tries again and neither reports an error.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
source "$TALLY_TEST_ROOT/tests/integration/archive/writers.sh"
DB=$WORK/archive.db
run_concurrent_writers "$DB"
check_eq "every writer succeeded" "$WRITERS_FAILED" 0
check_eq "no writer reported an error" "$(cat writer-err*.txt)" ""
check_eq "all 100,000 distinct summaries stored" "$(sqlite3 "$DB" "select count(*) from summaries where name like 'task%'")" 100000
for p in 1 5 10; do
  check_eq "writer $p: its 10,000" "$(sqlite3 "$DB" "select count(*) from summaries where name = 'task$p'")" 10000
done
check_eq "the shared 100 stored once" "$(sqlite3 "$DB" "select count(*) from summaries where name = 'shared'")" 100
check_eq "writers' counts add up: added" "$(writers_total 2)" 100100
check_eq "writers' counts add up: already archived" "$(writers_total 5)" 900
check_eq "integrity" "$(sqlite3 "$DB" 'pragma integrity_check')" ok

"$TALLY" run -o "$WORK/one" -- true 2>/dev/null
failed=0
for i in $(seq 100); do
  "$TALLY" archive --db "$WORK/race$i.db" add "$WORK/one.summary" >/dev/null 2>"$WORK/race-a.err" &
  "$TALLY" archive --db "$WORK/race$i.db" add "$WORK/one.summary" >/dev/null 2>"$WORK/race-b.err" || failed=$((failed + 1))
  wait $! || failed=$((failed + 1))
  [ -s "$WORK/race-a.err" ] || [ -s "$WORK/race-b.err" ] && { cat "$WORK/race-a.err" "$WORK/race-b.err" >> "$WORK/race.err"; }
  [ "$(sqlite3 "$WORK/race$i.db" 'select count(*) from summaries')" = 1 ] || failed=$((failed + 1))
  rm -f "$WORK/race$i.db"*
done
check_eq "two processes creating one archive at once, 100 times: no error" "$(cat "$WORK/race.err" 2>/dev/null)" ""
check_eq "... each stored the one summary exactly once, both exited 0" "$failed" 0
finish
