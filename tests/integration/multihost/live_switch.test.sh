#!/usr/bin/env bash
# Live across hosts: one application "md" (Open MPI, 4 ranks, 2 on hostA
# where 'tally run --agent --app md --mpi --window request' started it, 2 on
# hostB, which attached themselves to hostB's agent). Over NATS,
# proc_get_info([app_md], 0x80) sees the 4 ranks on both hosts; one
# proc_record_start switches all 4 on and one proc_record_stop off, every
# rank acknowledging; the one summary has one period on every rank, which
# opened and closed at the agents' switches (not when the rank took them).
# The tool's final line names both agents and when it published the
# request and got the last answer. tally top --app md and tally view --live
# md over NATS show the ranks of both hosts.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/multihost_lib.sh"
multihost_start hostA hostB:1000 || { not_ok "simulated hosts"; finish; }
build openmpi stencil || { not_ok "build stencil"; finish; }
ITS=400 HALO=64
on_launch $TALLY run --agent --app md --mpi --window request -o md -- $(mh_launcher openmpi 4 hostA:2,hostB:2) \
  "$WORK/stencil.openmpi" blocking $ITS $HALO 3000 0 1 "$WORK/hand" >out 2>err &
runner=$!
nreq() { $TALLY request --nats "$NATS_ALPHA" --creds "$WORK/creds/$MH_USER" --user "$MH_USER" --timeout 2 "$@"; }
state() { # "node rank on-kinds request ack" per registered rank
  nreq ':proc_get_info([app_md], 0x80)' 2>/dev/null | jq -r 'select(.result.probes.rank != null) |
    "\(.node) \(.result.probes.rank) \(.result.probes.recording.on | join("+") | if . == "" then "off" else . end) \(.result.probes.recording.request) \(.result.probes.recording.ack)"' | sort
}
four_ranks() { [ "$(state | awk '{ print $1 ":" $2 }' | tr '\n' ' ')" = "hostA:0 hostA:1 hostB:2 hostB:3 " ]; }
all_acked_as() { [ "$(state | awk -v k="$1" '$3 == k && $4 == $5' | wc -l)" = 4 ]; }
check "proc_get_info([app_md], 0x80) sees ranks 0-1 on hostA and 2-3 on hostB" wait_until 40 four_ranks
top=$($TALLY top --app md --nats "$NATS_ALPHA" --creds "$WORK/creds/$MH_USER" --once --interval 0.3 2>&1)
sed "s/^/# top: /" <<<"$top"
check_contains "tally top --app md over NATS: both hosts" "$top" "on 2 hosts"
check_eq "... hostB's two ranks, each with its CPU" \
  "$(awk '$1 == "hostB" && /stencil/ && $4 ~ /^[0-9.]+$/' <<<"$top" | wc -l)" 2
$TALLY view --live md --serve 0 --interval 0.5 --nats "$NATS_ALPHA" --creds "$WORK/creds/$MH_USER" >live.out 2>&1 &
live=$!
port=
for _ in $(seq 200); do port=$(sed -n 's|serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' live.out); [ -n "$port" ] && break; sleep 0.05; done
hosts=
for _ in $(seq 100); do
  hosts=$(curl -s "http://127.0.0.1:$port/data" | jq -c '.points[-1].hosts | keys' 2>/dev/null)
  [ "$hosts" = '["hostA","hostB"]' ] && break; sleep 0.1
done
kill "$live" 2>/dev/null; wait "$live" 2>/dev/null
check_eq "tally view --live md over NATS: the page's data has both hosts" "$hosts" '["hostA","hostB"]'
check_eq "before any request: every rank off" "$(state | awk '{ print $3 }' | sort -u)" off
nreq ':proc_record_start([app_md], "mpi")' >start.out 2>&1
sed "s/^/# /" start.out
check_eq "proc_record_start: its final line: both agents, no error" "$(tail -1 start.out | jq -c '[(.nodes | sort), .errors]')" '[["hostA","hostB"],[]]'
check "... and when it was published and answered (sent_ms <= answered_ms)" \
  jq -e 'select(.done) | .sent_ms > 0 and .answered_ms >= .sent_ms' start.out
check_eq "proc_record_start: the 4 ranks answer on [mpi], 2 per host" \
  "$(jq -r 'select(.service == "proc_record_start") | "\(.node) \(.result.on | join("+"))"' start.out | sort | uniq -c | awk '{ print $1, $2, $3 }' | tr '\n' ';')" \
  "2 hostA mpi;2 hostB mpi;"
check "every rank on both hosts acknowledged" wait_until 10 all_acked_as mpi
sleep 0.5
nreq ':proc_record_stop([app_md])' >stop.out 2>&1
check_eq "proc_record_stop: 4 answers, ranks 0-3 of 4" \
  "$(jq -r 'select(.service == "proc_record_stop") | .result.rank | "\(.[0])/\(.[1])"' stop.out | sort | tr '\n' ' ')" "0/4 1/4 2/4 3/4 "
check "every rank acknowledged the stop" wait_until 10 all_acked_as off
wait "$runner"
check_eq "the run: exit status" "$?" 0
check_eq "one summary: 4 ranks, none missing" "$(jq -c '[(.mpi.per_rank | length), .mpi.missing_ranks]' md.summary)" "[4,[]]"
check_eq "one period on each rank" "$(jq -c '[.mpi.per_rank[].periods] | unique' md.summary)" "[1]"
# Each rank's period is the time between its agent's two switches (both on
# that host's clock), whenever the rank took them at its next call.
switched() { jq -r 'select(.result.switched_ms != null) | "\(.result.rank[0]) \(.result.switched_ms)"' "$1" | sort; }
spans=$(join <(switched start.out) <(switched stop.out) |
  join - <(jq -r '.mpi.per_rank[] | "\(.rank) \(.span[0])"' md.summary | sort) |
  awk '{ d = ($3 - $2) / 1000 - $4; if (d < 0) d = -d; if (d > m) m = d } END { print NR, m * 1000 }')
check_eq "every rank's period spans its agent's switch on to its switch off" "${spans%% *}" 4
check_cmp "... within 1 ms (largest difference, ms)" "${spans##* }" "<" 1
check "the links carry some of the $ITS iterations' messages, not all ($(jq -c '[.mpi.links[].messages]' md.summary))" \
  jq -e --argjson n $ITS '(.mpi.links | length) == 8 and ([.mpi.links[].messages] | all(. >= 1 and . < $n))' md.summary
finish
