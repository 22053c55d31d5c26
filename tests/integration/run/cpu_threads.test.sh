#!/usr/bin/env bash
# 8 CPU-bound threads: cpu_time is the work done (each thread burns an exact
# amount of its own CPU time), and cores shows several cores in use.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
each=0.3
$TALLY run --interval 0.2 -o spin -- "$PROGS/spin_threads" 8 $each truth 0.2
check_eq "exit status" "$?" 0
cpu=$(summary_value spin.summary cpu_time)
check_near "cpu_time = 8 x per-thread work" "$cpu" 2.4 0.1
cores=$(summary_value spin.summary cores)
cpus=$(nproc)
want=$(( cpus < 8 ? cpus : 8 ))
wall=$(summary_value spin.summary wall_time)
avg=$(summary_value spin.summary cores_avg)
check_near "cores_avg = cpu_time / wall_time" "$avg" "$(awk -v c=$cpu -v w=$wall 'BEGIN { print c / w }')" 0.01
check_cmp "cores <= machine cores ($want)" "$cores" "<=" "$want"
check_cmp "cores >= cores_avg" "$cores" ">=" "$avg"
# On an idle machine cores reaches min(8, machine cores); other load lowers
# what the task really gets. The fixture measures that itself (its process
# CPU time over 0.2 s windows): tally's peak must match it.
truth=$(cat truth)
check_near "cores = the peak the task measured itself" "$cores" "$truth" \
  "$(awk -v t="$truth" 'BEGIN { print 0.15 + 0.15 * t }')"
if awk -v t="$truth" 'BEGIN { exit !(t > 1.2) }'; then
  check_cmp "cores > 1: threads counted together" "$cores" ">" 1
fi
check_eq "one process" "$(summary_value spin.summary total_processes)" 1
finish
