#!/usr/bin/env bash
# tally archive on its default backend, a real SQLite file: add (files,
# directories, stdin, resource_monitor and Work Queue summaries), idempotence,
# malformed / truncated / wrong-unit inputs, query formats and errors, stats
# against values computed here with awk, --plot, predict, outliers, and the
# default database location.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
GEN=$TALLY_TEST_ROOT/tests/integration/archive/gen-summaries.sh
DB=$WORK/archive.db

# --- add: a directory of summaries, one of them a real resource_monitor one
mkdir -p runs/a runs/b
"$GEN" 300 7 rmapper | split -l 1 -a 4 --additional-suffix=.summary - runs/a/s
resource_monitor -O runs/b/rm -- sleep 0.1 >/dev/null 2>&1
out=$("$TALLY" archive --db "$DB" add runs 2>&1); st=$?
check_eq "add a directory: exit status" "$st" 0
check_eq "add a directory: counts" "$out" "added 301, already archived 0, rejected 0"
check_eq "rows stored" "$(sqlite3 "$DB" 'select count(*) from summaries')" 301
check_eq "resource_monitor summary named by its command" \
  "$(sqlite3 "$DB" "select name || ' ' || tool from summaries where tool = 'resource_monitor'")" "sleep resource_monitor"
check_eq "schema version" "$(sqlite3 "$DB" 'select max(version) from schema_version')" 13
check_eq "version 11: the rows hold the dictionary's ids, summaries is a view" \
  "$(sqlite3 "$DB" "select group_concat(t, ' ') from (select distinct typeof(name_ref) || ',' || typeof(host_ref) || ',' || typeof(tool_ref) as t from summary_rows) union all select type from sqlite_master where name = 'summaries'")" "integer,integer,integer
view"
check_eq "version 11: each text once" "$(sqlite3 "$DB" "select count(*) || ' ' || count(distinct text) from dictionary where kind = 5")" "2 2"
check_eq "version 10: no index on name" "$(sqlite3 "$DB" "select count(*) from sqlite_master where name = 'summaries_name'")" 0
check_eq "version 9: every summary's key in summary_keys, ids from 1 without gaps" \
  "$(sqlite3 "$DB" 'select count(*) || char(32) || max(s.id) from summary_keys k join summaries s using (id)')" "301 301"
check_eq "document shapes: one per member order, every new row shaped" \
  "$(sqlite3 "$DB" 'select (select count(*) from document_shapes) = count(distinct shape) and count(shape) = count(*) from summaries')" 1
check_eq "fields recorded per name" "$(sqlite3 "$DB" "select group_concat(field, ' ') from (select field from name_fields where name = 'rmapper' order by field)")" \
  "bytes_read bytes_written cores cpu_time disk end max_concurrent_processes memory start total_files total_processes virtual_memory wall_time"
check_eq "WAL journal" "$(sqlite3 "$DB" 'pragma journal_mode')" wal
check_eq "version 13: the day rows in the aggregates' format 4" \
  "$(sqlite3 "$DB" 'select group_concat(distinct hex(substr(data, 1, 1))) from aggregates')" 04

# --- a schema 12 archive is upgraded without a rewrite (nothing to compact);
# a newer one is refused, naming both versions
cp "$DB" v12.db
sqlite3 v12.db "delete from schema_version where version = 13"
out=$("$TALLY" archive --db v12.db stats rmapper 2>&1 >/dev/null); st=$?
check_eq "schema 12: upgraded, said once, nothing to compact" "$st $out" \
  "0 tally: archive: v12.db: upgraded from schema 12 to 13"
check_eq "schema 12: now 13" "$(sqlite3 v12.db 'select max(version) from schema_version')" 13
cp "$DB" v14.db
sqlite3 v14.db "insert into schema_version (version) values (14)"
out=$("$TALLY" archive --db v14.db stats rmapper 2>&1); st=$?
check_eq "a newer schema refused" "$st $out" \
  "125 tally: archive: v14.db: archive schema version 14 is newer than this tally (13)"
check_eq "the newer archive untouched" "$(sqlite3 v14.db 'select max(version) from schema_version')" 14

