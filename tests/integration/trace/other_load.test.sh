#!/usr/bin/env bash
# The load tally does not run is a category of its own: a task measured by
# 'tally run' next to a CPU burner started outside tally. trace from-runs puts
# the burner's CPU into "other-load" on the host (host-wide /proc/stat minus
# the task's own), the host's cpu capacity is its cores (not what was seen),
# its memory capacity MemTotal, and eq. 1 holds with other-load counted.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
RUN=${TALLY_RELEASE:-$TALLY}
ticks=$(getconf CLK_TCK)
cpu_of() { awk -v t="$ticks" '{ print ($14 + $15) / t }' "/proc/$1/stat"; }

"$PROGS/spin_threads" 2 100 & burner=$!  # two threads: more than its half of the cores
sleep 0.2
b0=$(cpu_of $burner)
"$RUN" run --category solver --time-series --interval 0.1 -o solo -- "$PROGS/spin_threads" 1 1.5
b1=$(cpu_of $burner)
kill $burner; wait $burner 2>/dev/null
burned=$(awk -v a="$b0" -v b="$b1" 'BEGIN { print b - a }')

"$TALLY" trace from-runs solo -o solo.paje
check "from-runs wrote the trace" test -s solo.paje
json=$("$TALLY" trace aggregate solo.paje --level host --format json)
span=$(echo "$json" | jq '.to - .from')
usage() { echo "$json" | jq --arg k "$1" ".groups[] | select(.kind == \$k) | $2"; }
check_eq "cpu capacity = the host's cores" "$(usage cpu .capacity)" "$(nproc)"
memtotal=$(awk '/^MemTotal:/ { printf "%.3f", $2 / 1024 }' /proc/meminfo)
check_near "memory capacity = MemTotal" "$(usage memory .capacity)" "$memtotal" 0.001
other=$(awk -v u="$(usage cpu '.usage["other-load"]')" -v s="$span" 'BEGIN { print u * s }')
solver=$(awk -v u="$(usage cpu .usage.solver)" -v s="$span" 'BEGIN { print u * s }')
# other-load holds the burner (and whatever else ran on the host): at least
# the burner's CPU-seconds during the run, less its first interval (0.1 s),
# before which the host had not been read yet
check_cmp "the burner used CPU" "$burned" ">" 0.3
check_cmp "other-load cpu-seconds >= 80 % of the burner's ($burned s)" "$other" ">=" "$(awk -v b="$burned" 'BEGIN { print 0.8 * b }')"
check_near "the task's own cpu-seconds stay the solver's" "$solver" "$(awk '!/^#/ { c = $2 } END { print c }' solo.series)" 0.02
check_cmp "other-load + solver <= cores" "$(usage cpu '.usage["other-load"] + .usage.solver')" "<=" "$(nproc)"
check_eq "no eq. 1 break" "$("$TALLY" trace aggregate solo.paje --format json | jq '.violations | length')" 0
check_cmp "other-load memory: the rest of the host's used memory" "$(usage memory '.usage["other-load"]')" ">" 0

# the CLI speaks the page's time: t+ seconds from the trace's start, or an ISO date
start=$(echo "$json" | jq .from)
sl=$("$TALLY" trace aggregate solo.paje --from 0.5 --to 1 --format json)
check_near "--from 0.5 is t+0.5 s" "$(echo "$sl" | jq .from)" "$(awk -v s="$start" 'BEGIN { printf "%.6f", s + 0.5 }')" 0.000001
iso=$(date -u -d "@$(awk -v s="$start" 'BEGIN { printf "%.3f", s + 1 }')" +%Y-%m-%dT%H:%M:%S.%3NZ)
check_near "--from ISO date-time" "$("$TALLY" trace aggregate solo.paje --from "$iso" --format json | jq .from)" "$(awk -v s="$start" 'BEGIN { printf "%.3f", s + 1 }')" 0.001
check_contains "the table gives t+ and the start as a UTC date" "$("$TALLY" trace aggregate solo.paje --from 0.5 --to 1)" "slice [0.5, 1] s from the trace's start (t+0 = $(date -u -d "@${start%.*}" +%Y-%m-%dT%H:%M:%S)"
"$TALLY" trace aggregate solo.paje --from 100 --to 200 2>err.txt >out.txt; st=$?
check_eq "a slice outside the trace exits 125" "$st" 125
check_contains "  ... naming the trace's span" "$(cat err.txt)" "the slice t+100..t+200 s is outside the trace, which spans t+0..t+"
check_eq "  ... and prints no table" "$(cat out.txt)" ""
day=$(date -u -d "@${start%.*}" +%Y-%m-%d)
check_contains "stats: the span in t+ seconds and the start as a UTC date" "$("$TALLY" trace stats solo.paje --queries 1 | grep '^time')" "t+0 .. t+"
check_contains "  ... dated" "$("$TALLY" trace stats solo.paje --queries 1 | grep '^time')" "; t+0 = ${day}T"
"$TALLY" view solo.paje --svg solo.svg
check_contains "the SVG caption: t+ seconds and the start as a UTC date" "$(cat solo.svg)" "slice t+0 s – t+"
check_contains "  ... dated" "$(cat solo.svg)" "(t+0 = ${day}T"
an=$("$TALLY" trace anomalies solo.paje --format json)
check_eq "no saturation of a capacity inferred from the peak (io, network)" \
  "$(echo "$an" | jq '[.[] | select(.kind == "saturation" and (.resource | test(":(io|network)$")))] | length')" 0
