#!/usr/bin/env bash
# Bad limit strings and options: one line naming the bad part, exit 125,
# the command is not run (it would create a marker file).
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
bad() { # DESCRIPTION NEEDLE tally-arguments...
  local d=$1 needle=$2; shift 2
  err=$($TALLY run -o bad "$@" -- touch marker 2>&1 >/dev/null)
  check_eq "$d: exit 125" "$?" 125
  check_contains "$d: message names '$needle'" "$err" "$needle"
  check_eq "$d: one line" "$(printf '%s\n' "$err" | wc -l)" 1
  check "$d: command not run" test ! -e marker
  check "$d: no summary" test ! -e bad.summary
}
bad "unknown field" "memry" --limits 'memry: 2 GB'
bad "bad unit" "GX" --limits 'memory: 2 GX'
bad "not a number" "lots" --limits 'wall_time: lots'
bad "no colon" "memory 2 GB" --limits 'memory 2 GB'
bad "not limitable" "start" --limits 'start: 5'
bad "second item bad" "disk" --limits 'memory: 1 GB, disk: -'
printf 'memory: 1 GB\nwall_time: 1 fortnight\n' > lim
bad "limits file line" "line 2" --limits-file lim
bad "missing limits file" "nofile" --limits-file nofile
bad "bad level" "4" --level 4
bad "missing measure dir" "nodir" --measure-dir nodir
bad "bad interval" "--interval" --interval 0
bad "unknown option" "--bogus" --bogus
# Pids outside (0, pid_max] are refused before any cast to pid_t: 4294967297
# would wrap to 1 and follow (and, with --limits, signal) init.
for v in 4294967297 4294967296 -4294967295 0 -1 $(( $(cat /proc/sys/kernel/pid_max) + 1 )) 99999999999999999999 12x ''; do
  err=$($TALLY run -o bad --limits 'wall_time: 1 s' --pid "$v" 2>&1 >/dev/null)
  check_eq "--pid '$v': exit 125" "$?" 125
  check_contains "--pid '$v': refused as not a pid" "$err" "'$v' is not a pid"
  check_eq "--pid '$v': one line" "$(printf '%s\n' "$err" | wc -l)" 1
  check "--pid '$v': no summary" test ! -e bad.summary
done
for v in abc -5 20000 1e; do
  err=$(TALLY_SPIN_US=$v $TALLY run -o bad -- touch marker 2>&1 >/dev/null)
  check_eq "TALLY_SPIN_US='$v': exit 125" "$?" 125
  check_contains "TALLY_SPIN_US='$v': named" "$err" "TALLY_SPIN_US"
  check_eq "TALLY_SPIN_US='$v': one line" "$(printf '%s\n' "$err" | wc -l)" 1
  check "TALLY_SPIN_US='$v': command not run" test ! -e marker
done
err=$($TALLY run -o /nonexistent/dir/r -- touch marker 2>&1)
check_eq "unwritable report place: 125" "$?" 125
check_contains "unwritable report place: named" "$err" "/nonexistent/dir"
check "unwritable report place: command not run" test ! -e marker
err=$($TALLY run -o x -c 'true' -- touch marker 2>&1)
check_eq "-c and a command: 125" "$?" 125
check "-c and a command: not run" test ! -e marker
out=$($TALLY run --help)
check_eq "--help exits 0" "$?" 0
check_contains "--help shows usage" "$out" "usage: tally run"
finish
