#!/usr/bin/env bash
# The sample workload of `make demo`: a small workflow of six tasks in two
# categories — "compute" (CPU-bound, forking, and one whose memory runs away
# and is stopped by a limit) and "data" (I/O-bound, many short processes, a
# grandchild doing I/O). The programs are the benchmark programs of
# bench/progs (built into build/bench). scripts/demo.sh sources this file with
# its own demo_task, which runs each task under `tally run`; run alone, this
# file runs the tasks without a monitor.
#
#   demo_task NAME CATEGORY LIMITS -- COMMAND [ARGS...]   (LIMITS "" = none)
: "${DEMO_BIN:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/bench}"

if ! declare -F demo_task >/dev/null; then
  demo_task() { shift 4; echo "+ $*"; "$@"; }
fi

demo_workload() {
  demo_task prepare  data    ""               -- "$DEMO_BIN/io_direct" input.dat $((256 << 20)) 65536
  demo_task simulate compute ""               -- "$DEMO_BIN/cpu_sincos" 30000000
  demo_task ensemble compute ""               -- "$DEMO_BIN/fork_fill" 3 200 100 300
  demo_task index    data    ""               -- bash -c 'for i in $(seq 300); do /bin/true; done'
  demo_task collect  data    ""               -- "$DEMO_BIN/grandchild_io" results.dat 50000000
  # Grows 1 GB/s towards 4 GB; the limit stops it near 300 MB.
  demo_task runaway  compute "memory: 300 MB" -- "$DEMO_BIN/mem_grow" 100 100 4000
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  demo_workload
fi
