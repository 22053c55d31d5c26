#!/usr/bin/env bash
# Inputs without end: every file a user names is read within a bound and
# the reader says why it stopped, one line, with the documented exit status:
# /dev/zero as a limits file (tally run, tally rm), contract samples, a
# rulebase, a contract, an archive input, a set description, a summary, a
# files report, Slurm's records, a --hierarchy file; a line longer
# than the bound; a FIFO nobody writes to (tally view, contract samples,
# archive add: none may block); and snapshot-event patterns whose automaton
# would blow up (regcomp took 3 GB on "^step " and 24 '+'). Each command
# runs under 'timeout 60': one that reads forever fails the check.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
mkfifo fifo
# expect DESCRIPTION STATUS NEEDLE COMMAND...: the status and the one line
expect() {
  local d=$1 want=$2 needle=$3; shift 3
  timeout 60 "$@" >out 2>err; local rc=$?
  check_eq "$d: exit status" "$rc" "$want"
  check_contains "$d: says why" "$(cat err)" "$needle"
}

expect "run --limits-file /dev/zero" 125 "tally: --limits-file /dev/zero: a NUL byte on line 1: not a text file" \
  "$TALLY" run --limits-file /dev/zero -o r -- true
yes '# a comment' | head -c 1500000 >long.limits
expect "run --limits-file of 1.5 MB of comments" 125 "tally: --limits-file long.limits: larger than 1 MB (the most read from such a file)" \
  "$TALLY" run --limits-file long.limits -o r -- true
{ echo "memory: 1 GB"; head -c 100000 /dev/zero | tr '\0' '#'; echo; } >comment.limits
expect "run --limits-file with a 100 KB comment" 125 "line 2 is longer than 64 KB" \
  "$TALLY" run --limits-file comment.limits -o r -- true
expect "rm --limits-file /dev/zero" 1 "tally: rm: --limits-file /dev/zero: larger than 1 MB" \
  "$TALLY" rm --limits-file=/dev/zero -- true

expect "contract samples /dev/zero" 125 "tally: contract: /dev/zero: a NUL byte on line 1: not a text file" \
  "$TALLY" contract samples /dev/zero
check_eq "contract samples /dev/zero: no output" "$(wc -c <out)" 0
timeout 60 "$TALLY" contract samples fifo >out 2>err
check_eq "contract samples on a FIFO nobody writes to: not waited for (empty: no sample, status 125, no output)" \
  "$?:$(wc -c <out)" "125:0"
check_contains "... and it says there was no sample" "$(cat err)" "tally: contract: fifo: no sample"
for t in 1 2 3 4; do
  printf '{"process":"p","host":"h","t":%d,"period":1,"metrics":{"cpu_share":0.5}}\n' "$t"
done >base.jsonl
expect "contract build --rulebase /dev/zero" 125 "tally: contract build: --rulebase /dev/zero: larger than 1 MB" \
  "$TALLY" contract build base.jsonl -o c.contract --rulebase /dev/zero
expect "contract check /dev/zero" 125 "/dev/zero: larger than 256 MB (the most read from such a file)" \
  "$TALLY" contract check /dev/zero base.jsonl

expect "archive add /dev/zero" 1 "tally: archive add: /dev/zero: a document longer than 256 MB (the most one may take)" \
  "$TALLY" archive add --db a.db /dev/zero
expect "archive add on a FIFO nobody writes to" 1 "tally: archive add: fifo: empty" \
  "$TALLY" archive add --db a.db fifo
echo '{"command": "true", "category": "c", "exit_status": 0}' >s.summary
expect "archive add --set-description /dev/zero" 125 "--set-description /dev/zero: larger than 1 MB" \
  "$TALLY" archive add --db a.db --set s1 --set-description /dev/zero s.summary

# the readers of summaries (trace from-runs, contract samples of a run,
# tally mpi), of a level-3 files report, of Slurm's records, of a workflow
# set's description and of a trace's --hierarchy
ln -s /dev/zero zero.summary
expect "contract samples zero.summary (/dev/zero)" 125 "tally: contract: zero.summary: larger than 256 MB (the most read from such a file)" \
  "$TALLY" contract samples zero.summary
expect "trace from-runs on a summary that is /dev/zero" 125 "zero.summary: larger than 256 MB (the most read from such a file)" \
  "$TALLY" trace from-runs zero -o z.paje
mkfifo f.summary
expect "trace from-runs on a summary that is a FIFO nobody writes to" 125 "f.summary: " \
  "$TALLY" trace from-runs f -o f.paje
