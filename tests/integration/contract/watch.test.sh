# tally contract watch: the contract monitor online, through a real agent.
# The seed 003 §6.1 master/worker fixture (12 workers + master, plain
# processes) runs under 'tally run --agent --app mw --probes', adding its
# FLOPs, jobs, messages and bytes to libtally-probe counters (and numbering
# itself with a counter "rank": master 0, worker N is N+1). The agent reads
# them from the processes' segments (proc_get_info 0x80); the watch turns
# each period's snapshots into samples. Baseline: two clean runs recorded by
# 'watch --record' → 'contract build'. Then a run where workers 6..11 (ranks
# 7..12) do half the FLOPs per job → intrinsic compute violated on exactly
# those from their first period, actions run, levels exported as
# tally_contract_violation gauges on the agent's /metrics; a clean run →
# nothing at the threshold. Nothing here depends on timing: the metric
# violated is FLOPs per job, exact whatever the machine's load.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
MW=$PROGS/contract_master_worker
LIB=$TALLY_TEST_ROOT/build/lib/libtally-probe.so
keep() { mkdir -p "$TALLY_TEST_ROOT/build/test-logs/contract-watch" && cp -f "$WORK"/*.out "$WORK"/*.err "$WORK"/*.jsonl "$WORK"/mw.contract "$TALLY_TEST_ROOT/build/test-logs/contract-watch/" 2>/dev/null; }
trap 'keep; kill $apid $wpid 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
mport=$(free_port)
mkdir -m 700 "$WORK/a"
S=$WORK/a/agent.sock
"$TALLY" agent --foreground --no-archive --socket "$S" --metrics "127.0.0.1:$mport" 2>"$WORK/agent.err" &
apid=$!
wait_agent "$S"

# watched NAME WATCH-ARGS... -- FIXTURE-ARGS...: the fixture under tally run
# while 'tally contract watch' runs; the watch is stopped with SIGINT once
# the run ended and it has printed a line since (its status in NAME.status).
watched() {
  local name=$1; shift
  local wargs=() fargs=()
  while [ "$1" != "--" ]; do wargs+=("$1"); shift; done; shift
  fargs=("$@")
  "$TALLY" contract watch "${wargs[@]}" --app mw --agent "$S" --period 1 \
    >"$WORK/$name.out" 2>"$WORK/$name.err" &
  wpid=$!
  "$TALLY" run --agent "$S" --app mw --probes -o "$WORK/$name" -- \
    "$MW" --probe-lib "$LIB" --pin 3 "${fargs[@]}" >/dev/null 2>"$WORK/$name.run.err"
  echo $? > "$WORK/$name.run.status"
  sleep 1.5 # the watch's last period (it has nothing more to read after the run)
  kill -INT $wpid
  wait $wpid
  echo $? > "$WORK/$name.status"
  wpid=
}

# --- the agent's side: proc_get_info 0x80 during a run
"$TALLY" run --agent "$S" --app mw --probes -o "$WORK/probe" -- \
  "$MW" --probe-lib "$LIB" --seconds 4 >/dev/null 2>"$WORK/probe.err" &
rpid=$!
for _ in $(seq 200); do
  "$TALLY" request --agent "$S" ':proc_get_info([app_mw], 0x83)' > "$WORK/info.out" 2>/dev/null
  [ "$(jq -r 'select(.result.probes.counters.jobs > 0) | .result.pid' "$WORK/info.out" | wc -l)" -ge 13 ] && break
  sleep 0.1
done
check_eq "proc_get_info 0x83: 13 processes with probe counters" \
  "$(jq -r 'select(.result.probes != null) | .result.pid' "$WORK/info.out" | wc -l)" 13
check_eq "... numbered 0..12 by their counter 'rank'" \
  "$(jq -r '.result.probes.counters.rank // empty' "$WORK/info.out" | sort -n | tr '\n' ' ')" "0 1 2 3 4 5 6 7 8 9 10 11 12 "
check_eq "... rank -1 (no MPI), no mpi object" \
  "$(jq -r 'select(.result.probes != null) | "\(.result.probes.rank) \(.result.probes.mpi)"' "$WORK/info.out" | sort -u)" "-1 null"
# a worker adds flops then jobs: a read sees flops/5e5 = jobs or jobs + 1
check_eq "... workers' flops are 5e5 per job (as the fixture counts them)" \
  "$(jq -r 'select(.result.probes.counters.rank > 0) | .result.probes.counters | ((.flops / 500000) - .jobs) | if . == 0 or . == 1 then "ok" else "bad \(.)" end' "$WORK/info.out" | sort -u)" ok
check_eq "... and 32 bytes per message" \
  "$(jq -r 'select(.result.probes.counters.rank > 0) | .result.probes.counters | (.bytes - 32 * .messages) | if . == 0 then "ok" else "bad" end' "$WORK/info.out" | sort -u)" ok
check_eq "... the exact CPU time of each (schedstat) within 50 ms of /proc's ticks" \
  "$(jq -r 'select(.result.probes != null) | .result | (.probes.cpu_seconds - .cpu_time[0]) | if . > -0.05 and . < 0.05 then "ok" else "bad \(.)" end' "$WORK/info.out" | sort -u)" ok
check_eq "without 0x80, no probes" \
  "$("$TALLY" request --agent "$S" ':proc_get_info([app_mw], 0x1)' | jq -r 'select(.result.probes != null) | .result.pid' | wc -l)" 0
wait $rpid

# --- baseline: two clean runs recorded by the watch
watched base1 --record "$WORK/base.jsonl" -- --seconds 5
watched base2 --record "$WORK/base.jsonl" -- --seconds 5
check_eq "baseline runs exit 0" "$(cat "$WORK/base1.run.status" "$WORK/base2.run.status" | tr '\n' ' ')" "0 0 "
check_eq "watch --record without a contract exits 0" "$(cat "$WORK/base1.status")" 0
check_eq "the recorded samples name 13 processes" "$(jq -r .process "$WORK/base.jsonl" | sort -u | wc -l)" 13
"$TALLY" contract build "$WORK/base.jsonl" --name mw -o "$WORK/mw.contract" 2>"$WORK/build.err"
check_eq "contract build from the recorded samples exits 0" "$?" 0
check_eq "13 processes in the contract" "$(grep -c '^process ' "$WORK/mw.contract")" 13

# --- workers 6..11 (ranks 7..12) do half the FLOPs per job
"$TALLY" request --agent "$S" ':pa_counter_create()' > /dev/null
watched fewer "$WORK/mw.contract" \
  --on-violation 'echo "$TALLY_CONTRACT_PROCESS $TALLY_CONTRACT_SPACE" >> "'"$WORK"'/actions.out"' \
  --request ':pa_counter_increment([c_1], 1)' -- --seconds 5 --fewer 6-11 &
fewer_pid=$!
# while it runs: the levels on the agent's /metrics (until a period has all 13)
exported() { grep "^tally_contract_violation{app=\"mw\",.*space=\"intrinsic\",dimension=\"compute\"" "$WORK/metrics.out" | awk -v want="$1" '{ v = $NF; if ((want == "high" && v >= 0.5) || (want == "low" && v < 0.5)) { match($0, /process="[^"]*"/); print substr($0, RSTART + 9, RLENGTH - 10) } }' | sort -n | tr '\n' ' '; }
for _ in $(seq 300); do
  curl -s -H "Accept: application/openmetrics-text; version=1.0.0" "http://127.0.0.1:$mport/metrics" > "$WORK/metrics.out"
  [ "$(exported high)$(exported low)" = "7 8 9 10 11 12 0 1 2 3 4 5 6 " ] && break
  sleep 0.1
done
check_eq "/metrics: intrinsic compute gauge at the threshold for ranks 7-12" "$(exported high)" "7 8 9 10 11 12 "
check_eq "/metrics: ... below it for ranks 0-6" "$(exported low)" "0 1 2 3 4 5 6 "
check_contains "/metrics: labelled with the host" "$(grep '^tally_contract_violation{' "$WORK/metrics.out" | head -1)" "host=\"$(hostname)\""
check_contains "/metrics: a gauge" "$(cat "$WORK/metrics.out")" "# TYPE tally_contract_violation gauge"
check_eq "/metrics, OpenMetrics as Prometheus asks for it: still ends in # EOF" "$(tail -n 1 "$WORK/metrics.out")" "# EOF"
# the same levels to tools through the socket: proc_get_info 0x100, by pid
# (processes of the application without levels, not instrumented, have no
# "contract": in jq null >= null would count them as violating)
"$TALLY" request --agent "$S" ':proc_get_info([app_mw], 0x181)' > "$WORK/levels.out"
check_eq "0x100 on the socket: overall at the threshold for ranks 7-12, per process" \
  "$(jq -r 'select(.result.contract != null and .result.contract.overall >= .result.contract.threshold) | .result.probes.counters.rank' "$WORK/levels.out" | sort -n | tr '\n' ' ')" \
  "7 8 9 10 11 12 "
check_eq "... below it for ranks 0-6" \
  "$(jq -r 'select(.result.contract != null and .result.contract.overall < .result.contract.threshold) | .result.probes.counters.rank' "$WORK/levels.out" | sort -n | tr '\n' ' ')" \
  "0 1 2 3 4 5 6 "
wait $fewer_pid
check_eq "the run exits 0" "$(cat "$WORK/fewer.run.status")" 0
check_eq "watch exits 1 after SIGINT when a level reached the threshold" "$(cat "$WORK/fewer.status")" 1
violated() { jq -r --arg s "$1" --arg d "$2" 'select(.space == $s and .dimension == $d and .level >= 0.5) | .process' "$WORK/fewer.out" | sort -n | uniq | tr '\n' ' '; }
check_eq "intrinsic compute violated on exactly ranks 7-12" "$(violated intrinsic compute)" "7 8 9 10 11 12 "
check_eq "intrinsic overall violated on exactly ranks 7-12" "$(violated intrinsic overall)" "7 8 9 10 11 12 "
check_eq "intrinsic communicate violated nowhere" "$(violated intrinsic communicate)" ""
first=$(for r in 7 8 9 10 11 12; do jq -r --arg p $r 'select(.process == $p and .space == "intrinsic" and .dimension == "compute") | .level' "$WORK/fewer.out" | head -1; done | awk '$1 >= 0.5' | wc -l)
check_eq "each of them violated from its first period" "$first" 6
periods=$(jq -r 'select(.process == "9" and .space == "intrinsic" and .dimension == "compute") | .level' "$WORK/fewer.out" | wc -l)
check_cmp "rank 9 has periods" "$periods" ">=" 3
check_contains "the lines are check's: explanation of the overall level" \
  "$(jq -r 'select(.process == "9" and .space == "intrinsic" and .dimension == "overall") | .explanation' "$WORK/fewer.out" | head -1)" \
  "compute 1.00 (FLOP per job 50% below the contract's 500 k since "
check_eq "--on-violation ran once per violated process (intrinsic)" \
  "$(awk '$2 == "intrinsic" { print $1 }' "$WORK/actions.out" | sort -n | tr '\n' ' ')" "7 8 9 10 11 12 "
onsets=$(wc -l < "$WORK/actions.out")
check_eq "--request was sent at every onset (c_1 counts them)" \
  "$("$TALLY" request --agent "$S" ':pa_counter_read([c_1])' | jq -r 'select(.service == "pa_counter_read") | .result.value')" "$onsets"
curl -s "http://127.0.0.1:$mport/metrics" > "$WORK/metrics.out"
check_eq "/metrics: the levels are gone once the watch stopped" "$(grep -c '^tally_contract_violation{' "$WORK/metrics.out")" 0

# --- a clean run: nothing at the threshold
watched clean "$WORK/mw.contract" --live-factors -- --seconds 5
check_eq "clean run: watch exits 0" "$(cat "$WORK/clean.status")" 0
check_eq "clean run: no level at or above the threshold" \
  "$(jq -r 'select(.level >= 0.5) | "\(.process) \(.space) \(.dimension) \(.level)"' "$WORK/clean.out" | head -3)" ""
check_eq "clean run: levels for all 13 processes" "$(jq -r .process "$WORK/clean.out" | sort -u | wc -l)" 13

# --- errors
"$TALLY" contract watch --app mw --agent "$S" 2>"$WORK/err.out"
check_eq "no contract and no --record: exit 125" "$?" 125
"$TALLY" contract watch "$WORK/mw.contract" --app mw --agent "$WORK/a/none.sock" 2>"$WORK/err.out"
check_eq "no agent: exit 125" "$?" 125
check_contains "... saying so" "$(cat "$WORK/err.out")" "tally: contract watch: "
finish