# --- idempotence: the same summaries again, from stdin this time
out=$(cat runs/a/*.summary | "$TALLY" archive --db "$DB" add - 2>&1)
check_eq "adding again stores nothing" "$out" "added 0, already archived 300, rejected 0"
check_eq "still 301 rows" "$(sqlite3 "$DB" 'select count(*) from summaries')" 301

# --- Work Queue summaries (category + taskid, no name), --set with a description
printf '{"category":"wq-task","taskid":%d,"monitor_version":"7.4","memory":[%d,"MB"],"wall_time":[%d,"s"],"host":"w%d"}\n' \
  1 100 10 1  2 110 11 1  3 2000 12 2 > wq.summaries
echo "A -> B -> C" > dag.txt
out=$("$TALLY" archive --db "$DB" add --set wf-1 --set-description dag.txt wq.summaries 2>&1)
check_eq "Work Queue summaries added" "$out" "added 3, already archived 0, rejected 0"
check_eq "named by category, set recorded" \
  "$(sqlite3 "$DB" "select count(*) from summaries where name = 'wq-task' and set_id = 'wf-1'")" 3
check_eq "set description stored once" "$(sqlite3 "$DB" "select description from sets where id = 'wf-1'")" "A -> B -> C"

# --- bad inputs: reported with path and reason, skipped, exit 1; the good one goes in
echo '{"name":"bad","memory":[5,"parsecs"]}' > wrong-unit.summary
head -c 120 runs/b/rm.summary > truncated.summary
: > empty.summary
echo '{"name":"fine","memory":[1,"GB"],"brand_new_field":[3,"widgets"],"wall_time":[1,"h"]}' > good.summary
"$TALLY" archive --db "$DB" add wrong-unit.summary truncated.summary empty.summary missing.summary good.summary >out.txt 2>err.txt; st=$?
check_eq "some rejected: exit 1" "$st" 1
check_contains "wrong unit named" "$(cat err.txt)" "tally: archive add: wrong-unit.summary: field 'memory': unit \"parsecs\" is not a unit of bytes"
check_contains "truncated file named" "$(cat err.txt)" "tally: archive add: truncated.summary: line"
check_contains "truncated: why" "$(grep truncated.summary err.txt)" "end of file"
check_contains "empty file named" "$(cat err.txt)" "tally: archive add: empty.summary: empty"
check_contains "missing file named" "$(cat err.txt)" "tally: archive add: missing.summary: No such file or directory"
check_eq "counts" "$(cat out.txt)" "added 1, already archived 0, rejected 4"
check_eq "good one stored, in MB and s" "$(sqlite3 "$DB" "select memory || ' ' || wall_time from summaries where name = 'fine'")" "1024.0 3600.0"
check_contains "unknown field kept in the document" "$("$TALLY" archive --db "$DB" query --format json 'name = fine' | jq -c '.[0]')" '"brand_new_field":[3,"widgets"]'

# --- bad usage: 125
"$TALLY" archive --db "$DB" add 2>/dev/null; check_eq "add without inputs: 125" "$?" 125
"$TALLY" archive --db "$DB" add --bogus x 2>/dev/null; check_eq "unknown option: 125" "$?" 125
"$TALLY" archive frobnicate 2>/dev/null; check_eq "unknown subcommand: 125" "$?" 125
"$TALLY" archive --db "$WORK/nodir/../truncated.summary" add good.summary 2>err.txt; st=$?
check_eq "not a database: 125" "$st" 125
check_contains "not a database: reason" "$(cat err.txt)" "not a database"
for sub in add query stats predict outliers; do
  "$TALLY" archive "$sub" --help | grep -q "usage: tally archive $sub"; check_eq "$sub --help" "$?" 0
done

# --- query
n=$("$TALLY" archive --db "$DB" query --format json 'name = rmapper and memory > 900 MB' | jq length)
want=$(sqlite3 "$DB" "select count(*) from summaries where name = 'rmapper' and memory > 900")
check_eq "query json count matches SQL" "$n" "$want"
check_cmp "query json found some" "$n" ">" 0
n=$("$TALLY" archive --db "$DB" query --format json 'memory > 0.9 GB and name = "rmapper"' | jq length)
check_eq "units as people write them (0.9 GB = 921.6 MB)" "$n" "$(sqlite3 "$DB" "select count(*) from summaries where name = 'rmapper' and memory > 921.6")"
doc=$("$TALLY" archive --db "$DB" query --format json 'category = wq-task and host = w2')
check_eq "json: an array of summaries" "$(echo "$doc" | jq -c '[.[] | [.name, .taskid, .memory[0], .set]]')" '[["wq-task",3,2000,"wf-1"]]'
csv=$("$TALLY" archive --db "$DB" query --format csv 'set = wf-1 and (memory < 105 MB or memory >= 2000 MB)')
check_eq "csv: header + 2 rows" "$(echo "$csv" | wc -l)" 3
check_eq "csv: memory column" "$(echo "$csv" | awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="memory") c=i} NR>1{print $c}' | tr '\n' ' ')" "100 2000 "
table=$("$TALLY" archive --db "$DB" query 'not name = rmapper and wall_time >= 1 h')
check_contains "table shows the match" "$table" "fine"
check_eq "table: header + 1 row" "$(echo "$table" | wc -l)" 2
start_min=$(sqlite3 "$DB" "select cast(min(start) as integer) + 100 from summaries where name='rmapper'")
since=$(date -u -d "@$start_min" +%Y-%m-%dT%H:%M:%S)
n=$("$TALLY" archive --db "$DB" query --format json --since "$since" 'name = rmapper' | jq length)
check_eq "--since" "$n" "$(sqlite3 "$DB" "select count(*) from summaries where name='rmapper' and start >= $start_min")"
n=$("$TALLY" archive --db "$DB" query --format json "name = rmapper and start < $since" | jq length)
check_eq "start < DATE" "$n" "$(sqlite3 "$DB" "select count(*) from summaries where name='rmapper' and start < $start_min")"
"$TALLY" archive --db "$DB" query 'category = rmapper and memry > 500 MB' 2>err.txt; st=$?
check_eq "query error: 125" "$st" 125
check_eq "query error names the position" "$(cat err.txt)" "tally: query: position 24: unknown field 'memry'"

# --- stats against awk on the same values
sqlite3 "$DB" "select memory from summaries where name = 'rmapper'" > mem.txt
read -r mean std g1 g2 < <(awk '{x[NR]=$1; s+=$1} END {n=NR; m=s/n;
  for(i=1;i<=n;i++){d=x[i]-m; s2+=d*d; s3+=d*d*d; s4+=d*d*d*d}
  printf "%.9f %.9f %.9f %.9f\n", m, sqrt(s2/(n-1)), (s3/n)/((s2/n)^1.5), (s4/n)/((s2/n)^2)-3}' mem.txt)
p90=$(sort -n mem.txt | awk '{x[NR]=$1} END {h=(NR-1)*0.9; lo=int(h); printf "%.9f", x[lo+1]+(h-lo)*(x[lo+2]-x[lo+1])}')
"$TALLY" archive --db "$DB" stats --format json rmapper > stats.json
check_eq "stats: count" "$(jq .count stats.json)" 300
check_eq "stats: unit" "$(jq -r .resources.memory.unit stats.json)" MB
check_near "stats: mean" "$(jq .resources.memory.mean stats.json)" "$mean" 1e-6
check_near "stats: std (n-1)" "$(jq .resources.memory.std stats.json)" "$std" 1e-6
check_near "stats: skewness g1" "$(jq .resources.memory.skewness stats.json)" "$g1" 1e-6
check_near "stats: excess kurtosis g2" "$(jq .resources.memory.kurtosis stats.json)" "$g2" 1e-6
# percentiles come from the aggregates' histogram of 1 % bins: within 1 %
check_near "stats: p90 (within 1 %)" "$(jq .resources.memory.p90 stats.json)" "$p90" "$(awk -v p="$p90" 'BEGIN{print p / 100}')"
check_near "stats: min" "$(jq .resources.memory.min stats.json)" "$(sort -n mem.txt | head -1)" 0
check_eq "stats: json keys" "$(jq -c '.resources.memory | keys' stats.json)" '["kurtosis","max","mean","min","p50","p90","p95","p99","skewness","std","unit"]'
"$TALLY" archive --db "$DB" stats rmapper --plot plots > stats.txt
check_contains "text table: Table 5 rows" "$(cat stats.txt)" "std. dev."
check_contains "text table: histogram row" "$(cat stats.txt)" "histogram"
check_contains "text table: memory column" "$(cat stats.txt)" "memory"
check "svg written" test -s plots/rmapper.svg
check_eq "svg: one histogram per resource" "$(grep -c '<g class="histogram"' plots/rmapper.svg)" "$(jq '.resources | length' stats.json)"
check_eq "svg: every <text> closed" "$(grep -o '<text' plots/rmapper.svg | wc -l)" "$(grep -o '</text>' plots/rmapper.svg | wc -l)"
check_eq "svg: every <g> closed" "$(grep -o '<g ' plots/rmapper.svg | wc -l)" "$(grep -o '</g>' plots/rmapper.svg | wc -l)"
check_eq "svg: one root element" "$(grep -c '^<svg ' plots/rmapper.svg) $(tail -1 plots/rmapper.svg)" "1 </svg>"
by=$("$TALLY" archive --db "$DB" stats --by host --format json rmapper)
check_eq "--by host: one group per host" "$(echo "$by" | jq '.groups | length')" "$(sqlite3 "$DB" "select count(distinct host) from summaries where name='rmapper'")"
check_eq "--by host: counts add up" "$(echo "$by" | jq '[.groups[].count] | add')" 300
"$TALLY" archive --db "$DB" stats nosuchtask 2>err.txt; check_eq "stats: unknown name exits 1" "$?" 1
check_contains "stats: unknown name said" "$(cat err.txt)" "no summaries with name 'nosuchtask'"

# --- a long history (read in two halves by two threads) gives the same statistics
"$GEN" 25000 11 big > big.jsonl
"$TALLY" archive --db "$DB" add -q big.jsonl
sqlite3 "$DB" "select memory from summaries where name = 'big'" > big-mem.txt
read -r mean std < <(awk '{x[NR]=$1; s+=$1} END {n=NR; m=s/n; for(i=1;i<=n;i++){d=x[i]-m; s2+=d*d}
  printf "%.9f %.9f\n", m, sqrt(s2/(n-1))}' big-mem.txt)
p99=$(sort -n big-mem.txt | awk '{x[NR]=$1} END {h=(NR-1)*0.99; lo=int(h); printf "%.9f", x[lo+1]+(h-lo)*(x[lo+2]-x[lo+1])}')
"$TALLY" archive --db "$DB" stats --format json big > big.json
check_eq "long history: count" "$(jq .count big.json)" 25000
check_near "long history: mean" "$(jq .resources.memory.mean big.json)" "$mean" 1e-6
check_near "long history: std" "$(jq .resources.memory.std big.json)" "$std" 1e-6
check_near "long history: p99 (within 1 %)" "$(jq .resources.memory.p99 big.json)" "$p99" "$(awk -v p="$p99" 'BEGIN{print p / 100}')"
check_eq "long history: every resource counted" "$("$TALLY" archive --db "$DB" stats big | awk '$1 == "count" {for (i = 2; i <= NF; i++) if ($i != 25000) bad++} END {print bad + 0}')" 0

# --- predict: 9 runs at 100 MB, one at 2000 MB (equal runtimes):
# a=100 wastes 100·10 (the failed run) / 10 = 100 MB·s per task; a=2000 wastes 9·1900·10/10 = 17100
for i in $(seq 1 9); do printf '{"name":"sized","seq":%d,"memory":[100,"MB"],"wall_time":[10,"s"]}\n' "$i"; done > sized.jsonl
echo '{"name":"sized","seq":10,"memory":[2000,"MB"],"wall_time":[10,"s"]}' >> sized.jsonl
"$TALLY" archive --db "$DB" add -q sized.jsonl
p=$("$TALLY" archive --db "$DB" predict --format json sized)
check_near "predict: allocation" "$(echo "$p" | jq .memory.allocation)" 100 0
check_eq "predict: unit" "$(echo "$p" | jq -r .memory.unit)" MB
check_near "predict: expected waste" "$(echo "$p" | jq .memory.expected_waste)" 100 1e-9
check_near "predict: retry rate" "$(echo "$p" | jq .memory.retry_rate)" 0.1 1e-12
check_near "predict: always-max waste" "$(echo "$p" | jq .memory.always_max.expected_waste)" 17100 1e-9
check_contains "predict: table" "$("$TALLY" archive --db "$DB" predict sized)" "memory"

# --- outliers: the Work Queue task with 2000 MB among 100 and 110 → flagged
for i in $(seq 1 20); do printf '{"name":"steady","seq":%d,"host":"c%d","memory":[%d,"MB"]}\n' "$i" "$((i % 4))" "$((1000 + i % 3))"; done > steady.jsonl
echo '{"name":"steady","seq":99,"host":"c7","memory":[3012,"MB"]}' >> steady.jsonl
"$TALLY" archive --db "$DB" add -q steady.jsonl
o=$("$TALLY" archive --db "$DB" outliers steady)
check_contains "outliers: the run on c7" "$o" "memory 3012 MB on host c7 is 3.0× the median 1001"
check_eq "outliers: only that one" "$("$TALLY" archive --db "$DB" outliers --format json steady | jq -c '[.[] | [.host, .resource, .value]]')" '[["c7","memory",3012]]'
# the median and MAD come from the histogram (runs spread evenly over their
# 1 % bin): here the runs' spread (2 MB) is below a bin's width (10 MB), so z
# is only said to be far out; with a spread wider than the bins it is close
check_cmp "outliers: robust z far out" "$("$TALLY" archive --db "$DB" outliers --format json steady | jq '.[0].robust_z')" ">" 100
for i in $(seq 0 199); do printf '{"name":"spread","seq":%d,"host":"s%d","memory":[%d,"MB"]}\n' "$i" "$((i % 3))" "$((100 + i / 2))"; done > spread.jsonl
echo '{"name":"spread","seq":999,"host":"s9","memory":[600,"MB"]}' >> spread.jsonl
"$TALLY" archive --db "$DB" add -q spread.jsonl
exact_z=$(jq -s '[.[].memory[0]] | sort as $x | ($x | length) as $n
  | def mid(a): if $n % 2 == 1 then a[($n - 1) / 2] else (a[$n / 2 - 1] + a[$n / 2]) / 2 end;
  mid($x) as $m | ([$x[] | . - $m | if . < 0 then -. else . end] | sort) as $y
  | (600 - $m) / (1.4826 * mid($y))' spread.jsonl)
o=$("$TALLY" archive --db "$DB" outliers --format json spread)
check_eq "outliers (spread): only the 600 MB run" "$(echo "$o" | jq -c '[.[] | [.host, .resource, .value, .reason]]')" '[["s9","memory",600,"robust_z"]]'
check_near "outliers (spread): robust z within 5 % of the exact one" "$(echo "$o" | jq '.[0].robust_z')" "$exact_z" "$(awk -v z="$exact_z" 'BEGIN{print z / 20}')"

# --- time windows from the per-day aggregates: 10 runs a day on 2026-11-01,
# 02 and 03 (100, 200, 300 MB), and 10 runs started now (400 MB)
now=$(date +%s)
for d in 1 2 3; do for i in $(seq 1 10); do
  printf '{"name":"daily","seq":"%d-%d","start":[%d,"s"],"memory":[%d,"MB"]}\n' "$d" "$i" $(( $(date -u -d "2026-11-0$d" +%s) + 3600 * i )) $((100 * d))
done; done > daily.jsonl
for i in $(seq 1 10); do printf '{"name":"daily","seq":"now-%d","start":[%d,"s"],"memory":[400,"MB"]}\n' "$i" "$((now - i))"; done >> daily.jsonl
"$TALLY" archive --db "$DB" add -q daily.jsonl
w() { "$TALLY" archive --db "$DB" stats --format json "$@" daily | jq -c '[.count, .resources.memory.mean]'; }
check_eq "--from/--to one day" "$(w --from 2026-11-02 --to 2026-11-02)" '[10,200]'
check_eq "--from" "$(w --from 2026-11-02)" '[30,300]'
check_eq "--to" "$(w --to 2026-11-02)" '[20,150]'
check_eq "--since 1d: today's runs" "$(w --since 1d)" '[10,400]'
check_contains "the window is said" "$("$TALLY" archive --db "$DB" stats --from 2026-11-02 --to 2026-11-03 daily)" "name daily from 2026-11-02 to 2026-11-03"
err=$("$TALLY" archive --db "$DB" predict --from 2026-13-45 daily 2>&1); st=$?
check_eq "bad date: 125" "$st" 125
check_eq "bad date: one line naming it" "$err" "tally: archive predict: --from: '2026-13-45' is not a date (YYYY-MM-DD)"
err=$("$TALLY" archive --db "$DB" outliers --since 30 daily 2>&1); st=$?
check_eq "bad --since: 125" "$st" 125
check_contains "bad --since: says the form" "$err" "is not a number of days (e.g. 30d)"
err=$("$TALLY" archive --db "$DB" stats --from 2020-01-01 --to 2020-01-02 daily 2>&1); st=$?
check_eq "empty window: exit 1" "$st" 1
check_eq "empty window: said" "$err" "tally: archive stats: no summaries with name 'daily' from 2020-01-01 to 2020-01-02 in the archive"

# --- a transaction's day rows written in the order of their key: each name's
# and category's days lie side by side in the file (a question out of the
# cache reads a page for several days, not a page a day)
"$GEN" 40000 5 clus 4 > clustered.jsonl
"$TALLY" archive --db clustered.db add -q clustered.jsonl
check_eq "one transaction, 20 keys over 6 days each" \
  "$(sqlite3 clustered.db "select count(*) || ' ' || min(n) || ' ' || max(n) from (select count(*) as n from aggregates group by kind, key)")" "20 6 6"
check_eq "each key's day rows at consecutive rowids" \
  "$(sqlite3 clustered.db "select count(*) from (select key from aggregates group by kind, key having max(rowid) - min(rowid) + 1 != count(*))")" 0

# --- windows across months: one run a day from 2025-12-20 to 2026-03-10
# (its memory the day's number, 1..81 MB), in two ingests cut inside
# January, then a late run on 2026-01-15 (500 MB). Each window's count and
# largest value are the rows' own, whole months or not, open ends or not.
for i in $(seq 0 80); do
  printf '{"name":"monthly","seq":"m-%d","start":[%d,"s"],"memory":[%d,"MB"]}\n' "$i" \
    $(( $(date -u -d "2025-12-20 + $i days" +%s) + 7200 )) $((i + 1))
done > monthly.jsonl
head -n 30 monthly.jsonl > monthly-1.jsonl; tail -n +31 monthly.jsonl > monthly-2.jsonl
"$TALLY" archive --db "$DB" add -q monthly-1.jsonl
"$TALLY" archive --db "$DB" add -q monthly-2.jsonl
printf '{"name":"monthly","seq":"late","start":[%d,"s"],"memory":[500,"MB"]}\n' \
  "$(date -u -d 2026-01-15T12:00:00 +%s)" | "$TALLY" archive --db "$DB" add -q -
# the rows' count and largest memory in [from, to] (dates, to included)
rows_in() {
  sqlite3 "$DB" "select '[' || count(*) || ',' || cast(max(memory) as integer) || ']' from summaries
    where name = 'monthly' and start >= $(date -u -d "$1" +%s) and start < $(date -u -d "$2 + 1 day" +%s)"
}
mw() { "$TALLY" archive --db "$DB" stats --format json "$@" monthly | jq -c '[.count, .resources.memory.max]'; }
for window in "2026-01-01 2026-01-31" "2026-01-01 2026-02-28" "2025-12-31 2026-03-01" "2026-01-02 2026-02-27" \
              "2026-01-16 2026-02-28" "2025-12-01 2026-03-31" "2026-02-28 2026-03-01"; do
  set -- $window
  check_eq "window $1 to $2: the rows' count and max" "$(mw --from "$1" --to "$2")" "$(rows_in "$1" "$2")"
done
check_eq "January: 31 days and the late run" "$(mw --from 2026-01-01 --to 2026-01-31)" '[32,500]'
check_eq "open start, to a month's end" "$(mw --to 2026-01-31)" "$(rows_in 2025-12-01 2026-01-31)"
check_eq "from a month's middle, open end" "$(mw --from 2026-02-10)" "$(rows_in 2026-02-10 2026-03-31)"
check_eq "no window: every run" "$(mw)" '[82,500]'

# --- default location: $XDG_DATA_HOME/tally/archive.db, then TALLY_DB
XDG_DATA_HOME=$WORK/xdg "$TALLY" archive add -q good.summary
check "default db under XDG_DATA_HOME" test -s "$WORK/xdg/tally/archive.db"
HOME=$WORK/home XDG_DATA_HOME= "$TALLY" archive add -q good.summary
check "default db under ~/.local/share" test -s "$WORK/home/.local/share/tally/archive.db"
TALLY_DB=$WORK/env.db "$TALLY" archive add -q good.summary
check "TALLY_DB" test -s "$WORK/env.db"

# --- reading commands on a path with no archive: an error, and no empty file
for cmd in "query 'memory > 1 MB'" "stats steady" "predict steady" "outliers steady"; do
  err=$(eval "\"\$TALLY\" archive --db \"\$WORK/typo.db\" $cmd" 2>&1 >/dev/null)
  check_eq "archive ${cmd%% *} without an archive: exit 125" "$?" 125
  check_contains "archive ${cmd%% *} without an archive: names the path" "$err" "$WORK/typo.db"
  check_eq "archive ${cmd%% *} without an archive: one line" "$(printf '%s\n' "$err" | wc -l)" 1
  check "archive ${cmd%% *} without an archive: nothing created" test ! -e "$WORK/typo.db"
done
finish
