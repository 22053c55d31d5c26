#!/bin/bash
# Level 3 where the helper is absent (issue 19, items 4 and 5): static
# binaries, a setuid program, an environment cleared before exec and an
# execve made by a direct system call. The tracer follows each such image
# as level 2 would (tally launches the top command traced and lets go of
# the images the helper enters at their exec; one exec'd by a process let
# go is adopted at the next scan): the process counts are level 2's, CPU
# time the work done, memory the known allocation, and the report names
# every process that ran without the helper.
. "$(dirname "$0")/../lib.sh"
S=$PROGS/short_procs_static
Y=$PROGS/short_procs

# A static parent forking 100 static children one after another, each
# spinning 10 ms of its own CPU time (and living about that long).
for L in 2 3; do
  "$TALLY" run --level $L --interval 5 -o tree$L -- "$S" fork 100 10 0
  check_eq "level $L: static tree runs" "$?" 0
done
check_eq "level 2: 101 processes" "$(summary_value tree2.summary total_processes)" 101
check_eq "level 3: 101 processes, as at level 2" "$(summary_value tree3.summary total_processes)" 101
check_eq "level 3: one child at a time (max_concurrent_processes 2)" \
  "$(summary_value tree3.summary max_concurrent_processes)" 2
check_near "level 3: cpu_time = 100 x 10 ms" "$(summary_value tree3.summary cpu_time)" 1.0 0.1
check_near "level 3: cpu_time as level 2's" "$(summary_value tree3.summary cpu_time)" \
  "$(summary_value tree2.summary cpu_time)" 0.1
check_eq "level 3: no process interposed" "$(jq -r '.io.processes_interposed' tree3.summary)" 0
check_eq "level 3: the 101 named as static binaries" \
  "$(jq -r '[.not_interposed[] | select(.why == "static binary" and .exe == "'"$S"'")] | length' tree3.files.json)" 101
check_eq "level 3: 101 distinct pids named" "$(jq -r '[.not_interposed[].pid] | unique | length' tree3.files.json)" 101

# A static parent that forks and execs a static program 100 times.
"$TALLY" run --level 3 --interval 5 -o exec3 -- "$S" exec 100 2 0 "$S"
check_eq "static fork + exec: runs" "$?" 0
check_eq "static fork + exec: 101 processes" "$(summary_value exec3.summary total_processes)" 101
# CPU time: the 100 x 2 ms spun plus what 100 forks and execs cost the
# kernel (about 1 ms each on a loaded machine), the same at level 2
"$TALLY" run --level 2 --interval 5 -o exec2 -- "$S" exec 100 2 0 "$S"
check_cmp "static fork + exec: cpu_time at least the 100 x 2 ms spun" "$(summary_value exec3.summary cpu_time)" ">=" 0.2
check_near "static fork + exec: cpu_time as level 2's" "$(summary_value exec3.summary cpu_time)" \
  "$(summary_value exec2.summary cpu_time)" 0.1

# A static parent that forks and execs a dynamic program 50 times: the
# helper is in the children, which stay followed (a child let go would be
# taken for alive until the next scan): one at a time, each with its region.
"$TALLY" run --level 3 --interval 5 -o dynkids -- "$S" exec 50 2 0 "$Y"
check_eq "static parent, dynamic children: runs" "$?" 0
check_eq "static parent, dynamic children: 51 processes" "$(summary_value dynkids.summary total_processes)" 51
check_eq "static parent, dynamic children: one child at a time" \
  "$(summary_value dynkids.summary max_concurrent_processes)" 2
check_eq "the 50 children have their regions" "$(jq -r '.io.processes_interposed' dynkids.summary)" 50
check_eq "only the static parent is named" \
  "$(jq -c '[.not_interposed[] | [.exe == "'"$S"'", .why]]' dynkids.files.json)" '[[true,"static binary"]]'

