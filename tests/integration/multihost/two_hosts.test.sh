#!/usr/bin/env bash
# One MPI application on two simulated hosts (hosts.sh), started by mpirun
# through its remote shell with an unchanged command line: 'tally run --mpi'
# on hostA gets one summary of all the ranks. The ranks of hostB attach
# themselves to hostB's agent (started by the first of them, joining NATS
# as hostB's agent.conf says), and hostA's tally run gathers them over NATS.
# hostB's monotonic clock runs 1000 s ahead: the summary's times must be on
# hostA's clock. Open MPI and MPICH, 4 ranks.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/multihost_lib.sh"
multihost_start hostA hostB:1000 || { not_ok "simulated hosts"; finish; }
HALO=64 ITS=200
for flavour in ${FLAVOURS:-openmpi mpich}; do
  build $flavour stencil || { not_ok "build stencil with $flavour"; continue; }
  name="$flavour 4 ranks on 2 hosts"
  t0=$(date +%s.%N)
  mh_run_app $flavour "s.$flavour.summary" $TALLY run --mpi --time-series -o "s.$flavour" -- $(mh_launcher $flavour 4 hostA:2,hostB:2) \
    "$WORK/stencil.$flavour" blocking $ITS $HALO 20 0 1 "$WORK/hand.$flavour" >"out.$flavour" 2>"err.$flavour"
  check_eq "$name: exit status" "$?" 0
  t1=$(date +%s.%N)
  f="s.$flavour.summary"
  check_eq "$name: ranks" "$(jq .mpi.ranks "$f")" 4
  check_eq "$name: every rank measured, none missing" "$(jq -c '[[.mpi.per_rank[].rank], .mpi.missing_ranks]' "$f")" "[[0,1,2,3],[]]"
  check_eq "$name: every host named" "$(jq -c '[.mpi.per_rank[] | "\(.rank)@\(.host)"]' "$f")" \
    '["0@hostA","1@hostA","2@hostB","3@hostB"]'
  check_eq "$name: hosts" "$(jq -c '[.mpi.hosts[] | "\(.name):\(.ranks)"]' "$f")" '["hostA:2","hostB:2"]'
  check_eq "$name: links = neighbour pattern" "$(summary_links "$f" | md5sum | cut -c1-8)" \
    "$(expected_stencil_links 4 $ITS $HALO | md5sum | cut -c1-8)"
  hand=$(hand_fraction "$WORK/hand.$flavour" total comm)
  check_near "$name: comm fraction vs MPI_Wtime" "$(jq .mpi.comm_fraction "$f")" "$hand" 0.01
  check_near "$name: hostB's clock offset measured" "$(jq '.mpi.hosts[1].clock_offset[0]' "$f")" 1000 0.01
  started=$(jq '.mpi.started[0]' "$f") finalizing=$(jq '.mpi.finalizing[0]' "$f")
  check "$name: started and finalizing on hostA's clock, within the run" \
    awk -v s="$started" -v e="$finalizing" -v a="$t0" -v b="$t1" 'BEGIN { exit !(a <= s && s <= e && e <= b) }'
  # the link trace: every host a container, its ranks under it; hostB's links
  # (gathered at the end: totals only) at their average rate over the run
  check_eq "$name: .mpi.paje ranks under their hosts" \
    "$(pj_dump "s.$flavour.mpi.paje" | awk -F', *' '$1 == "Container" && $3 == "rank" { print $2 ":" $7 }' | sort | tr '\n' ' ')" \
    "hostA:rank0 hostA:rank1 hostB:rank2 hostB:rank3 "
  check_eq "$name: .mpi.paje link 2-3 (hostB's) carries its bytes both ways" \
    "$(pj_dump "s.$flavour.mpi.paje" | awk -F', *' '$1 == "Variable" && $2 == "2-3" && $3 == "bandwidth.mpi" { s += $6 * $7 } END { printf "%.0f", s }')" \
    "$((2 * ITS * HALO * 8))"
  check "$name: no rank said it was not instrumented" sh -c "! grep -q 'not instrumented' err.$flavour"
done
check_eq "hostB's agent, started by a rank, runs at hostB's default socket" \
  "$(host_run hostB test -S "/run/user/$(id -u)/tally/agent.sock" && echo yes)" yes
check_eq "hostB's agent joined NATS as its agent.conf says: it answers for n_hostB" \
  "$(on_launch $TALLY request --nats "$NATS_ALPHA" --creds "$WORK/creds/$MH_USER" --timeout 2 ':node_get_info([n_hostB])' 2>/dev/null | jq -r 'select(.service == "node_get_info") | .node')" hostB
finish
