#!/bin/bash
# Level 3: Darshan's counters per file, exact, from a program whose I/O is
# known call by call (tests/fixtures/progs/io_mix.c says what it does):
# POSIX and STDIO, writev, pread at offsets, a thread's openat and pwrite,
# a forked child ending in _exit without closing, dup. Also the summary's
# "io" object (totals per module, top files) and the per-process split.
# make check: runs beside other tests
. "$(dirname "$0")/../lib.sh"

mkdir data
"$TALLY" run --level 3 -o out -- "$PROGS/io_mix" "$PWD/data"
check_eq "the program ran to its end" "$?" 0
check "PREFIX.files.json was written" test -s out.files.json
D=$PWD/data
f() { jq -r --arg p "$D/$1" --arg c "$2" '.files[] | select(.path == $p) | .[$c]' out.files.json; }

check_eq "posix.dat: POSIX_OPENS" "$(f posix.dat POSIX_OPENS)" 1
check_eq "posix.dat: POSIX_WRITES (3 write + 1 writev)" "$(f posix.dat POSIX_WRITES)" 4
check_eq "posix.dat: POSIX_BYTES_WRITTEN" "$(f posix.dat POSIX_BYTES_WRITTEN)" 3500
check_eq "posix.dat: POSIX_READS (2 read + 2 pread)" "$(f posix.dat POSIX_READS)" 4
check_eq "posix.dat: POSIX_BYTES_READ" "$(f posix.dat POSIX_BYTES_READ)" 2150
check_eq "posix.dat: POSIX_CONSEC_READS" "$(f posix.dat POSIX_CONSEC_READS)" 2
check_eq "posix.dat: POSIX_SEQ_READS" "$(f posix.dat POSIX_SEQ_READS)" 2
check_eq "posix.dat: POSIX_CONSEC_WRITES" "$(f posix.dat POSIX_CONSEC_WRITES)" 3
check_eq "posix.dat: POSIX_RW_SWITCHES" "$(f posix.dat POSIX_RW_SWITCHES)" 1
check_eq "posix.dat: POSIX_MAX_BYTE_READ (pread 100 at 2000)" "$(f posix.dat POSIX_MAX_BYTE_READ)" 2099
check_eq "posix.dat: POSIX_MAX_BYTE_WRITTEN" "$(f posix.dat POSIX_MAX_BYTE_WRITTEN)" 3499
check_eq "posix.dat: POSIX_SIZE_READ_0_100 (100 and 50)" "$(f posix.dat POSIX_SIZE_READ_0_100)" 2
check_eq "posix.dat: POSIX_SIZE_READ_100_1K" "$(f posix.dat POSIX_SIZE_READ_100_1K)" 2
check_eq "posix.dat: POSIX_SIZE_WRITE_100_1K" "$(f posix.dat POSIX_SIZE_WRITE_100_1K)" 4
check_eq "posix.dat: POSIX_SIZE_WRITE_1K_10K" "$(f posix.dat POSIX_SIZE_WRITE_1K_10K)" 0
check_eq "posix.dat: POSIX_SEEKS" "$(f posix.dat POSIX_SEEKS)" 1
check_eq "posix.dat: POSIX_STATS (fstat + stat)" "$(f posix.dat POSIX_STATS)" 2
check_eq "posix.dat: POSIX_FSYNCS" "$(f posix.dat POSIX_FSYNCS)" 1
check_cmp "posix.dat: POSIX_F_WRITE_TIME > 0" "$(f posix.dat POSIX_F_WRITE_TIME)" ">" 0
open_t=$(f posix.dat POSIX_F_OPEN_START_TIMESTAMP); close_t=$(f posix.dat POSIX_F_CLOSE_END_TIMESTAMP)
check_cmp "posix.dat: opened after the task started" "$open_t" ">" 0
check_cmp "posix.dat: closed after it was opened" "$close_t" ">" "$open_t"
check_eq "posix.dat: no STDIO counters" "$(f posix.dat STDIO_OPENS)" null

check_eq "stdio.txt: STDIO_OPENS" "$(f stdio.txt STDIO_OPENS)" 2
check_eq "stdio.txt: STDIO_WRITES (2 fprintf, fputs, fwrite, putc)" "$(f stdio.txt STDIO_WRITES)" 5
check_eq "stdio.txt: STDIO_BYTES_WRITTEN" "$(f stdio.txt STDIO_BYTES_WRITTEN)" 122
check_eq "stdio.txt: STDIO_READS (fgets, 2 getc, fread)" "$(f stdio.txt STDIO_READS)" 4
check_eq "stdio.txt: STDIO_BYTES_READ" "$(f stdio.txt STDIO_BYTES_READ)" 21
check_eq "stdio.txt: STDIO_SEEKS" "$(f stdio.txt STDIO_SEEKS)" 1
check_eq "stdio.txt: STDIO_FLUSHES" "$(f stdio.txt STDIO_FLUSHES)" 1
check_eq "stdio.txt: STDIO_MAX_BYTE_WRITTEN" "$(f stdio.txt STDIO_MAX_BYTE_WRITTEN)" 121
check_eq "stdio.txt: its writes are not counted twice as POSIX" "$(f stdio.txt POSIX_WRITES)" null

