#!/usr/bin/env bash
# Switching the recording of one application's ranks on every host by one
# request (issue 18 item 4: 64 ranks on 4 hosts acknowledged within 20 ms).
# 64 ranks of the 2-D stencil (Open MPI, --window request) on 4 simulated
# hosts (tests/integration/multihost/hosts.sh), 16 each; hostB-D's ranks
# attach to their own host's agent. Each round sends proc_record_start over
# NATS and then proc_record_stop, and measures, on CLOCK_MONOTONIC (the
# simulated hosts are given no clock skew here, so that one clock serves all):
#   - reached: from the moment 'tally request' is started to the last agent's
#     switch (switched_ms in the answers; this includes starting the tool,
#     connecting to NATS and signing the request);
#   - taken: per rank, ack_ms (when the rank took the switch, at its next
#     recorded MPI call) minus switched_ms (when its agent switched it); the
#     round's figure is the slowest rank;
#   - all acknowledged: from the start of 'tally request' to the last ack_ms.
# Medians over ROUNDS rounds (start and stop each count). On this machine the
# 64 ranks share 2 cores: a rank waits for a core before its next MPI call.
# Writes the "Switching ranks across hosts" section of bench/results/multihost.md.
# Needs root (namespaces), nats-server, Open MPI. Environment: BENCH_ROUNDS (10), BENCH_RANKS (64).
set -uo pipefail
cd "$(dirname "$0")/.."
make -s build/tally build/progs/remote_shell libs >/dev/null || exit 1
export TALLY=$PWD/build/tally PROGS=$PWD/build/progs TALLY_TEST_ROOT=$PWD
RESULTS=$PWD/bench/results/multihost.md
ROUNDS=${BENCH_ROUNDS:-10} NP=${BENCH_RANKS:-64}
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/multihost_lib.sh"
export OMPI_MCA_rmaps_base_oversubscribe=1
multihost_start hostA hostB hostC hostD || exit 1
build openmpi stencil || exit 1
per=$((NP / 4))
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
nreq() { $TALLY request --nats "$NATS_ALPHA" --creds "$WORK/creds/$MH_USER" --user "$MH_USER" --timeout 5 "$@"; }
on_launch $TALLY run --agent --app sw --mpi --window request -o sw -- \
  $(mh_launcher openmpi $NP hostA:$per,hostB:$per,hostC:$per,hostD:$per) \
  "$WORK/stencil.openmpi" blocking 100000000 64 1000 0 1 "$WORK/hand" >/dev/null 2>sw.err &
runner=$!
registered() { [ "$(nreq ':proc_get_info([app_sw], 0x80)' 2>/dev/null | jq -s '[.[] | select(.result.probes.rank != null)] | length')" = "$NP" ]; }
wait_until 120 registered || { echo "bench: the $NP ranks did not all register" >&2; kill $runner; exit 1; }
now_ms() { python3 -c 'import time; print("%.3f" % (time.clock_gettime(time.CLOCK_MONOTONIC) * 1000))'; }
reached=() taken=() total=()
for round in $(seq "$ROUNDS"); do
  for op in ':proc_record_start([app_sw], "mpi")' ':proc_record_stop([app_sw])'; do
    t0=$(now_ms)
    nreq "$op" >answer.json 2>/dev/null
    n=$(jq -s '[.[] | select(.result.switched_ms != null)] | length' answer.json)
    [ "$n" = "$NP" ] || { echo "# round $round: $n of $NP answers" >&2; continue; }
    jq -r 'select(.result.switched_ms != null) | "\(.node):\(.process) \(.result.switched_ms)"' answer.json | sort >switched.txt
    for _ in $(seq 200); do # until every rank acknowledged
      nreq ':proc_get_info([app_sw], 0x80)' 2>/dev/null |
        jq -r 'select(.result.probes.rank != null) | .result.probes.recording as $r |
               "\(.node):\(.process) \(if $r.ack == $r.request then $r.ack_ms else "none" end)"' | sort >acks.txt
      grep -q none acks.txt || break
      sleep 0.05
    done
    read -r r t a < <(join switched.txt acks.txt | awk -v t0="$t0" '
      $3 == "none" { bad = 1 } { if ($2 > sw) sw = $2; if ($3 - $2 > tk) tk = $3 - $2; if ($3 > ack) ack = $3 }
      END { if (bad || NR == 0) print "none none none"; else printf "%.3f %.3f %.3f\n", sw - t0, tk, ack - t0 }')
    [ "$a" = none ] && { echo "# round $round: a rank never acknowledged" >&2; continue; }
    reached+=("$r") taken+=("$t") total+=("$a")
    echo "# round $round ${op%%(*}: last agent switched at +$r ms, slowest rank took $t ms, all acknowledged at +$a ms" >&2
  done
done
kill -INT $runner 2>/dev/null; wait $runner 2>/dev/null
section=$(mktemp)
{
  echo "## Switching ranks across hosts (issue 18, item 4)"
  echo
  echo "\`bench/switch.bench.sh\`, $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the end;"
  echo "$NP ranks of the 2-D stencil (Open MPI, \`--window request\`) on 4 simulated hosts, $per each,"
  echo "every rank switched by one \`proc_record_start\` / \`proc_record_stop\` over NATS; ${#answers[@]} switches"
  echo "measured ($ROUNDS rounds of start and stop), in ms from the start of \`tally request\`."
  echo
  echo "| from the request | median | max | target |"
  echo "|---|---|---|---|"
  row() { printf '| %s | %s | %s | %s |\n' "$1" "$(printf '%s\n' "${@:3}" | median)" "$(printf '%s\n' "${@:3}" | sort -n | tail -1)" "$2"; }
  row "the last agent switched its ranks (tool start, NATS, 4 agents)" "" "${reached[@]}"
  row "switch to acknowledgement, slowest rank" "" "${taken[@]}"
  row "all $NP ranks acknowledged" "<= 20" "${total[@]}"
  echo
  echo "$NP busy ranks share $(nproc) cores here, so a rank often waits for a core before its next"
  echo "MPI call, where it takes the switch."
  echo
} > "$section"
if [ -f "$RESULTS" ]; then
  awk '/^## Switching ranks across hosts/ { skip = 1; next } /^## / { skip = 0 } !skip' "$RESULTS" > "$RESULTS.new"
else
  echo "# One application across hosts" > "$RESULTS.new"; echo >> "$RESULTS.new"
fi
cat "$section" >> "$RESULTS.new"
mv "$RESULTS.new" "$RESULTS"
rm -f "$section"
sed -n '/^## Switching ranks across hosts/,/^## /p' "$RESULTS"
