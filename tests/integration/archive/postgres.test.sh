#!/usr/bin/env bash
# tally archive on PostgreSQL: a real server started here (initdb into the
# test's directory, a unix socket only, run as the unprivileged 'postgres'
# user when the suite runs as root), stopped at the end. Same schema and
# behaviour as SQLite (same answers on the same data), idempotence, bad
# inputs, migrations, 10 concurrent writers × 10,000 summaries, and an
# unreachable server reported in one line.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
source "$TALLY_TEST_ROOT/tests/integration/archive/pg-server.sh"
source "$TALLY_TEST_ROOT/tests/integration/archive/writers.sh"
GEN=$TALLY_TEST_ROOT/tests/integration/archive/gen-summaries.sh
chmod 755 "$WORK"
trap 'pg_server_stop; rm -rf "$WORK"' EXIT
if ! pg_server_start "$WORK/pg"; then
  not_ok "PostgreSQL server started"
  finish
fi
ok "PostgreSQL server started"
PSQL() { psql -X -q -t -A -d "$PG_URI" -c "$1"; }

# --- add, idempotence, and the same answers as SQLite on the same data
"$GEN" 500 3 rmapper > s.jsonl
resource_monitor -O rm -- sleep 0.1 >/dev/null 2>&1
out=$("$TALLY" archive --db "$PG_URI" add s.jsonl rm.summary 2>&1)
check_eq "add" "$out" "added 501, already archived 0, rejected 0"
out=$("$TALLY" archive --db "$PG_URI" add s.jsonl rm.summary 2>&1)
check_eq "add again: stored once" "$out" "added 0, already archived 501, rejected 0"
check_eq "rows" "$(PSQL 'select count(*) from summaries')" 501
check_eq "schema version" "$(PSQL 'select max(version) from schema_version')" 13
check_eq "version 12: the aggregates' bytes kept uncompressed" "$(PSQL "select attstorage from pg_attribute where attrelid = 'aggregates'::regclass and attname = 'data'")" "e"
check_eq "version 11: the rows hold the dictionary's ids" "$(PSQL "select string_agg(distinct pg_typeof(name_ref)::text || ' ' || pg_typeof(host_ref)::text, ',') from summary_rows")" "integer integer"
check_eq "version 11: a text stored once" "$(PSQL "select count(*) from dictionary where kind = 1 and text = 'rmapper'")" 1
check_eq "version 10: no index on name" "$(PSQL "select count(*) from pg_indexes where indexname like 'summaries_name%'")" 0
check_eq "version 9: every summary's key in summary_keys" "$(PSQL 'select count(*) from summary_keys k join summaries s using (id)')" 501
# version 8: the generated summaries' member order stored once, not per row
check_eq "document shapes: one per member order" "$(PSQL 'select count(*) from document_shapes')" \
  "$(PSQL 'select count(distinct shape) from summaries')"
check "every new row has its shape" test "$(PSQL 'select count(*) from summaries where shape is null')" = 0
"$GEN" 25000 12 big > big.jsonl  # long enough to be read in two halves at once
"$TALLY" archive --db "$PG_URI" add -q big.jsonl
"$TALLY" archive --db "$WORK/same.db" add -q s.jsonl rm.summary big.jsonl
for sub in "stats --format json big" "outliers --format json big" "stats --format json rmapper" "predict --format json rmapper" "outliers --format json rmapper" \
           "query --format json memory>900MB" "stats --by host --format json rmapper"; do
  # shellcheck disable=SC2086
  a=$("$TALLY" archive --db "$PG_URI" $sub | jq -S 'walk(if type == "number" then (. * 1e6 | round) / 1e6 else . end) | walk(if type == "object" then del(.archive_id, .id) else . end)')
  # shellcheck disable=SC2086
  b=$("$TALLY" archive --db "$WORK/same.db" $sub | jq -S 'walk(if type == "number" then (. * 1e6 | round) / 1e6 else . end) | walk(if type == "object" then del(.archive_id, .id) else . end)')
  check_eq "same answer as SQLite: $sub" "$([ "$a" = "$b" ] && [ -n "$a" ] && echo same || echo differ)" same
