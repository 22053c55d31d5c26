#!/usr/bin/env bash
# tally trace from-runs on real 'tally run --category C --time-series'
# outputs: CPU capacity = machine_cpus, each category's CPU usage integrates
# to the CPU time its tasks' series recorded, memory and I/O resources, host
# -> site grouping, a Paje file pj_dump reads, and bad inputs.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
RUN=${TALLY_RELEASE:-$TALLY}   # the tasks are measured by the optimised build
busy() { echo "i=0; while [ \$i -lt $1 ]; do i=\$((i+1)); done"; }

"$RUN" run --category burst --time-series --interval 0.2 -o r1 -c "$(busy 200000)" &
"$RUN" run --category continuous --time-series --interval 0.2 -o r2 -c "$(busy 300000)" &
wait
"$RUN" run --category burst --time-series --interval 0.2 -o r3 -c "$(busy 100000)"
check "tally run wrote the series" test -s r1.series -a -s r2.series -a -s r3.series
# a fourth run "gathered from another host": the same outputs with another host name
jq '.host = "far"' r3.summary >r4.summary && cp r3.series r4.series

"$TALLY" trace from-runs r1 r2 r3 r4 -o runs.paje
check "from-runs wrote a trace" test -s runs.paje
# A shell glob names every file of each run (r1.series, r1.summary, ...):
# each run is taken once, and the trace is the same.
err=$("$TALLY" trace from-runs r[1-4]* -o glob.paje 2>&1)
check_eq "from-runs r[1-4]* (a run's files name the run): no error" "$err" ""
check "... the same trace as from the prefixes" cmp -s runs.paje glob.paje
json=$("$TALLY" trace aggregate runs.paje --level host --format json)
span=$(echo "$json" | jq '.to - .from')
host=$(jq -r .host r1.summary)
cpus=$(jq '.machine_cpus[0]' r1.summary)
cpu() { echo "$json" | jq --arg h "$1" --arg c "$2" ".groups[] | select(.name == \$h and .kind == \"cpu\") | $3"; }
check_eq "cpu capacity = machine_cpus" "$(cpu "$host" x .capacity)" "$cpus"
# integral of usage = cpu_time at each task's last sample (cores = d cpu_time / d t)
last_cpu() { awk '!/^#/ { c = $2 } END { print c }' "$1.series"; }
burst_cpu=$(awk -v a="$(last_cpu r1)" -v b="$(last_cpu r3)" 'BEGIN { print a + b }')
check_near "burst cpu-seconds on $host" "$(awk -v u="$(cpu "$host" burst '.usage.burst')" -v s="$span" 'BEGIN { print u * s }')" "$burst_cpu" 0.01
check_near "continuous cpu-seconds on $host" "$(awk -v u="$(cpu "$host" c '.usage.continuous')" -v s="$span" 'BEGIN { print u * s }')" "$(last_cpu r2)" 0.01
check_near "burst cpu-seconds on far" "$(awk -v u="$(cpu far b '.usage.burst')" -v s="$span" 'BEGIN { print u * s }')" "$(last_cpu r4)" 0.01
check_cmp "the busy loops did use CPU" "$burst_cpu" ">" 0.05
# memory and io are resources of each host too
check_eq "kinds per host" "$(echo "$json" | jq -c --arg h "$host" '[.groups[] | select(.name == $h) | .kind]')" '["cpu","io","memory","network"]'
# memory capacity is the host's MemTotal (recorded in the series), not a peak
memtotal=$(awk '/^MemTotal:/ { printf "%.3f", $2 / 1024 }' /proc/meminfo)
check_near "memory capacity = MemTotal" "$(echo "$json" | jq --arg h "$host" '.groups[] | select(.name == $h and .kind == "memory") | .capacity')" "$memtotal" 0.001
check_eq "memory capacity is not inferred" "$(grep -c 'memory.peak-capacity' runs.paje)" 0
check_eq "disk capacity without --capacity is inferred" "$(grep -c '"io.peak-capacity"' runs.paje)" 1
check_cmp "memory used by continuous" "$(echo "$json" | jq --arg h "$host" '.groups[] | select(.name == $h and .kind == "memory") | .usage.continuous')" ">" 0
# eq. 1 holds at every moment: the two loops fill both cores, and the tick
# error of sampled cpu_time (10 ms over ~0.2 s intervals) that would push the
# sum past the cores is moved back to earlier intervals by from-runs
check_cmp "cpu used <= cores over the run" "$(cpu "$host" x '.usage.burst + .usage.continuous')" "<=" "$cpus"
check_eq "no eq. 1 break anywhere" "$("$TALLY" trace aggregate runs.paje --format json 2>/dev/null | jq '.violations | length')" 0

