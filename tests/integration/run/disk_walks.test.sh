#!/usr/bin/env bash
# disk and total_files: the directory walked half an interval after the
# start, then at the interval, each walk's figures taken at the next sample,
# and at the end (man tally-run, --measure-dir). A file of 8 MiB that a task
# removes at 0.8 s is in the peak at --interval 0.2 (walks at 0.1, 0.3 ...
# s), and total_files counts it; a task shorter than the interval has the
# end's figures only: a file it removed at 0.1 s is not in its peak (nor
# was it when the first walk was made at the start: no sample took it).
# The walker's thread exists only from its first walk on. Another file
# system mounted inside the directory is not walked (fts's FTS_XDEV, as
# before: a tmpfs in a private mount namespace).
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
mkdir -p d
head -c 1048576 /dev/zero > d/small
$TALLY run -o long --measure-dir d --interval 0.2 -- \
  sh -c 'head -c 8388608 /dev/zero > d/big; sleep 0.8; rm d/big' >/dev/null
check_eq "long task: exit 0" "$?" 0
check_cmp "long task: the 8 MiB file is in the peak" "$(summary_value long.summary disk)" ">" 8.9
check_eq "long task: total_files peak (small and big)" "$(summary_value long.summary total_files)" 2

head -c 4194304 /dev/zero > d/gone
$TALLY run -o short --measure-dir d --interval 1 -- sh -c 'sleep 0.1; rm d/gone; sleep 0.2' >/dev/null
check_eq "short task: exit 0" "$?" 0
check_near "short task: disk is the end's (1 MiB left)" "$(summary_value short.summary disk)" 1 0.05
check_eq "short task: total_files is the end's" "$(summary_value short.summary total_files)" 1

# The walker is a thread of tally's, started when its first walk is due:
# a task shorter than half the interval runs beside tally's main thread
# alone (a thread started and joined unused cost 0.2-0.3 ms of CPU per
# run); one that lasts past it sees the walker too. tally is the command's
# parent at every level.
for level in 1 2 3; do
  threads=$($TALLY run -o thr$level --level $level --measure-dir d --interval 1 -- sh -c 'ls /proc/$PPID/task | wc -l')
  check_eq "level $level, a task of a moment: tally has one thread" "$threads" 1
done
threads=$($TALLY run -o thr --measure-dir d --interval 1 -- sh -c 'sleep 0.7; ls /proc/$PPID/task | wc -l')
check_eq "a task past half the interval: tally has the walker too" "$threads" 2

if unshare -rm true 2>/dev/null; then
  mkdir -p x/mnt
  head -c 100000 /dev/zero > x/f
  TALLY=$TALLY unshare -rm sh -c 'mount -t tmpfs none x/mnt && head -c 300000 /dev/zero > x/mnt/g &&
    "$TALLY" run -o xdev --measure-dir x -- true'
  check_eq "a file system mounted inside: exit 0" "$?" 0
  check_eq "  its file not counted" "$(summary_value xdev.summary total_files)" 1
  check_near "  nor its bytes (x/f's blocks alone)" "$(summary_value xdev.summary disk)" \
    "$(awk -v b="$(stat -c %b x/f)" 'BEGIN { printf "%.6f", b * 512 / 1048576 }')" 0.000001
else
  ok "# SKIP a file system mounted inside: no user namespace to mount a tmpfs in (unshare -rm)"
fi
finish
