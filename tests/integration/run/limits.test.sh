#!/usr/bin/env bash
# Limits: memory (a task growing 1 GB/s under 200 MB is stopped below 300 MB
# — resource_monitor lets it reach 602 MB), wall_time and disk; exit 124,
# exit_type "limits", limits_exceeded naming the limit. --measure-only reports
# without stopping.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
$TALLY run -o mem --limits 'memory: 200 MB' -- "$PROGS/grow_memory" 1024 1500 2>mem.err
check_eq "memory limit: exit 124" "$?" 124
check_eq "  one line on stderr says why" "$(wc -l < mem.err)" 1
check_contains "  naming the limit" "$(cat mem.err)" "tally: run: memory limit 200 MB exceeded (peak "
check_near "  and the summary's peak" "$(sed -n 's/.*(peak \([0-9.]*\) MB at t+.*/\1/p' mem.err)" \
  "$(summary_value mem.summary memory)" 1
check_contains "  ending with the action" "$(cat mem.err)" "): task stopped"
check_eq "exit_type limits" "$(jq -r .exit_type mem.summary)" limits
check_eq "limits_exceeded.memory" "$(jq -c '.limits_exceeded.memory' mem.summary)" '[200,"MB"]'
m=$(summary_value mem.summary memory)
check_cmp "stopped below 300 MB" "$m" "<" 300
check_cmp "memory above the limit when stopped" "$m" ">" 200

start=$(date +%s.%N)
$TALLY run -o wall --limits 'wall_time: 500 ms' -- sleep 10 2>wall.err
check_eq "wall_time limit: exit 124" "$?" 124
check_contains "  says why" "$(cat wall.err)" "tally: run: wall_time limit 0.5 s exceeded ("
took=$(echo "$(date +%s.%N) - $start" | bc)
check_cmp "stopped soon after 0.5 s" "$took" "<" 3
check_near "wall_time reported" "$(summary_value wall.summary wall_time)" 0.5 0.2
check_eq "limits_exceeded.wall_time" "$(jq -c '.limits_exceeded.wall_time' wall.summary)" '[0.5,"s"]'

mkdir out
$TALLY run -o disk --measure-dir out --interval 0.2 --limits 'disk: 20 MB' -- \
  "$PROGS/write_slowly" out/data 200 5 50
check_eq "disk limit: exit 124" "$?" 124
check_eq "limits_exceeded.disk" "$(jq -c '.limits_exceeded.disk' disk.summary)" '[20,"MB"]'
size=$(( $(stat -c %s out/data) / 1048576 ))
check_cmp "writer stopped well before 200 MB" "$size" "<" 100

$TALLY run -o procs --limits 'total_processes: 50' -- /bin/sh -c 'i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done'
check_eq "total_processes limit: exit 124" "$?" 124
check_eq "stopped at the 51st process" "$(summary_value procs.summary total_processes)" 51

$TALLY run -o cpu --limits 'cpu_time: 300ms' -- "$PROGS/spin_threads" 2 5
check_eq "cpu_time limit: exit 124" "$?" 124
check_cmp "cpu_time stopped near 0.3 s" "$(summary_value cpu.summary cpu_time)" "<" 0.45

printf '# limits for the test\nmemory: 100 MB\n\n' > lim
$TALLY run -o only --measure-only --limits-file lim -- "$PROGS/touch_exit" 150 2>only.err
check_eq "--measure-only: task's own status" "$?" 0
check_contains "  says the limit was broken but the task not stopped" "$(cat only.err)" \
  "memory limit 100 MB exceeded (peak "
check_contains "  (measured only)" "$(cat only.err)" "measured only (--measure-only), task not stopped"
check_eq "--measure-only: exit_type normal" "$(jq -r .exit_type only.summary)" normal
check_eq "--measure-only: broken limit still reported" "$(jq -c '.limits_exceeded.memory' only.summary)" '[100,"MB"]'
finish
