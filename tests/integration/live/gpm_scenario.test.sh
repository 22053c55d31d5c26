#!/usr/bin/env bash
# Seed 001's monitoring scenario (§7) on a real MPI program: the 2-D stencil
# (4 ranks, Open MPI) runs under 'tally run --agent --app st --mpi'; before it
# starts, a tool defines "each time MPI_Send is called in app_st, add $len to
# c_1" and "each time the iteration marker is hit, add 1 to c_2" and "... read
# c_3 and reset it" (c_3 fed by MPI_Send like c_1). Events are evaluated in
# the agent from the ranks' shared-memory segments (nothing is sent per
# event). The counters must equal the run's own truth: the bytes of every
# MPI_Send (the summary's mpi object, and the neighbour pattern) and the
# marker hits (4 ranks x iterations); the reads of c_3 add up to it too.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
ITS=40 HALO=64 NP=4
build openmpi stencil -DWITH_PROBE || { not_ok "build the stencil"; finish; }
mkdir -m 700 "$WORK/a"
S=$WORK/a/agent.sock
"$TALLY" agent --foreground --no-archive --socket "$S" 2>"$WORK/agent.err" &
apid=$!
trap 'kill $apid $fpid 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
wait_agent "$S"
"$TALLY" request --agent "$S" ':pa_counter_create()' ':pa_counter_create()' ':pa_counter_create()' > "$WORK/create.out"
check_eq "three counters" "$(jq -r 'select(.service == "pa_counter_create") | .object' "$WORK/create.out" | tr '\n' ' ')" "c_1 c_2 c_3 "
"$TALLY" request --agent "$S" --follow \
  'lib_call_started([app_st], "MPI_Send"): pa_counter_increment([c_1], $len)' \
  'thread_executes_probe([app_st], "marker"): pa_counter_increment([c_2], 1)' \
  'lib_call_ended([app_st], "MPI_Send"): pa_counter_increment([c_3], $len)' \
  'thread_executes_probe([app_st], "marker"): pa_counter_read([c_3], 1)' > "$WORK/follow.out" 2>&1 &
fpid=$!
for _ in $(seq 200); do [ "$(grep -c '"state":"enabled"' "$WORK/follow.out")" = 4 ] && break; sleep 0.05; done
check_eq "four conditional requests enabled" "$(grep -c '"state":"enabled"' "$WORK/follow.out")" 4
check_contains "defined before the application: 'no instrumented process matches yet'" \
  "$(cat "$WORK/follow.out")" "no instrumented process matches yet"

$TALLY run --agent "$S" --app st --mpi -o "$WORK/run" -- $(launcher openmpi $NP) \
  "$WORK/stencil.openmpi" blocking $ITS $HALO 3000 0 1 "$WORK/hand" > /dev/null 2> "$WORK/run.err"
check_eq "the MPI run: exit status" "$?" 0
truth=$(jq -r '.mpi.functions.MPI_Send.bytes[0]' "$WORK/run.summary")
pattern=$(expected_stencil_links $NP $ITS $HALO | awk '{ b += $3 } END { print b }')
check_eq "the summary's MPI_Send bytes are the neighbour pattern" "$truth" "$pattern"
sleep 0.3 # two polls after the end
kill -INT $fpid; wait $fpid; fpid=
read_counter() { "$TALLY" request --agent "$S" ":pa_counter_read([c_$1])" | jq -r 'select(.service == "pa_counter_read") | .result.value'; }
check_eq "c_1 (+= \$len at each MPI_Send) = the bytes sent" "$(read_counter 1)" "$truth"
check_eq "c_2 (+1 at each marker hit) = ranks x iterations" "$(read_counter 2)" "$((NP * ITS))"
reads=$(jq -r 'select(.service == "pa_counter_read" and .request != null) | .result.value' "$WORK/follow.out")
nreads=$(printf '%s\n' "$reads" | grep -c .)
check_cmp "c_3 was read at marker hits during the run" "$nreads" ">=" 5
sum=$(printf '%s\n' "$reads" | awk '{ s += $1 } END { print s + 0 }')
check_eq "the reads of c_3 (reset each time) plus what is left = the bytes sent" "$(( sum + $(read_counter 3) ))" "$truth"
ev=$(jq -c 'select(.service == "pa_counter_read") | .event | select(. != null)' "$WORK/follow.out" | head -1)
check_contains "a read says which event fired it" "$ev" '"service":"thread_executes_probe"'
check_contains "... with the probe's name" "$ev" '"probe":"marker"'
finish
