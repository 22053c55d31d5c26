#!/usr/bin/env bash
# memory is the peak of the SUM over processes alive at the same moment:
# three children of 300 MB and a parent of 200 MB, all at once (truth about
# 1100 MB, where resource_monitor reports 3 MB); the same for a statically
# linked program (4 x 100 MB); and 1 GB touched just before exit.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"

# Baseline: the same program holding nothing (its code, libc, stacks).
$TALLY run -o base -- "$PROGS/fork_tree" 3 0 0 100
base=$(summary_value base.summary memory)
check_cmp "baseline of 4 idle processes is small" "$base" "<" 16

$TALLY run -o tree -- "$PROGS/fork_tree" 3 300 200 300
check_eq "exit status" "$?" 0
truth=$(awk -v b="$base" 'BEGIN { print 3 * 300 + 200 + b }')
tol=$(awk -v t="$truth" 'BEGIN { print t * 0.03 }')
check_near "concurrent fork tree: memory within 3% of truth" "$(summary_value tree.summary memory)" "$truth" "$tol"
check_near "concurrent fork tree: proportional_memory within 3%" \
  "$(summary_value tree.summary proportional_memory)" "$truth" "$tol"
check_eq "total_processes" "$(summary_value tree.summary total_processes)" 4
check_eq "max_concurrent_processes" "$(summary_value tree.summary max_concurrent_processes)" 4

$TALLY run -o static -- "$PROGS/fork_tree_static" 4 100 0 300
check_eq "static: total_processes" "$(summary_value static.summary total_processes)" 5
check_cmp "static: memory >= 400 MB" "$(summary_value static.summary memory)" ">=" 400
check_cmp "static: memory < 412 MB" "$(summary_value static.summary memory)" "<" 412

$TALLY run -o touch -- "$PROGS/touch_exit" 1024
check_near "1 GB touched just before exit (level 2)" "$(summary_value touch.summary memory)" 1026 6
# Its PSS too: walked at its exit, or carried forward from an earlier walk
# by the private memory it added since (above 1 GiB: --interval 0.1 makes
# tally walk it while it grows).
check_near "1 GB touched just before exit: proportional_memory" "$(summary_value touch.summary proportional_memory)" 1026 6
$TALLY run -o touch2 --interval 0.1 -- "$PROGS/touch_exit" 1536
check_near "1.5 GB touched just before exit: proportional_memory" "$(summary_value touch2.summary proportional_memory)" 1538 8
$TALLY run --level 1 -o touch1 -- "$PROGS/touch_exit" 1024
check_near "1 GB touched just before exit (level 1)" "$(summary_value touch1.summary memory)" 1026 6
check_eq "level recorded" "$(jq -r .level touch1.summary)" 1
finish
