#!/usr/bin/env bash
# Recording switched on and off by requests (issue 9 item 3; seed 001 §7,
# seed 004 §5): the 2-D stencil (4 ranks, Open MPI) runs under 'tally run
# --agent --mpi --window request', so its ranks record nothing until the
# agent switches them.
#  1. proc_record_start/stop twice, then a start for 300 ms that the agent
#     ends itself: every rank acknowledges each switch; nothing is recorded
#     while off; the live ratio is consistent; the summary has 3 periods per
#     rank whose links carry the periods' iterations (a switch is taken at
#     the next MPI call: one partial iteration per period at most).
#  2. A csr on lib_call_started(MPI_Send) switches MPI recording on in the
#     ranks of its scope while it is enabled, off when it is disabled.
#  3. Refusals: a rank of a run whose window is not request-driven, an
#     unknown kind, --window request without --agent or with other keys.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
NP=4 HALO=64 WORK_UNITS=3000
build openmpi stencil -DWITH_PROBE || { not_ok "build the stencil"; finish; }
mkdir -m 700 "$WORK/a"
S=$WORK/a/agent.sock
"$TALLY" agent --foreground --no-archive --socket "$S" 2>"$WORK/agent.err" &
apid=$!
trap 'kill $apid $fpid $rpid 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
wait_agent "$S"
req() { "$TALLY" request --agent "$S" "$@"; }
# state APP: one line per registered rank: "on-kinds request ack messages marker_hits"
state() {
  req ":proc_get_info([app_$1], 0x80)" | jq -r 'select(.result.probes) | .result.probes
    | "\(.recording.on | join("+") | if . == "" then "off" else . end) \(.recording.request) \(.recording.ack) \(.mpi.messages) \(.marker_hits)"' | sort
}
registered() { [ "$(state "$1" | grep -c .)" = "$NP" ]; }
all_acked() { state "$1" | awk '$2 != $3 { bad = 1 } END { exit bad }'; }
recording() { [ "$(state "$1" | awk -v k="$2" '$1 == k' | grep -c .)" = "$NP" ]; }

# ---- 1. switched by proc_record_start / proc_record_stop ----
ITS=500
t_run=$(date +%s.%N)
$TALLY run --agent "$S" --app st --mpi --window request -o "$WORK/st" -- $(launcher openmpi $NP) \
  "$WORK/stencil.openmpi" blocking $ITS $HALO $WORK_UNITS 0 1 "$WORK/hand" >/dev/null 2>"$WORK/st.err" &
rpid=$!
check "the $NP ranks registered with the agent" wait_until 30 registered st
s0=$(state st)
check_eq "before any request: off, nothing recorded" "$(echo "$s0" | awk '{ print $1, $4 }' | sort -u)" "off 0"
check "... while the marker counts ($(echo "$s0" | awk '{ print $5 }' | tr '\n' ' '))" \
  bash -c "echo '$s0' | awk '\$5 < 1 { bad = 1 } END { exit bad }'"
req ':proc_record_start([app_st], "mpi")' >"$WORK/start1.out"
check_eq "proc_record_start: one answer per rank, each on [mpi]" \
  "$(jq -c 'select(.service == "proc_record_start") | .result.on' "$WORK/start1.out" | sort | uniq -c | awk '{ print $1, $2 }')" "$NP [\"mpi\"]"
check_eq "... no error (mpirun and its daemons, without a segment, are passed over)" \
  "$(jq -c 'select(.done) | .errors' "$WORK/start1.out")" "[]"
check "every rank acknowledged the switch on" wait_until 10 all_acked st
top=$("$TALLY" top --once --app st --agent "$S" 2>&1)
check_eq "tally top: REC shows mpi for the 4 ranks" "$(printf '%s\n' "$top" | grep -c ' mpi  .*stencil')" "$NP"
check_contains "... and - for mpirun, which records nothing" "$(printf '%s\n' "$top" | grep 'mpirun')" " -  "
sleep 0.5
req ':proc_record_stop([app_st])' >"$WORK/stop1.out"
check_eq "proc_record_stop: each rank off" \
  "$(jq -c 'select(.service == "proc_record_stop") | .result.on' "$WORK/stop1.out" | sort -u)" "[]"
