#!/usr/bin/env bash
# srun --tally-mpi across two nodes: a real Slurm whose two slurmd run in two
# simulated hosts (multihost/hosts.sh: own hostname, PID namespace,
# /dev/shm, /run/user and CLOCK_MONOTONIC; hostB's clock 7 s ahead), each
# node with the user's agent on one nats-server. The step's ranks on hostB
# hand their figures to hostB's agent; task 0's tally run on hostA gathers
# them over NATS into the step's one MPI summary: every rank with its host,
# every link of an MPICH 2-D stencil exact (two of them cross the nodes),
# hostB's clock offset found (7 s) and its times moved onto hostA's clock.
# The same with an Open MPI all-to-all under --mpi=pmix: every pair's link.
# Then hostB's agent is killed while a step runs: its two ranks cannot hand
# their figures over, say so, and the step's summary names them missing
# after the bounded wait; the job succeeds.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/slurm/slurm_lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/multihost_lib.sh"

build mpich stencil -DWITH_PROBE || { not_ok "build stencil with MPICH"; finish; }
build openmpi alltoall || { not_ok "build alltoall with Open MPI"; finish; }
multihost_start hostA hostB:7 || { not_ok "two simulated hosts on NATS"; finish; }
# the tasks get srun's environment: one agent.conf for both nodes, and each
# node's own runtime directory (its agent's socket)
mkdir -p "$WORK/conf/tally"
printf 'nats = %s\ncreds = %s\nsite = alpha\n' "$NATS_ALPHA" "$WORK/creds/$MH_USER" > "$WORK/conf/tally/agent.conf"
export XDG_CONFIG_HOME=$WORK/conf XDG_RUNTIME_DIR=/run/user/$(id -u)
SLURM_SIM_NODES="hostA hostB" slurm_start || { not_ok "Slurm starts with a node in each host"; finish; }
ok "Slurm starts with a node in each host"

NP=4 ITS=30 HALO=64
# run_step DIR DURING [ENV...]: the stencil step into DIR, with ENV, DURING
# run while it runs; srun's status. Debian 12's MPICH may hang in
# MPI_Finalize when its ranks talk over TCP (openucx/ucx#8738,
# multihost_lib.sh): a step that does not end in 30 s (a step takes 2-12 s) is started again (and
# DURING run again), at most 4 times, each said as a TAP comment. Each
# attempt starts without $WORK/until (the file that ends STENCIL_UNTIL's run).
run_step() {
  local dir=$1 during=$2 attempt pid; shift 2
  for attempt in 1 2 3 4; do
    rm -rf "$dir" "$WORK/until" && mkdir "$dir"
    env "$@" TALLY_GATHER_TIMEOUT=10 timeout 30 srun --mpi=pmi2 -N 2 -n $NP --ntasks-per-node=2 --tally="$dir" \
      --tally-mpi "$WORK/stencil.mpich" blocking $ITS $HALO 1 0 1 "$WORK/hand" >"$dir.out" 2>"$dir.err" &
    pid=$!
    $during
    wait "$pid"
    st=$?
    [ "$st" = 124 ] || return "$st"
    echo "# attempt $attempt: the step did not end in 30 s (MPICH over TCP, openucx/ucx#8738); starting it again"
    scancel -u "$(id -un)" 2>/dev/null
    wait_until 30 sh -c '[ -z "$(squeue -h)" ]'
  done
  return "$st"
}
run_step "$WORK/out" true
st=$?
check_eq "srun succeeds" "$st" 0
f=$(ls "$WORK"/out/slurm-*.0.mpi.summary 2>/dev/null)
check_eq "one MPI summary for the step" "$(echo "$f" | grep -c .)" 1
check_eq "the gatherer is task 0's node" "$(jq -r .slurm.gatherer "$f")" hostA
check_eq "every rank, none missing" "$(jq -c '[[.mpi.per_rank[].rank], .mpi.missing_ranks]' "$f")" "[[0,1,2,3],[]]"
check_eq "each rank's host" "$(jq -c '[.mpi.per_rank[].host]' "$f")" '["hostA","hostA","hostB","hostB"]'
check_eq "links = the neighbour pattern, exact (0-2 and 1-3 cross the nodes)" \
  "$(summary_links "$f" | md5sum | cut -c1-8)" "$(expected_stencil_links $NP $ITS $HALO | md5sum | cut -c1-8)"
check_eq "the hosts: two ranks each, on site alpha" "$(jq -c '[.mpi.hosts[] | [.name, .ranks, .site]]' "$f")" \
  '[["hostA",2,"alpha"],["hostB",2,"alpha"]]'
