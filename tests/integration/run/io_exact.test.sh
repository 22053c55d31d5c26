#!/usr/bin/env bash
# Bytes written and read by a grandchild are counted exactly, at every
# level (the kernel's totals of reaped children, not polling; at level 3 the
# static program is not interposed and its bytes still count).
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
n=10000000
mb=$(awk -v n=$n 'BEGIN { printf "%.6f", n / 1048576 }')
for level in 2 1 3; do
  $TALLY run --level $level -o io$level -- "$PROGS/io_grandchild_static" data $n
  check_eq "level $level: grandchild succeeded" "$?" 0
  check_near "level $level: bytes_written exact" "$(summary_value io$level.summary bytes_written)" "$mb" 0.000002
  # reads: the file, plus the kernel reading the static binary's headers at exec (< 4 KB)
  r=$(summary_value io$level.summary bytes_read)
  check_cmp "level $level: bytes_read >= the file" "$r" ">=" "$(awk -v m=$mb 'BEGIN { print m - 0.000002 }')"
  check_cmp "level $level: bytes_read < file + 4 KB" "$r" "<" "$(awk -v m=$mb 'BEGIN { print m + 4/1024 }')"
  check_eq "level $level: total_processes" "$(summary_value io$level.summary total_processes)" \
    "$([ $level = 2 ] && echo 3 || echo "$(summary_value io$level.summary total_processes)")"
done
finish