done
n=$("$TALLY" archive --db "$PG_URI" query --format json 'name = rmapper and memory > 900 MB and wall_time < 8 min' | jq length)
check_eq "query with units" "$n" "$(PSQL "select count(*) from summaries where name = 'rmapper' and memory > 900 and wall_time < 480")"
"$TALLY" archive --db "$PG_URI" query "name = 'x''; drop table summaries; --'" >/dev/null 2>&1
check_eq "values are parameters (table still there)" "$(PSQL 'select count(*) from summaries')" 25501

# --- a transaction's aggregate day rows in many statements of 256, each
# written while the next is encoded: 20,000 summaries of 400 names and 100
# categories over 3 days, one transaction, ~1,500 day rows; the same as SQLite
PSQL "create database wide" >/dev/null
WIDE_URI="postgresql://tally@/wide?host=$WORK/pg"
"$GEN" 20000 41 wide 100 > wide.jsonl
"$TALLY" archive --db "$WIDE_URI" add -q wide.jsonl
"$TALLY" archive --db "$WORK/wide.db" add -q wide.jsonl
# the part's new texts (400 names, 100 categories, 500 hosts) looked up and
# added in statements of 256: the same ids as SQLite, numbered from 1 in
# the order of first use
check_eq "the dictionary as SQLite's" \
  "$(psql -X -q -t -A -d "$WIDE_URI" -c "select string_agg(kind || ':' || id || ':' || text, ' ' order by kind, id) from dictionary")" \
  "$(sqlite3 "$WORK/wide.db" "select group_concat(kind || ':' || id || ':' || text, ' ') from (select * from dictionary order by kind, id)")"
check_eq "names numbered 1..400 in the order of first use" \
  "$(psql -X -q -t -A -d "$WIDE_URI" -c "select max(id) || ' ' || string_agg(text, ' ' order by id) from dictionary where kind = 1")" \
  "400 $(jq -r .name wide.jsonl | awk '!seen[$0]++' | paste -sd' ')"
check_eq "hosts numbered 1..500" "$(psql -X -q -t -A -d "$WIDE_URI" -c "select count(*) || ' ' || max(id) from dictionary where kind = 4")" "500 500"
check_eq "day rows: more than 5 statements' worth, as many as SQLite's" \
  "$(psql -X -q -t -A -d "$WIDE_URI" -c 'select count(*) > 5 * 256 from aggregates') $(psql -X -q -t -A -d "$WIDE_URI" -c 'select count(*) from aggregates')" \
  "t $(sqlite3 "$WORK/wide.db" 'select count(*) from aggregates')"
for sub in "stats --format json wide-0" "stats --format json wide-399" "predict --format json wide-213" "stats --format json cat0" \
           "outliers --format json cat57" "stats --format json cat99"; do
  # shellcheck disable=SC2086
  a=$("$TALLY" archive --db "$WIDE_URI" $sub | jq -S 'walk(if type == "number" then (. * 1e6 | round) / 1e6 else . end) | walk(if type == "object" then del(.archive_id, .id) else . end)')
  # shellcheck disable=SC2086
  b=$("$TALLY" archive --db "$WORK/wide.db" $sub | jq -S 'walk(if type == "number" then (. * 1e6 | round) / 1e6 else . end) | walk(if type == "object" then del(.archive_id, .id) else . end)')
  check_eq "many day rows, same answer as SQLite: $sub" "$([ "$a" = "$b" ] && [ -n "$a" ] && echo same || echo differ)" same