# the writer's Paje reads in pj_dump
pj_dump runs.paje >dump.csv 2>pj.err
check_eq "pj_dump reads from-runs output" "$(cat pj.err)" ""
check_eq "pj_dump sees cpu.capacity = machine_cpus" "$(awk -F', *' -v h="$host" '$1=="Variable" && $2==h && $3=="cpu.capacity" {print $7+0; exit}' dump.csv)" "$cpus"

# host -> site grouping
printf '%s siteA\nfar siteB\n' "$host" >sites.txt
"$TALLY" trace from-runs r1 r2 r3 r4 --hierarchy sites.txt -o sites.paje
sites=$("$TALLY" trace aggregate sites.paje --level site --kind cpu --format json)
check_eq "two sites" "$(echo "$sites" | jq -c '[.groups[].name]')" '["siteA","siteB"]'
check_eq "siteB = far" "$(echo "$sites" | jq '.groups[1].usage.burst')" "$(cpu far b '.usage.burst')"

# bad inputs
"$TALLY" trace from-runs nothere -o x.paje 2>err.txt; st=$?
check_eq "missing summary exits 125" "$st" 125
check_contains "missing summary named" "$(cat err.txt)" "nothere.summary"
check "nothing written" test ! -e x.paje
jq 'del(.category)' r1.summary >nocat.summary && cp r1.series nocat.series
"$TALLY" trace from-runs nocat -o x.paje 2>err.txt; st=$?
check_contains "summary without category" "$(cat err.txt)" 'needs "category" (run with --category)'
cp r1.summary noseries.summary
"$TALLY" trace from-runs noseries -o x.paje 2>err.txt; st=$?
check_contains "missing series" "$(cat err.txt)" "noseries.series: No such file or directory (run with --time-series)"
cp r1.summary garbled.summary && { head -3 r1.series; echo "1 2 x"; } >garbled.series
"$TALLY" trace from-runs garbled -o x.paje 2>err.txt; st=$?
check_eq "garbled series exits 125" "$st" 125
check_contains "garbled series names the line" "$(cat err.txt)" "garbled.series:4: bad number 'x'"
# a value out of range (found by tests/fuzz/from_runs_fuzz.c: "1e999" became
# inf, and the trace written could not be read back)
cp r1.summary huge.summary && { head -3 r1.series; sed -n 4p r1.series | awk '{ $6 = "1e999"; print }'; } >huge.series
"$TALLY" trace from-runs huge -o x.paje 2>err.txt; st=$?
check_eq "a value out of range exits 125" "$st" 125
check_contains "a value out of range names the line" "$(cat err.txt)" "huge.series:4: bad number '1e999'"
# finite values, infinite rate: samples 1e-300 s apart (found by
# tests/fuzz/from_runs_fuzz.c: the trace written could not be read back)
jq '.start = [0, "s"]' r1.summary >close.summary
printf '#wall_clock cpu_time memory bytes_read bytes_written\n1e-300 0 1 0 0\n2e-300 1e10 1 0 0\n' >close.series
"$TALLY" trace from-runs close -o x.paje 2>err.txt; st=$?
check_eq "samples too close together exit 125" "$st" 125
check_contains "samples too close together: the host is named" "$(cat err.txt)" \
  "host $(jq -r .host r1.summary): its series give a value too large to represent"
# a host named like the root (found by tests/fuzz/from_runs_fuzz.c: host "0",
# the root's alias, was merged into the root, and the export held no event)
for name in 0 root; do
  jq --arg h "$name" '.host = $h' r1.summary >rootname.summary && cp r1.series rootname.series
  "$TALLY" trace from-runs rootname -o rootname.paje 2>err.txt
  check_eq "a host named '$name' is a host" \
    "$("$TALLY" trace aggregate rootname.paje --level host --format json | jq -r '[.groups[].name] | unique | join(",")')" "$name"
done
# a comment longer than any buffer stays one line (its end was read as data)
cp r1.summary longcomment.summary
{ printf '# '; head -c 9000 /dev/zero | tr '\0' x; echo; cat r1.series; } >longcomment.series
"$TALLY" trace from-runs longcomment -o longcomment.paje 2>err.txt; st=$?
check_eq "a 9000-byte comment in a series is skipped (exit 0)" "$st" 0
# a run too short for any sample: its series holds only the header (found by
# tests/fuzz/from_runs_fuzz.c: sorting no steps passed NULL to qsort, UB)
cp r1.summary nosample.summary && head -3 r1.series >nosample.series
"$TALLY" trace from-runs nosample -o nosample.paje 2>err.txt; st=$?
check_eq "a series without samples is a host without usage (exit 0)" "$st" 0
check_eq "  ... whose trace has the host" "$("$TALLY" trace aggregate nosample.paje --level host --format json | jq -r '.groups[0].name')" "$(jq -r .host r1.summary)"
finish
