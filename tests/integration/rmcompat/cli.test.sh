#!/usr/bin/env bash
# tally as resource_monitor, on the command line: the same exit statuses as
# cctools' resource_monitor for the same runs, its summary layout (verbatim
# fields, limits_exceeded, exit_type), series header and file names, read by
# cctools' own parser; bad input: one line, status 1 (bad usage) or 4
# (monitor error), as resource_monitor.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/rmcompat/common.sh"

# real_rm PREFIX ARGS...: cctools' resource_monitor, bounded to 60 s; on this
# loaded machine 9.9 sometimes hangs (seen with --sh 'kill -9 $$') or writes
# an empty summary, so the reference run is tried up to three times; sets rc_r
real_rm() {
  local prefix=$1; shift
  for _ in 1 2 3; do
    rm -f "$prefix".*
    timeout -k 5 60 "$RM_REAL" --no-pprint -O "$prefix" "$@" >/dev/null 2>"$prefix.err"; rc_r=$?
    [ "$rc_r" -ne 124 ] && [ "$rc_r" -ne 137 ] && jq -e . "$prefix.summary" >/dev/null 2>&1 && return
  done
}
# both NAME ARGS...: the same command under tally (prefix t-NAME, bounded to
# 60 s) and under resource_monitor (r-NAME); sets rc_t, rc_r
both() {
  local name=$1; shift
  timeout -k 5 60 "$RM_TALLY" --no-pprint -O "t-$name" "$@" >/dev/null 2>"t-$name.err"; rc_t=$?
  real_rm "r-$name" "$@"
}

both ok -V 'category: small' -V 'taskid: 7' --sh 'echo hi > out.txt'
check_eq "exit 0 as resource_monitor" "$rc_t" "$rc_r"
check_eq "verbatim fields first, as strings" "$(jq -c '[keys_unsorted[0:2], .category, .taskid]' t-ok.summary)" \
  '[["category","taskid"],"small","7"]'
check_eq "--no-pprint: the summary on one line" "$(wc -l < t-ok.summary)" 1
both false -- false
check_eq "command exits 1: status 1 as resource_monitor" "$rc_t" "$rc_r"
check_eq "exit_status in the summary" "$(summary_value t-false.summary exit_status)" \
  "$(summary_value r-false.summary exit_status)"
# (not --sh 'kill -9 $$': resource_monitor 9.9 hangs on it here now and then)
both signal -- perl -e 'kill 9, $$'
check_eq "command killed by a signal: status 1 as resource_monitor" "$rc_t/$rc_r" "1/1"
check_eq "signal summary as resource_monitor (exit_type, exit_status, signal)" \
  "$(jq -c '[.exit_type, .exit_status, .signal]' t-signal.summary)/$(jq -c '[.exit_type, .exit_status, .signal]' r-signal.summary)" \
  '["signal",137,9]/["signal",137,9]'

HOG='head -c 300000000 /dev/zero | tail -c 250000000 | (sleep 4; cat > /dev/null)'
both limit -i 1 -L 'memory: 20' --sh "$HOG"
check_eq "a broken limit: status 2 (RM_OVERFLOW) as resource_monitor" "$rc_t" "$rc_r"
check_eq "limit summary as resource_monitor (exit_type, limits_exceeded, exit_status)" \
  "$(jq -c '[.exit_type, .limits_exceeded, .exit_status]' t-limit.summary)" \
  "$(jq -c '[.exit_type, .limits_exceeded, .exit_status]' r-limit.summary)"
check_cmp "tally stopped the task well before the 4 s its memory is held" "$(summary_value t-limit.summary wall_time)" "<" 3
check_eq "  nothing about the limit on stderr, as resource_monitor (a rule's stderr may be its output)" \
  "$(grep -ci 'limit' t-limit.err)/$(grep -ci 'limit' r-limit.err)" "0/0"
timeout -k 5 60 "$RM_TALLY" -O t-limitlog -i 1 -L 'memory: 20' -d all -o limit.log --sh "$HOG" 2>/dev/null
check_contains "  the reason in the debug log (-d, -o)" "$(cat limit.log)" "memory limit 20 MB exceeded (peak "

