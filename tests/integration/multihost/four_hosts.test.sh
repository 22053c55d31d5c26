#!/usr/bin/env bash
# 16 ranks on 4 simulated hosts, two sites: hostA and hostB on site alpha,
# hostC and hostD on site beta, whose nats-server is a leaf node of alpha's
# (each host's agent.conf names its site's server). The clocks of hostB,
# hostC and hostD run 1000 s, 500 s and 2000 s ahead of hostA's. tally run
# --mpi on hostA gathers the 12 remote ranks through NATS across the leaf
# node: every link of the 4x4 stencil exact, every host named with its
# ranks and its clock offset, the summary's times on hostA's clock; then
# 'tally mpi report' groups the ranks by host. Open MPI; MPICH with FLAVOURS="openmpi mpich"
# (Hydra passes the launch host's HOME on: its ranks use hostA's agent.conf), left
# out by default: Debian 12's MPICH (ch4:ucx) hangs in MPI_Finalize over TCP
# (openucx/ucx#8738, without tally too: see mh_run_app), and with 16 ranks on
# 4 hosts most runs hang; two_hosts.test.sh runs MPICH across hosts.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/multihost_lib.sh"
multihost_start hostA hostB:1000 hostC:500 hostD:2000 || { not_ok "simulated hosts"; finish; }
mh_conf hostC "$NATS_BETA" beta
mh_conf hostD "$NATS_BETA" beta
HALO=64 ITS=20
for flavour in ${FLAVOURS:-openmpi}; do
  build $flavour stencil || { not_ok "build stencil with $flavour"; continue; }
  name="$flavour 16 ranks on 4 hosts"
  t0=$(date +%s.%N)
  mh_run_app $flavour "s.$flavour.summary" $TALLY run --mpi -o "s.$flavour" -- $(mh_launcher $flavour 16 hostA:4,hostB:4,hostC:4,hostD:4) \
    "$WORK/stencil.$flavour" blocking $ITS $HALO 20 0 1 "$WORK/hand.$flavour" >"out.$flavour" 2>"err.$flavour"
  check_eq "$name: exit status" "$?" 0
  t1=$(date +%s.%N)
  f="s.$flavour.summary"
  check_eq "$name: none missing" "$(jq -c '[(.mpi.per_rank | length), .mpi.missing_ranks]' "$f")" "[16,[]]"
  check_eq "$name: every host named, 4 ranks each" \
    "$(jq -c '[.mpi.per_rank[] | .host] | group_by(.) | map("\(.[0]):\(length)")' "$f")" \
    '["hostA:4","hostB:4","hostC:4","hostD:4"]'
  check_eq "$name: ranks placed in order" "$(jq -r '[.mpi.per_rank[] | "\(.rank)\(.host)"] | join(" ")' "$f")" \
    "$(for r in $(seq 0 15); do printf '%s%s ' $r host$(echo ABCD | cut -c$((r / 4 + 1))); done | sed 's/ $//')"
  check_eq "$name: links = neighbour pattern" "$(summary_links "$f" | md5sum | cut -c1-8)" \
    "$(expected_stencil_links 16 $ITS $HALO | md5sum | cut -c1-8)"
  check_eq "$name: clock offsets of hostB, hostC, hostD (s, rounded)" \
    "$(jq -c '[.mpi.hosts[1:][] | "\(.name) \(.clock_offset[0] | round)"]' "$f")" \
    '["hostB 1000","hostC 500","hostD 2000"]'
  started=$(jq '.mpi.started[0]' "$f") finalizing=$(jq '.mpi.finalizing[0]' "$f")
  check "$name: started and finalizing on hostA's clock, within the run" \
    awk -v s="$started" -v e="$finalizing" -v a="$t0" -v b="$t1" 'BEGIN { exit !(a <= s && s <= e && e <= b) }'
  report=$($TALLY mpi report "$f")
  check_contains "$name: report groups hostC's ranks" "$report" "host hostC: 4 ranks"
  check_eq "$name: report JSON hosts" "$($TALLY mpi report --format json "$f" | jq -c '[.hosts[] | "\(.name) \(.ranks | join(","))"]')" \
    '["hostA 0,1,2,3","hostB 4,5,6,7","hostC 8,9,10,11","hostD 12,13,14,15"]'
done
site_of() { jq -r '.mpi.hosts[] | select(.name == "'"$2"'") | .site' "$1"; }
check_eq "hostD's agent is on site beta (Open MPI: its own agent.conf)" "$(site_of s.openmpi.summary hostD)" beta
finish