done
"$GEN" 20000 42 wide 100 > wide2.jsonl  # the same days again: every day row read, merged, written
"$TALLY" archive --db "$WIDE_URI" add -q wide2.jsonl
"$TALLY" archive --db "$WORK/wide.db" add -q wide2.jsonl
for sub in "stats --format json wide-5" "stats --format json cat33"; do
  # shellcheck disable=SC2086
  a=$("$TALLY" archive --db "$WIDE_URI" $sub | jq -S 'walk(if type == "number" then (. * 1e6 | round) / 1e6 else . end) | walk(if type == "object" then del(.archive_id, .id) else . end)')
  # shellcheck disable=SC2086
  b=$("$TALLY" archive --db "$WORK/wide.db" $sub | jq -S 'walk(if type == "number" then (. * 1e6 | round) / 1e6 else . end) | walk(if type == "object" then del(.archive_id, .id) else . end)')
  check_eq "... merged with the stored ones: $sub" "$([ "$a" = "$b" ] && [ -n "$a" ] && echo same || echo differ)" same
done
check_eq "... counted once each" "$("$TALLY" archive --db "$WIDE_URI" stats --format json cat33 | jq .count)" 400

# --- a transaction whose later parts (10,000 summaries each) fall in months
# without their partitions (a stream not in the order of its starts): it is
# written again whole once they are made, and every summary is stored once
"$GEN" 30000 21 months > months.jsonl
{ sed -n '1,10000p' months.jsonl
  sed -n '10001,20000p' months.jsonl | jq -c '.start[0] += 31536000 | .end[0] += 31536000'
  sed -n '20001,30000p' months.jsonl | jq -c '.start[0] += 63072000 | .end[0] += 63072000'; } > months-apart.jsonl
out=$("$TALLY" archive --db "$PG_URI" add months-apart.jsonl 2>&1)
check_eq "months apart: all added" "$out" "added 30000, already archived 0, rejected 0"
check_eq "months apart: stored once" "$(PSQL "select count(*), count(distinct id) from summaries where name = 'months'")" "30000|30000"
check_eq "months apart: every key holds its row's id" "$(PSQL "select count(*) from summary_keys k join summaries s using (id) where s.name = 'months'")" 30000
check_eq "months apart: in their months' partitions" "$(PSQL "select count(*) from summary_rows r join dictionary d on d.kind = 1 and d.id = r.name_ref and d.text = 'months' where r.tableoid::regclass::text in ('summaries_2026_11', 'summaries_2027_11', 'summaries_2028_11')")" 30000
check_eq "months apart: aggregates count each run once" "$("$TALLY" archive --db "$PG_URI" stats --format json months | jq .count)" 30000

# --- a batch's ids that do not follow each other (as when another writer
# takes some meanwhile; here the sequence steps by 3): each row still gets
# one of the ids taken, its key the same one
PSQL "create database stepped" >/dev/null
STEPPED_URI="postgresql://tally@/stepped?host=$WORK/pg"
"$GEN" 1 22 first > stepped-first.jsonl
"$TALLY" archive --db "$STEPPED_URI" add -q stepped-first.jsonl
psql -X -q -d "$STEPPED_URI" -c "select setval(pg_get_serial_sequence('summary_rows', 'id'), 100); alter sequence $(psql -X -q -t -A -d "$STEPPED_URI" -c "select pg_get_serial_sequence('summary_rows', 'id')") increment by 3" >/dev/null
"$GEN" 12000 23 stepped > stepped.jsonl
check_eq "ids stepping by 3: all added" "$("$TALLY" archive --db "$STEPPED_URI" add stepped.jsonl 2>&1)" "added 12000, already archived 0, rejected 0"
check_eq "... each its own id, 103 to 36100 by 3" "$(psql -X -q -t -A -d "$STEPPED_URI" -c "select count(distinct id), min(id), max(id), bool_and((id - 103) % 3 = 0) from summaries where name = 'stepped'")" "12000|103|36100|t"
check_eq "... every key holds its row's id" "$(psql -X -q -t -A -d "$STEPPED_URI" -c "select count(*) from summary_keys k join summaries s using (id) where s.name = 'stepped'")" 12000
check_eq "... counted once each" "$("$TALLY" archive --db "$STEPPED_URI" stats --format json stepped | jq .count)" 12000

