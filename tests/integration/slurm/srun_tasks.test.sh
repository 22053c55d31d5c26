#!/usr/bin/env bash
# srun --tally -n 4 under a real Slurm (slurm_lib.sh) with the SPANK plugin:
# one summary per task, slurm-JOB.STEP.TASK.summary, exact on a known
# memory footprint; the job, step, task, node and what the job asked for
# in each; every task registered with the node's agent as slurm_JOB while
# it runs (seen by tally request); the task's exit status kept.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/slurm/slurm_lib.sh"

slurm_start || { not_ok "Slurm starts"; finish; }
ok "Slurm starts (munged, slurmctld, slurmd)"

# Task i holds 40 + 8*i MB until $WORK/release exists.
srun -n 4 -t 5 --mem=1000 --tally -J memtasks bash -c \
  "exec '$PROGS/hold_memory' \$((40 + 8 * SLURM_PROCID)) 0 '$WORK/ready.'\$SLURM_PROCID '$WORK/release'" \
  >"$WORK/srun.out" 2>"$WORK/srun.err" &
srun_pid=$!
check "the four tasks start" wait_until 30 sh -c "ls '$WORK'/ready.[0-3] 2>/dev/null | wc -l | grep -qx 4"
job=$(squeue -h -o %i -n memtasks | head -1)
check "the job has an id" test -n "$job"

# While it runs: the node's agent (started by the first task) knows the four
# tasks as application slurm_JOB.
processes() {
  "$TALLY" request ":app_get_proclist([app_slurm_$job])" 2>/dev/null |
    jq -r 'select(.service) | .result.processes[]' | sed 's/^p_//; s/@.*//' | sort -n | tr '\n' ' '
}
wait_until 10 sh -c "[ \$(\"$TALLY\" request ':app_get_proclist([app_slurm_$job])' 2>/dev/null | jq -r 'select(.service) | .result.processes | length') = 4 ]"
got=$(processes)
for i in 0 1 2 3; do
  check_contains "task $i's process is in slurm_$job's process list" " $got" " $(cat "$WORK/ready.$i") "
done

# The truth: each task's peak resident size as the kernel counts it.
for i in 0 1 2 3; do
  hwm[$i]=$(awk '/^VmHWM/ { printf "%.6f", $2 / 1024 }' "/proc/$(cat "$WORK/ready.$i")/status")
done
touch "$WORK/release"
wait "$srun_pid"
check_eq "srun exits with the tasks' status" "$?" 0
check_eq "nothing on the job's stderr" "$(cat "$WORK/srun.err")" ""

for i in 0 1 2 3; do
  s=$WORK/slurm-$job.0.$i.summary
  check "task $i: its summary exists" test -f "$s"
  [ -f "$s" ] || continue
  check_near "task $i: memory is the task's peak RSS (VmHWM)" "$(summary_value "$s" memory)" "${hwm[$i]}" 0.5
  check_cmp "task $i: it held its $((40 + 8 * i)) MB" "$(summary_value "$s" memory)" ">=" $((40 + 8 * i))
  check_eq "task $i: job id" "$(jq -r .slurm.job_id "$s")" "$job"
  check_eq "task $i: step" "$(jq -r .slurm.step "$s")" 0
  check_eq "task $i: task" "$(jq -r .slurm.task "$s")" "$i"
  check_eq "task $i: node" "$(jq -r .slurm.node "$s")" "$(hostname -s)"
  check_eq "task $i: requested memory (--mem=1000)" "$(jq -r '.requested.memory[0]' "$s")" 1000
  check_eq "task $i: requested cores (-n 4)" "$(jq -r '.requested.cores[0]' "$s")" 4
  check_eq "task $i: requested time (-t 5)" "$(jq -r '.requested.wall_time[0]' "$s")" 300
  check_eq "task $i: level 1 by default" "$(jq -r .level "$s")" 1
  check_eq "task $i: the command is the task's" "$(jq -r .command "$s" | cut -c1-7)" "bash -c"
done

# A failing task keeps its status; --tally-level=2 is honoured; --tally=DIR.
mkdir "$WORK/out"
srun -n 1 --tally="$WORK/out" --tally-level=2 sh -c 'exit 3' 2>"$WORK/srun2.err"
check_eq "a task's exit status reaches srun" "$?" 3
s2=$(ls "$WORK"/out/slurm-*.0.0.summary 2>/dev/null | head -1)
check "--tally=DIR: the summary is in DIR" test -n "$s2"
check_eq "--tally-level=2: level 2" "$(jq -r .level "$s2" 2>/dev/null)" 2
check_eq "the task's exit status in the summary" "$(jq -r .exit_status "$s2" 2>/dev/null)" 3

# Without --tally the plugin does nothing.
before=$(ls "$WORK"/slurm-*.summary | wc -l)
srun -n 2 true
check_eq "without --tally no summary is written" "$(ls "$WORK"/slurm-*.summary | wc -l)" "$before"
finish
