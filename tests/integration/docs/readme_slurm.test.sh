#!/usr/bin/env bash
# The README's "Slurm" commands, read from README.md and run as written
# (issue 22 item 9) under a real single-node Slurm (slurm/slurm_lib.sh):
# the plugstack.conf line, srun --tally, mkdir, sbatch --tally=DIR
# --tally-mpi and, while the batch job runs, tally request on its tasks.
# The test provides: ./sim (each task holds 30 MB, then ends), job.sh (two
# tasks, #SBATCH -n 2: an MPICH all-to-all under srun --mpi=pmi2, 5 rounds
# of 100 ints, whose ranks then wait for the test's release).
# Substituted, because they must be the test's own: spank_tally.so (the
# built plugin's path: it is not installed), /usr/local/bin/tally and the
# leading 'tally' (the tally under test), $HOME (a directory of the test's:
# the commands run with HOME set to it) and JOB (the batch job's id).
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/slurm/slurm_lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/docs/readme_lib.sh"

section_commands '^## Slurm' > commands.txt
check_eq "the README's Slurm lines: plugstack.conf's and four commands" "$(wc -l < commands.txt)" 5
plugstack=$(sed -n 1p commands.txt)
check_contains "the first is plugstack.conf's line" "$plugstack" "optional spank_tally.so"
plugstack=${plugstack//spank_tally.so/$SPANK_SO}
export SLURM_PLUGSTACK_LINE=${plugstack//\/usr\/local\/bin\/tally/$TALLY}

build mpich alltoall || { not_ok "build alltoall with MPICH"; finish; }
slurm_start || { not_ok "Slurm starts with the README's plugstack.conf line"; finish; }
ok "Slurm starts with the README's plugstack.conf line"
check_contains "  it is the README's line" "$(cat "$SL/plugstack.conf")" "optional $SPANK_SO tally=$TALLY"

touch sim.release
cat > sim <<EOF
#!/bin/sh
# holds 30 MB, then ends
echo "\$SLURM_JOB_ID" > "$WORK/sim.job"
exec "$PROGS/hold_memory" 30 0 "$WORK/sim.ready.\$SLURM_PROCID" "$WORK/sim.release"
EOF
cat > job.sh <<EOF
#!/bin/sh
#SBATCH -n 2
#SBATCH -o job.out
srun --mpi=pmi2 "$WORK/alltoall.mpich" 5 100 "$WORK/release"
EOF
chmod +x sim job.sh
mkdir home

# run N LINE: the README's line, with HOME the test's and tally the tally under test
run() {
  local line=${2/#tally /$TALLY }
  HOME=$WORK/home bash -c "$line" > out.$1 2> err.$1 < /dev/null
  echo $? > status.$1
}

# ---- srun -n 4 --tally ./sim: one summary per task, here ----
run 2 "$(sed -n 2p commands.txt)"
check_eq "srun -n 4 --tally ./sim: exit 0, nothing on stderr" "$(cat status.2)/$(cat err.2)" "0/"
job=$(cat sim.job 2>/dev/null)
check "  the job had an id" test -n "$job"
check_eq "  slurm-JOB.0.N.summary for N = 0..3, here" "$(ls slurm-*.summary 2>/dev/null | tr '\n' ' ')" \
  "slurm-$job.0.0.summary slurm-$job.0.1.summary slurm-$job.0.2.summary slurm-$job.0.3.summary "
for i in 0 1 2 3; do
  s=slurm-$job.0.$i.summary
  check_eq "  task $i: slurm (job, step, task, node)" "$(jq -r '.slurm | "\(.job_id) \(.step) \(.task) \(.node)"' "$s" 2>/dev/null)" \
    "$job 0 $i $(hostname -s)"
  check_cmp "  task $i: it held its 30 MB (memory, MB)" "$(summary_value "$s" memory 2>/dev/null)" ">=" 30
  check_eq "  task $i: requested cores (-n 4)" "$(jq -r '.requested.cores[0]' "$s" 2>/dev/null)" 4
done

# ---- mkdir -p ~/runs; sbatch --tally=$HOME/runs --tally-mpi job.sh ----
run 3 "$(sed -n 3p commands.txt)"
check_eq "mkdir -p ~/runs: exit 0" "$(cat status.3)" 0
run 4 "$(sed -n 4p commands.txt)"
check_eq "sbatch --tally=\$HOME/runs --tally-mpi job.sh: exit 0" "$(cat status.4)" 0
batch=$(awk '/^Submitted batch job/ { print $NF }' out.4)
check "  it names the job" test -n "$batch"

# ---- while it runs: tally request ':app_get_proclist([app_slurm_JOB])' ----
# listed: the request's answer lists the job's two ranks (alltoall.mpich)
listed() {
  run 5 "$(sed -n 5p commands.txt | sed "s/app_slurm_JOB/app_slurm_$batch/")"
  local p n=0
  for p in $(jq -r 'select(.service) | .result.processes[]' out.5 2>/dev/null | sed 's/^p_//; s/@.*//'); do
    [ "$(cat /proc/$p/comm 2>/dev/null)" = alltoall.mpich ] && n=$((n + 1))
  done
  [ "$n" = 2 ]
}
check "tally request, while the job runs: the node's agent lists its two ranks" wait_until 30 listed
check_eq "  exit 0" "$(cat status.5)" 0
check_contains "  the application is slurm_JOB" "$(cat out.5)" "\"app\":\"slurm_$batch\""
check "  the job still runs (its ranks wait for the test)" test -n "$(squeue -h -j "$batch" 2>/dev/null)"
touch release
check "the batch job ends" wait_until 60 sh -c "[ -z \"\$(squeue -h -j $batch 2>/dev/null)\" ]"

# ---- what the batch job left in ~/runs ----
runs=$WORK/home/runs
check_eq "~/runs: the batch script's and its two ranks' summaries, the step's MPI summary and trace" \
  "$(cd "$runs" 2>/dev/null && ls | tr '\n' ' ')" \
  "slurm-$batch.0.0.summary slurm-$batch.0.1.summary slurm-$batch.0.mpi.paje slurm-$batch.0.mpi.summary slurm-$batch.batch.0.summary "
check_eq "  each rank's tally run waited for no other rank, nor called one missing (Slurm started them)" \
  "$(grep -c 'missing: no agent gave\|ranks registered' job.out)" 0
check_eq "  the batch script: step batch, no MPI" \
  "$(jq -r '"\(.slurm.step) \(has("mpi"))"' "$runs/slurm-$batch.batch.0.summary" 2>/dev/null)" "batch false"
for t in 0 1; do
  s=$runs/slurm-$batch.0.$t.summary
  check_eq "  task $t: libtally-mpi ran in it (MPICH), rank $t of 2" \
    "$(jq -r '"\(.mpi.library | split(" ")[0]) \(.mpi.per_rank[0].rank) \(.mpi.ranks)"' "$s" 2>/dev/null)" "MPICH $t 2"
  check_eq "  task $t: MPI_Alltoall calls, bytes to the other rank" \
    "$(jq -r '"\(.mpi.functions.MPI_Alltoall.calls) \(.mpi.functions.MPI_Alltoall.bytes[0])"' "$s" 2>/dev/null)" "5 2000"
done
m=$runs/slurm-$batch.0.mpi.summary
check_eq "  the step's MPI summary: both ranks, none missing" \
  "$(jq -c '[[.mpi.per_rank[].rank], .mpi.missing_ranks]' "$m" 2>/dev/null)" "[[0,1],[]]"
check_eq "  its links: 5 rounds of 100 ints each way" \
  "$(jq -c '[.mpi.links[] | [.from, .to, .bytes, .messages]]' "$m" 2>/dev/null)" "[[0,1,2000,5],[1,0,2000,5]]"
finish
