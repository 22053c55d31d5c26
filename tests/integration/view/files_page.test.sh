#!/usr/bin/env bash
# tally view --files: the per-file I/O page of a level-3 run, in headless
# Chromium. The run is io_mix (tests/fixtures/progs/io_mix.c: its I/O is
# known call by call) plus a static binary the helper cannot reach. The page
# lists every file of PREFIX.files.json with its bytes, sorted by bytes moved
# (largest first) and re-sorted by its column headers; its read and write
# size histograms are the sums of Darshan's buckets over all files, or over
# the file clicked in the table (posix.dat's known sizes); the static binary
# is listed as not reached. Bad input: a summary, a missing file, no -o:
# exit 125, one line, nothing written. The screenshot is kept in
# build/test-artifacts/view/.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
driver=$TALLY_TEST_ROOT/tests/integration/view/files_check.js
artifacts=$TALLY_TEST_ROOT/build/test-artifacts/view
mkdir -p "$artifacts" data
D=$PWD/data

"$TALLY" run --level 3 -o r -- sh -c '"$1" "$2" && "$3" "$2/static.out" 3' sh "$PROGS/io_mix" "$D" "$PROGS/io_write_static"
check_eq "the level-3 run ended well" "$?" 0
"$TALLY" view --files r.files.json -o files.html --title "io_mix"
check_eq "view --files: exit 0" "$?" 0

FILE_CHOSEN="$D/posix.dat" timeout 120 node "$driver" "file://$PWD/files.html" "$artifacts/files.png" > out.json 2>driver.err
check_eq "the driver ran" "$?" 0
[ -s driver.err ] && sed 's/^/# /' driver.err

# the rows: every file of the report, largest first (ties by path), bytes as jq adds them
want=$(jq -r '[.files[] | {path, b: ((.POSIX_BYTES_READ // 0) + (.POSIX_BYTES_WRITTEN // 0) + (.STDIO_BYTES_READ // 0) + (.STDIO_BYTES_WRITTEN // 0))}]
  | sort_by(-.b, .path) | map("\(.path)=\(.b)") | join(" ")' r.files.json)
got=$(jq -r '.initial.rows | map("\(.path)=\(.bytes)") | join(" ")' out.json)
check_eq "every file, by bytes moved, largest first" "$got" "$want"
check_eq "  ... as many rows as files in the report" "$(jq '.initial.rows | length' out.json)" "$(jq '.files | length' r.files.json)"
check_eq "  ... sorted by bytes, descending" "$(jq -r '.initial | "\(.sortKey) \(.sortDir)"' out.json)" "bytes descending"
check_eq "posix.dat's row: 3500 written + 2150 read" \
  "$(jq --arg p "$D/posix.dat" '.initial.rows[] | select(.path == $p) | .bytes' out.json)" 5650
check_eq "a click on 'bytes moved': ascending" "$(jq -r '.bytesAscending.sortDir' out.json)" ascending
check_eq "  ... the rows reversed (ties kept by path)" \
  "$(jq -r '.bytesAscending.rows | map(.bytes) | join(" ")' out.json)" \
  "$(jq -r '.initial.rows | map(.bytes) | sort | join(" ")' out.json)"
check_eq "a click on 'file': by name, ascending" \
  "$(jq -r '.byName.rows | map(.path) | join(" ")' out.json)" "$(jq -r '[.files[].path] | sort | join(" ")' r.files.json)"

# the histograms: all files, then posix.dat's own (2 reads of 0-100 bytes, 2 of 100-1K, 4 writes of 100-1K)
bars() { jq -r --arg s "$1" --arg op "$2" '.[$s].bars | map(select(.op == $op) | .count) | join(" ")' out.json; }
sums() { jq -r --arg op "$1" '[ "0_100","100_1K","1K_10K","10K_100K","100K_1M","1M_4M","4M_10M","10M_100M","100M_1G","1G_PLUS" ] as $b
  | [ $b[] as $k | [ .files[] | .["POSIX_SIZE_\($op)_\($k)"] // 0 ] | add ] | join(" ")' r.files.json; }
check_eq "read sizes of all files: the buckets summed over the files" "$(bars initial read)" "$(sums READ)"
check_eq "write sizes of all files: likewise" "$(bars initial write)" "$(sums WRITE)"
check_eq "posix.dat chosen: its read sizes" "$(bars chosen read)" "2 2 0 0 0 0 0 0 0 0"
check_eq "  ... its write sizes" "$(bars chosen write)" "0 4 0 0 0 0 0 0 0 0"
check_eq "  ... named above the charts" "$(jq -r .chosen.heading out.json)" "Access sizes: $D/posix.dat"
check_eq "a second click: all files again" "$(bars unchosen write)" "$(sums WRITE)"
check_eq "  ... nothing chosen" "$(jq -r .unchosen.selected out.json)" ""

# the static binary, which the helper cannot reach
check_eq "one process listed as not reached" "$(jq .initial.notInterposed out.json)" \
  "$(jq '.not_interposed | length' r.files.json)"
check_cmp "  ... the static binary at least" "$(jq '.not_interposed | length' r.files.json)" ">=" 1
check_contains "the totals say how many files" "$(jq -r .initial.totals out.json)" "$(jq '.files | length' r.files.json) files"
check "the screenshot was saved" test -s "$artifacts/files.png"

# bad input: exit 125, one line naming the input, no page written
"$TALLY" view --files r.summary -o bad1.html 2>err.txt; st=$?
check_eq "a summary instead of a files report: exit 125" "$st" 125
check_contains "  ... says what it expected" "$(cat err.txt)" "r.summary: not a level-3 files report"
check_eq "  ... one line" "$(wc -l < err.txt)" 1
check "  ... no page" test ! -e bad1.html
"$TALLY" view --files missing.json -o bad2.html 2>err.txt; st=$?
check_eq "a missing report: exit 125" "$st" 125
check_contains "  ... named" "$(cat err.txt)" "missing.json"
check "  ... no page" test ! -e bad2.html
printf '{"format": "tally-files-1", "files": [{"POSIX_READS": 1}]}' > nopath.json
"$TALLY" view --files nopath.json -o bad3.html 2>err.txt; st=$?
check_eq "a file without a path: exit 125" "$st" 125
check_contains "  ... which one" "$(cat err.txt)" "file 1 of \"files\" has no \"path\""
printf '{"format": "tally-files-1", "files": [' > cut.json
"$TALLY" view --files cut.json -o bad4.html 2>err.txt; st=$?
check_eq "a cut report: exit 125" "$st" 125
check_contains "  ... where" "$(cat err.txt)" "cut.json: line 1"
"$TALLY" view --files r.files.json 2>err.txt; st=$?
check_eq "no -o: exit 125" "$st" 125
check_contains "  ... says what to give" "$(cat err.txt)" "give -o FILE.html"
cp files.html keep.html
"$TALLY" view --files r.summary -o files.html 2>/dev/null
check "a failed run leaves an existing page as it was" cmp -s files.html keep.html
finish
