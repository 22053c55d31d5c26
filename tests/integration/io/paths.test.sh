#!/bin/bash
# Level 3: the helper's path scan (sixteen bytes at a time) and the errno it
# leaves (tests/fixtures/progs/io_paths.c): file names whose NUL is the last
# byte before a PROT_NONE page, of every length 1..40, absolute, relative and
# in forms not normal, each counted on its own record; every wrapped call
# leaves the application's errno as it was when it succeeds and sets its own
# error when it fails, the first write to an inherited FIFO included; and
# a program run under valgrind's memcheck sees no read of the helper's past
# a string's end (its exact-size heap strings); the helper's last path
# (each thread's last lookup, found again by comparing bytes) gives each
# file its own counts when one buffer is rewritten between calls, across a
# rename, an unlink and a new file of the same name, a chdir, and threads.
# make check: runs beside other tests
. "$(dirname "$0")/../lib.sh"

P=$PROGS/io_paths
mkdir d
D=$PWD/d
"$TALLY" run --level 3 -o guard -- "$P" guard "$D"
check_eq "names ending before a PROT_NONE page: no fault, every call succeeded" "$?" 0
n=$(jq -r --arg d "$D/" '[.files[] | select(.path | startswith($d))] | length' guard.files.json)
check_eq "80 files, each on its own record" "$n" 80
bad=$(jq -r --arg d "$D/" '[.files[] | select(.path | startswith($d))
        | select(.POSIX_OPENS != 1 or .POSIX_WRITES != 1 or .POSIX_BYTES_WRITTEN != 1) | .path] | length' guard.files.json)
check_eq "each opened once, written once (1 byte)" "$bad" 0
check_eq "g (absolute): the stat by name and //, /./, /../ forms on its record" \
  "$(jq -r --arg d "$D/g" '[.files[] | select(.path | startswith($d)) | .POSIX_STATS] | unique | join(",")' guard.files.json)" 4
check_eq "r (relative): its stat on its record" \
  "$(jq -r --arg d "$D/r" '[.files[] | select(.path | startswith($d)) | .POSIX_STATS] | unique | join(",")' guard.files.json)" 1
check_eq "the longest name whole" \
  "$(jq -r --arg p "$D/g012345678901234567890123456789012345678" '.files[] | select(.path == $p) | .POSIX_OPENS' guard.files.json)" 1

mkfifo fifo
cat fifo >fifo.out &
reader=$!
"$TALLY" run --level 3 -o errno -- "$P" errno "$D" >fifo 2>errno.err
check_eq "errno kept by every call that succeeded, set by every one that failed" "$?" 0
wait "$reader"
check_eq "what went wrong" "$(cat errno.err)" ""
check_eq "the FIFO got its byte" "$(cat fifo.out)" x
check_eq "e.dat counted: 10+5+2 bytes written" \
  "$(jq -r --arg p "$D/e.dat" '.files[] | select(.path == $p) | .POSIX_BYTES_WRITTEN' errno.files.json)" 17
mkdir -p u/s1 u/s2 u/t0 u/t1 u/t2 u/t3
U=$PWD/u
for t in 0 1 2 3; do : >u/t$t/one; : >u/t$t/two-longer; done
"$TALLY" run --level 3 -o reuse -- "$P" reuse "$U"
check_eq "one buffer rewritten between calls: every call succeeded" "$?" 0
counts() { # PATH: opens/stats/bytes written of PATH's record(s), summed
  jq -r --arg p "$1" '[.files[] | select(.path == $p)] | "\([.[].POSIX_OPENS] | add)/\([.[].POSIX_STATS] | add)/\([.[].POSIX_BYTES_WRITTEN] | add)"' reuse.files.json
}
check_eq "ua: opened, written 1 byte, stat'd twice (before and after ub)" "$(counts "$U/ua")" 1/2/1
check_eq "ub: opened twice (unlinked and made again), 2 + 4 bytes, stat'd once" "$(counts "$U/ub")" 2/1/6
check_eq "uab (one byte longer than ua): its own 3 bytes" "$(counts "$U/uab")" 1/0/3
check_eq "u (one byte shorter): its own 4 bytes" "$(counts "$U/u")" 1/0/4
check_eq "uc (ua renamed): its stat" "$(counts "$U/uc")" 0/1/0
check_eq "s1/x: 5 bytes (relative, before the chdir)" "$(counts "$U/s1/x")" 1/0/5
check_eq "s2/x: 6 bytes (the same relative name after the chdir)" "$(counts "$U/s2/x")" 1/0/6
for t in 0 1 2 3; do
  check_eq "thread $t: its one stat'd 2000 times, its two-longer 1000 (stats/opens)" \
    "$(counts "$U/t$t/one") $(counts "$U/t$t/two-longer")" "0/2000/0 0/1000/0"
done

if command -v valgrind >/dev/null; then
  "$TALLY" run --level 3 -o vg -- valgrind -q --error-exitcode=9 "$P" heap "$D" 2>vg.err
  check_eq "under memcheck: no error (exit 0, not 9)" "$?" 0
  check_eq "memcheck said nothing" "$(grep -c 'Invalid read' vg.err)" 0
  check_eq "its 40 files counted, opened and stat'd once each" \
    "$(jq -r --arg d "$D/h" '[.files[] | select(.path | startswith($d)) | select(.POSIX_OPENS == 1 and .POSIX_STATS == 1)] | length' vg.files.json)" 40
else
  ok "# SKIP valgrind is not installed"
fi
finish