expect "view --files /dev/zero" 125 "tally: view: --files /dev/zero: larger than 256 MB (the most read from such a file)" \
  "$TALLY" view --files /dev/zero -o files.html
expect "view --files on a FIFO nobody writes to" 125 "tally: view: --files fifo: " \
  "$TALLY" view --files fifo -o files.html
expect "archive import slurm /dev/zero" 125 "tally: archive import slurm: /dev/zero: a NUL byte on line 1: not a text file" \
  "$TALLY" archive import slurm --db a.db /dev/zero
expect "archive import slurm of an endless line" 125 "tally: archive import slurm: -: line 1 is longer than 1 MB" \
  bash -c "tr '\\0' x < /dev/zero | '$TALLY' archive import slurm --db a.db -"
expect "archive import slurm on a FIFO nobody writes to" 125 "tally: archive import slurm: fifo: " \
  "$TALLY" archive import slurm --db a.db fifo
mkdir wf; cp s.summary wf/
expect "archive import --set-description /dev/zero" 125 "tally: archive import: --set-description /dev/zero: larger than 1 MB" \
  "$TALLY" archive import --db a.db --set-description /dev/zero wf
expect "trace --hierarchy /dev/zero" 125 "/dev/zero: a NUL byte on line 1: not a text file" \
  "$TALLY" trace aggregate "$TALLY_TEST_ROOT/tests/fixtures/traces/hierarchy.paje" --hierarchy /dev/zero
timeout 60 "$TALLY" trace aggregate "$TALLY_TEST_ROOT/tests/fixtures/traces/hierarchy.paje" --hierarchy fifo >out 2>err
check_eq "trace --hierarchy on a FIFO nobody writes to: not waited for (read as an empty file: no regrouping)" "$?" 0

expect "view on a FIFO" 125 "tally: fifo: is a FIFO, not a regular file" "$TALLY" view fifo -o v.html
expect "view on a directory" 125 "tally: /tmp: Is a directory" "$TALLY" view /tmp -o v.html

printf '{"log": {"events": [{"label": "s", "on-pattern": "^step %s"}]}}\n' \
  "$(printf '+%.0s' $(seq 24))" >stacked.json
expect "snapshot pattern '^step ' and 24 '+'" 1 \
  "on-pattern: column 8: a repetition right after another ('++')" \
  "$TALLY" rm --snapshot-events=stacked.json -- true
echo '{"log": {"events": [{"label": "s", "on-pattern": "((a{100}){100}){100}"}]}}' >nested.json
expect "snapshot pattern ((a{100}){100}){100}" 1 "repetition bounds multiply past 4096" \
  "$TALLY" rm --snapshot-events=nested.json -- true
echo '{"log": {"events": [{"label": "s", "on-pattern": "a{1000}"}]}}' >big.json
expect "snapshot pattern a{1000}" 1 "column 2: a repetition bound over 255" \
  "$TALLY" rm --snapshot-events=big.json -- true
printf '{"log": {"events": [{"label": "s", "on-pattern": "%s"}]}}\n' "$(head -c 2000 /dev/zero | tr '\0' a)" >long.json
expect "snapshot pattern of 2000 bytes" 1 "2000 bytes long (at most 1024)" \
  "$TALLY" rm --snapshot-events=long.json -- true
# the files snapshot events watch are the task's logs: /dev/zero was read
# without end (24 GB before the kernel killed tally), a FIFO waited on
echo '{"/dev/zero": {"events": [{"label": "s", "on-pattern": "x"}]}}' >zero.json
expect "snapshot events watching /dev/zero" 1 "'/dev/zero': not a regular file (events watch a file the task writes)" \
  "$TALLY" rm --snapshot-events=zero.json -- true
echo '{"fifo": {"events": [{"label": "s", "on-pattern": "x"}]}}' >fifo.json
expect "snapshot events watching a FIFO" 1 "'fifo': not a regular file" \
  "$TALLY" rm --snapshot-events=fifo.json -- true
echo '{"later": {"events": [{"label": "c", "on-create": true}, {"label": "s", "on-pattern": "x"}]}}' >later.json
timeout 60 "$TALLY" rm --snapshot-events=later.json -- sh -c 'mkfifo later; sleep 2' >out 2>err
check_eq "a watched file made a FIFO while the task runs is not read (not waited on): exit 0" "$?" 0
echo '{"log": {"events": [{"label": "s", "on-pattern": "^step [[:digit:]]+ of [0-9]{1,3}[]+x]?$"}]}}' >fine.json
timeout 60 "$TALLY" rm --snapshot-events=fine.json -- true 2>err
check_eq "an ordinary pattern (classes, brackets, bounds) is accepted" "$?" 0
finish
