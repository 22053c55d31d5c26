#!/usr/bin/env bash
# tally archive's per-file rows of level-3 runs, on a real SQLite file: known
# bytes written to and read from known files under 'tally run --level 3
# --archive' and 'tally archive add', then 'tally archive files' asked which
# runs read more than a size from *.bam files; the bound of 100 files per
# run and its unlisted row; a summary whose report is missing; bad sizes
# and globs.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
DB=$WORK/archive.db
MiB=1048576
mkdir -p data

# run 1: 3 MiB written to a.bam and read back, 1 MiB written to b.bam, 3
# bytes to c.txt, and 5 MiB read from big.txt
head -c $((5 * MiB)) /dev/zero > data/big.txt
"$TALLY" run --level 3 --name align --archive "$DB" -o run1 -- sh -c '
  dd if=/dev/zero of=data/a.bam bs=1M count=3 status=none
  dd if=data/a.bam of=/dev/null bs=1M status=none
  dd if=/dev/zero of=data/b.bam bs=1M count=1 status=none
  echo hi > data/c.txt
  dd if=data/big.txt of=/dev/null bs=1M status=none'
check_eq "run 1: ran" "$?" 0
check_eq "run 1: archived with its files" \
  "$(sqlite3 "$DB" "select count(*) from run_files where summary_id = 1 and path like '$PWD/data/%'")" 4
check_eq "run 1: a.bam's row (bytes read, written, opens, reads, writes)" \
  "$(sqlite3 "$DB" "select bytes_read, bytes_written, opens, reads, writes from run_files where path = '$PWD/data/a.bam'")" \
  "$((3 * MiB))|$((3 * MiB))|2|4|3"

# run 2: 1 MiB written to d.bam and read back; archived by 'archive add'
"$TALLY" run --level 3 --name align -o run2 -- sh -c '
  dd if=/dev/zero of=data/d.bam bs=1M count=1 status=none
  dd if=data/d.bam of=/dev/null bs=1M status=none'
out=$("$TALLY" archive --db "$DB" add run2.summary 2>&1)
check_eq "run 2: added" "$out" "added 1, already archived 0, rejected 0"
check_eq "run 2: d.bam's bytes read" "$(sqlite3 "$DB" "select bytes_read from run_files where path = '$PWD/data/d.bam'")" $MiB
out=$("$TALLY" archive --db "$DB" add run2.summary 2>&1)
check_eq "run 2 again: already archived" "$out" "added 0, already archived 1, rejected 0"
check_eq "... and its rows not doubled" "$(sqlite3 "$DB" "select count(*) from run_files where path = '$PWD/data/d.bam'")" 1

# the question of the issue, with sizes around the truths
q() { "$TALLY" archive --db "$DB" files "$@"; }
check_eq "*.bam read more than 2 MB: run 1 only, its two .bam files, 3 MiB read, 4 MiB written" \
  "$(q --glob '*.bam' --read-more-than 2MB --format csv | tail -n +2)" \
  "1,align,,,2,$((3 * MiB)),$((4 * MiB)),3,4,4,0"
check_eq "*.bam read more than 1 MB (strictly): run 1 only" \
  "$(q --glob '*.bam' --read-more-than 1MB --format csv | tail -n +2 | cut -d, -f1)" 1
check_eq "*.bam read more than 1048575 bytes: both runs" \
  "$(q --glob '*.bam' --read-more-than 1048575B --format csv | tail -n +2 | cut -d, -f1 | paste -sd' ')" "1 2"
check_eq "*.bam read more than 3 MiB: none" "$(q --glob '*.bam' --read-more-than 3MiB --format csv | tail -n +2)" ""
check_eq "*.txt read more than 3 MB: run 1's big.txt (not the .bam bytes)" \
  "$(q --glob '*.txt' --read-more-than 3MB --format json | jq -c '[.[] | [.archive_id, .bytes_read, [.matching_files[].path | sub(".*/"; "")]]]')" \
  "[[1,$((5 * MiB)),[\"big.txt\",\"c.txt\"]]]"
