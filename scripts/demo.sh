#!/usr/bin/env bash
# `make demo`: runs the bundled sample workload (demo/workload.sh) under
# `tally run`, one report per task, then prints a short summary of each report
# and where the reports are; then archives them (query, prediction), builds a
# categorized trace (aggregation, anomalies) and the visual page; then the
# online half: an MPI job steered through the user's agent.
# One function per step; to add a step, write a function and add it to STEPS.
#   DEMO_OUT   where the reports go (default build/demo)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TALLY=$ROOT/build/tally
DEMO_OUT=${DEMO_OUT:-$ROOT/build/demo}
DEMO_BIN=$ROOT/build/bench
DEMO_WORK=$DEMO_OUT/work          # the tasks' working directory
DEMO_INTERVAL=0.2                 # sampling interval: a few points per short task
STEPS=(build_programs run_workload summarize_reports show_memory_series archive_reports
       trace_reports view_report steer_mpi show_reports)

build_programs() {
  echo "== tally demo: $("$TALLY" --version)"
  # make's pattern rule is relative to the repository (we are there)
  make -s --no-print-directory build/bench/io_direct build/bench/cpu_sincos \
    build/bench/fork_fill build/bench/grandchild_io build/bench/mem_grow
}

# Runs one task of the workload under tally run (called by demo_workload).
demo_task() { # NAME CATEGORY LIMITS -- COMMAND...
  local name=$1 category=$2 limits=$3 status=0
  shift 4
  local -a opts=(--name "$name" --category "$category" --time-series
                 --interval "$DEMO_INTERVAL" -o "$DEMO_OUT/$name")
  [ -n "$limits" ] && opts+=(--limits "$limits")
  printf '  %-9s %-8s %s\n' "$name" "$category" "$*${limits:+   [limits: $limits]}"
  (cd "$DEMO_WORK" && "$TALLY" run "${opts[@]}" -- "$@" >/dev/null) || status=$?
  [ "$status" -eq 0 ] || echo "            exit status $status"
}

run_workload() {
  echo "== running the sample workload (demo/workload.sh) under tally run"
  rm -rf "$DEMO_OUT"
  mkdir -p "$DEMO_WORK"
  # shellcheck source=../demo/workload.sh
  source "$ROOT/demo/workload.sh"
  demo_workload
  rm -rf "$DEMO_WORK"
}

