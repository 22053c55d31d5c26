#!/usr/bin/env bash
# tally archive add reads a file or standard input as a stream of documents,
# a chunk (4 MiB) at a time, each document taken as soon as it is whole: a
# stream of any length goes in with bounded memory (10^7 summaries are 5 GB
# of JSON Lines; before, anything over 256 MB was refused whole). Cases: 300
# MB of blank lines between two summaries, on standard input and from a file
# (both stored; resident memory far below the stream's size); a pretty-printed
# summary lying across the first chunk's end; a bad line after 12,000 good
# ones (its line number counted across chunks, the good ones stored); one
# document longer than 256 MB refused, naming the bound.
# make check: runs beside other tests
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
GEN=$TALLY_TEST_ROOT/tests/integration/archive/gen-summaries.sh
"$GEN" 2 7 stream > two.jsonl
head -n 1 two.jsonl > first.summary
tail -n 1 two.jsonl > second.summary
rows() { sqlite3 "$1" "select count(*) from summaries"; }

# 300 MB of blank lines between two summaries
{ cat first.summary; head -c 300000000 /dev/zero | tr '\0' '\n'; cat second.summary; } > blanks.jsonl
/usr/bin/time -f '%M' -o rss.stdin "$TALLY" archive add --db stdin.db - < blanks.jsonl 2>err.txt
check_eq "standard input, 300 MB of blank lines between two summaries: exit 0" "$?" 0
check_eq "  both stored" "$(rows stdin.db)" 2
check_cmp "  resident memory (KB) far below the stream's 300 MB" "$(tail -n 1 rss.stdin)" "<" 150000
/usr/bin/time -f '%M' -o rss.file "$TALLY" archive add --db file.db blanks.jsonl 2>err.txt
check_eq "the same from a file: exit 0" "$?" 0
check_eq "  both stored" "$(rows file.db)" 2
check_cmp "  resident memory (KB)" "$(tail -n 1 rss.file)" "<" 150000
rm -f blanks.jsonl

# a pretty-printed summary across the first chunk's end (4 MiB = 4194304 B)
{ head -c 4194004 /dev/zero | tr '\0' ' '; jq . first.summary; cat second.summary; } > across.json
check_cmp "the pretty summary starts before the chunk's end" "$(head -c 4194004 across.json | wc -c)" "<" 4194304
check_cmp "... and ends after it" "$(($(wc -c < across.json) - $(wc -c < second.summary)))" ">" 4194304
"$TALLY" archive add --db across.db across.json 2>err.txt
check_eq "a document across the chunk's end: exit 0" "$?" 0
check_eq "  both stored" "$(rows across.db)" 2
check_eq "  the pretty one whole (its command)" "$(sqlite3 across.db "select count(*) from summaries where command = '$(jq -r .command first.summary)'")" 1

# a bad line after 12,000 good ones (about 7 MB: past the first chunk)
{ "$GEN" 12000 8 many; echo '{"name": "broken",'; cat second.summary; } > bad.jsonl
"$TALLY" archive add --db bad.db - < bad.jsonl 2>err.txt
check_eq "a bad line after 12,000 good ones: exit 1" "$?" 1
# (jansson meets the error on the next line, the good summary's '{')
check_contains "  its line number, counted across chunks" "$(cat err.txt)" "tally: archive add: (stdin): document 12001: line 12002:"
check_eq "  the 12,000 before it stored" "$(rows bad.db)" 12000

# one document longer than 256 MB
"$TALLY" archive add --db zero.db /dev/zero 2>err.txt
check_eq "/dev/zero: exit 1" "$?" 1
check_eq "  refused, naming the bound" "$(cat err.txt)" "tally: archive add: /dev/zero: a document longer than 256 MB (the most one may take)"
finish
