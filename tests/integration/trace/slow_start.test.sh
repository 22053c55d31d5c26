#!/usr/bin/env bash
# Findings a person trusts, on real runs: a workload that starts slowly (a
# thread that works 12 ms in every 0.26 s for 1.5 s, then one thread that
# works 0.5 s: half of a 2-core host, so nothing saturates) is found as a slow start with when and how sure, and
# nothing else is found in it; a steady workload has no slow start; a host
# whose tasks are over shows no waste afterwards.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
RUN=${TALLY_RELEASE:-$TALLY}
# a trace of the task alone (its series without the host columns, as before
# them): what the machine's other users do does not come into the findings
task_only() {
  awk '/^#wall_clock/ { print "#wall_clock cpu_time cores max_concurrent_processes virtual_memory memory swap_memory bytes_read bytes_written bytes_received bytes_sent total_files disk proportional_memory"; next }
       /^#/ { print; next } { for (i = 1; i <= 14; i++) printf "%s%s", $i, i < 14 ? " " : "\n" }' "$1.series" >"$2.series"
  cp "$1.summary" "$2.summary"
}

"$RUN" run --category ramp --time-series --interval 0.1 -o ramp -- /bin/sh -c \
  "for i in 1 2 3 4 5 6; do '$PROGS/spin_threads' 1 0.012; sleep 0.25; done; '$PROGS/spin_threads' 1 0.5"
task_only ramp ramp_alone
"$TALLY" trace from-runs ramp_alone -o ramp.paje
found=$("$TALLY" trace anomalies ramp.paje --format json)
echo "$found" | jq -c '.[]' | sed 's/^/# /'
check_eq "the slow start is found" "$(echo "$found" | jq '[.[] | select(.kind == "slow-start")] | length')" 1
check_eq "  ... and nothing else" "$(echo "$found" | jq 'length')" 1
start=$(jq '.start[0]' ramp.summary)
check_cmp "  ... from the first slices (t+ < 1 s)" "$(echo "$found" | jq --argjson s "$start" '.[0].from - $s')" "<" 1
check_cmp "  ... until the busy thread starts (t+ >= 1.2 s)" "$(echo "$found" | jq --argjson s "$start" '.[0].to - $s')" ">=" 1.2
check_cmp "  ... how sure" "$(echo "$found" | jq '.[0].confidence')" ">=" 0.5
check_contains "  ... said in words" "$(echo "$found" | jq -r '.[0].detail')" "ramp took"
# with the host's other load, the slow start is still the ramp's
"$TALLY" trace from-runs ramp -o ramp_host.paje
check_eq "with other-load: the ramp's slow start is found" \
  "$("$TALLY" trace anomalies ramp_host.paje --format json | jq '[.[] | select(.kind == "slow-start" and (.detail | startswith("ramp took")))] | length')" 1

"$RUN" run --category steady --time-series --interval 0.1 -o steady -- "$PROGS/spin_threads" 1 2
task_only steady steady_alone
"$TALLY" trace from-runs steady_alone -o steady.paje
check_eq "a steady workload has no slow start" "$("$TALLY" trace anomalies steady.paje --format json | jq '[.[] | select(.kind == "slow-start")] | length')" 0

# two hosts: "early" ends after 0.5 s, the other works 2 s more; a host's
# capacity ends with its tasks, so "early" is not idle (no waste) afterwards
"$RUN" run --category a --time-series --interval 0.1 -o early -- "$PROGS/spin_threads" 1 0.4 &
"$RUN" run --category a --time-series --interval 0.1 -o late -- "$PROGS/spin_threads" 1 2.5
wait
jq '.host = "early"' early.summary >e.summary && cp early.series e.series
"$TALLY" trace from-runs e late -o two.paje
end=$(jq '.end[0]' e.summary)
check_eq "no waste on a host after its last task ended" \
  "$("$TALLY" trace anomalies two.paje --level host --format json | jq --argjson e "$end" '[.[] | select(.kind == "waste" and (.resource | startswith("early")) and .from >= $e)] | length')" 0
check_eq "  ... its capacity ends there" \
  "$("$TALLY" trace aggregate two.paje --level host --kind cpu --format json --from "$(awk -v e="$end" -v s="$(jq '.start[0]' e.summary)" 'BEGIN { print e - s + 0.5 }')" | jq '.groups[] | select(.name == "early") | .capacity')" 0
finish
