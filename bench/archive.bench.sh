#!/usr/bin/env bash
# Benchmark of tally archive at a site's scale (issue 20): generated
# summaries of 40 categories, 160 task names and 500 hosts
# (tests/integration/archive/gen-summaries.sh N SEED task 40), ingested as
# one JSON Lines stream into SQLite and into PostgreSQL (a server this script
# starts on a unix socket and stops), in two halves so that the second half's
# rate (on the days after the first's) shows whether ingest slows as the
# archive grows; and, into a copy of the first half's archive, as many other
# summaries on the first half's own days (every day row merged with one
# stored: another site's or a late source's records); then stats, predict
# and outliers of one category (median and max of RUNS runs, with the largest
# resident memory), and the archive's size on disk. Ingest into each is run
# ARCHIVE_BENCH_INGEST_RUNS times (default 3; medians), once from 10^7 up.
# Sizes: ARCHIVE_BENCH_SIZES (default "100000 1000000"; "... 10000000" adds
# ~12 minutes on this machine, 7.8 GB of generated JSON Lines in the work
# directory, two 3 GB SQLite files and two 6 GB PostgreSQL databases).
# Writes bench/results/archive.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TALLY=${TALLY_RELEASE:-$ROOT/build/tally}
GEN=$ROOT/tests/integration/archive/gen-summaries.sh
SIZES=${ARCHIVE_BENCH_SIZES:-100000 1000000}
RUNS=${ARCHIVE_BENCH_RUNS:-5}
INGEST_RUNS=${ARCHIVE_BENCH_INGEST_RUNS:-3}
OUT=$ROOT/bench/results/archive.md
[ -x "$TALLY" ] || make -s build/tally
WORK=$(mktemp -d /tmp/tally-archive-bench.XXXXXX)
chmod 755 "$WORK"
source "$ROOT/tests/integration/archive/pg-server.sh"
trap 'pg_server_stop; rm -rf "$WORK"' EXIT

# "WALL CPU RSS_KB" of one command, started once the file system has
# written what the steps before it left dirty (a 5 GB copy of a database,
# a 3 GB archive): their writeback is not charged to it
timed() {
  sync
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$@" >/dev/null
  awk '{printf "%.3f %.3f %d\n", $1, $2 + $3, $4}' "$WORK/time.txt"
}
# "MEDIAN_MS MAX_MS MAX_RSS_MB" of RUNS runs of a command
repeat() {
  for _ in $(seq 1 "$RUNS"); do timed "$@"; done > "$WORK/runs.txt"
  sort -n -k1 "$WORK/runs.txt" | awk '{w[NR] = $1; if ($3 > r) r = $3}
    END {printf "%.0f %.0f %.1f\n", 1000 * w[int((NR + 1) / 2)], 1000 * w[NR], r / 1024}'
}
# the median of each of the 6 columns of a file of ingest runs
medians() {
  awk '{for (k = 1; k <= 6; k++) v[k, NR] = $k}
    END {for (k = 1; k <= 6; k++) {n = 0; for (i = 1; i <= NR; i++) a[++n] = v[k, i]
         asort(a); printf "%s ", a[int((NR + 1) / 2)]; delete a} print ""}' "$1"
}
rate() { awk -v n="$1" -v s="$2" 'BEGIN {printf "%.0f", n / s}'; }
megabytes() { awk -v b="$1" 'BEGIN {printf "%.0f MB", b / 1048576}'; }