both notfound -- /nonexistent/command
check_eq "command not found: status 4 (monitor error) as resource_monitor" "$rc_t" "$rc_r"
check_eq "  and one line on stderr" "$(wc -l < t-notfound.err)" 1
both unwritable -- true
"$RM_TALLY" -O /etc/passwd/x -- true 2>t-unwritable.err; rc_t=$?
timeout -k 5 60 "$RM_REAL" -O /etc/passwd/x -- true 2>/dev/null; rc_r=$?
check_eq "report directory cannot be made: status 4 as resource_monitor" "$rc_t" "$rc_r"
check_eq "  one line naming it" "$(grep -c '/etc/passwd' t-unwritable.err)/$(wc -l < t-unwritable.err)" "1/1"
"$RM_TALLY" --bogus -- true >/dev/null 2>bogus.err; rc_t=$?
timeout -k 5 60 "$RM_REAL" --bogus -- true >/dev/null 2>&1; rc_r=$?
check_eq "unknown option: status 1 as resource_monitor" "$rc_t" "$rc_r"
check_eq "  one line: tally: ... '--bogus'" "$(grep -c "^tally: .*'--bogus'" bogus.err)/$(wc -l < bogus.err)" "1/1"

# cctools' reader (Makeflow's rmsummary_parse_file_single; the histograms' path)
"$CCTOOLS_READER" t-ok.summary t-limit.summary t-signal.summary >reader.out 2>reader.err
check_eq "cctools' parser reads every tally summary" "$?" 0
check_eq "  without a notice about unknown fields" "$(wc -c < reader.err)" 0
line=$(grep 't-limit.summary' reader.out)
check_eq "  limit run: exit_type" "$(field "$line" exit_type)" limits
check_eq "  limit run: limits_exceeded.memory" "$(field "$line" limits_exceeded.memory)" 20
check_cmp "  limit run: memory measured past the limit" "$(field "$line" memory)" ">" 20
line=$(grep 't-ok.summary' reader.out)
check_eq "  category and taskid from -V" "$(field "$line" category)/$(field "$line" taskid)" small/7

# reports: names and layouts
"$RM_TALLY" -O out/deep/run --with-time-series --with-inotify -i 0.2 --sh 'exec 3> written.txt; echo x >&3; sleep 0.7' 2>/dev/null
check_eq "-O makes the directories; .summary .series .files" "$(cd out/deep && ls | tr '\n' ' ')" "run.files run.series run.summary "
real_rm real --with-time-series -i 1 -- sleep 0.3
check_eq "series header: resource_monitor's columns" "$(grep '^#wall_clock' out/deep/run.series | tr -s ' ')" \
  "$(grep '^#wall_clock' real.series | tr -s ' ')"
check_cmp "series rows (0.2 s interval over 0.7 s)" "$(grep -vc '^#' out/deep/run.series)" ">=" 3
check_contains "files report names what the task wrote" "$(cat out/deep/run.files)" "$WORK/written.txt"
check_eq "pretty-printed summary by default" "$(jq -r .command out/deep/run.summary)/$(test "$(wc -l < out/deep/run.summary)" -gt 10 && echo many)" \
  "exec 3> written.txt; echo x >&3; sleep 0.7/many"

"$RM_TALLY" -O nodisk --without-disk-footprint -- true
check_eq "--without-disk-footprint: no disk, no total_files" "$(jq -c '[has("disk"), has("total_files"), has("memory")]' nodisk.summary)" '[false,false,true]'
timeout -k 5 60 "$RM_TALLY" -O measured --measure-only -L 'wall_time: 0.3' -- sleep 1; rc_t=$?
real_rm measured-r --measure-only -L 'wall_time: 0.3' -- sleep 1
check_eq "--measure-only: status as resource_monitor" "$rc_t" "$rc_r"
check_eq "--measure-only summary as resource_monitor (exit_type, limits_exceeded)" \
  "$(jq -c '[.exit_type, .limits_exceeded.wall_time[0]]' measured.summary)" \
  "$(jq -c '[.exit_type, .limits_exceeded.wall_time[0]]' measured-r.summary)"
check_cmp "  the task ran to its end" "$(summary_value measured.summary wall_time)" ">=" 1
printf '# old names from the man page\nresident_memory: 15\nbandwidth: 1\n' > limits.txt
"$RM_TALLY" -O lf -i 1 -l limits.txt --sh "$HOG" 2>lf.err; rc_t=$?
check_eq "--limits-file with resident_memory: broken, status 2" "$rc_t" 2
check_eq "  limits_exceeded.memory" "$(jq -c '.limits_exceeded.memory[0]' lf.summary)" 15
check_contains "  bandwidth skipped with a warning" "$(cat lf.err)" "ignored: bandwidth"
mkdir -p limits.d
"$RM_TALLY" -O lfd -l limits.d -- true 2>lfd.err; rc_t=$?
check_eq "--limits-file naming a directory: status 1, one line, the command not run" \
  "$rc_t/$(grep -c 'limits.d: Is a directory' lfd.err)/$(wc -l < lfd.err)/$(test -e lfd.summary && echo ran)" "1/1/1/"