check_eq "every finding says how sure (0.5 .. 1)" "$(echo "$an" | jq '[.[] | select(.confidence < 0.5 or .confidence > 1)] | length')" 0
check_eq "unfair sharing against other-load is found" "$(echo "$an" | jq '[.[] | select(.kind == "unfair")] | length > 0')" true
check_contains "anomalies text: the start once, as a UTC date" "$("$TALLY" trace anomalies solo.paje | head -1)" "# times are t+ seconds from the trace's start, t+0 = $(date -u -d "@${start%.*}" +%Y-%m-%d)"

# the disk and network bandwidths given by the user
printf '# host bandwidths\n* disk=200 network=117.5\n' >cap.txt
"$TALLY" trace from-runs solo --capacity cap.txt -o cap.paje
cj=$("$TALLY" trace aggregate cap.paje --level host --format json)
check_eq "disk capacity from --capacity" "$(echo "$cj" | jq '.groups[] | select(.kind == "io") | .capacity')" 200
check_eq "network capacity from --capacity" "$(echo "$cj" | jq '.groups[] | select(.kind == "network") | .capacity')" 117.5
check_eq "  ... not inferred" "$(grep -c 'peak-capacity' cap.paje)" 0
printf 'nohost disk=1\n' >bad.txt
"$TALLY" trace from-runs solo --capacity bad.txt -o x.paje 2>err.txt; st=$?
check_eq "a --capacity host that no run was on exits 125" "$st" 125
check_contains "  ... named" "$(cat err.txt)" "bad.txt:1: no run was on host 'nohost'"
printf '* disk=fast\n' >bad.txt
"$TALLY" trace from-runs solo --capacity bad.txt -o x.paje 2>err.txt
check_contains "a bad --capacity value is named" "$(cat err.txt)" "bad.txt:1: 'disk=fast' is not disk=MB/s or network=MB/s"
# a category named like the other load is refused
jq '.category = "other-load"' solo.summary >clash.summary && cp solo.series clash.series
"$TALLY" trace from-runs clash -o x.paje 2>err.txt; st=$?
check_eq "task category other-load exits 125" "$st" 125
check_contains "  ... and says why" "$(cat err.txt)" 'category "other-load" is the load of what tally did not run'
# an older series (no host columns) reads as before: cpu capacity machine_cpus, no other-load
cp solo.summary old.summary
awk '/^#wall_clock/ { print "#wall_clock cpu_time cores max_concurrent_processes virtual_memory memory swap_memory bytes_read bytes_written bytes_received bytes_sent total_files disk proportional_memory"; next }
     /^#/ { print; next } { for (i = 1; i <= 14; i++) printf "%s%s", $i, i < 14 ? " " : "\n" }' solo.series >old.series
"$TALLY" trace from-runs old -o old.paje
oj=$("$TALLY" trace aggregate old.paje --level host --format json)
check_eq "old series: kinds" "$(echo "$oj" | jq -c '[.groups[].kind]')" '["cpu","io","memory"]'
check_eq "old series: no other-load" "$(echo "$oj" | jq '[.groups[].usage | has("other-load")] | any')" false
check_eq "old series: cpu capacity machine_cpus" "$(echo "$oj" | jq '.groups[] | select(.kind == "cpu") | .capacity')" "$(jq '.machine_cpus[0]' solo.summary)"
finish