check "every rank acknowledged the switch off" wait_until 10 all_acked st
m1=$(state st | awk '{ print $4 }' | tr '\n' ' ')
check "messages were recorded while on ($m1)" bash -c "for m in $m1; do [ \$m -gt 0 ] || exit 1; done"
req ':proc_get_info([app_st], 0x80)' | jq -c 'select(.result.probes) | .result.probes.mpi' >"$WORK/live.json"
check "live: each rank recorded at least the 0.5 s between the switches, less than the run so far" \
  jq -se --argjson up "$(awk -v s="$t_run" -v n="$(date +%s.%N)" 'BEGIN { print n - s }')" \
  'length == 4 and all(.recorded_time >= 0.5 and .recorded_time < $up)' "$WORK/live.json"
check "live: comm_time within it, comm_ratio = comm / (recorded - comm)" jq -se \
  'all(.comm_time > 0 and .comm_time < .recorded_time and
       ((.comm_ratio - .comm_time / (.recorded_time - .comm_time)) | fabs) < 1e-9)' "$WORK/live.json"
sleep 0.4
check_eq "nothing recorded while off" "$(state st | awk '{ print $4 }' | tr '\n' ' ')" "$m1"
req ':proc_record_start([app_st], "gpu")' >"$WORK/bad_kind.out"
check_eq "an unknown kind: exit status 1" "$?" 1
check_contains "... the error names it" "$(cat "$WORK/bad_kind.out")" '\"gpu\" is not what can be recorded'
req ':proc_record_start([app_st])' >/dev/null
check "a second period: every rank records MPI and probes" wait_until 10 recording st mpi+probes
sleep 0.3
req ':proc_record_stop([app_st], "all")' >/dev/null
check "... and is off again" wait_until 10 recording st off
# a third period asked in one request: on for 300 ms, off by the agent itself
recorded() { req ':proc_get_info([app_st], 0x80)' | jq -s '[.[] | select(.result.probes) | .result.probes.mpi.recorded_time] | min'; }
before=$(recorded)
req ':proc_record_start([app_st], "mpi", 300ms)' >"$WORK/timed.out"
check_eq "a timed start: each rank answers for 0.3 s" \
  "$(jq -c 'select(.service == "proc_record_start") | .result.for' "$WORK/timed.out" | sort | uniq -c | awk '{ print $1, $2 }')" \
  "$NP [0.3,\"s\"]"
check "... and is switched off without a stop request" wait_until 10 recording st off
check "... acknowledged by every rank" wait_until 10 all_acked st
after=$(recorded)
check "... having recorded 0.3 s more, give or take the agent's wake-up ($before -> $after)" \
  awk -v a="$after" -v b="$before" 'BEGIN { d = a - b; exit !(d >= 0.3 && d < 0.6) }'
wait $rpid
check_eq "the run: exit status" "$?" 0
rpid=
f=$WORK/st.summary
check_eq "window kind" "$(jq -r .mpi.window.kind "$f")" request
check_eq "three periods on every rank" "$(jq -c '[.mpi.per_rank[].periods] | unique' "$f")" "[3]"
its=$(jq -c '[.mpi.per_rank[].iterations]' "$f")
check "each rank measured some of the $ITS iterations, not all ($its)" \
  jq -e --argjson n $ITS '[.mpi.per_rank[].iterations] | all(. >= 1 and . < $n)' "$f"
check_eq "neighbour links only (2x2 grid)" "$(jq '.mpi.links | length' "$f")" 8
check "each link's messages are its rank's measured iterations, within one per period" jq -e '
  . as $s | ([$s.mpi.per_rank[] | {(.rank|tostring): .iterations}] | add) as $it
  | [$s.mpi.links[] | (.messages - $it[(.from|tostring)]) | fabs <= 3] | all' "$f"
check "each message is one halo ($((HALO * 8)) bytes)" \
  jq -e --argjson b $((HALO * 8)) '[.mpi.links[] | .bytes == .messages * $b] | all' "$f"
