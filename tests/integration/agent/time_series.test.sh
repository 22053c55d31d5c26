#!/usr/bin/env bash
# tally agent --time-series DIR (issue 21 item 1): the trees an agent
# follows, attached by pid, leave runs as 'tally run --time-series' does, the
# host's capacities (cores, MemTotal) and counters in every row, so that a
# trace from runs has them as they were. Two simulated hosts (hosts.sh), one
# agent each; hostB's tree starts about a second after hostA's and ends
# first: in the trace each host is there from its first to its last moment,
# and hostA's capacity does not step when hostB's first sample arrives.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/hosts.sh"
hosts_start hostA hostB || { not_ok "simulated hosts"; finish; }
cores=$(nproc)
memtotal=$(awk '/^MemTotal:/ { printf "%.3f", $2 / 1024 }' /proc/meminfo)
mkdir runs

"$TALLY" agent --foreground --socket "$WORK/bad.sock" --time-series "$WORK/none" 2>err.txt
check_eq "--time-series of a missing directory: exit 125" "$?" 125
check_contains "  ... one line naming it" "$(cat err.txt)" "agent: --time-series $WORK/none: No such file or directory"

agents=()
for h in hostA hostB; do # a directory each: an agent's lock is beside its socket
  mkdir -m 700 "sock_$h"
  host_run $h "$TALLY" agent --foreground --socket "$WORK/sock_$h/agent.sock" --time-series runs \
    --interval 0.2 --no-archive 2>>"agent_$h.err" &
  agents+=($!)
done
wait_agent "$WORK/sock_hostA/agent.sock" && wait_agent "$WORK/sock_hostB/agent.sock"
check_eq "both agents answer" "$?" 0
# each host: a CPU burner (spin_threads: exact CPU-seconds) attached by pid
host_run hostA sh -c "$PROGS/spin_threads 1 3 & $TALLY agent attach --socket $WORK/sock_hostA/agent.sock --app solver --quiet \$!; wait" &
a_job=$!
sleep 1.2
host_run hostB sh -c "$PROGS/spin_threads 1 0.8 & $TALLY agent attach --socket $WORK/sock_hostB/agent.sock --app solver --quiet \$!; wait"
wait $a_job
for h in hostA hostB; do "$TALLY" agent stop --socket "$WORK/sock_$h/agent.sock" >/dev/null; done
wait "${agents[@]}"

check_eq "one run per host: series and summary" "$(ls runs | sed 's/\.[0-9]*\.\(series\|summary\)$/.\1/' | sort | tr '\n' ' ')" \
  "solver.hostA.series solver.hostA.summary solver.hostB.series solver.hostB.summary "
sa=$(echo runs/solver.hostA.*.summary); sb=$(echo runs/solver.hostB.*.summary)
check_eq "the summary's host is the host" "$(jq -r .host "$sa") $(jq -r .host "$sb")" "hostA hostB"
check_eq "  ... its category the application" "$(jq -r .category "$sa")" solver
check_near "  ... hostA's tree used its 3 CPU-seconds" "$(jq '.cpu_time[0]' "$sa")" 3 0.25
# every row: the host's cores and MemTotal (MB), as tally run --time-series writes them
col() { awk -v c="$2" '/^#wall_clock/ { for (i = 2; i <= NF; i++) if ($i == c) k = i; next } /^#/ { next } { print $k }' "$1"; }
for h in hostA hostB; do
  s=$(echo runs/solver.$h.*.series)
  check_cmp "$h: rows every 0.2 s" "$(grep -vc '^#' "$s")" ">=" 3
  check_eq "$h: host_cores = nproc in every row" "$(col "$s" host_cores | sort -u)" "$cores"
  check_eq "$h: host_memory_total = MemTotal in every row" "$(col "$s" host_memory_total | sort -u)" "$memtotal"
done

"$TALLY" trace from-runs runs/* -o t.paje 2>err.txt
check_eq "trace from-runs of the agent's runs: exit 0" "$?" 0
t0=$(jq -s 'map(.start[0]) | min' "$sa" "$sb")
b0=$(jq --argjson t "$t0" '.start[0] - $t' "$sb"); b1=$(jq --argjson t "$t0" '.end[0] - $t' "$sb")
a1=$(jq --argjson t "$t0" '.end[0] - $t' "$sa")
check_cmp "hostB started after hostA (t+ s)" "$b0" ">" 0.8
check_cmp "  ... and ended before it" "$b1" "<" "$a1"
cap() { "$TALLY" trace aggregate t.paje --level "$1" --from "$2" --to "$3" --format json |
  jq --arg h "$4" --arg k "$5" '[.groups[] | select((.name == $h or $h == "") and .kind == $k) | .capacity] | add'; }
before=$(awk -v b="$b0" 'BEGIN { print b - 0.3 }')
during0=$(awk -v b="$b0" 'BEGIN { print b + 0.05 }'); during1=$(awk -v b="$b1" 'BEGIN { print b - 0.05 }')
check_near "hostA's cpu capacity before hostB's first sample: its cores" "$(cap host 0 "$before" hostA cpu)" "$cores" 1e-6
check_near "  ... while hostB runs: the same, no step" "$(cap host "$during0" "$during1" hostA cpu)" "$cores" 1e-6
check_near "hostB's cpu capacity while it runs: its cores" "$(cap host "$during0" "$during1" hostB cpu)" "$cores" 1e-6
check_near "hostA's memory capacity: MemTotal" "$(cap host "$during0" "$during1" hostA memory)" "$memtotal" 0.01
# the platform: hostB is there from its first moment only
check_near "platform cpu before hostB: one host's cores" "$(cap root 0 "$before" "" cpu)" "$cores" 1e-6
check_near "platform cpu while both run: both hosts' cores" "$(cap root "$during0" "$during1" "" cpu)" "$((2 * cores))" 1e-6
finish