check_eq "thread.dat (openat in a thread): POSIX_OPENS" "$(f thread.dat POSIX_OPENS)" 1
check_eq "thread.dat: POSIX_WRITES (2 pwrite)" "$(f thread.dat POSIX_WRITES)" 2
check_eq "thread.dat: POSIX_BYTES_WRITTEN" "$(f thread.dat POSIX_BYTES_WRITTEN)" 8192
check_eq "thread.dat: POSIX_MAX_BYTE_WRITTEN (4096 at 8192)" "$(f thread.dat POSIX_MAX_BYTE_WRITTEN)" 12287
check_eq "thread.dat: POSIX_SIZE_WRITE_1K_10K" "$(f thread.dat POSIX_SIZE_WRITE_1K_10K)" 2

check_eq "child.dat (forked child, _exit without close): POSIX_BYTES_WRITTEN" "$(f child.dat POSIX_BYTES_WRITTEN)" 7
check_eq "child.dat: never closed" "$(f child.dat POSIX_F_CLOSE_START_TIMESTAMP)" 0
top=$(jq -r '.processes[] | select(.forked == false) | .pid' out.files.json)
child=$(jq -r '.processes[] | select(.forked == true) | .pid' out.files.json)
check_eq "child.dat: its split names the child only" \
  "$(jq -r --arg p "$D/child.dat" '[.files[] | select(.path == $p) | .processes[].pid] | join(",")' out.files.json)" "$child"
check_eq "the child ended by _exit" "$(jq -r '.processes[] | select(.forked) | .ended_by' out.files.json)" _exit
check_eq "with code 3" "$(jq -r '.processes[] | select(.forked) | .exit_code' out.files.json)" 3
check_eq "the program ended by exit" "$(jq -r --argjson p "$top" '.processes[] | select(.pid == $p) | .ended_by' out.files.json)" exit
check_eq "with main's return value as its exit code" "$(jq -r --argjson p "$top" '.processes[] | select(.pid == $p) | .exit_code' out.files.json)" 0
check_cmp "its CPU time from getrusage at exit" "$(jq -r --argjson p "$top" '.processes[] | select(.pid == $p) | .cpu_time' out.files.json)" ">" 0
check_cmp "its peak memory (MB)" "$(jq -r --argjson p "$top" '.processes[] | select(.pid == $p) | .max_rss' out.files.json)" ">" 0.5

check_eq "dup.dat: POSIX_DUPS" "$(f dup.dat POSIX_DUPS)" 1
check_eq "dup.dat: writes through both descriptors" "$(f dup.dat POSIX_BYTES_WRITTEN)" 20

check_eq "summary io: POSIX bytes written (all files)" "$(jq -r '.io.posix.bytes_written' out.summary)" $((3500 + 8192 + 7 + 20))
check_eq "summary io: POSIX bytes read" "$(jq -r '.io.posix.bytes_read' out.summary)" 2150
check_eq "summary io: STDIO bytes written" "$(jq -r '.io.stdio.bytes_written' out.summary)" 122
check_eq "summary io: the top file is thread.dat" "$(jq -r '.io.top_files[0].path' out.summary)" "$D/thread.dat"
check_eq "summary io: names its report" "$(jq -r '.io.report' out.summary)" out.files.json
check_eq "summary io: every process interposed" "$(jq -r '.io.not_interposed | length' out.summary)" 0
check_eq "summary: level 3" "$(jq -r '.level' out.summary)" 3
check_eq "summary: the two processes" "$(summary_value out.summary total_processes)" 2
check_eq "nothing incomplete" "$(jq -r '.incomplete' out.files.json)" null
# One file named four ways (an absolute path already normal takes the fast
# way; the others are made normal lexically): one record, four opens.
mkdir -p spell/sub
"$TALLY" run --level 3 -o spell -- python3 -c "
import os
for p in ['$PWD/spell/a', '$PWD//spell/./a', '$PWD/spell/sub/../a', 'spell/sub/../a']:
    os.close(os.open(p, os.O_WRONLY | os.O_CREAT, 0o644))"
check_eq "four spellings of one file: one record" \
  "$(jq -r --arg d "$PWD/spell" '[.files[] | select(.path | startswith($d))] | map(.path) | join(",")' spell.files.json)" "$PWD/spell/a"
check_eq "with the four opens" "$(jq -r --arg p "$PWD/spell/a" '.files[] | select(.path == $p) | .POSIX_OPENS' spell.files.json)" 4
finish