check "the periods' CPU time: some, less than the run's, at most their length" jq -e '
  [.mpi.per_rank[] | .counters as $c | ($c.window.task_clock[0] > 0) and
   ($c.window.task_clock[0] < $c.run.task_clock[0]) and ($c.window.task_clock[0] <= .span[0] + 0.02)] | all' "$f"
check "a communication ratio over the periods" jq -e '.mpi.comm_ratio > 0' "$f"
check_contains "tally mpi report says so" "$("$TALLY" mpi report "$WORK/st" | head -1)" \
  "window: request, 3 periods per rank (t2-t1: their sum)"

# ---- 2. switched while a csr wants the ranks' MPI_Send ----
req ':pa_counter_create()' >/dev/null
"$TALLY" request --agent "$S" --follow 'lib_call_started([app_cs], "MPI_Send"): pa_counter_increment([c_1], $len)' \
  >"$WORK/follow.out" 2>&1 &
fpid=$!
wait_until 10 grep -q '"state":"enabled"' "$WORK/follow.out"
csr=$(jq -r 'select(.result.state == "enabled") | .result.csr // .object' "$WORK/follow.out" | head -1)
ITS=400
$TALLY run --agent "$S" --app cs --mpi --window request -o "$WORK/cs" -- $(launcher openmpi $NP) \
  "$WORK/stencil.openmpi" blocking $ITS $HALO $WORK_UNITS 0 1 "$WORK/hand" >/dev/null 2>"$WORK/cs.err" &
rpid=$!
check "the enabled csr switched MPI recording on in every rank" wait_until 30 recording cs mpi
read_c1() { req ':pa_counter_read([c_1])' | jq -r 'select(.service == "pa_counter_read") | .result.value'; }
sleep 0.5
check_cmp "... and counts their MPI_Send bytes" "$(read_c1)" ">" 0
req ":csr_disable([$csr])" >/dev/null
check "disabling it switched recording off" wait_until 10 recording cs off
check "... acknowledged by every rank" wait_until 10 all_acked cs
c1=$(read_c1)
wait $rpid
check_eq "the run: exit status" "$?" 0
rpid=
f=$WORK/cs.summary
check_eq "one period on every rank" "$(jq -c '[.mpi.per_rank[].periods] | unique' "$f")" "[1]"
check "not the whole run ($(jq -c '[.mpi.per_rank[].iterations]' "$f"))" \
  jq -e --argjson n $ITS '[.mpi.per_rank[].iterations] | all(. >= 1 and . < $n)' "$f"
sent=$(jq -r '.mpi.functions.MPI_Send.bytes[0]' "$f")
check "c_1 ($c1) counted whole messages, no more than the period recorded ($sent)" \
  bash -c "[ $((c1 % (HALO * 8))) = 0 ] && [ $c1 -le $sent ]"
kill -INT $fpid; wait $fpid; fpid=

# ---- 3. refusals ----
$TALLY run --agent "$S" --app whole --mpi -o "$WORK/whole" -- $(launcher openmpi $NP) \
  "$WORK/stencil.openmpi" blocking 300 $HALO $WORK_UNITS 0 1 "$WORK/hand" >/dev/null 2>&1 &
rpid=$!
wait_until 30 registered whole
req ':proc_record_start([app_whole])' >"$WORK/whole.out"
check_contains "a rank whose window is its own is not switched" "$(jq -c 'select(.done) | .errors[0].message' "$WORK/whole.out")" \
  "its recording is switched by its own window, not by requests"
kill -TERM $rpid 2>/dev/null; wait $rpid 2>/dev/null; rpid=
$TALLY run --mpi --window request -o "$WORK/noagent" -- true 2>"$WORK/noagent.err"
check_eq "--window request without --agent: exit status 125 (tally's error)" "$?" 125
check_contains "... says why" "$(cat "$WORK/noagent.err")" "--window request: needs --agent"
$TALLY run --agent "$S" --app x --mpi --window 'request,start=5' -o "$WORK/mixed" -- true 2>"$WORK/mixed.err"
check_eq "request with other keys: exit status 125" "$?" 125
check_contains "... says why" "$(cat "$WORK/mixed.err")" "'request' stands alone"
check_eq "no summary written for refused runs" "$(ls "$WORK"/noagent.summary "$WORK"/mixed.summary 2>/dev/null)" ""
finish