check_near "hostB's clock offset: the 7 s injected" "$(jq '.mpi.hosts[1].clock_offset[0]' "$f")" 7 0.05
check_cmp "  within its uncertainty (< 10 ms)" "$(jq '.mpi.hosts[1].uncertainty[0]' "$f")" "<" 0.01
# started: the last rank's MPI_Init return; finalizing: the first rank's
# MPI_Finalize entry. hostB's times left 7 s ahead would put started after
# finalizing; aligned, the run lies between them.
check_cmp "times aligned: MPI_Init's last return before MPI_Finalize's first entry" \
  "$(jq '.mpi.finalizing[0] - .mpi.started[0]' "$f")" ">" 0
check_cmp "  and the run took less than 7 s" "$(jq '.mpi.finalizing[0] - .mpi.started[0]' "$f")" "<" 7
check "its Paje trace" test -s "${f%.summary}.paje"
check_eq "nothing about the gathering on the job's stderr" "$(grep -c -E 'slurm|missing' "$WORK/out.err")" 0

# --- Open MPI (PMIx) across the nodes -------------------------------------------
ROUNDS=5 COUNT=100
mkdir "$WORK/ompi"
TALLY_GATHER_TIMEOUT=10 timeout 60 srun --mpi=pmix -N 2 -n $NP --ntasks-per-node=2 --tally="$WORK/ompi" --tally-mpi \
  "$WORK/alltoall.openmpi" $ROUNDS $COUNT >"$WORK/ompi.out" 2>"$WORK/ompi.err"
check_eq "Open MPI: srun succeeds" "$?" 0
f=$(ls "$WORK"/ompi/slurm-*.0.mpi.summary 2>/dev/null)
check_eq "Open MPI: every rank with its host, none missing" \
  "$(jq -c '[[.mpi.per_rank[] | [.rank, .host]], .mpi.missing_ranks]' "$f" 2>/dev/null)" \
  '[[[0,"hostA"],[1,"hostA"],[2,"hostB"],[3,"hostB"]],[]]'
want=$(awk -v np=$NP -v b=$((ROUNDS * COUNT * 4)) -v m=$ROUNDS 'BEGIN {
  for (i = 0; i < np; i++) for (j = 0; j < np; j++) if (i != j) print i, j, b, m }' | sort -n -k1,1 -k2,2)
check_eq "Open MPI: links = all pairs, ROUNDS x COUNT ints each" "$(summary_links "$f" | md5sum | cut -c1-8)" \
  "$(echo "$want" | md5sum | cut -c1-8)"
check_near "Open MPI: hostB's clock offset" "$(jq '.mpi.hosts[1].clock_offset[0]' "$f" 2>/dev/null)" 7 0.05

# --- hostB's agent killed while the step runs ----------------------------------
# b_follows_two: hostB's agent follows two tasks
b_follows_two() { [ "$(host_run hostB "$TALLY" agent status 2>/dev/null | jq -r '.tasks')" = 2 ]; }
# kill_agent_b: once hostB's agent follows its two tasks, kills it and lets
# the ranks end (followed, agent_b: what it saw)
kill_agent_b() {
  followed=no agent_b=
  wait_until 30 b_follows_two && followed=yes
  agent_b=$(mh_agent_pid hostB)
  [ -n "$agent_b" ] && host_run hostB kill -KILL "$agent_b"
  touch "$WORK/until"
}
run_step "$WORK/killed" kill_agent_b STENCIL_UNTIL="$WORK/until"
st=$?
check_eq "hostB's agent followed its two tasks" "$followed" yes
check "  and was killed" test -n "$agent_b"
check_eq "srun succeeds all the same" "$st" 0
f=$(ls "$WORK"/killed/slurm-*.0.mpi.summary 2>/dev/null)
check "the step's MPI summary is written" test -f "$f"
check_eq "hostB's ranks are named missing" "$(jq -c .mpi.missing_ranks "$f")" "[2,3]"
check_eq "hostA's ranks are in it" "$(jq -c '[.mpi.per_rank[].rank]' "$f")" "[0,1]"
check_contains "and the warning says so" "$(jq -r '.mpi.warnings[0]' "$f")" "ranks 2-3 of 4 missing: no agent gave them within 10 s"
check_contains "hostB's ranks said they could not hand their figures over" "$(cat "$WORK/killed.err")" \
  "slurm: rank 2: no agent to hand its MPI figures to"
finish