summarize_reports() {
  echo "== what each task used"
  printf '%-9s %-8s %-7s %8s %8s %9s %9s %9s %6s  %s\n' \
    task category exit wall_s cpu_s memory_MB read_MB written_MB procs limits
  # In the order the tasks started.
  jq -s -r 'sort_by(.start[0]) | .[]
           | [(.name // "?"), (.category // "?"), .exit_type,
            (.wall_time[0] * 100 | round / 100), (.cpu_time[0] * 100 | round / 100),
            (.memory[0] | round), (.bytes_read[0] | round), (.bytes_written[0] | round),
            .total_processes[0],
            ((.limits_exceeded // {}) | if type == "object"
               then (to_entries | map("\(.key) > \(.value[0]) \(.value[1])") | join(", "))
               else tostring end)]
           | @tsv' "$DEMO_OUT"/*.summary |
    awk -F'\t' '{printf "%-9s %-8s %-7s %8s %8s %9s %9s %9s %6s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10}'
}

# The memory column of one task's time series, by the series' own header.
show_memory_series() {
  local task=ensemble
  echo "== memory of '$task' over time ($DEMO_OUT/$task.series)"
  awk '/^#wall_clock/ { for (i = 1; i <= NF; i++) col[$i] = i; next }
       /^#/ { next }
       { if (start == "") start = $1
         printf "  t=%5.2f s  memory %7.1f MB  processes %s\n", $1 - start, $(col["memory"]), $(col["max_concurrent_processes"]) }' \
    "$DEMO_OUT/$task.series"
}

# The archive: every summary into an SQLite file, then what it knows of a task.
archive_reports() {
  local db=$DEMO_OUT/archive.db
  echo "== tally archive: summaries into $db, stats and a first allocation for 'ensemble'"
  "$TALLY" archive --db "$db" add --set demo "$DEMO_OUT"/*.summary
  "$TALLY" archive --db "$db" query 'memory > 50 MB' --format table
  # One run is too little history for a safe first allocation: predict
  # says so (exit 1), then shows its answer with the minimum lowered to 1.
  "$TALLY" archive --db "$db" predict ensemble ||
    "$TALLY" archive --db "$db" predict ensemble --min-runs 1
}

# A categorized trace of the run (CPU, memory, I/O per category), its
# aggregation over the whole run, and the anomalies tally finds in it.
trace_reports() {
  local trace=$DEMO_OUT/workload.paje
  echo "== tally trace: categorized trace of the workload in $trace"
  local -a prefixes
  mapfile -t prefixes < <(ls "$DEMO_OUT"/*.summary | sed 's/\.summary$//')
  "$TALLY" trace from-runs -o "$trace" "${prefixes[@]}"
  "$TALLY" trace aggregate "$trace" --level host
  "$TALLY" trace anomalies "$trace" | head -n 12 || true
}

view_report() {
  echo "== tally view: $DEMO_OUT/report.html (open it in a browser; works offline)"
  "$TALLY" view "$DEMO_OUT/workload.paje" -o "$DEMO_OUT/report.html"
}

# The online half: a 4-rank MPI stencil (Open MPI) started with nothing
# recorded (--window request); the user's agent switches MPI recording on
# for 3 s by one request, its communication ratio is read live while it
# runs, top shows what each process records, and the report follows.
steer_mpi() {
  if ! command -v mpicc.openmpi >/dev/null || ! command -v mpirun.openmpi >/dev/null; then
    echo "== (Open MPI is not installed: no MPI steering step)"
    return 0
  fi
  echo "== tally agent: an MPI job switched on for 3 s by request, read live"
  [ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_rmaps_base_oversubscribe=1
  local dir=$DEMO_OUT/agent sock=$DEMO_OUT/agent/agent.sock rc=0
  rm -rf "$dir" && mkdir -m 700 "$dir"
  make -s --no-print-directory libs
  mpicc.openmpi -O2 -DWITH_PROBE -o "$DEMO_OUT/agent/stencil" tests/fixtures/mpi/stencil.c \
    -Iinclude -Lbuild/lib -ltally-probe -Wl,-rpath,"$ROOT/build/lib"
  "$TALLY" agent --foreground --no-archive --socket "$sock" 2>"$dir/agent.err" &
  local agent=$!
  for _ in $(seq 200); do "$TALLY" agent --socket "$sock" status >/dev/null 2>&1 && break; sleep 0.05; done
  "$TALLY" run --agent "$sock" --app stencil --mpi --window request -o "$DEMO_OUT/stencil" -- \
    mpirun.openmpi -np 4 "$DEMO_OUT/agent/stencil" blocking 400 64 3000 0 1 "$DEMO_OUT/agent/hand" \
    >/dev/null 2>"$dir/run.err" &
  local run=$!
  ranks() { "$TALLY" request --agent "$sock" ':proc_get_info([app_stencil], 0x80)' 2>/dev/null |
              jq -s '[.[] | select(.result.probes)] | length'; }
  for _ in $(seq 300); do [ "$(ranks)" = 4 ] && break; sleep 0.05; done
  echo "\$ tally request ':proc_record_start([app_stencil], \"mpi\", 3s)'"
  "$TALLY" request --agent "$sock" ':proc_record_start([app_stencil], "mpi", 3s)' |
    jq -r 'select(.result) | "  \(.object): on \(.result.on), for \(.result.for[0]) s"'
  sleep 0.6
  echo "\$ tally request ':proc_get_info([app_stencil], 0x80)'   # the window so far, live"
  "$TALLY" request --agent "$sock" ':proc_get_info([app_stencil], 0x80)' |
    jq -r 'select(.result.probes) | .result.probes | "  rank \(.rank): recorded \(.mpi.recorded_time * 1000 | round) ms, comm ratio \(.mpi.comm_ratio * 1000 | round / 1000)"'
  "$TALLY" top --once --app stencil --agent "$sock" | sed 's/^/  /'
  wait "$run" || rc=$?
  kill "$agent" 2>/dev/null; wait "$agent" 2>/dev/null || true
  [ "$rc" = 0 ] || { echo "the MPI run failed (status $rc): $(tail -n 3 "$dir/run.err")"; return 0; }
  "$TALLY" mpi report "$DEMO_OUT/stencil" | head -n 9
}

show_reports() {
  echo "== reports (summary JSON, time series) in $DEMO_OUT:"
  ls "$DEMO_OUT"
}

for step in "${STEPS[@]}"; do
  "$step"
done
