#!/usr/bin/env bash
# Benchmark of tally archive: ingest 100,000 generated summaries into SQLite
# (as one directory of .summary files, and as one JSON Lines stream) and into
# PostgreSQL (a server this script starts on a unix socket and stops), then
# time stats and predict for the one task name over those 100k rows.
# Targets (issue 3): ingest >= 20,000 summaries/s into SQLite; stats < 200 ms.
# Wall-clock times are medians of several runs; the CPU time (user + sys) of
# the same runs is shown too, because the benchmark machine is shared.
# Writes bench/results/archive.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TALLY=${TALLY_RELEASE:-$ROOT/build/tally}
GEN=$ROOT/tests/integration/archive/gen-summaries.sh
N=${ARCHIVE_BENCH_N:-100000}
RUNS=${ARCHIVE_BENCH_RUNS:-5}
INGEST_RUNS=${ARCHIVE_BENCH_INGEST_RUNS:-3}
OUT=$ROOT/bench/results/archive.md
[ -x "$TALLY" ] || make -s build/tally
mkdir -p "$(dirname "$OUT")"
WORK=$(mktemp -d /tmp/tally-archive-bench.XXXXXX)
chmod 755 "$WORK"
source "$ROOT/tests/integration/archive/pg-server.sh"
trap 'pg_server_stop; rm -rf "$WORK"' EXIT

