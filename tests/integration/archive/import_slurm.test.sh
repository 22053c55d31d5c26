#!/usr/bin/env bash
# tally archive import slurm: sacct --parsable2 output (a fixture in the
# format sacct 22.05 prints with the columns tally asks for: jobs and their
# batch/extern steps, K/M/G sizes, per-CPU ReqMem "2Gc", D-HH:MM:SS times,
# TotalCPU as MM:SS.mmm, TIMEOUT/OUT_OF_MEMORY/CANCELLED states, one bad line)
# becomes one summary per step with requested and used memory, cores, time.
# The fixture was written by hand after sacct's documented format, for the
# cases a test cluster does not produce in seconds (days-long times, OOM,
# per-CPU memory); tests/integration/slurm/accounting.test.sh imports from
# a real slurmdbd with MariaDB. Running sacct without a Slurm database is
# tested to fail cleanly.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
FIX=$TALLY_TEST_ROOT/tests/integration/archive/fixtures/sacct-parsable2.txt
DB=$WORK/slurm.db
out=$("$TALLY" archive --db "$DB" import slurm "$FIX" 2> err.txt); st=$?
check_eq "one bad line: exit 1" "$st" 1
check_eq "counts" "$out" "steps 5, added 5, already archived 0, rejected 1"
check_eq "the bad line named" "$(cat err.txt)" "tally: archive import slurm: $FIX: line 10: Elapsed: '12:34:56:78' is not a valid value"
# the stored summary as the user gets it back (the document is stored packed)
q() { "$TALLY" archive --db "$DB" query --format json "taskid = '$1'" | jq -c '.[0]'; }
check_eq "steps and jobs without steps, not the jobs with steps" "$(sqlite3 "$DB" "select group_concat(taskid, ' ') from (select taskid from summaries order by taskid)")" "1001.batch 1001.extern 1002.batch 1003.batch 1004"
s=$(q 1001.batch)
check_eq "step name = job name.step, category = partition" "$(echo "$s" | jq -c '[.name, .category, .user, .account, .host]')" '["align.batch","compute","alice","bio","node01"]'
check_near "MaxRSS 3512340K in MB" "$(echo "$s" | jq '.memory[0]')" "$(awk 'BEGIN{printf "%.9f", 3512340/1024}')" 1e-9
check_eq "Elapsed 00:10:05, TotalCPU 19:30.118" "$(echo "$s" | jq -c '[.wall_time[0], .cpu_time[0]]')" '[605,1170.118]'
check_eq "requested from the job: 4000M, 2 cores, 01:00:00" "$(echo "$s" | jq -c '[.requested.memory[0], .requested.cores[0], .requested.wall_time[0]]')" '[4000,2,3600]'
check_eq "start and end (UTC)" "$(echo "$s" | jq -c '[.start[0], .end[0]]')" "[$(date -u -d 2026-11-20T10:00:00 +%s),$(date -u -d 2026-11-20T10:10:05 +%s)]"
check_eq "COMPLETED 0:0: normal, 0" "$(echo "$s" | jq -c '[.exit_type, .exit_status]')" '["normal",0]'
s=$(q 1002.batch)
check_eq "OUT_OF_MEMORY: stopped by the memory limit" "$(echo "$s" | jq -c '[.exit_type, .limits_exceeded.memory[0], .memory[0]]')" '["limits",4000,4000]'
s=$(q 1003.batch)
check_eq "1-00:00:14 and 3-23:58:40" "$(echo "$s" | jq -c '[.wall_time[0], .cpu_time[0]]')" '[86414,345520]'
check_eq "2Gc on 4 CPUs = 8192 MB requested; 1.50G used" "$(echo "$s" | jq -c '[.requested.memory[0], .memory[0]]')" '[8192,1536]'
check_eq "the step's own state: CANCELLED" "$(echo "$s" | jq -r .exit_type)" signal
check_near "a job without steps: 2200K" "$(q 1004 | jq '.memory[0]')" "$(awk 'BEGIN{printf "%.9f", 2200/1024}')" 1e-9
# the archive answers about them like any summary
check_eq "stats by name" "$("$TALLY" archive --db "$DB" stats --format json --by name align.batch | jq .count)" 2
check_contains "outliers: the OOM step stopped by a limit" "$("$TALLY" archive --db "$DB" outliers compute)" "was stopped by a limit: memory 4000 MB (reached 4000 MB)"
# importing again adds nothing
check_eq "again: nothing new" "$("$TALLY" archive --db "$DB" import slurm -q "$FIX" 2>/dev/null; sqlite3 "$DB" 'select count(*) from summaries')" 5
# from standard input
check_eq "from -" "$("$TALLY" archive --db "$WORK/stdin.db" import slurm - < "$FIX" 2>/dev/null)" "steps 5, added 5, already archived 0, rejected 1"
# not sacct output
printf 'JobName|State\nx|COMPLETED\n' > nojobid.txt
err=$("$TALLY" archive --db "$WORK/x.db" import slurm nojobid.txt 2>&1); st=$?
check_eq "no JobID column: 125" "$st" 125
check_eq "no JobID column: said" "$err" "tally: archive import slurm: nojobid.txt: line 1: no JobID column: want sacct --parsable2 output with its header (not --noheader)"
check "no JobID column: no archive created" test ! -e "$WORK/x.db"
err=$("$TALLY" archive --db "$WORK/x.db" import slurm - 2>&1 < /dev/null); st=$?
check_eq "empty input: 125, said" "$st: $err" "125: tally: archive import slurm: -: empty input: want sacct --parsable2 output with its header"
check "empty input: no archive created" test ! -e "$WORK/x.db"
# many steps: parsed in one thread while the other writes, in parts and in
# transactions of 50,000 (a site's year is millions of lines)
awk 'BEGIN {
  print "JobID|JobName|User|Account|Partition|State|ExitCode|Elapsed|TotalCPU|ReqMem|MaxRSS|AllocCPUS|Timelimit|Start|End|NodeList"
  for (j = 1; j <= 30000; j++) {
    st = strftime("%Y-%m-%dT%H:%M:%S", 1763596800 + 10 * j, 1); en = strftime("%Y-%m-%dT%H:%M:%S", 1763596800 + 10 * j + 60, 1)
    printf "%d|task%d|alice|bio|p%d|COMPLETED|0:0|00:01:00|00:30.500|%dM||2|01:00:00|%s|%s|node%d\n", j, j % 7, j % 3, 1000 + j % 5, st, en, j % 11
    printf "%d.batch|batch||bio||COMPLETED|0:0|00:01:00|00:30.500||%dK|2||%s|%s|node%d\n", j, 1024 * (j % 100 + 1), st, en, j % 11
    printf "%d.0|task%d||bio||COMPLETED|0:0|00:00:50|00:25.250||%dK|2||%s|%s|node%d\n", j, j % 7, 2048 * (j % 50 + 1), st, en, j % 11
  }
}' > many.txt
out=$("$TALLY" archive --db "$WORK/many.db" import slurm many.txt 2>&1); st=$?
check_eq "30,000 jobs of 2 steps: all added" "$st: $out" "0: steps 60000, added 60000, already archived 0, rejected 0"
check_eq "... each step once" "$(sqlite3 "$WORK/many.db" 'select count(distinct taskid) from summaries')" 60000
p0=$("$TALLY" archive --db "$WORK/many.db" stats --format json --by category p0 2>/dev/null)
check_eq "... the 20,000 steps of partition p0's jobs (a step takes its job's)" "$(echo "$p0" | jq .count)" 20000
check_eq "... their largest MaxRSS: 102400K = 100 MB" "$(echo "$p0" | jq '.resources.memory.max')" 100
# --- read as it comes (a site's year need not fit in memory): a step is
# given at once, a job held until 4,096 other jobs' lines have come after
# it (sacct prints a job's steps right after it), then given if it had none
H="JobID|JobName|User|Account|Partition|State|ExitCode|Elapsed|TotalCPU|ReqMem|MaxRSS|AllocCPUS|Timelimit|Start|End|NodeList"
job_line() { echo "$1|$2|alice|bio|compute|COMPLETED|0:0|00:01:00|00:30.000|100M|1024K|1|00:10:00|2026-11-20T10:00:00|2026-11-20T10:01:00|node01"; }
step_line() { echo "$1|batch||bio||COMPLETED|0:0|00:01:00|00:30.000||$2K|1||2026-11-20T10:00:00|2026-11-20T10:01:00|node01"; }
{ echo "$H"; step_line 2001.batch 2048; job_line 2001 late; } > early.txt
check_eq "a step before its job's line: the step only" "$("$TALLY" archive --db "$WORK/early.db" import slurm early.txt 2>&1)" "steps 1, added 1, already archived 0, rejected 0"
check_eq "... without the job's partition (its line had not come)" "$(sqlite3 "$WORK/early.db" "select taskid || '|' || coalesce(category, '-') from summaries")" "2001.batch|-"
{ echo "$H"; job_line 2002 requeued; step_line 2002.batch 1024; job_line 2002 requeued; step_line 2002.batch 4096; step_line 2002.0 8192; } > requeued.txt
check_eq "a requeued job (its JobID twice, each with its steps): the steps only" "$("$TALLY" archive --db "$WORK/requeued.db" import slurm requeued.txt 2>&1)" "steps 3, added 3, already archived 0, rejected 0"
check_eq "... each with its job's partition" "$(sqlite3 "$WORK/requeued.db" "select group_concat(category, ' ') from summaries")" "compute compute compute"
{ echo "$H"; for j in $(seq 3001 8000); do job_line "$j" lone; done; step_line 3001.batch 1024; } > window.txt
check_eq "5,000 jobs without steps, then a step of the first, 5,000 jobs' lines later" "$("$TALLY" archive --db "$WORK/window.db" import slurm window.txt 2>&1)" "steps 5001, added 5001, already archived 0, rejected 0"
check_eq "... the first job was given before its late step came (out of the window)" "$(sqlite3 "$WORK/window.db" "select count(*) from summaries where taskid in ('3001', '3001.batch')")" 2
check_eq "... the last one held to the end and given" "$(sqlite3 "$WORK/window.db" "select count(*) from summaries where taskid = '8000'")" 1
# sacct failing after some of its output: what it gave is stored, and said
mkdir -p fakebin
{ echo '#!/bin/sh'; echo "echo '$H'"; echo "echo '$(job_line 4001 half)'"; echo "echo '$(step_line 4001.batch 1024)'"; echo 'exit 3'; } > fakebin/sacct
chmod +x fakebin/sacct
err=$(PATH="$PWD/fakebin:$PATH" "$TALLY" archive --db "$WORK/half.db" import slurm 2>&1); st=$?
check_eq "sacct failing midway: 125" "$st" 125
check_contains "... said, with what was stored" "$err" "failed (exit status 3); the 1 steps it gave were stored"
check_eq "... the step it gave stored" "$(sqlite3 "$WORK/half.db" "select taskid from summaries")" "4001.batch"
# a line beyond 1 MB: the import stops there, what came before stored
{ echo "$H"; job_line 5001 long; step_line 5001.batch 1024; head -c 1100000 /dev/zero | tr '\0' x; echo; step_line 5002.batch 1024; } > long.txt
"$TALLY" archive --db "$WORK/long.db" import slurm long.txt > out.txt 2> err.txt; st=$?
check_eq "a line longer than 1 MB: 125" "$st" 125
check_contains "... named, with what was stored" "$(cat err.txt)" "long.txt: line 4 is longer than 1 MB (the 1 steps before it were stored)"
check_eq "... the step before it stored" "$(sqlite3 "$WORK/long.db" "select taskid from summaries")" "5001.batch"
# --- jobs and steps not ended (their own State RUNNING, PENDING...) are not
# stored: their record is not final; imported again once ended, they are
{ echo "$H"; job_line 6001 running | sed 's/|COMPLETED|/|RUNNING|/'; step_line 6001.batch 1024 | sed 's/|COMPLETED|/|RUNNING|/'
  step_line 6001.0 2048; job_line 6002 waiting | sed 's/|COMPLETED|/|PENDING|/'; } > running.txt
