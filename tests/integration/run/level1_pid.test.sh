#!/usr/bin/env bash
# Level 1 (no interposition) and --pid (follow a running tree): the time
# series is written, CPU time of a polled tree is close, the task does not
# inherit tally's blocked signals.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
$TALLY run --level 1 --interval 0.1 --time-series -o l1 -- "$PROGS/spin_threads" 2 0.4
check_eq "level 1: exit" "$?" 0
check_near "level 1: cpu_time exact" "$(summary_value l1.summary cpu_time)" 0.8 0.03
check_cmp "level 1: series rows" "$(grep -vc '^#' l1.series)" ">=" 3
last_cpu=$(grep -v '^#' l1.series | tail -1 | awk '{print $2}')
check_near "level 1: last series row has the total cpu_time" "$last_cpu" 0.8 0.03

# SIGCHLD must not be blocked in the task (tally blocks it to wait at level 1).
$TALLY run --level 1 -o sig -- /bin/sh -c 'grep SigBlk /proc/self/status > blk'
check_eq "level 1: task's blocked signals" "$(awk '{print $2}' blk)" 0000000000000000

"$PROGS/spin_threads" 2 0.6 &
pid=$!
sleep 0.1
$TALLY run --pid $pid --interval 0.1 -o follow
check_eq "--pid: exit" "$?" 0
wait $pid
check_eq "--pid: level 1" "$(jq -r .level follow.summary)" 1
check_cmp "--pid: cpu_time seen" "$(summary_value follow.summary cpu_time)" ">" 0.7
check_cmp "--pid: cpu_time not more than done" "$(summary_value follow.summary cpu_time)" "<=" 1.25
check_eq "--pid: one process" "$(summary_value follow.summary total_processes)" 1
sleep 30.9 &
pid=$!
$TALLY run --pid $pid -o stopfollow &
tally_pid=$!
handles_term $tally_pid
sleep 0.1
kill -INT $tally_pid
wait $tally_pid
check "--pid: interrupted tally writes its summary" jq -e '.interrupted == true' stopfollow.summary
check "--pid: the followed process is left running" kill -0 $pid
kill $pid

# Level 1 scans early (10, 20, 40 ms ... up to the interval): a tree that
# lives well under the 1 s interval is still seen, its memory summed.
# "400+": the tree holds its memory 400 ms plus as long as it took to touch
# it. On a busy machine the touching alone took over a second; a fixed 400 ms
# hold then started after the 1 s scan and ended before the 2 s one, and the
# peak read was a scan taken mid-setup (386 MB). With the hold extended by
# the setup time a scan lands inside it whatever the load (fork_tree.c).
$TALLY run --level 1 -o short -- "$PROGS/fork_tree_static" 4 100 0 400+
check_eq "level 1, short static tree: all processes seen" "$(summary_value short.summary total_processes)" 5
check_cmp "level 1, short static tree: memory >= 400 MB" "$(summary_value short.summary memory)" ">=" 400
check_cmp "level 1, short static tree: memory < 412 MB (3%)" "$(summary_value short.summary memory)" "<" 412

err=$($TALLY run --pid 999999999 -o x 2>&1)
check_eq "--pid of no process: 125" "$?" 125
check_contains "--pid: message" "$err" "999999999"
finish
