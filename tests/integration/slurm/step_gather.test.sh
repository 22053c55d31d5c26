#!/usr/bin/env bash
# srun --tally-mpi under a real Slurm (slurm_lib.sh): one MPI summary for
# the whole step, DIR/slurm-JOB.STEP.mpi.summary and .mpi.paje, written by
# task 0's tally run from every rank's figures, which the other tasks' runs
# hand to the node's agent (tally-slurm(7)). An MPICH 2-D stencil started by
# srun --mpi=pmi2 (Slurm's own PMI): every link exact (iterations x halo x 8
# bytes, one message per iteration per neighbour), every rank present with
# its host and times; each task's own summary still holds its rank alone.
# The same with Open MPI under srun --mpi=pmix: an all-to-all, every pair's
# link exact under the collective rule. Then a step where rank 2 runs
# without libtally-mpi: its figures cannot be
# gathered, the step's summary names it missing after a bounded wait, the
# other ranks' links are exact, and the job succeeds.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/slurm/slurm_lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"

build mpich stencil -DWITH_PROBE || { not_ok "build stencil with MPICH"; finish; }
build openmpi alltoall || { not_ok "build alltoall with Open MPI"; finish; }
slurm_start || { not_ok "Slurm starts"; finish; }

NP=4 ITS=30 HALO=64 HOST=$(hostname -s)
expected=$(expected_stencil_links $NP $ITS $HALO)

# --- every rank gathered -----------------------------------------------------
mkdir "$WORK/all"
srun --mpi=pmi2 -n $NP --tally="$WORK/all" --tally-mpi \
  "$WORK/stencil.mpich" blocking $ITS $HALO 1 0 1 "$WORK/hand" >"$WORK/all.out" 2>"$WORK/all.err"
check_eq "srun succeeds" "$?" 0
f=$(ls "$WORK"/all/slurm-*.0.mpi.summary 2>/dev/null)
check_eq "one MPI summary for the step" "$(echo "$f" | grep -c .)" 1
job=$(basename "$f" | sed 's/^slurm-//; s/\..*//')
check_eq "it is named slurm-JOB.STEP.mpi.summary" "$f" "$WORK/all/slurm-$job.0.mpi.summary"
check_eq "the step's size" "$(jq .mpi.ranks "$f")" $NP
check_eq "every rank is in it" "$(jq -c '[.mpi.per_rank[].rank]' "$f")" "[0,1,2,3]"
check_eq "no rank missing" "$(jq -c .mpi.missing_ranks "$f")" "[]"
check_eq "no warning" "$(jq -c '.mpi.warnings // []' "$f")" "[]"
check_eq "links = the neighbour pattern, exact" "$(summary_links "$f" | md5sum | cut -c1-8)" \
  "$(echo "$expected" | md5sum | cut -c1-8)"
sent=$(echo "$expected" | awk '{ b += $3; m += $4 } END { print b, m }')
check_eq "MPI_Send bytes and calls of all ranks" \
  "$(jq -r '.mpi.functions.MPI_Send | "\(.bytes[0]) \(.calls)"' "$f")" "$sent"
check_eq "every rank's host is the node" "$(jq -r '[.mpi.per_rank[].host] | unique | join(" ")' "$f")" "$HOST"
check_eq "the node is the one host, with 4 ranks" "$(jq -c '[.mpi.hosts[] | [.name, .ranks]]' "$f")" "[[\"$HOST\",$NP]]"
check_eq "every rank has comm, wait and compute times" \
  "$(jq '[.mpi.per_rank[] | select(.comm_time[0] > 0 and .wait_time[0] >= 0 and .compute_time[0] > 0)] | length' "$f")" $NP
check_eq "every rank saw ITS iterations" "$(jq -c '[.mpi.per_rank[].iterations] | unique' "$f")" "[$ITS]"
check_eq "the job id and step" "$(jq -c '[.slurm.job_id, .slurm.step, .slurm.gatherer]' "$f")" "[$job,\"0\",\"$HOST\"]"
check "the gathering took under the 5 s bound" jq -e '.mpi.gather_time[0] < 5' "$f"
p=$WORK/all/slurm-$job.0.mpi.paje
check "and its Paje trace" test -s "$p"
host_alias=$(awk -v h="\"$HOST\"" '$1 == 6 && $6 == h { print $3 }' "$p")
check "the trace has the node as a container" test -n "$host_alias"
check_eq "the four ranks hang from it" \
  "$(awk -v c="$host_alias" '$1 == 6 && $5 == c { print $6 }' "$p" | tr -d '"' | sort | tr '\n' ' ')" "rank0 rank1 rank2 rank3 "