# --- bad inputs
echo '{"name":"bad","memory":[5,"parsecs"]}' > wrong.summary
echo '{"name":"ok","memory":[5,"MB"],"new_field":{"x":[1,2]}}' > ok.summary
"$TALLY" archive --db "$PG_URI" add wrong.summary ok.summary > out.txt 2> err.txt; st=$?
check_eq "bad input: exit 1" "$st" 1
check_contains "bad input named" "$(cat err.txt)" "wrong.summary: field 'memory': unit \"parsecs\""
check_contains "unknown fields kept" "$("$TALLY" archive --db "$PG_URI" query --format json 'name = ok' | jq -c '.[0]')" '"new_field":{"x":[1,2]}'

# --- COPY: text with tabs, newlines, backslashes and quotes arrives intact
printf '%s\n' '{"name":"odd\tname","command":"a\tb\nc\\d \"q\" '"'"'s\\N","host":"h\\x41","total_files":[7777,"files"],"note":"\\.\n\\."}' > odd.json
check_eq "odd text: added" "$("$TALLY" archive --db "$PG_URI" add odd.json 2>&1)" "added 1, already archived 0, rejected 0"
check_eq "odd text: back as written" "$("$TALLY" archive --db "$PG_URI" query --format json 'total_files = 7777' | jq -c '.[0] | del(.archive_id)')" "$(jq -c . odd.json)"
check_eq "odd text: the command's column" "$(PSQL "select command from summaries where total_files = 7777")" "$(jq -r .command odd.json)"
check_eq "odd text: the name's column" "$(PSQL "select name || '|' || host from summaries where total_files = 7777")" "$(jq -r '.name + "|" + .host' odd.json)"

# --- partitions by month, created when a month first comes
check_eq "the generated summaries (November 2026) in their month's partition" "$(PSQL "select count(*) from summaries_2026_11 p join dictionary d on d.kind = 1 and d.id = p.name_ref where d.text in ('rmapper', 'big')")" 25500
check_eq "... and no other month's partition before the next add" "$(PSQL "select count(*) from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'summary_rows'::regclass and c.relname = 'summaries_2027_12'")" 0
echo '{"name":"later","start":[1830000000,"s"],"memory":[3,"MB"]}' > later.json  # 2027-12-28
check_eq "a summary of a new month: added" "$("$TALLY" archive --db "$PG_URI" add later.json 2>&1)" "added 1, already archived 0, rejected 0"
check_eq "... into its new partition" "$(PSQL "select count(*) from summaries_2027_12 p join dictionary d on d.kind = 1 and d.id = p.name_ref where d.text = 'later'")" 1
check_eq "... without a start: the default partition" "$(PSQL "select count(*) from summaries_default where total_files = 7777")" 1
check_eq "... answered like any other" "$("$TALLY" archive --db "$PG_URI" stats --format json later | jq -c '[.count, .resources.memory.max]')" '[1,3]'

# --- per-file rows of a level-3 run, and 'archive files' as on SQLite
mkdir -p l3data
"$TALLY" run --level 3 --name l3 -o l3 -- sh -c 'dd if=/dev/zero of=l3data/x.bam bs=1M count=2 status=none; dd if=l3data/x.bam of=/dev/null bs=1M status=none'
"$TALLY" archive --db "$PG_URI" add -q l3.summary
"$TALLY" archive --db "$WORK/same.db" add -q l3.summary
check_eq "level-3 run: x.bam's row" "$(PSQL "select bytes_read || ' ' || bytes_written || ' ' || opens || ' ' || reads || ' ' || writes from run_files where path = '$PWD/l3data/x.bam'")" "2097152 2097152 2 3 2"
check_eq "files --glob '*.bam' --read-more-than 1MB: the run" \
  "$("$TALLY" archive --db "$PG_URI" files --glob '*.bam' --read-more-than 1MB --format json | jq -c '[.[] | [.name, .files, .bytes_read]]')" '[["l3",1,2097152]]'
check_eq "... the same answer as SQLite (JSON, ids aside)" \
  "$("$TALLY" archive --db "$PG_URI" files --glob '*.b?m' --format json | jq -c 'map(del(.archive_id))')" \
  "$("$TALLY" archive --db "$WORK/same.db" files --glob '*.b?m' --format json | jq -c 'map(del(.archive_id))')"
