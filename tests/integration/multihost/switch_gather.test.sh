#!/usr/bin/env bash
# A switch over NATS when one host's agent does not answer: application "sg"
# (Open MPI, 4 ranks, 2 on hostA, 2 on hostB, running until released). With
# hostB's agent stopped (SIGSTOP), proc_record_start ends at its timeout
# (bounded), answers for hostA's ranks, exits 1 and names ranks 2-3, which no
# agent answered for (hostA's done line says it holds ranks 0-1 of 4). Once
# hostB's agent runs again it takes the start it was sent and switches its
# ranks then: their period is shorter than hostA's ranks', not backdated.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/multihost_lib.sh"
multihost_start hostA hostB || { not_ok "simulated hosts"; finish; }
build openmpi stencil || { not_ok "build stencil"; finish; }
printf '#!/bin/sh\nSTENCIL_UNTIL="%s/release" exec "%s/stencil.openmpi" blocking 50 64 1000 0 1 "%s/hand"\n' \
  "$WORK" "$WORK" "$WORK" > "$WORK/sg.sh"
chmod +x "$WORK/sg.sh"
on_launch $TALLY run --agent --app sg --mpi --window request -o sg -- $(mh_launcher openmpi 4 hostA:2,hostB:2) \
  "$WORK/sg.sh" >out 2>err &
runner=$!
nreq() { $TALLY request --nats "$NATS_ALPHA" --creds "$WORK/creds/$MH_USER" --user "$MH_USER" "$@"; }
acked() { # "rank on-kinds" of the ranks that took the last switch
  nreq --timeout 2 ':proc_get_info([app_sg], 0x80)' 2>/dev/null | jq -r 'select(.result.probes.rank != null) |
    .result.probes | select(.recording.ack == .recording.request) |
    "\(.rank) \(.recording.on | join("+") | if . == "" then "off" else . end)"' | sort | tr '\n' ' '
}
check "the 4 ranks registered, all off" wait_until 60 eval '[ "$(acked)" = "0 off 1 off 2 off 3 off " ]'
agentB=$(mh_agent_pid hostB)
check "hostB's agent stopped (SIGSTOP)" host_run hostB kill -STOP "$agentB"
t0=$(date +%s%N)
nreq --timeout 2 ':proc_record_start([app_sg], "mpi")' >start.out 2>&1
st=$?
took=$(( ($(date +%s%N) - t0) / 1000000 ))
sed "s/^/# /" start.out
check_eq "proc_record_start: exit status 1 (an error in its final line)" "$st" 1
check_cmp "... it waited for hostB up to its 2 s timeout (ms)" "$took" ">=" 2000
check_cmp "... and no longer (ms)" "$took" "<" 10000
check_eq "... hostA's ranks 0 and 1 answered" \
  "$(jq -r 'select(.result.switched_ms != null) | "\(.node):\(.result.rank[0])"' start.out | sort | tr '\n' ' ')" "hostA:0 hostA:1 "
check_eq "... the final line: hostA, and ranks 2-3 named" "$(tail -1 start.out | jq -c '[.nodes, [.errors[].message]]')" \
  '[["hostA"],["ranks 2-3 of 4: no agent answered for them within 2 s"]]'
check "hostA's ranks took the switch" wait_until 20 eval '[ "$(acked | cut -d" " -f1-4)" = "0 mpi 1 mpi" ]'
sleep 1
check "hostB's agent running again (SIGCONT)" host_run hostB kill -CONT "$agentB"
check "... it took the start it was sent: all 4 ranks on" wait_until 20 eval '[ "$(acked)" = "0 mpi 1 mpi 2 mpi 3 mpi " ]'
sleep 0.5
nreq --timeout 10 ':proc_record_stop([app_sg])' >stop.out 2>&1
check_eq "proc_record_stop: 4 answers, no error" \
  "$(jq -c 'select(.done) | [(.nodes | sort), .errors]' stop.out)" '[["hostA","hostB"],[]]'
check "every rank took the stop" wait_until 20 eval '[ "$(acked)" = "0 off 1 off 2 off 3 off " ]'
touch "$WORK/release"
wait "$runner"
check_eq "the run: exit status" "$?" 0
check_eq "one summary: 4 ranks, one period each" "$(jq -c '[(.mpi.per_rank | length), ([.mpi.per_rank[].periods] | unique)]' sg.summary)" "[4,[1]]"
check "hostB's ranks recorded from their late switch: their periods are over 1 s shorter ($(jq -c '[.mpi.per_rank[] | [.rank, .span[0]]]' sg.summary))" \
  jq -e '[.mpi.per_rank[] | {(.rank | tostring): .span[0]}] | add | ([."0", ."1"] | min) - ([."2", ."3"] | max) > 1' sg.summary
finish
