#!/usr/bin/env bash
# proc_get_info's 0x80 (PROC_INFO_PROBES) on a real MPI program: the 2-D
# stencil (4 ranks, Open MPI, built with libtally-probe) under 'tally run
# --agent --app st --mpi'. While it runs, the agent reads each rank's
# segment on demand: its MPI rank, its marker hits, and the messages and
# bytes it sent (the sum of its links) — halos of HALO doubles, so
# bytes = 8 x HALO x messages (within the one message a read can fall
# inside). What 'tally contract watch' takes messages and bytes from.
# make check: runs beside other tests
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
ITS=1000 HALO=64 NP=4
build openmpi stencil -DWITH_PROBE || { not_ok "build the stencil"; finish; }
mkdir -m 700 "$WORK/a"
S=$WORK/a/agent.sock
"$TALLY" agent --foreground --no-archive --socket "$S" 2>"$WORK/agent.err" &
apid=$!
trap 'kill $apid $rpid 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
wait_agent "$S"
$TALLY run --agent "$S" --app st --mpi -o "$WORK/run" -- $(launcher openmpi $NP) \
  "$WORK/stencil.openmpi" blocking $ITS $HALO 2000 0 1 "$WORK/hand" > /dev/null 2> "$WORK/run.err" &
rpid=$!
for _ in $(seq 600); do
  "$TALLY" request --agent "$S" ':proc_get_info([app_st], 0x81)' > "$WORK/info.out" 2>/dev/null
  [ "$(jq -r 'select(.result.probes.mpi.messages > 0) | .result.pid' "$WORK/info.out" | wc -l)" -ge $NP ] && break
  sleep 0.05
done
check_eq "four ranks answer with their segment's MPI sends" \
  "$(jq -r 'select(.result.probes.mpi.messages > 0) | .result.probes.rank' "$WORK/info.out" | sort -n | tr '\n' ' ')" "0 1 2 3 "
check_eq "bytes = 8 x HALO per message sent (each rank)" \
  "$(jq -r --argjson h $HALO 'select(.result.probes.mpi != null) | .result.probes.mpi | (.bytes - 8 * $h * .messages) | if . >= -8 * $h and . <= 8 * $h then "ok" else "bad \(.)" end' "$WORK/info.out" | sort -u)" ok
check_eq "the marker hits are read too" \
  "$(jq -r 'select(.result.probes.mpi != null) | .result.probes.marker_hits > 0' "$WORK/info.out" | sort -u)" true
check_eq "processes without a segment (the launcher) have no probes" \
  "$(jq -r 'select(.result.probes == null) | .result.command' "$WORK/info.out" | grep -c stencil)" 0
wait $rpid
check_eq "the MPI run: exit status" "$?" 0
finish