# Memory: 10 static children one after another, each touching 50 MiB:
# the peak is one child's 50 MB and its parent's few, read at each child's
# exit stop as at level 2 (within level 2's 3 %).
for L in 2 3; do
  "$TALLY" run --level $L -o mem$L -- "$S" fork 10 5 50
done
check_eq "memory tree: 11 processes" "$(summary_value mem3.summary total_processes)" 11
m2=$(summary_value mem2.summary memory)
check_cmp "memory at least one child's 50 MB" "$(summary_value mem3.summary memory)" ">=" 50
check_near "memory as level 2's (3 %)" "$(summary_value mem3.summary memory)" "$m2" \
  "$(awk -v t="$m2" 'BEGIN { print t * 0.03 }')"

# A mixed tree under a dynamic shell (the helper in it, untraced):
#  - 50 static children of the shell (counted from the shell's regions);
#  - a static parent forking 50 static children;
#  - a static parent that clears its environment and execs a dynamic
#    program, which forks 50 children (no helper in any of them);
#  - last (bash execs it in place of itself), a dynamic program with the
#    helper that execs through a direct system call with an empty
#    environment a program that forks and execs 50 children.
# The three parents exec'd by untraced processes wait until the tracer has
# adopted them (the scan after their exec: 10, 20, 40 ms ... after the
# start), then fork: from then on every child is followed.
mixed="for i in {1..50}; do '$S' burn 2 0; done
'$S' wait-traced fork 50 2 0
'$S' clearenv '$Y' wait-traced fork 50 2 0
'$Y' rawexec '$Y' wait-traced exec 50 2 0 '$Y'"
for L in 2 3; do
  "$TALLY" run --level $L --interval 5 -o mix$L -- bash -c "$mixed"
  check_eq "level $L: mixed tree runs (every parent was traced)" "$?" 0
done
check_eq "level 2: 203 processes" "$(summary_value mix2.summary total_processes)" 203
check_eq "level 3: 203 processes, as at level 2" "$(summary_value mix3.summary total_processes)" 203
# CPU time: the kernel's totals at both levels; level 3's also holds the
# helper's own work in the dynamic processes. At least the 200 x 2 ms spun.
check_cmp "level 3: cpu_time at least the work done" "$(summary_value mix3.summary cpu_time)" ">=" 0.4
ni() { jq -r --arg e "$1" --arg w "$2" '[.not_interposed[] | select(.exe == $e and .why == $w)] | length' mix3.files.json; }
check_eq "the 101 static processes named" "$(ni "$S" "static binary")" 101
check_eq "the 102 without the helper's environment named (clearenv, direct execve, their children)" \
  "$(ni "$Y" "started without the helper in its environment")" 102
check_eq "the shell and its 52 forked children had regions" "$(jq -r '.io.processes_interposed' mix3.summary)" 53

# A setuid program (owned by root, run by 'nobody': the loader ignores
# LD_PRELOAD) exec'd by setpriv, which the helper entered: adopted at the
# next scan, its 50 children followed.
chmod 755 "$WORK"
cp "$Y" suid_procs && chown root:root suid_procs && chmod 4755 suid_procs
"$TALLY" run --level 3 --interval 5 -o suid -- \
  setpriv --reuid=65534 --regid=65534 --clear-groups ./suid_procs wait-traced fork 50 2 0
check_eq "setuid tree runs (traced)" "$?" 0
check_eq "setuid tree: setpriv and suid_procs (one pid) + 50 children" "$(summary_value suid.summary total_processes)" 51
check_eq "the 51 named as setuid" \
  "$(jq -r '[.not_interposed[] | select(.why | startswith("setuid"))] | length' suid.files.json)" 51

# The interposed case stays untraced: a dynamic shell's loop.
"$TALLY" run --level 3 -o dyn -- sh -c 'grep TracerPid /proc/self/status; for i in 1 2 3; do grep TracerPid /proc/self/status; done' >dyn.out
check_eq "no helper process is traced" "$(awk '$2 != 0' dyn.out | wc -l)" 0
check_eq "4 greps and sh counted" "$(summary_value dyn.summary total_processes)" 5
finish