check_eq "... a LIKE character in the glob is itself" "$("$TALLY" archive --db "$PG_URI" files --glob 'x_bam' --format json)" "[]"

# --- migrations: a database at version 1 is brought to the current version
PSQL "create database old_archive" >/dev/null
OLD_URI="postgresql://tally@/old_archive?host=$WORK/pg"
psql -X -q -d "$OLD_URI" -c "create table schema_version (version integer not null, applied double precision);
  insert into schema_version values (1, 0);
  create table sets (id text primary key, description text, created double precision);
  create table summaries (id bigserial primary key, hash text not null unique, name text not null,
    category text, set_id text, host text, tool text, level integer, command text, exit_status integer,
    exit_type text, taskid text, archived_at double precision, document text not null, memory double precision);
  insert into summaries (hash, name, document, memory) values ('h', 'old', '{}', 7);" >/dev/null
"$TALLY" archive --db "$OLD_URI" add -q ok.summary 2> upgrade-err.txt
check_eq "the upgrade said, once" "$(cat upgrade-err.txt)" \
  "tally: archive: $OLD_URI: upgraded from schema 1 to 13 ('tally archive compact' gives back the space the old rows leave)"
"$TALLY" archive --db "$OLD_URI" add -q ok.summary 2> upgrade-err.txt
check_eq "... and not again" "$(cat upgrade-err.txt)" ""
check_eq "migrated to version 13" "$(psql -X -t -A -d "$OLD_URI" -c 'select max(version) from schema_version')" 13
check_eq "version 3 filled name_fields from the old rows" "$(psql -X -t -A -d "$OLD_URI" -c "select field from name_fields where name = 'old'")" memory
check_eq "version 4 aggregated the old rows" "$("$TALLY" archive --db "$OLD_URI" stats --format json old | jq -c '[.count, .resources.memory.mean]')" '[1,7]'
check_eq "old rows kept" "$(psql -X -t -A -d "$OLD_URI" -c "select memory from summaries where name = 'old'")" 7
check_eq "versions 5, 7 and 9: the old row's document, its hash as 16 bytes (in summary_keys), its id" "$("$TALLY" archive --db "$OLD_URI" query --format json 'name = old' | jq -c '.[0]') $(psql -X -t -A -d "$OLD_URI" -c "select length(k.hash) || ' ' || s.id from summaries s join summary_keys k using (id) where s.name = 'old'")" '{"archive_id":1,"name":"old"} 16 1'
check_eq "version 5: new ids follow the copied ones" "$(psql -X -t -A -d "$OLD_URI" -c "select id from summaries where name = 'ok'")" 2
check_eq "version 8: the old row unshaped, the new one shaped" "$(psql -X -t -A -d "$OLD_URI" -c "select string_agg(name || ':' || (shape is not null)::text, ' ' order by id) from summaries")" "old:false ok:true"
check_eq "missing field columns added" "$(psql -X -t -A -d "$OLD_URI" -c "select count(*) from information_schema.columns where table_name = 'summary_rows' and column_name in ('wall_time', 'attempt', 'major_page_faults')")" 3
check_eq "version 11: the old row's name in the dictionary, in place in the partitioned table" "$(psql -X -t -A -d "$OLD_URI" -c "select d.text || ' ' || (select count(*) from summaries_default) from summary_rows r join dictionary d on d.kind = 1 and d.id = r.name_ref where r.id = 1")" "old 2"