pg_server_start "$WORK/pg"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rows=()
queries=()
breakdown=()
for n in $SIZES; do
  half=$((n / 2))
  echo "generating $n summaries"
  # one stream (a start every 10 s) cut in two: the second half on the days after the first's
  "$GEN" "$n" 1 task 40 > "$WORK/stream.jsonl"
  head -n "$half" "$WORK/stream.jsonl" > "$WORK/first.jsonl"
  tail -n +"$((half + 1))" "$WORK/stream.jsonl" > "$WORK/second.jsonl"
  rm "$WORK/stream.jsonl"
  # as many others (another seed) on the first half's days
  "$GEN" "$half" 2 task 40 > "$WORK/same-days.jsonl"
  db=$WORK/archive-$n.db
  # SQLite ingest INGEST_RUNS times into a new archive (once from 10^7 up):
  # medians of each half's wall and CPU
  runs=$INGEST_RUNS
  [ "$n" -lt 10000000 ] || runs=1
  for _ in $(seq 1 "$runs"); do
    rm -f "$db"* "$WORK/same-days.db"*
    read -r w1 c1 _ < <(timed "$TALLY" archive --db "$db" add -q "$WORK/first.jsonl")
    cp "$db" "$WORK/same-days.db" # the first half's archive, closed: no -wal or -shm left
    read -r w2 c2 _ < <(timed "$TALLY" archive --db "$db" add -q "$WORK/second.jsonl")
    read -r w3 c3 _ < <(timed "$TALLY" archive --db "$WORK/same-days.db" add -q "$WORK/same-days.jsonl")
    echo "$w1 $c1 $w2 $c2 $w3 $c3"
  done > "$WORK/ingests.txt"
  read -r w1 c1 w2 c2 w3 c3 < <(medians "$WORK/ingests.txt")
  same_days_bytes=$(du -cb "$WORK/same-days.db"* | tail -1 | awk '{print $1}')
  rm -f "$WORK/same-days.db"*
  stored=$(sqlite3 "$db" "select count(*) from summaries")
  [ "$stored" = "$n" ] || { echo "SQLite stored $stored of $n" >&2; exit 1; }
  bytes=$(du -cb "$db"* | tail -1 | awk '{print $1}')
  size="$(awk -v b="$bytes" 'BEGIN {printf "%.0f", b / 1048576}') MB, $(awk -v b="$bytes" -v n="$n" 'BEGIN {printf "%.0f", b / n}') B/summary"
  agg=$(sqlite3 "$db" "select count(*) || ' rows, ' || (sum(length(data)) / 1048576) || ' MB' from aggregates")
  # where the bytes go: pages of each table and index (SQLite's dbstat), per summary
  breakdown+=("| $n | $(sqlite3 "$db" "select group_concat(part, ' | ') from (select printf('%.0f', sum(pgsize) * 1.0 / $n) as part, case when name in ('summary_rows', 'summary_keys', 'aggregates') then name else 'other' end as object from dbstat group by object order by case object when 'summary_rows' then 1 when 'summary_keys' then 2 when 'aggregates' then 3 else 4 end)") | $(awk -v b="$bytes" -v n="$n" 'BEGIN {printf "%.0f", b / n}') |")
  rows+=("| SQLite, $n | $(rate "$half" "$w1")/s ($(rate "$half" "$c1")/s CPU) | $(rate "$half" "$w2")/s ($(rate "$half" "$c2")/s CPU) | $(rate "$half" "$w3")/s ($(rate "$half" "$c3")/s CPU) | $size (aggregates: $agg); $(megabytes "$same_days_bytes") |")
  # PostgreSQL: the same, each run into new databases
  uri="postgresql://tally@/bench_$n?host=$WORK/pg"
  same_days_uri="postgresql://tally@/bench_${n}_same_days?host=$WORK/pg"
  for k in $(seq 1 "$runs"); do
    [ "$k" = 1 ] || psql -X -q -d "$PG_URI" -c "drop database bench_$n" -c "drop database bench_${n}_same_days" >/dev/null
    psql -X -q -d "$PG_URI" -c "create database bench_$n" >/dev/null
    read -r pw1 pc1 _ < <(timed "$TALLY" archive --db "$uri" add -q "$WORK/first.jsonl")
    psql -X -q -d "$PG_URI" -c "create database bench_${n}_same_days template bench_$n" >/dev/null
    read -r pw2 pc2 _ < <(timed "$TALLY" archive --db "$uri" add -q "$WORK/second.jsonl")
    read -r pw3 pc3 _ < <(timed "$TALLY" archive --db "$same_days_uri" add -q "$WORK/same-days.jsonl")
    echo "$pw1 $pc1 $pw2 $pc2 $pw3 $pc3"
  done > "$WORK/ingests.txt"
  read -r pw1 pc1 pw2 pc2 pw3 pc3 < <(medians "$WORK/ingests.txt")
  pg_bytes=$(psql -X -t -A -d "$uri" -c "select pg_database_size(current_database())")
  pg_same_days_bytes=$(psql -X -t -A -d "$same_days_uri" -c "select pg_database_size(current_database())")
  psql -X -q -d "$PG_URI" -c "drop database bench_${n}_same_days" >/dev/null
  pg_size="$(awk -v b="$pg_bytes" 'BEGIN {printf "%.0f", b / 1048576}') MB, $(awk -v b="$pg_bytes" -v n="$n" 'BEGIN {printf "%.0f", b / n}') B/summary"
  rows+=("| PostgreSQL, $n | $(rate "$half" "$pw1")/s ($(rate "$half" "$pc1")/s client CPU) | $(rate "$half" "$pw2")/s ($(rate "$half" "$pc2")/s client CPU) | $(rate "$half" "$pw3")/s ($(rate "$half" "$pc3")/s client CPU) | $pg_size; $(megabytes "$pg_same_days_bytes") |")
  for backend in sqlite pg; do
    where=$db; [ $backend = pg ] && where=$uri
    for q in stats predict outliers; do
      read -r med max rss < <(repeat "$TALLY" archive --db "$where" $q cat7)
      queries+=("| $q cat7 | $backend | $n | $med ms | $max ms | $rss MB |")
    done
    read -r med max rss < <(repeat "$TALLY" archive --db "$where" stats --by category --from 2026-11-18 --to 2026-11-27 cat7)
    queries+=("| stats --by category --from 2026-11-18 --to 2026-11-27 cat7 | $backend | $n | $med ms | $max ms | $rss MB |")
  done
  rm -f "$db"*
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo "# tally archive benchmark"
  echo
  echo "Summaries from \`tests/integration/archive/gen-summaries.sh N SEED task 40\`: 40 categories, 160 task"
  echo "names, 500 hosts, one start every 10 s (10^6 summaries span 116 days), ~560 bytes and 13 numeric"
  echo "fields each. \`build/tally\` (-O2), $(nproc) CPUs shared with other engineers' builds and tests: load"
  echo "average $load_before before, $load_after after. Rates are wall clock (and CPU = user + sys of the tally"
  echo "process, what a free machine would see). Each size is one JSON Lines stream, ingested in two halves"
  echo "into a new archive: the second half, on the days after the first's, shows whether ingest slows as"
  echo "the archive grows. The last column of rates is as many other summaries on the first half's own days,"
  echo "into a copy of the first half's archive (each day row merged with a stored one: another site's or a"
  echo "late source's records, the hardest case). Medians of $INGEST_RUNS ingests into each (wall and CPU"
  echo "each; one from 10^7 up), each begun after a \`sync\` (the writeback of what the steps before left"
  echo "dirty, such as the copy of a database, not charged to it). Sizes: the whole stream's archive; then"
  echo "the other's."
  echo
  echo "| archive, summaries | ingest, first half | second half, the days after | the same days again | size on disk |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Bytes per summary on disk by SQLite object (pages, from the dbstat table; 'other' is the"
  echo "small tables: dictionary, name_fields, document_shapes, sets, run_files, schema_version):"
  echo
  echo "| summaries | table summary_rows | table summary_keys (start_day, hash, id) | aggregates | other | file |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${breakdown[@]}"
  echo
  echo "Questions about one category (cat7: 1/40 of the runs), answered from the per-day aggregates;"
  echo "median and max of $RUNS runs, and the largest resident memory of those runs:"
  echo
  echo "| command | backend | summaries | median | max | max RSS |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${queries[@]}"
  echo
  echo "Run: \`make bench BENCH_ONLY=archive\` (ARCHIVE_BENCH_SIZES, ARCHIVE_BENCH_RUNS and"
  echo "ARCHIVE_BENCH_INGEST_RUNS change the sizes and repetitions)."
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