check_eq "a path glob: '*' crosses '/'" \
  "$(q --glob "$PWD/*/d.bam" --format json | jq -c '[.[] | .archive_id]')" "[2]"
check_eq "written more than 3 MB of *.bam: run 1 (4 MiB)" \
  "$(q --glob '*.bam' --written-more-than 3MB --format json | jq -c '[.[] | [.archive_id, .bytes_written]]')" "[[1,$((4 * MiB))]]"
check_eq "with a query expression: only the runs it selects" \
  "$(q --glob '*.bam' 'id = 2' --format json | jq -c '[.[] | .archive_id]')" "[2]"
check_contains "the table names its columns" "$(q --glob '*.bam')" "bytes_read"

# the bound: 150 files of 2000 bytes each (more than any other file of the
# run), 100 kept by name, the other 50 with the run's other files in the
# unlisted row
"$TALLY" run --level 3 --name many -o run3 -- bash -c 'printf -v s "%2000s" x; for i in $(seq 101 250); do printf "%s" "$s" > data/m$i.txt; done'
check_eq "run 3: ran" "$?" 0
"$TALLY" archive --db "$DB" add -q run3.summary
total=$(jq '.files | length' run3.files.json)
written=$(jq '[.files[] | (.POSIX_BYTES_WRITTEN // 0) + (.STDIO_BYTES_WRITTEN // 0)] | add' run3.files.json)
check_cmp "run 3: its report has more than 150 files" "$total" ">" 150
check_eq "run 3: 100 rows by name, all of them the 2000-byte files" \
  "$(sqlite3 "$DB" "select count(*), sum(path like '$PWD/data/m%'), sum(bytes_written) from run_files where summary_id = 3 and path is not null")" "100|100|200000"
check_eq "run 3: the unlisted row holds the other files and their bytes" \
  "$(sqlite3 "$DB" "select files, bytes_written from run_files where summary_id = 3 and path is null")" "$((total - 100))|$((written - 200000))"
check_eq "files says what is unlisted" \
  "$(q --glob 'm*.txt' --format json | jq -c '.[] | [.files, .bytes_written, .unlisted.files]')" "[100,200000,$((total - 100))]"

# a directory of level-3 runs: the summaries with their rows, the reports
# beside them not taken for summaries
mkdir dir && cp run1.summary run1.files.json run2.summary run2.files.json dir/
out=$("$TALLY" archive --db "$WORK/dir.db" add dir 2>&1); st=$?
check_eq "a directory: both summaries, no report rejected" "$st $out" "0 added 2, already archived 0, rejected 0"
check_eq "... with their rows" "$(sqlite3 "$WORK/dir.db" "select count(distinct summary_id) from run_files")" 2

# a summary whose report is not beside it: archived, rows not kept, said
mkdir moved && cp run2.summary moved/run4.summary && sed -i 's/"name":"align"/"name":"moved"/' moved/run4.summary
out=$("$TALLY" archive --db "$DB" add moved/run4.summary 2>&1); st=$?
check_eq "report missing: the summary is still archived (exit 0)" "$st" 0
check_contains "... said on one line" "$out" "tally: archive add: moved/run4.summary: moved/run4.files.json: No such file or directory: per-file rows not kept"
check_eq "... no rows for it" "$(sqlite3 "$DB" "select count(*) from run_files f join summaries s on s.id = f.summary_id where s.name = 'moved'")" 0

# bad input: one line, exit 125
out=$(q --glob '*.bam' --read-more-than 12parsecs 2>&1); st=$?
check_eq "bad size: exit 125" "$st" 125
check_contains "bad size: named" "$out" "tally: archive files: --read-more-than:"
out=$(q --glob '' 2>&1); st=$?
check_eq "empty glob: exit 125" "$st" 125
check_contains "empty glob: named" "$out" "tally: archive files: --glob '': an empty glob matches no file"
out=$("$TALLY" archive --db "$WORK/none.db" files 2>&1); st=$?
check_eq "no archive: exit 125" "$st" 125
check "no archive: not created" test ! -e "$WORK/none.db"
check_contains "help" "$(q --help)" "--read-more-than SIZE"
finish
