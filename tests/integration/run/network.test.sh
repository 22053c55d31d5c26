#!/usr/bin/env bash
# bytes_received / bytes_sent: TCP counters of the task's sockets (both ends
# of a loopback connection belong to the task here, so each side counts).
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
n=20000000
mb=$(awk -v n=$n 'BEGIN { printf "%.6f", n / 1048576 }')
$TALLY run --interval 0.1 -o net -- "$PROGS/tcp_transfer" $n 10 300
check_eq "transfer succeeded" "$?" 0
check_near "bytes_received exact" "$(summary_value net.summary bytes_received)" "$mb" 0.000002
check_near "bytes_sent exact" "$(summary_value net.summary bytes_sent)" "$mb" 0.000002
$TALLY run --interval 0.1 -o none -- "$PROGS/touch_exit" 1
check_eq "no sockets: nothing received" "$(summary_value none.summary bytes_received)" 0
finish