check_eq "a running job, its running and its ended step, a pending job: the ended step only (the running step and the pending job not ended)" \
  "$("$TALLY" archive --db "$WORK/running.db" import slurm running.txt 2>&1)" \
  "steps 1, added 1, already archived 0, rejected 0, not ended 2 (not stored: import them again once they end)"
{ echo "$H"; job_line 6001 running; step_line 6001.batch 1024; step_line 6001.0 2048; job_line 6002 waiting; } > ended.txt
check_eq "... once ended: the new steps and the job without steps, the step stored before not again" \
  "$("$TALLY" archive --db "$WORK/running.db" import slurm ended.txt 2>&1)" "steps 3, added 2, already archived 1, rejected 0"
err=$("$TALLY" archive --db "$WORK/x.db" import slurm --start 2026-11-01 ended.txt 2>&1); st=$?
check_eq "--start with a FILE: 125, said" "$st: $err" "125: tally: archive import slurm: --start, --end and --all-users choose what sacct is run for; ended.txt is read as it is"
err=$("$TALLY" archive --db "$WORK/x.db" import slurm --end 'yesterday; rm -rf /' 2>&1); st=$?
check_eq "--end not a time: 125, said" "$st: $err" "125: tally: archive import slurm: --end: 'yesterday; rm -rf /' is not a time (YYYY-MM-DD[THH:MM:SS])"
# running sacct: no Slurm database here, so sacct fails; one line, 125, no archive
if command -v sacct >/dev/null; then
  err=$("$TALLY" archive --db "$WORK/none.db" import slurm 2>&1); st=$?
  check_eq "sacct failing: 125" "$st" 125
  check_contains "sacct failing: says which command" "$(echo "$err" | tail -1)" "tally: archive import slurm: 'sacct --parsable2 --format=JobID,JobName"
  check "sacct failing: no archive created" test ! -e "$WORK/none.db"
fi
finish