# --- 10 concurrent writers × 10,000 summaries, on a fresh database
PSQL "create database busy" >/dev/null
BUSY_URI="postgresql://tally@/busy?host=$WORK/pg"
run_concurrent_writers "$BUSY_URI"
check_eq "every writer succeeded" "$WRITERS_FAILED" 0
check_eq "no writer reported an error" "$(cat writer-err*.txt)" ""
check_eq "all 100,000 stored" "$(psql -X -t -A -d "$BUSY_URI" -c "select count(*) from summaries where name like 'task%'")" 100000
check_eq "writer 7: its 10,000" "$(psql -X -t -A -d "$BUSY_URI" -c "select count(*) from summaries where name = 'task7'")" 10000
check_eq "shared 100 stored once" "$(psql -X -t -A -d "$BUSY_URI" -c "select count(*) from summaries where name = 'shared'")" 100
check_eq "added counts add up" "$(writers_total 2)" 100100
# the 10 writers added the same hosts at once: each stored once, and
# every row's host the one of its summary
check_eq "concurrent writers: each host once in the dictionary" \
  "$(psql -X -t -A -d "$BUSY_URI" -c "select count(*) || ' ' || count(distinct text) from dictionary where kind = 4")" \
  "$(cat w[0-9]*.jsonl shared.jsonl | jq -r .host | sort -u | wc -l | awk '{print $1 " " $1}')"
check_eq "concurrent writers: writer 7's hosts" \
  "$(psql -X -t -A -d "$BUSY_URI" -c "select round(start)::bigint || ' ' || host from summaries where name = 'task7' order by start" | md5sum)" \
  "$(jq -r '(.start[0] | round | tostring) + " " + .host' w7.jsonl | sort -n | md5sum)"

# --- writers adding the same summaries in opposite orders: PostgreSQL aborts
# one of two deadlocked transactions, which tally runs again; nothing is lost
# or counted twice
PSQL "create database crossed" >/dev/null
CROSSED_URI="postgresql://tally@/crossed?host=$WORK/pg"
"$GEN" 1000 501 x > x.jsonl
"$GEN" 1000 502 y > y.jsonl
pids=()
for p in 1 2 3 4; do
  if [ $((p % 2)) = 1 ]; then order="x.jsonl y.jsonl"; else order="y.jsonl x.jsonl"; fi
  # shellcheck disable=SC2086
  "$TALLY" archive --db "$CROSSED_URI" add $order > "crossed-out$p.txt" 2> "crossed-err$p.txt" &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
check_eq "crossed writers: all succeeded" "$failed" 0
check_eq "crossed writers: no error" "$(cat crossed-err*.txt)" ""
check_eq "crossed writers: 2000 stored" "$(psql -X -t -A -d "$CROSSED_URI" -c "select count(*) from summaries")" 2000
check_eq "crossed writers: added once" "$(cat crossed-out*.txt | awk '{gsub(",", ""); t += $2} END {print t}')" 2000
check_eq "crossed writers: the rest already archived" "$(cat crossed-out*.txt | awk '{gsub(",", ""); t += $5} END {print t}')" 6000
echo "# deadlocks the server resolved: $(grep -c 'deadlock detected' "$WORK/pg/server.log")"

# --- compact: VACUUM FULL gives the dead rows' space back; answers unchanged
stats_before=$("$TALLY" archive --db "$PG_URI" stats --format json big)
PSQL "create table junk as select repeat('x', 1000) as t from generate_series(1, 20000); delete from junk;" >/dev/null
out=$("$TALLY" archive --db "$PG_URI" compact --format json); st=$?
check_eq "compact: exit status" "$st" 0
check_eq "compact: backend" "$(jq -r .backend <<<"$out")" postgresql
check "compact: the deleted rows' pages given back ($(jq '.bytes_before - .bytes_after' <<<"$out") bytes)" \
  test "$(jq '.bytes_before - .bytes_after' <<<"$out")" -gt 8000000
check_eq "compact: stats unchanged" "$("$TALLY" archive --db "$PG_URI" stats --format json big)" "$stats_before"

# --- an unreachable server: one line, status 125
"$TALLY" archive --db "postgresql://tally@/archive?host=$WORK/nowhere" add ok.summary 2> err.txt; st=$?
check_eq "unreachable: 125" "$st" 125
check_eq "unreachable: one line" "$(wc -l < err.txt)" 1
check_contains "unreachable: says which" "$(cat err.txt)" "tally: archive: postgresql://tally@/archive?host=$WORK/nowhere:"
finish
