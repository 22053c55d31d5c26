#!/usr/bin/env bash
# tally archive compact on a real SQLite file: the freed pages of a dropped
# table go back to the file system, the sizes it prints are the file's, the
# answers stay the same, a writer holding the archive is waited for, an
# upgraded archive says so once and is compacted, and bad use gets one line
# and status 125.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
GEN=$TALLY_TEST_ROOT/tests/integration/archive/gen-summaries.sh
DB=$WORK/archive.db

"$GEN" 3000 5 compact > s.jsonl
"$TALLY" archive --db "$DB" add -q s.jsonl
# about 4 MB of pages freed inside the file, as a rewriting upgrade leaves them
sqlite3 "$DB" "create table junk as select randomblob(4000000) as b; drop table junk; pragma wal_checkpoint(truncate);" >/dev/null
free_pages=$(sqlite3 "$DB" 'pragma freelist_count')
page_size=$(sqlite3 "$DB" 'pragma page_size')
check_eq "a new archive's pages are of 16 KB" "$page_size" 16384
check "free space before ($free_pages pages of $page_size bytes)" test "$((free_pages * page_size))" -gt 3600000
size_before=$(stat -c %s "$DB")
stats_before=$("$TALLY" archive --db "$DB" stats --format json compact)
query_before=$("$TALLY" archive --db "$DB" query --format json 'memory > 500 MB')

out=$("$TALLY" archive --db "$DB" compact --format json); st=$?
check_eq "compact: exit status" "$st" 0
check_eq "compact: size before is the file's" "$(jq .bytes_before <<<"$out")" "$size_before"
check_eq "compact: size after is the file's" "$(jq .bytes_after <<<"$out")" "$(stat -c %s "$DB")"
# (at least: VACUUM also packs half-empty pages)
given_back_pages=$(( $(jq '.bytes_before - .bytes_after' <<<"$out") / $(sqlite3 "$DB" 'pragma page_size') ))
check "compact: the free pages given back ($given_back_pages >= $free_pages)" test "$given_back_pages" -ge "$free_pages"
check_eq "compact: no free page left" "$(sqlite3 "$DB" 'pragma freelist_count')" 0
check_eq "compact: names the archive and backend" "$(jq -r '.archive + " " + .backend' <<<"$out")" "$DB sqlite"
check_eq "compact: stats unchanged" "$("$TALLY" archive --db "$DB" stats --format json compact)" "$stats_before"
check_eq "compact: query unchanged" "$("$TALLY" archive --db "$DB" query --format json 'memory > 500 MB')" "$query_before"
check "compact: the query found rows" test "$(jq length <<<"$query_before")" -gt 0

out=$("$TALLY" archive --db "$DB" compact); st=$?
check_eq "again: nothing to give back" "$out" "$DB: $(stat -c %s "$DB") bytes before, $(stat -c %s "$DB") after (0 given back)"
check_eq "again: exit status" "$st" 0

# --- an archive of schema 1 (3000 rows): the upgrade rewrites its rows,
# says so once, and compact gives the old rows' pages back
OLD=$WORK/old.db
sqlite3 "$OLD" "create table schema_version (version integer not null, applied double precision);
  insert into schema_version values (1, 0);
  create table sets (id text primary key, description text, created double precision);
  create table summaries (id integer primary key, hash text not null unique, name text not null,
    category text, set_id text, host text, tool text, level integer, command text, exit_status integer,
    exit_type text, taskid text, archived_at double precision, document text not null, memory double precision);
  with recursive n(i) as (select 1 union all select i + 1 from n where i < 3000)
  insert into summaries (hash, name, host, tool, document, memory)
    select lower(hex(randomblob(32))), 'old-' || (i % 7), 'host-' || (i % 50), 'tally', '{}', i from n;"
"$TALLY" archive --db "$OLD" stats --format json old-3 > old-stats.json 2> upgrade-err.txt; st=$?
check_eq "upgrade: the command's answer" "$st $(jq -c '[.count, .resources.memory.max]' old-stats.json)" "0 [429,2999]"
check_eq "upgrade: said once" "$(cat upgrade-err.txt)" \
  "tally: archive: $OLD: upgraded from schema 1 to 13 ('tally archive compact' gives back the space the old rows leave)"
"$TALLY" archive --db "$OLD" stats --format json old-3 > /dev/null 2> upgrade-err.txt
check_eq "upgrade: not said again" "$(cat upgrade-err.txt)" ""
check_eq "upgrade: version 3 found the old table's one field column" \
  "$(sqlite3 "$OLD" "select group_concat(field) from name_fields where name = 'old-3'")" memory
check_eq "upgrade: the field columns the old table lacked added" \
  "$(sqlite3 "$OLD" "select count(*) from pragma_table_info('summary_rows') where name in ('memory', 'wall_time', 'major_page_faults')")" 3
old_free=$(sqlite3 "$OLD" 'pragma freelist_count')
check "upgrade: the old rows' pages free in the file ($old_free)" test "$old_free" -gt 10
out=$("$TALLY" archive --db "$OLD" compact --format json)
check "upgrade: compact gave them back" test "$(jq '.bytes_before - .bytes_after' <<<"$out")" -ge "$((old_free * $(sqlite3 "$OLD" 'pragma page_size')))"
check_eq "upgrade: same answer after compact" "$("$TALLY" archive --db "$OLD" stats --format json old-3)" "$(cat old-stats.json)"
check_eq "upgrade: every row kept" "$(sqlite3 "$OLD" 'select count(*) || char(32) || count(distinct name) from summaries')" "3000 7"

# --- bad use: one line naming the bad part, status 125, no archive created
"$TALLY" archive --db "$WORK/none.db" compact 2> err.txt; st=$?
check_eq "missing archive: 125" "$st" 125
check_eq "missing archive: one line" "$(cat err.txt)" "tally: archive: $WORK/none.db: no archive there ('tally archive add' creates one)"
check "missing archive: not created" test ! -e "$WORK/none.db"
"$TALLY" archive --db "$DB" compact extra 2> err.txt; st=$?
check_eq "extra argument: 125" "$st" 125
check_contains "extra argument: named" "$(head -1 err.txt)" "tally: archive compact: unexpected argument 'extra'"
"$TALLY" archive --db "$DB" compact --format csv 2> err.txt; st=$?
check_eq "csv refused: 125" "$st" 125
check_contains "csv refused: named" "$(head -1 err.txt)" "--format: 'csv' is not table or json"
# a writer holds the archive for 1 s: compact waits for it (the busy
# timeout), then compacts; nothing is lost
sqlite3 "$DB" "create table junk as select randomblob(400000) as b; drop table junk;" >/dev/null
python3 - "$DB" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("begin immediate")
time.sleep(1)
c.execute("rollback")
PY
holder=$!
sleep 0.3
out=$("$TALLY" archive --db "$DB" compact --format json 2> err.txt); st=$?
wait "$holder"
check_eq "busy archive: waited, then compacted" "$st $(cat err.txt)" "0 "
check "busy archive: pages given back" test "$(jq '.bytes_before - .bytes_after' <<<"$out")" -gt 0
check_eq "busy archive: answers intact" "$("$TALLY" archive --db "$DB" stats --format json compact)" "$stats_before"
finish
