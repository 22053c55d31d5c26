# Concurrent writers for the archive tests (sourced, not a test itself):
# run_concurrent_writers DB starts 10 'tally archive add' processes at once,
# each adding 10,000 summaries of its own (names task1..task10) and the same
# 100 shared ones (name 'shared'), waits for all, and sets WRITERS_FAILED to
# how many exited non-zero. Their outputs are writer-out<N>.txt and
# writer-err<N>.txt in the current directory.
run_concurrent_writers() {
  local db=$1 gen=$TALLY_TEST_ROOT/tests/integration/archive/gen-summaries.sh p pid pids=()
  "$gen" 100 999 shared > shared.jsonl
  for p in $(seq 1 10); do "$gen" 10000 "$p" "task$p" > "w$p.jsonl"; done
  for p in $(seq 1 10); do
    "$TALLY" archive --db "$db" add "w$p.jsonl" shared.jsonl > "writer-out$p.txt" 2> "writer-err$p.txt" &
    pids+=($!)
  done
  WRITERS_FAILED=0
  for pid in "${pids[@]}"; do wait "$pid" || WRITERS_FAILED=$((WRITERS_FAILED + 1)); done
}

# writers_total COLUMN: the sum of one count over the writers' "added A,
# already archived D, rejected R" lines (2 = added, 5 = already archived).
writers_total() { cat writer-out*.txt | awk -v c="$1" '{gsub(",", ""); t += $c} END {print t}'; }