check_eq "its links are the stencil's neighbour pairs" \
  "$(awk '$1 == 6 && $6 ~ /^"[0-9]+-[0-9]+"$/ { print $6 }' "$p" | tr -d '"' | sort | tr '\n' ' ')" \
  "$(echo "$expected" | awk '$1 < $2 { print $1 "-" $2 }' | sort | tr '\n' ' ')"
check_contains "tally mpi report reads it" "$("$TALLY" mpi report "$f" 2>&1)" "$HOST"
for t in 0 1 2 3; do
  s=$WORK/all/slurm-$job.0.$t.summary
  check_eq "task $t's own summary holds its rank alone" "$(jq -c '[.mpi.per_rank[].rank]' "$s" 2>/dev/null)" "[$t]"
done
check_eq "nothing about the gathering on the job's stderr" "$(grep -c -E 'slurm|missing' "$WORK/all.err")" 0

# --- Open MPI (PMIx) ----------------------------------------------------------
ROUNDS=5 COUNT=100
mkdir "$WORK/ompi"
srun --mpi=pmix -n $NP --tally="$WORK/ompi" --tally-mpi "$WORK/alltoall.openmpi" $ROUNDS $COUNT \
  >"$WORK/ompi.out" 2>"$WORK/ompi.err"
check_eq "Open MPI: srun succeeds" "$?" 0
f=$(ls "$WORK"/ompi/slurm-*.0.mpi.summary 2>/dev/null)
check "Open MPI: the step's MPI summary" test -f "$f"
check_contains "Open MPI: its library" "$(jq -r .mpi.library "$f" 2>/dev/null)" "Open MPI"
check_eq "Open MPI: every rank, none missing" "$(jq -c '[[.mpi.per_rank[].rank], .mpi.missing_ranks]' "$f" 2>/dev/null)" \
  "[[0,1,2,3],[]]"
want=$(awk -v np=$NP -v b=$((ROUNDS * COUNT * 4)) -v m=$ROUNDS 'BEGIN {
  for (i = 0; i < np; i++) for (j = 0; j < np; j++) if (i != j) print i, j, b, m }' | sort -n -k1,1 -k2,2)
check_eq "Open MPI: links = all pairs, ROUNDS x COUNT ints each" "$(summary_links "$f" | md5sum | cut -c1-8)" \
  "$(echo "$want" | md5sum | cut -c1-8)"
check_eq "Open MPI: MPI_Alltoall calls of all ranks" "$(jq .mpi.functions.MPI_Alltoall.calls "$f" 2>/dev/null)" $((NP * ROUNDS))

# --- rank 2 cannot be gathered ------------------------------------------------
# (TALLY_MPI: tally run cannot tell the MPI from 'bash -c'.)
mkdir "$WORK/miss"
TALLY_MPI=mpich TALLY_GATHER_TIMEOUT=2 srun --mpi=pmi2 -n $NP --tally="$WORK/miss" --tally-mpi bash -c \
  "[ \$SLURM_PROCID = 2 ] && unset LD_PRELOAD; exec '$WORK/stencil.mpich' blocking $ITS $HALO 1 0 1 '$WORK/hand2'" \
  >"$WORK/miss.out" 2>"$WORK/miss.err"
check_eq "srun succeeds all the same" "$?" 0
f=$(ls "$WORK"/miss/slurm-*.0.mpi.summary 2>/dev/null)
check "the step's MPI summary is written" test -f "$f"
check_eq "the step's size" "$(jq .mpi.ranks "$f")" $NP
check_eq "rank 2 is named missing" "$(jq -c .mpi.missing_ranks "$f")" "[2]"
check_cmp "the gatherer waited for it the bound (2 s)" "$(jq '.mpi.gather_time[0]' "$f")" ">=" 2
check_cmp "and not much more" "$(jq '.mpi.gather_time[0]' "$f")" "<" 3
check_contains "and said why" "$(jq -r '.mpi.warnings[0]' "$f")" "rank 2 of 4 missing: no agent gave it within 2 s"
check_contains "  a step on one node asks its agent alone (no NATS)" "$(jq -r '.mpi.warnings[0]' "$f")" \
  "(their host's agent was stopped or unreachable, or they were not instrumented)"
check_eq "the other ranks are in it" "$(jq -c '[.mpi.per_rank[].rank]' "$f")" "[0,1,3]"
check_eq "their links are exact" "$(summary_links "$f" | md5sum | cut -c1-8)" \
  "$(echo "$expected" | awk '$1 != 2' | md5sum | cut -c1-8)"
check_contains "the job's stderr names the missing rank" "$(cat "$WORK/miss.err")" "rank 2 of 4 missing"
check "rank 2's task has its summary, without MPI figures" \
  jq -e '.mpi == null' "${f%.mpi.summary}.2.summary"
finish