"$RM_TALLY" -O x -L 'memry: 5' -- true 2>memry.err; rc_t=$?
check_eq "-L unknown field: status 1, one line naming it" "$rc_t/$(grep -c "'memry'" memry.err)/$(wc -l < memry.err)" "1/1/1"
check "  and the command did not run" test ! -e x.summary
"$RM_TALLY" -V nocolon -- true 2>v.err; rc_t=$?
check_eq "-V without ':': status 1, one line" "$rc_t/$(wc -l < v.err)" "1/1"
"$RM_TALLY" -O y 2>none.err; rc_t=$?
check_eq "no command: status 1, one line" "$rc_t/$(wc -l < none.err)" "1/1"
"$RM_TALLY" -O y -i soon -- true 2>i.err; rc_t=$?
check_eq "-i soon: status 1, one line" "$rc_t/$(wc -l < i.err)" "1/1"

# --snapshot-events: each event waits until the monitor wrote the previous
# snapshot (PREFIX.snapshot.NN), so that they are seen one by one
cat > events.json <<'JSON'
{"log.txt": {"events": [{"label": "started", "on-create": true}, {"label": "step", "on-pattern": "^STEP"}]},
 "please-snap": {"delete-if-found": true, "events": [{"label": "manual", "on-create": true}]}}
JSON
snap_script() {
  echo "w() { for i in \$(seq 300); do [ -e $1.snapshot.\$1 ] && return; sleep 0.1; done; }
    echo hello > log.txt; w 00; printf 'STEP 1\nSTEP 2\nother\n' >> log.txt; w 01
    touch please-snap; w 02; echo STEP 3 >> log.txt; w 03"
}
rm -f log.txt; timeout -k 5 60 "$RM_TALLY" --no-pprint -O snap-t -i 0.5 --snapshot-events events.json --sh "$(snap_script snap-t)"; rc_t=$?
# resource_monitor 9.9 gave the same four snapshots for this script when run by
# hand (in its PREFIX.snapshot.NN files: its summary of this command is not
# valid JSON, a '\n' badly escaped), but on a loaded machine it misses pattern
# events or stalls for minutes: it is not run here, its result is the
# expected value below.
check_eq "--snapshot-events: status 0" "$rc_t" 0
check_eq "  the snapshots resource_monitor takes" "$(jq -c '[.snapshots[].snapshot_name]' snap-t.summary)" '["started(1)","step(2)","manual(1)","step(1)"]'
check_eq "  each also in PREFIX.snapshot.NN" "$(ls snap-t.snapshot.* | tr '\n' ' ')" \
  "snap-t.snapshot.00 snap-t.snapshot.01 snap-t.snapshot.02 snap-t.snapshot.03 "
check "  delete-if-found removed the trigger file" test ! -e please-snap
"$CCTOOLS_READER" snap-t.summary >/dev/null 2>snap.err
check_eq "  cctools' parser reads the snapshots" "$?/$(wc -c < snap.err)" "0/0"
echo '{"log.txt": {"events": [{"label": "bad label", "on-create": true}]}}' > bad-events.json
"$RM_TALLY" -O x --snapshot-events bad-events.json -- true 2>bad-events.err; rc_t=$?
check_eq "--snapshot-events with a bad label: status 1, one line naming it" \
  "$rc_t/$(grep -c 'label' bad-events.err)/$(wc -l < bad-events.err)" "1/1/1"

"$TALLY" rm -O sub --no-pprint -V 'category: c' -- true; rc_t=$?
check_eq "'tally rm' is the same front end" "$rc_t/$(jq -r .category sub.summary)" "0/c"
ln -s "$TALLY" cctools-monitor
./cctools-monitor --no-pprint --with-output-files=wq -V 'task_id: 3' -dall -o wq.debug --sh 'true'; rc_t=$?
check_eq "as cctools-monitor (Work Queue's name): status, task_id" "$rc_t/$(jq -r .task_id wq.summary)" "0/3"
check_contains "  -dall -o FILE writes the debug log" "$(cat wq.debug)" "command: true"
check_eq "--help: status 0" "$("$RM_TALLY" --help >/dev/null; echo $?)" 0
check_contains "-v names tally" "$("$RM_TALLY" -v)" "tally"
finish
