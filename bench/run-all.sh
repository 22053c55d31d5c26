#!/usr/bin/env bash
# Runs every benchmark script (bench/*.bench.sh) in turn. Each writes its
# markdown table to bench/results/<name>.md and prints it. BENCH_ONLY=name
# selects one script.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/results
status=0
for script in bench/*.bench.sh; do
  [ -e "$script" ] || continue
  name=$(basename "$script" .bench.sh)
  if [ -n "${BENCH_ONLY:-}" ] && [ "$name" != "$BENCH_ONLY" ]; then continue; fi
  echo "== bench: $name"
  bash "$script" || { echo "bench $name failed" >&2; status=1; }
done
exit $status
