#!/bin/bash
# Level 3: the bad inputs a preloaded I/O helper must survive, each with an
# exact truth (tests/fixtures/progs/io_hostile.c): a process that closes
# every descriptor or dup2s onto them, clearenv before exec, vfork + exec,
# forkpty and daemon (glibc's own forks), file names with a newline or
# invalid UTF-8, 100,000 distinct files (bounded memory, the "incomplete"
# note), signals inside wrapped calls, a crash (SIGSEGV) and SIGKILL.
. "$(dirname "$0")/../lib.sh"

H=$PROGS/io_hostile
mkdir d
D=$PWD/d
f() { jq -r --arg p "$2" --arg c "$3" '.files[] | select(.path == $p) | .[$c]' "$1.files.json"; }

"$TALLY" run --level 3 -o close -- "$H" closeall "$D"
check_eq "closes every descriptor, dup2s onto 3..200: runs to its end" "$?" 0
check_eq "closeall.dat: 5 bytes, written after every fd was closed" "$(f close "$D/closeall.dat" POSIX_BYTES_WRITTEN)" 5
check_eq "dup2.dat: 10 bytes through descriptor 200" "$(f close "$D/dup2.dat" POSIX_BYTES_WRITTEN)" 10
check_eq "dup2.dat: POSIX_DUPS (opened as fd 0, dup2 onto 3..200)" "$(f close "$D/dup2.dat" POSIX_DUPS)" 198

"$TALLY" run --level 3 -o clear -- "$H" clearenv "$D/cleared.dat"
check_eq "clearenv then execv: runs" "$?" 0
check_eq "the exec'd image still has the helper (cleared.dat counted)" "$(f clear "$D/cleared.dat" POSIX_BYTES_WRITTEN)" 3
check_eq "one pid, two images" "$(jq -r '[.processes[] | select(.image == 1)] | length' clear.files.json)" 1
check_eq "the first image ended by exec" "$(jq -r '.processes[] | select(.image == 0) | .ended_by' clear.files.json)" exec
check_eq "nothing left uninterposed" "$(jq -r '.not_interposed | length' clear.files.json)" 0

"$TALLY" run --level 3 -o vf -- "$H" vfork "$D/vforked.dat"
check_eq "vfork + execv: runs" "$?" 0
check_eq "the vfork child's new image counted" "$(f vf "$D/vforked.dat" POSIX_BYTES_WRITTEN)" 4
check_eq "two processes, both interposed" "$(jq -r '[.processes[].pid] | unique | length' vf.files.json)/$(jq -r '.not_interposed | length' vf.files.json)" 2/0

# forkpty and daemon fork inside glibc: the helper wraps them as it wraps
# fork, so that each child gets a region of its own.
# writer RUN FILE: "forked ended_by exit_code" of the process that wrote FILE
writer() {
  local w
  w=$(jq -r --arg p "$2" '.files[] | select(.path == $p) | .processes[0].pid' "$1.files.json")
  jq -r --argjson p "${w:-0}" '[.processes[] | select(.pid == $p) | "\(.forked) \(.ended_by) \(.exit_code)"] | join(",")' "$1.files.json"
}
"$TALLY" run --level 3 -o pty -- "$H" forkpty "$D/pty.dat"
check_eq "forkpty: runs" "$?" 0
check_eq "the forkpty child's 6 bytes counted" "$(f pty "$D/pty.dat" POSIX_BYTES_WRITTEN)" 6
check_eq "in a region of its own: forked, ended by _exit(6)" "$(writer pty "$D/pty.dat")" "true _exit 6"
"$TALLY" run --level 3 -o dmn -- "$H" daemon "$D/daemon.dat"
check_eq "daemon: runs" "$?" 0
check_eq "the daemon's 8 bytes counted" "$(f dmn "$D/daemon.dat" POSIX_BYTES_WRITTEN)" 8
check_eq "in a region of its own: forked, ended by exit with code 0" "$(writer dmn "$D/daemon.dat")" "true exit 0"
check_eq "three processes: the program, its child, the daemon" "$(jq -r '[.processes[].pid] | unique | length' dmn.files.json)" 3

"$TALLY" run --level 3 -o names -- "$H" names "$D"
check_eq "odd file names: runs" "$?" 0
check "the per-file report is valid JSON" jq -e . names.files.json >/dev/null
check_eq "a newline in a name is a JSON \\n" "$(f names "$D/a
b" POSIX_BYTES_WRITTEN)" 1
check_eq "invalid UTF-8 bytes are written \\xNN" "$(f names "$D/bad\\xff\\xfe" POSIX_BYTES_WRITTEN)" 1
check_eq "valid UTF-8 is kept as is" "$(f names "$D/ok-é" POSIX_BYTES_WRITTEN)" 1

"$TALLY" run --level 3 -o many -- "$H" many "$D" 100000
check_eq "100,000 distinct files: runs" "$?" 0
check_eq "1024 files recorded, and the incomplete record" "$(jq -r '.files | length' many.files.json)" 1025
check_eq "the incomplete note counts the opens past the bound" "$(jq -r '.incomplete.opens_past_bound' many.files.json)" $((100000 - 1024))
check_eq "their opens are summed in <incomplete>" "$(f many "<incomplete>" POSIX_OPENS)" $((100000 - 1024))
check_eq "no open lost: the opens of all records add up" "$(jq -r '[.files[].POSIX_OPENS] | add' many.files.json)" 100000
check_eq "the summary repeats the note" "$(jq -r '.io.incomplete.opens_past_bound' many.summary)" $((100000 - 1024))
check_eq "the bound is stated" "$(jq -r '.bound.files_per_process' many.files.json)" 1024
check_cmp "memory stays bounded (task peak MB)" "$(summary_value many.summary memory)" "<" 16

out=$("$TALLY" run --level 3 -o sig -- "$H" signals "$D")
check_eq "signals inside wrapped calls: runs, and an interrupted read keeps its EINTR" "$?" 0
check_cmp "the handler ran" "$out" ">" 0
check_eq "main.dat: every one of the 20000 writes" "$(f sig "$D/main.dat" POSIX_WRITES)" 20000
seen=$(f sig "$D/handler.dat" POSIX_WRITES); unseen=$(jq -r '[.processes[].unseen_calls // 0] | add' sig.files.json)
check_eq "handler.dat: each handler write counted, or counted as unseen" "$((seen + unseen))" "$out"
"$TALLY" run --level 3 -o crash -- "$H" segv "$D/segv.dat"
check_eq "a process that dies of SIGSEGV still dies of it (128+11)" "$?" 139
check_eq "its end is recorded: ended by a signal" "$(jq -r '.processes[0].ended_by' crash.files.json)" signal
check_eq "which one" "$(jq -r '.processes[0].signal' crash.files.json)" 11
check_eq "what it wrote before is there" "$(f crash "$D/segv.dat" POSIX_BYTES_WRITTEN)" 3
check_cmp "its peak memory from getrusage in the handler (20 MB held)" "$(jq -r '.processes[0].max_rss' crash.files.json)" ">=" 20
"$TALLY" run --level 3 -o killed -- "$PROGS/crash" 9 0
check_eq "SIGKILL cannot be caught: the process is still counted" "$(jq -r '.processes[0].ended_by' killed.files.json)" unknown
finish
