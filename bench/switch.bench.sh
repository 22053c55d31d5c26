#!/usr/bin/env bash
# Switching the recording of one application's ranks on every host by one
# request (issue 18 item 4: 64 ranks on 4 hosts acknowledged within 20 ms).
# 64 ranks of the 2-D stencil (Open MPI, --window request) on 4 simulated
# hosts (tests/integration/multihost/hosts.sh), 16 each; hostB-D's ranks
# attach to their own host's agent. Each round sends proc_record_start over
# NATS and then proc_record_stop, each by a new 'tally request', and takes,
# on CLOCK_MONOTONIC (the simulated hosts are given no clock skew here, so
# that one clock serves all; the bench's start time is its EPOCHREALTIME
# carried to that clock once):
#   start   the bench starts 'tally request'
#   sent    the tool publishes the request (its final line's sent_ms): after
#           the process started, connected to NATS and signed the request
#   switched  each agent stored the switch in its ranks' control words
#           (switched_ms of each rank's answer): from then on the rank records
#           (or not) at its next MPI call; its period opens or closes then
#   answered  the last agent's answer reached the tool (answered_ms): the
#           agents' acknowledgement, "all 64 ranks switched"; the tool knows
#           it is the last because each agent says which ranks it holds (it
#           exits a quiet period later, listening for another launch's agents)
#   taken   each rank's own pickup at its next MPI call (ack_ms)
# Two phases: the ranks running (64 busy processes on this machine's cores),
# then the same rounds with the ranks stopped (thread_stop([app_sw]):
# SIGSTOP), which measures tally's own path without the application's load;
# their last switch (off) is then taken by every rank once continued.
# Medians and maxima over all switches (start and stop each count).
# Writes the "Switching ranks across hosts" section of bench/results/multihost.md.
# Needs root (namespaces), nats-server, Open MPI. Environment: BENCH_ROUNDS (10), BENCH_RANKS (64).
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/median.sh
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
nreq() { $TALLY request --nats "$NATS_ALPHA" --creds "$WORK/creds/$MH_USER" --user "$MH_USER" --timeout 5 "$@"; }
printf '#!/bin/sh\nSTENCIL_UNTIL="%s/release" exec "%s/stencil.openmpi" blocking 1000 64 1000 0 1 "%s/hand"\n' \
  "$WORK" "$WORK" "$WORK" > "$WORK/sw.sh"
chmod +x "$WORK/sw.sh"
on_launch $TALLY run --agent --app sw --mpi --window request -o sw -- \
  $(mh_launcher openmpi $NP hostA:$per,hostB:$per,hostC:$per,hostD:$per) "$WORK/sw.sh" >/dev/null 2>sw.err &
