#!/usr/bin/env bash
# sbatch --tally-mpi: inside the allocation, an MPICH program started by
# srun --mpi=pmi2 (Slurm's own PMI, no mpirun) gets libtally-mpi preloaded by
# the plugin in every task: each task's summary carries its rank's MPI
# figures, exact for a known program (alltoall: ROUNDS calls of COUNT ints
# to every other rank). The batch script itself is measured, without MPI.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/slurm/slurm_lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"

build mpich alltoall || { not_ok "build alltoall with MPICH"; finish; }
slurm_start || { not_ok "Slurm starts"; finish; }

ROUNDS=5 COUNT=100 NP=2
cat >"$WORK/job.sh" <<JOB
#!/bin/sh
srun --mpi=pmi2 -n $NP "$WORK/alltoall.mpich" $ROUNDS $COUNT
JOB
sbatch -W -n $NP --tally-mpi -o "$WORK/job.out" "$WORK/job.sh" >"$WORK/sbatch.out" 2>&1
check_eq "the job succeeds" "$?" 0
job=$(awk '{ print $NF }' "$WORK/sbatch.out")
check "sbatch named the job" test -n "$job"

b=$WORK/slurm-$job.batch.0.summary
check "the batch script has its summary" test -f "$b"
check_eq "batch summary: step 'batch'" "$(jq -r .slurm.step "$b" 2>/dev/null)" batch
check_eq "batch summary: no MPI (the script is no rank)" "$(jq -r 'has("mpi")' "$b" 2>/dev/null)" false

for t in $(seq 0 $((NP - 1))); do
  s=$WORK/slurm-$job.0.$t.summary
  check "task $t: summary of step 0" test -f "$s"
  [ -f "$s" ] || continue
  check_eq "task $t: libtally-mpi ran in it (MPICH)" "$(jq -r '.mpi.library | split(" ")[0]' "$s")" MPICH
  check_eq "task $t: its rank is its task id" "$(jq -r '.mpi.per_rank[0].rank' "$s")" "$t"
  check_eq "task $t: the job's size" "$(jq -r '.mpi.ranks' "$s")" "$NP"
  check_eq "task $t: MPI_Alltoall calls" "$(jq -r '.mpi.functions.MPI_Alltoall.calls' "$s")" "$ROUNDS"
  check_eq "task $t: MPI_Alltoall bytes (to the other rank)" \
    "$(jq -r '.mpi.functions.MPI_Alltoall.bytes[0]' "$s")" $((ROUNDS * COUNT * 4 * (NP - 1)))
  check_eq "task $t: iterations seen by the marker" "$(jq -r '.mpi.per_rank[0].iterations' "$s")" "$ROUNDS"
done
finish
