#!/bin/bash
# Level 3 through language runtimes and past the helper's reach: Python and
# Perl doing I/O through their own layers (counted as POSIX, exact bytes),
# descriptors inherited through shell redirections (counted on their file),
# and a static binary: counted at the process level only, and named as not
# interposed, with why.
. "$(dirname "$0")/../lib.sh"

mkdir d
D=$PWD/d
f() { jq -r --arg p "$2" --arg c "$3" '.files[] | select(.path == $p) | .[$c]' "$1.files.json"; }

"$TALLY" run --level 3 -o py -- /usr/bin/python3 -c "
with open('$D/py.out', 'wb') as f:
    for i in range(10):
        f.write(b'x' * 100000)
with open('$D/py.out', 'rb') as f:
    assert len(f.read()) == 1000000
"
check_eq "python3: runs" "$?" 0
check_eq "python3: bytes written to py.out" "$(f py "$D/py.out" POSIX_BYTES_WRITTEN)" 1000000
check_eq "python3: bytes read from py.out" "$(f py "$D/py.out" POSIX_BYTES_READ)" 1000000
check_eq "python3: opened twice" "$(f py "$D/py.out" POSIX_OPENS)" 2
check_eq "python3: its 100,000-byte writes in the 10K_100K bucket" "$(f py "$D/py.out" POSIX_SIZE_WRITE_10K_100K)" 10
check_cmp "python3: its modules' reads seen too" "$(jq -r '[.files[] | select(.path | test("python3.*\\.py"))] | length' py.files.json)" ">" 0

"$TALLY" run --level 3 -o pl -- perl -e "
open(my \$o, '>', '$D/pl.out') or die; print \$o 'y' x 5000 for 1..4; close(\$o);
open(my \$i, '<', '$D/pl.out') or die; local \$/; my \$t = <\$i>; die unless length(\$t) == 20000;"
check_eq "perl: runs" "$?" 0
check_eq "perl: bytes written to pl.out (PerlIO's buffers, as write calls)" "$(f pl "$D/pl.out" POSIX_BYTES_WRITTEN)" 20000
check_eq "perl: bytes read back" "$(f pl "$D/pl.out" POSIX_BYTES_READ)" 20000

"$TALLY" run --level 3 -o st -- sh -c "'$PROGS/io_write_static' '$D/static.dat' 5000; cat '$D/static.dat' >/dev/null"
check_eq "a static binary in the tree: runs" "$?" 0
check_eq "it is the one process not interposed" "$(jq -r '.not_interposed | map(.exe) | join(",")' st.files.json)" "$PROGS/io_write_static"
check_eq "why: static binary" "$(jq -r '.not_interposed[0].why' st.files.json)" "static binary"
check_eq "the summary says so too" "$(jq -r '.io.not_interposed[0].why' st.summary)" "static binary"
check_eq "its file has no bytes written from the helper" "$(f st "$D/static.dat" POSIX_BYTES_WRITTEN)" 0
check_eq "cat's read of it is counted" "$(f st "$D/static.dat" POSIX_BYTES_READ)" 5000
check_eq "all three processes counted (process level)" "$(summary_value st.summary total_processes)" 3
check_cmp "its 5000 bytes are in the task's bytes_written (MB, /proc)" "$(summary_value st.summary bytes_written)" ">=" 0.0047
"$TALLY" run --level 3 -o redir -- sh -c "seq 100000 > '$D/seq.txt'; wc -l < '$D/seq.txt' > /dev/null; cat '$D/seq.txt' > '$D/copy.txt'"
check_eq "redirections: runs" "$?" 0
size=$(stat -c %s d/seq.txt)
check_eq "seq's stdout redirected to a file: counted on that file (STDIO, through fwrite_unlocked)" \
  "$(f redir "$D/seq.txt" STDIO_BYTES_WRITTEN)" "$size"
check_eq "wc's stdin from it and cat's own open: both reads counted on it (POSIX)" "$(f redir "$D/seq.txt" POSIX_BYTES_READ)" $((2 * size))
check_eq "cat's stdout redirected to copy.txt: its writes counted there" "$(f redir "$D/copy.txt" POSIX_BYTES_WRITTEN)" "$size"
check_eq "opens: the shell's 2 redirections and cat's own; the shell's 1" "$(f redir "$D/seq.txt" POSIX_OPENS)/$(f redir "$D/copy.txt" POSIX_OPENS)" 3/1
finish