runner=$!
registered() { [ "$(nreq ':proc_get_info([app_sw], 0x80)' 2>/dev/null | jq -s '[.[] | select(.result.probes.rank != null)] | length')" = "$NP" ]; }
wait_until 120 registered || { echo "bench: the $NP ranks did not all register" >&2; kill $runner; exit 1; }
# CLOCK_MONOTONIC minus CLOCK_REALTIME, in ms: the bench's start times on the tool's clock
offset=$(python3 -c 'import time; print("%.3f" % ((time.clock_gettime(time.CLOCK_MONOTONIC) - time.time()) * 1000))')
now_ms() { awk -v r="$EPOCHREALTIME" -v o="$offset" 'BEGIN { printf "%.3f\n", r * 1000 + o }'; }
# acks_of: "node:object ack_ms|none" of every rank once all took the last switch (or after 10 s)
acks() {
  local _
  for _ in $(seq 200); do
    nreq ':proc_get_info([app_sw], 0x80)' 2>/dev/null |
      jq -r 'select(.result.probes.rank != null) | .result.probes.recording as $r |
             "\(.node):\(.object) \(if $r.ack == $r.request then $r.ack_ms else "none" end)"' | sort >acks.txt
    [ "$(wc -l <acks.txt)" = "$NP" ] && ! grep -q none acks.txt && return 0
    sleep 0.05
  done
  return 1
}
declare -A fig # fig[phase.name] = "value value ..."
# one switch: OP, PHASE; adds its figures
switch() {
  local op=$1 phase=$2 t0 line
  t0=$(now_ms)
  nreq "$op" >answer.json 2>/dev/null
  line=$(jq -s -r --argjson t0 "$t0" --argjson np "$NP" '
    (map(select(.result.switched_ms != null)) | map(.result.switched_ms)) as $sw | (last) as $f
    | if ($sw | length) != $np or ($f.errors | length) > 0 or ($f.sent_ms == null) then "bad \($sw | length) \($f.errors)"
      else "\($f.sent_ms - $t0) \(($sw | max) - $f.sent_ms) \($f.answered_ms - $f.sent_ms) \($f.answered_ms - $t0)" end' answer.json)
  case $line in bad*) echo "# $phase ${op%%(*}: $line" >&2; return 1;; esac
  read -r a b c d <<<"$line"
  fig[$phase.start]+="$a " fig[$phase.switched]+="$b " fig[$phase.answered]+="$c " fig[$phase.total]+="$d "
  printf '# %s %s: tool start to publication %.1f ms, last agent switched +%.1f ms, all answered +%.1f ms (%.1f ms from the start)\n' \
    "$phase" "${op%%(*}" "$a" "$b" "$c" "$d" >&2
  [ "$phase" = running ] || return 0
  acks || { echo "# a rank did not take the switch within 10 s" >&2; return 1; }
  jq -r 'select(.result.switched_ms != null) | "\(.node):\(.object) \(.result.switched_ms)"' answer.json | sort >switched.txt
  read -r e f < <(join switched.txt acks.txt | awk -v t0="$t0" '
    { if ($3 - $2 > tk) tk = $3 - $2; if ($3 > ack) ack = $3 } END { printf "%.3f %.3f\n", tk, ack - t0 }')
  fig[$phase.taken]+="$e " fig[$phase.all_taken]+="$f "
  printf '#   slowest rank took it %.1f ms after its agent switched it; all %d ranks had at +%.1f ms\n' "$e" "$NP" "$f" >&2
}
ON=':proc_record_start([app_sw], "mpi")' OFF=':proc_record_stop([app_sw])'
for round in $(seq "$ROUNDS"); do switch "$ON" running; switch "$OFF" running; done
load_running=$(cut -d' ' -f1-3 /proc/loadavg)
nreq ':thread_stop([app_sw])' >/dev/null 2>&1
for round in $(seq "$ROUNDS"); do switch "$ON" stopped; switch "$OFF" stopped; done
load_stopped=$(cut -d' ' -f1-3 /proc/loadavg)
nreq ':thread_continue([app_sw])' >/dev/null 2>&1
acks && ! grep -q none acks.txt && continued=yes || continued=no
offs=$(nreq ':proc_get_info([app_sw], 0x80)' 2>/dev/null | jq -r 'select(.result.probes.rank != null) | .result.probes.recording.on | length' | grep -c '^0$')
echo "# continued: every rank took the last switch: $continued; ranks off: $offs of $NP" >&2
count() { wc -w <<<"${fig[$1]:-}"; }
section=$(mktemp)
{
  echo "## Switching ranks across hosts (issue 18, item 4)"
  echo
  echo "\`bench/switch.bench.sh\`, $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, $(cut -d' ' -f1-3 /proc/loadavg | awk '{ print "load " $0 }') at the end"
  echo "(load $load_running after the running phase, $load_stopped after the stopped one; nothing but the bench ran: the load is its own 64 busy ranks);"
  echo "$NP ranks of the 2-D stencil (Open MPI, \`--window request\`) on 4 simulated hosts, $per each,"
  echo "every rank switched by one \`proc_record_start\` / \`proc_record_stop\` over NATS, each sent by a new"
  echo "\`tally request\`; $ROUNDS rounds of start and stop per phase. In ms, median (max)."
  echo
  echo "| | ranks running ($(count running.answered) switches) | ranks stopped ($(count stopped.answered) switches) | target |"
  echo "|---|---|---|---|"
  cell() { [ -n "${fig[$1]:-}" ] && printf '%.1f (%.1f)' "$(printf '%s\n' ${fig[$1]} | median)" "$(printf '%s\n' ${fig[$1]} | sort -n | tail -1)" || printf -- '-'; }
  row() { printf '| %s | %s | %s | %s |\n' "$1" "$(cell "running.$2")" "$(cell "stopped.$2")" "$3"; }
  row "start of \`tally request\` to its publication (process start, NATS connection, signing)" start ""
  row "publication to the last agent's switch (its ranks' flags stored)" switched ""
  row "**publication to every agent's acknowledgement (all $NP ranks switched)**" answered "<= 20"
  row "start of \`tally request\` to every agent's acknowledgement" total ""
  row "slowest rank's own pickup after its agent's switch (its next MPI call)" taken ""
  row "start of \`tally request\` to all $NP ranks' pickup" all_taken ""
  echo
  echo "After the stopped phase the ranks were continued: every rank took the last switch: $continued ($offs of $NP off)."
  echo
  echo "What each figure is. The switch is one store per rank into its control word, shared with the"
  echo "process; libtally-mpi tests that word at every MPI call, so from the agent's store on, every call"
  echo "the rank enters is recorded (or not), and the period opens (closes) at the store, whatever the"
  echo "rank is doing (\`tests/integration/multihost/live_switch.test.sh\` checks that each rank's period"
  echo "equals its agent's switch-on to switch-off). An agent answers after it has stored the switch in"
  echo "all its ranks, so its answer is the acknowledgement \"these ranks are switched\"; the tool knows"
  echo "the last one as such, since the answers account for every rank (each agent says which ranks it"
  echo "holds; \`answered_ms\`); it then listens for the quiet period (50 ms) for the agents of another"
  echo "launch of the application, which no answer can name, before it exits. A rank's pickup (\`ack\`) is a"
  echo "second figure: when it next entered an MPI call, which on this machine means when it next got"
  echo "one of the $(nproc) cores that $NP busy ranks share and ended the call it was in."
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
# the application: released, then its run is interrupted if it has not ended within 30 s;
# the simulated hosts (and what still runs in them) are killed at exit
touch "$WORK/release"
for _ in $(seq 300); do kill -0 $runner 2>/dev/null || break; sleep 0.1; done
kill -INT $runner 2>/dev/null
wait $runner 2>/dev/null