# seconds (wall, cpu) of one command: prints "WALL CPU"
timed() {
  /usr/bin/time -f "%e %U %S" -o "$WORK/time.txt" "$@" >/dev/null
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$WORK/time.txt"
}
# median of the wall and cpu columns of RUNS runs of a command
median_of_runs() {
  for _ in $(seq 1 "$RUNS"); do timed "$@"; done > "$WORK/runs.txt"
  wall=$(cut -d' ' -f1 "$WORK/runs.txt" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  cpu=$(cut -d' ' -f2 "$WORK/runs.txt" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$wall $cpu"
}
# median over INGEST_RUNS fresh SQLite archives of "add SOURCE": prints "WALL CPU"
median_ingest() {
  for i in $(seq 1 "$INGEST_RUNS"); do
    rm -f "$WORK/ingest.db" "$WORK/ingest.db-wal" "$WORK/ingest.db-shm"
    timed "$TALLY" archive --db "$WORK/ingest.db" add -q "$1"
    stored=$(sqlite3 "$WORK/ingest.db" "select count(*) from summaries")
    [ "$stored" = "$N" ] || { echo "SQLite stored $stored of $N" >&2; exit 1; }
  done > "$WORK/ingest-runs.txt"
  wall=$(cut -d' ' -f1 "$WORK/ingest-runs.txt" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  cpu=$(cut -d' ' -f2 "$WORK/ingest-runs.txt" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$wall $cpu"
}
rate() { awk -v n="$N" -v s="$1" 'BEGIN {printf "%.0f", n / s}'; }
verdict() { awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN {ok = (op == ">=") ? v >= t : v < t; print ok ? "met" : "not met"}'; }

echo "generating $N summaries"
"$GEN" "$N" 1 rmapper > "$WORK/all.jsonl"
mkdir "$WORK/dir"
(cd "$WORK/dir" && split -l 1 -a 6 --additional-suffix=.summary "$WORK/all.jsonl" s)

echo "ingest into SQLite (directory of files)"
read -r dir_wall dir_cpu < <(median_ingest "$WORK/dir")
echo "ingest into SQLite (one stream)"
read -r jsonl_wall jsonl_cpu < <(median_ingest "$WORK/all.jsonl")
"$TALLY" archive --db "$WORK/dir.db" add -q "$WORK/dir" # the archive stats and predict read

echo "ingest into PostgreSQL"
pg_server_start "$WORK/pg"
read -r pg_wall pg_cpu < <(timed "$TALLY" archive --db "$PG_URI" add -q "$WORK/dir")
pg_stored=$(psql -X -t -A -d "$PG_URI" -c "select count(*) from summaries")
[ "$pg_stored" = "$N" ] || { echo "PostgreSQL stored $pg_stored of $N" >&2; exit 1; }

echo "stats and predict"
read -r stats_wall stats_cpu < <(median_of_runs "$TALLY" archive --db "$WORK/dir.db" stats rmapper)
read -r statsj_wall statsj_cpu < <(median_of_runs "$TALLY" archive --db "$WORK/dir.db" stats --format json rmapper)
read -r predict_wall predict_cpu < <(median_of_runs "$TALLY" archive --db "$WORK/dir.db" predict rmapper)
read -r pgstats_wall pgstats_cpu < <(median_of_runs "$TALLY" archive --db "$PG_URI" stats rmapper)
read -r pgpredict_wall pgpredict_cpu < <(median_of_runs "$TALLY" archive --db "$PG_URI" predict rmapper)

dir_rate=$(rate "$dir_wall"); dir_cpu_rate=$(rate "$dir_cpu")
jsonl_rate=$(rate "$jsonl_wall"); jsonl_cpu_rate=$(rate "$jsonl_cpu")
pg_rate=$(rate "$pg_wall"); pg_cpu_rate=$(rate "$pg_cpu")
ms() { awk -v s="$1" 'BEGIN {printf "%.0f", s * 1000}'; }
load=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo "# tally archive benchmark"
  echo
  echo "$N generated summaries of one task (\`tests/integration/archive/gen-summaries.sh\`, ~500 bytes each,"
  echo "13 numeric fields), \`build/tally\` (-O2), $(nproc) CPUs, load average at the end: $load."
  echo "Times: wall clock, the median of $INGEST_RUNS runs (ingest, each into a new archive) or $RUNS runs (stats,"
  echo "predict; PostgreSQL ingest: one run), and CPU = user + sys of the tally process in the same runs."
  echo "The machine is shared with other builds and tests, so wall time includes waiting for a CPU; the CPU"
  echo "column is what tally itself costs. The targets are on wall time (\"result (wall)\"); \"result (CPU)\""
  echo "applies the same bound to the CPU time, i.e. what a machine with a free core would see (ingest"
  echo "runs two threads, reading/parsing and writing, so its wall time on free cores can be below its CPU time)."
  echo
  echo "| measurement | wall | CPU | rate (wall) | rate (CPU) | target | result (wall) | result (CPU) |"
  echo "|---|---|---|---|---|---|---|---|"
  echo "| ingest into SQLite, directory of $N files | ${dir_wall} s | ${dir_cpu} s | ${dir_rate}/s | ${dir_cpu_rate}/s | ≥ 20,000/s | $(verdict "$dir_rate" ">=" 20000) | $(verdict "$dir_cpu_rate" ">=" 20000) |"
  echo "| ingest into SQLite, one JSON Lines stream | ${jsonl_wall} s | ${jsonl_cpu} s | ${jsonl_rate}/s | ${jsonl_cpu_rate}/s | ≥ 20,000/s | $(verdict "$jsonl_rate" ">=" 20000) | $(verdict "$jsonl_cpu_rate" ">=" 20000) |"
  echo "| ingest into PostgreSQL (unix socket), directory | ${pg_wall} s | ${pg_cpu} s | ${pg_rate}/s | ${pg_cpu_rate}/s (client) | – | – | – |"
  echo "| stats rmapper, SQLite, $N rows (table) | $(ms "$stats_wall") ms | $(ms "$stats_cpu") ms | | | < 200 ms | $(verdict "$stats_wall" "<" 0.2) | $(verdict "$stats_cpu" "<" 0.2) |"
  echo "| stats --format json, SQLite | $(ms "$statsj_wall") ms | $(ms "$statsj_cpu") ms | | | < 200 ms | $(verdict "$statsj_wall" "<" 0.2) | $(verdict "$statsj_cpu" "<" 0.2) |"
  echo "| predict rmapper, SQLite | $(ms "$predict_wall") ms | $(ms "$predict_cpu") ms | | | – | – | – |"
  echo "| stats rmapper, PostgreSQL | $(ms "$pgstats_wall") ms | $(ms "$pgstats_cpu") ms (client) | | | – | – | – |"
  echo "| predict rmapper, PostgreSQL | $(ms "$pgpredict_wall") ms | $(ms "$pgpredict_cpu") ms (client) | | | – | – | – |"
  echo
  echo "Run: \`make bench BENCH_ONLY=archive\` (ARCHIVE_BENCH_N, ARCHIVE_BENCH_RUNS, ARCHIVE_BENCH_INGEST_RUNS change"
  echo "the size and repetitions)."
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
