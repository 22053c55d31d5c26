#!/usr/bin/env bash
# tally archive import slurm from a real Slurm accounting database: MariaDB
# and slurmdbd in front of it (slurm_lib.sh's slurm_accounting_start), the
# cluster's jobs sampled by jobacct_gather/linux. Three jobs with known
# truths — one holding 60 MB for 3 s with 500 MB and 2 cores requested,
# measured by tally's plugin too (--tally); one failing with status 3; one
# of 2 tasks — run; then 'tally archive import slurm' runs sacct itself and
# stores one summary per step: requested memory and cores beside what was
# used (sacct's MaxRSS against tally's own exact peak of the same task),
# exit status and type, elapsed time. Importing again adds nothing. A job
# still running is not stored until it has ended.
# Measured here: Slurm's MaxRSS of the 60 MB step was 76.9 MB where tally's
# peak of the task was 62.2 MB: the step also holds the plugin's tally run.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/slurm/slurm_lib.sh"

slurm_accounting_start || { not_ok "MariaDB starts for slurmdbd"; finish; }
slurm_start || { not_ok "Slurm starts with slurmdbd"; finish; }
ok "Slurm starts with accounting in MariaDB (munged, slurmdbd, slurmctld, slurmd)"

srun -J hold60 -n 1 -c 2 --mem=500 -t 5 --tally="$WORK" \
  "$PROGS/hold_memory" 60 0 "$WORK/ready" "$WORK/release" >/dev/null 2>"$WORK/hold.err" &
hold=$!
wait_until 30 test -s "$WORK/ready"
sleep 3
touch "$WORK/release"
wait $hold
check_eq "the 60 MB job ends normally" "$?" 0
srun -J failing -n 1 --mem=100 sh -c 'exit 3' 2>/dev/null
check_eq "the failing job: srun exits with its task's 3" "$?" 3
srun -J pair -n 2 --mem=200 true
check_eq "the 2-task job ends normally" "$?" 0
# slurmctld hands a job's end to slurmdbd a moment after it: wait for the three
recorded() {
  [ "$(sacct -n -X -P -o JobName,State --name hold60,failing,pair | sort | tr '\n' ' ')" = \
    "failing|FAILED hold60|COMPLETED pair|COMPLETED " ]
}
check "slurmdbd has recorded the three jobs' ends" wait_until 30 recorded
job_of() { sacct -n -X -P -o JobID --name "$1" | head -1; }
J1=$(job_of hold60) J2=$(job_of failing) J3=$(job_of pair)

DB=$WORK/slurm.db
out=$("$TALLY" archive --db "$DB" import slurm 2>import.err); st=$?
check_eq "import slurm (running sacct): exit 0" "$st" 0
check_eq "... nothing said on stderr" "$(cat import.err)" ""
steps=$(sqlite3 "$DB" "select count(*) from summaries")
check_contains "... the counts" "$out" "added $steps, already archived 0, rejected 0"
doc() { "$TALLY" archive --db "$DB" query --format json "taskid = '$1'" | jq -c '.[0]'; }
s=$(doc "$J1.0")
check_eq "the 60 MB job's step: its name, category (partition), node" \
  "$(jq -c '[.name, .category, .host]' <<<"$s")" "[\"hold60.0\",\"debug\",\"$(hostname -s)\"]"
check_eq "... requested: 500 MB, 2 cores, 5 min" \
  "$(jq -c '[.requested.memory[0], .requested.cores[0], .requested.wall_time[0]]' <<<"$s")" "[500,2,300]"
sacct_mb=$(jq '.memory[0]' <<<"$s")
tally_mb=$(jq '.memory[0]' "$WORK/slurm-$J1.0.0.summary")
maxrss_k=$(sacct -n -P -o MaxRSS -j "$J1.0" | head -1)
check_near "... used: sacct's own MaxRSS of the step ($maxrss_k), in MB" "$sacct_mb" "$(awk -v k="${maxrss_k%K}" 'BEGIN { printf "%.9f", k / 1024 }')" 1e-6
check_cmp "... at least the 60 MB held" "$sacct_mb" ">=" 60
# the step is the task and the plugin's tally run around it: Slurm's
# figure is tally's exact peak of the task plus tally's own processes
check_cmp "... and at least tally's own peak of the task ($tally_mb MB)" "$sacct_mb" ">=" "$tally_mb"
check_cmp "... elapsed at least the 3 s held" "$(jq '.wall_time[0]' <<<"$s")" ">=" 3
check_eq "... ended normally, status 0" "$(jq -c '[.exit_type, .exit_status]' <<<"$s")" '["normal",0]'
check_eq "the failing job's step: status 3" "$(doc "$J2.0" | jq -c '[.name, .exit_status]')" '["failing.0",3]'
check_eq "the 2-task job's step: 2 cores allocated, 200 MB requested" \
  "$(doc "$J3.0" | jq -c '[.requested.cores[0], .requested.memory[0]]')" "[2,200]"
check_eq "the archive answers about them: stats counts the step by its name" \
  "$("$TALLY" archive --db "$DB" stats --format json --by name hold60.0 | jq .count)" 1
out=$("$TALLY" archive --db "$DB" import slurm 2>/dev/null)
check_eq "importing again adds nothing" "$out" "steps $steps, added 0, already archived $steps, rejected 0"
# a job still running when sacct is run: its steps are not stored until it
# has ended; imported again then, they are (and nothing else again)
srun -J later -n 1 --mem=100 "$PROGS/hold_memory" 10 0 "$WORK/later-ready" "$WORK/later-release" >/dev/null 2>&1 &
later=$!
wait_until 30 test -s "$WORK/later-ready"
running() { [ "$(sacct -n -X -P -o State --name later | head -1)" = RUNNING ]; }
check "the 'later' job is running, as slurmdbd has it" wait_until 30 running
out=$("$TALLY" archive --db "$DB" import slurm 2>/dev/null)
check_contains "import while it runs: its steps not ended, not stored" "$out" "not ended"
check_eq "... none of its steps in the archive" "$(sqlite3 "$DB" "select count(*) from summaries where name like 'later%'")" 0
touch "$WORK/later-release"
wait $later
ended() { [ "$(sacct -n -X -P -o State --name later | head -1)" = COMPLETED ]; }
check "... it ends, as slurmdbd has it" wait_until 30 ended
out=$("$TALLY" archive --db "$DB" import slurm 2>/dev/null)
later_steps=$(sqlite3 "$DB" "select count(*) from summaries where name like 'later%'")
check_cmp "imported again once ended: its steps stored" "$later_steps" ">=" 1
check_eq "... and nothing else again" "$out" "steps $((steps + later_steps)), added $later_steps, already archived $steps, rejected 0"
check_eq "... its step's exit: normal, 0" "$("$TALLY" archive --db "$DB" query --format json "name = 'later.0'" | jq -c '.[0] | [.exit_type, .exit_status]')" '["normal",0]'
finish
