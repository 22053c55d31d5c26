#!/bin/bash
# Level 3 without ptrace (issue 19, item 5): the helper's regions tell tally
# of every process it runs in, so that a process that starts and ends
# between two samples is counted exactly once, with its I/O, and nothing of
# the tree is stopped or traced. A static program, which the helper cannot
# enter, is still counted when a helper process forked it.
. "$(dirname "$0")/../lib.sh"

mkdir d
D=$PWD/d

"$TALLY" run --level 3 -o tr -- sh -c 'grep TracerPid /proc/self/status' >tracer.out
check_eq "level 3: runs" "$?" 0
check_eq "no process of the tree is traced (TracerPid 0)" "$(awk '{print $2}' tracer.out)" 0
"$TALLY" run --level 2 -o tr2 -- sh -c 'grep TracerPid /proc/self/status' >tracer2.out
check_cmp "the same at level 2 is traced (control)" "$(awk '{print $2}' tracer2.out)" ">" 0

# 300 processes of about 1 ms each, appending 2 bytes each through an
# inherited descriptor (bash's redirection, opened in the forked child),
# with samples 5 s apart: most start and end between two scans.
"$TALLY" run --level 3 --interval 5 -o loop -- \
  bash -c 'for i in $(seq 300); do dd if=/dev/zero bs=2 count=1 status=none >>"$1"; done' _ "$D/f"
check_eq "the loop runs" "$?" 0
check_eq "the file has 600 bytes" "$(stat -c %s "$D/f")" 600
check_eq "every process counted once: bash, seq's subshell, 300 dd" "$(summary_value loop.summary total_processes)" 302
check_eq "each one has its region" "$(jq -r '.io.processes_interposed' loop.summary)" 302
check_eq "none left uninterposed" "$(jq -r '.io.not_interposed | length' loop.summary)" 0
f() { jq -r --arg p "$D/f" --arg c "$1" '.files[] | select(.path == $p) | .[$c]' loop.files.json; }
check_eq "the file's bytes, from 300 processes" "$(f POSIX_BYTES_WRITTEN)" 600
check_eq "one write per dd" "$(f POSIX_WRITES)" 300
check_eq "one open per redirection" "$(f POSIX_OPENS)" 300
check_eq "300 pids wrote or opened it" \
  "$(jq -r --arg p "$D/f" '[.files[] | select(.path == $p) | .processes[].pid] | unique | length' loop.files.json)" 300
check_eq "each dd's end is recorded" \
  "$(jq -r '[.processes[] | select(.exe == "/usr/bin/dd" and .ended_by == "exit")] | length' loop.files.json)" 300
t0=$(f POSIX_F_WRITE_START_TIMESTAMP); t1=$(f POSIX_F_WRITE_END_TIMESTAMP)
check "write timestamps in the run (time-stamp counter turned into seconds)" \
  awk -v a="$t0" -v b="$t1" -v w="$(summary_value loop.summary wall_time)" 'BEGIN { exit !(a > 0 && b > a && b <= w + 0.05) }'

# Executables' names: the first image started by a path reads
# /proc/self/exe, later ones take the name the run file's cache kept for
# that path; a script's image is its interpreter, whatever path started it.
printf '#!/bin/sh\nexit 0\n' >"$D/script.sh"; chmod +x "$D/script.sh"
"$TALLY" run --level 3 -o names -- bash -c 'for i in 1 2 3; do /bin/true; done; for i in 1 2; do "$1"; done' _ "$D/script.sh"
check_eq "names: runs" "$?" 0
check_eq "three images of /bin/true, each named by its resolved path" \
  "$(jq -r --arg e "$(readlink -f /bin/true)" '[.processes[] | select(.exe == $e)] | length' names.files.json)" 3
check_eq "two images of the script, each named by its interpreter" \
  "$(jq -r --arg e "$(readlink -f /bin/sh)" '[.processes[] | select(.exe == $e)] | length' names.files.json)" 2
check_eq "none named as not interposed" "$(jq -r '.not_interposed | length' names.files.json)" 0

# A static program started by the shell (dash: vfork, then exec): no helper
# in it, counted from the region its vfork child noted before the exec, and
# named as not interposed with its exec target.
"$TALLY" run --level 3 --interval 5 -o st -- \
  sh -c "for i in 1 2 3; do '$PROGS/io_write_static' '$D/s\$i' 10; done"
check_eq "three static children: runs" "$?" 0
check_eq "sh and its three static children counted" "$(summary_value st.summary total_processes)" 4
check_eq "each has a region (the vfork child's note)" "$(jq -r '[.processes[].pid] | unique | length' st.files.json)" 4
check_eq "the three static ones are named" \
  "$(jq -r '[.not_interposed[] | select(.why == "static binary" and .exe == "'"$PROGS"'/io_write_static")] | length' st.files.json)" 3
check_eq "their bytes are in the kernel's totals (30 bytes)" \
  "$(awk -v b="$(summary_value st.summary bytes_written)" 'BEGIN { printf "%d", b * 1048576 + 0.5 }')" 30
finish
