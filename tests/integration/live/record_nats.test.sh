#!/usr/bin/env bash
# Steering across hosts and sites: application md runs on two hosts of two
# sites (agents n1 on site alpha, n3 on site beta behind a leaf node), each
# an MPI stencil of 2 ranks under 'tally run --agent --mpi --window
# request'. One proc_record_start over NATS switches the 4 ranks on both
# sites on, one proc_record_stop off; every rank acknowledges; each run's
# summary has one period whose links carry its iterations. A NATS user
# addressing another user's subjects is refused by the server itself.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/live/nats-sites.sh"
user=$(id -un)
nats_sites_start "$user" intruder || { not_ok "nats-servers start"; finish; }
build openmpi stencil -DWITH_PROBE || { not_ok "build the stencil"; finish; }
pids=() runs=()
trap 'for p in "${runs[@]}" "${pids[@]}"; do kill "$p" 2>/dev/null; done; _nats_stop; wait 2>/dev/null; rm -rf "$WORK"' EXIT
declare -A site=([n1]=alpha [n3]=beta) url=([n1]=$NATS_ALPHA [n3]=$NATS_BETA)
for h in n1 n3; do
  mkdir -m 700 "$WORK/$h"
  "$TALLY" agent --foreground --no-archive --socket "$WORK/$h/agent.sock" --host "$h" --site "${site[$h]}" \
    --nats "${url[$h]}" --creds "$WORK/creds/$user" --user "$user" 2>>"$WORK/agent.err" &
  pids+=($!)
  check "agent $h (site ${site[$h]}) answers" wait_agent "$WORK/$h/agent.sock"
done
NP=2 ITS=300 HALO=64
for h in n1 n3; do
  "$TALLY" run --agent "$WORK/$h/agent.sock" --app md --mpi --window request -o "$WORK/run-$h" -- \
    $(launcher openmpi $NP) "$WORK/stencil.openmpi" blocking $ITS $HALO 3000 0 1 "$WORK/hand-$h" \
    >/dev/null 2>>"$WORK/run.err" &
  runs+=($!)
done
nreq() { "$TALLY" request --nats "$NATS_ALPHA" --creds "$WORK/creds/$user" --user "$user" --timeout 2 "$@"; }
# "node on-kinds request ack" per registered rank, over NATS from both sites
state() {
  nreq ':proc_get_info([app_md], 0x80)' 2>/dev/null | jq -r 'select(.result.probes) |
    "\(.node) \(.result.probes.recording.on | join("+") | if . == "" then "off" else . end) \(.result.probes.recording.request) \(.result.probes.recording.ack)"' | sort
}
ranks_on_both() { [ "$(state | awk '{ print $1 }' | uniq -c | awk '$1 == 2' | wc -l)" = 2 ]; }
all_acked_as() { [ "$(state | awk -v k="$1" '$2 == k && $3 == $4' | wc -l)" = 4 ]; }
check "the 4 ranks registered, 2 on each site" wait_until 30 ranks_on_both
check_eq "before any request: every rank off" "$(state | awk '{ print $2 }' | sort -u)" off

nreq ':proc_record_start([app_md], "mpi")' >"$WORK/start.out" 2>&1
check_eq "proc_record_start over NATS: the ranks of both sites answer on [mpi]" \
  "$(jq -r 'select(.service == "proc_record_start") | "\(.node) \(.result.on | join("+"))"' "$WORK/start.out" | sort | uniq -c | awk '{ print $1, $2, $3 }' | tr '\n' ';')" \
  "2 n1 mpi;2 n3 mpi;"
check_eq "... with no error" "$(jq -c 'select(.done) | .errors' "$WORK/start.out" | sort -u)" "[]"
check "every rank on both sites acknowledged" wait_until 10 all_acked_as mpi
sleep 0.5
nreq ':proc_record_stop([app_md])' >"$WORK/stop.out" 2>&1
check_eq "proc_record_stop over NATS: 4 answers" "$(jq -r 'select(.service == "proc_record_stop") | .node' "$WORK/stop.out" | wc -l)" 4
check "every rank acknowledged the stop" wait_until 10 all_acked_as off

# another NATS user cannot even address these agents
out=$("$TALLY" request --nats "$NATS_ALPHA" --creds "$WORK/creds/intruder" --user "$user" --timeout 1 \
  ':proc_record_start([app_md])' 2>&1)
check_eq "user intruder on $user's subjects: exit status 1" "$?" 1
check_contains "... refused by the NATS server" "$out" "refused by the NATS server"
check_eq "... and nothing was switched" "$(state | awk '{ print $2 }' | sort -u)" off

for i in 0 1; do wait "${runs[$i]}"; check_eq "run $i: exit status" "$?" 0; done
runs=()
for h in n1 n3; do
  f=$WORK/run-$h.summary
  check_eq "$h: one period on each rank" "$(jq -c '[.mpi.per_rank[].periods] | unique' "$f")" "[1]"
  check "$h: some of the $ITS iterations, not all ($(jq -c '[.mpi.per_rank[].iterations]' "$f"))" \
    jq -e --argjson n $ITS '[.mpi.per_rank[].iterations] | all(. >= 1 and . < $n)' "$f"
  check "$h: each link's messages are its rank's iterations, within one per switch" jq -e '
    . as $s | ([$s.mpi.per_rank[] | {(.rank|tostring): .iterations}] | add) as $it
    | [$s.mpi.links[] | (.messages - $it[(.from|tostring)]) | fabs <= 2] | all and ($s.mpi.links | length) == 2' "$f"
done
finish
