#!/usr/bin/env bash
# Concurrent writers lose nothing on the SQLite backend: 10 processes add
# 10,000 distinct summaries each to one new archive file at the same time
# (and all of them the same 100 shared ones, which must be stored once).
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
finish
