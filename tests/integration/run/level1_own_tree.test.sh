#!/usr/bin/env bash
# A standalone level-1 tally run reads only its own tree: its /proc reading
# follows the tree down from tally (/proc/PID/task/TID/children) and never
# opens the files of the machine's other processes, so its cost does not grow
# with them. Checked with strace on 200 unrelated processes.
. "$(dirname "$0")/../lib.sh"
command -v strace >/dev/null || { not_ok "strace is installed"; finish; }

others=()
for _ in $(seq 200); do sleep 60 & others+=($!); done
# (LeakSanitizer cannot run under ptrace: leak checking off for this run)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=openat -o "$WORK/trace" \
  "$TALLY" run --level 1 --interval 0.1 -o "$WORK/t" -- sh -c 'sleep 1.2 & sleep 1.2; wait'
check_eq "the task ran" "$?" 0
kill "${others[@]}" 2>/dev/null; wait 2>/dev/null

opened=$(grep -oE '"/proc/[0-9]+/' "$WORK/trace" | grep -oE '[0-9]+' | sort -un)
stat_reads=$(grep -cE '"/proc/[0-9]+/stat"' "$WORK/trace")
check_cmp "it sampled its tree (reads of /proc/PID/stat)" "$stat_reads" ">=" 10
foreign=0
for p in "${others[@]}"; do grep -qx "$p" <<<"$opened" && foreign=$((foreign + 1)); done
check_eq "none of the 200 other processes' /proc files was opened" "$foreign" 0
check_eq "no listing of all of /proc" "$(grep -cE 'openat\(AT_FDCWD, "/proc", ' "$WORK/trace")" 0
check_eq "the summary counts the tree (the shell and two sleeps)" "$(summary_value "$WORK/t.summary" total_processes)" 3
finish
