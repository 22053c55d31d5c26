#!/usr/bin/env bash
# tally archive add killed (SIGKILL) in the middle of a JSON Lines stream into
# SQLite: the archive is intact (integrity_check), holds whole batches only
# (each batch of 50,000 summaries is one transaction), every stored run is
# counted once in the aggregates, and adding the same stream again stores
# exactly the rest. The release binary: the property is SQLite's WAL commit,
# not a sanitizer's, and it keeps the test to a few seconds.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
GEN=$TALLY_TEST_ROOT/tests/integration/archive/gen-summaries.sh
BIN=${TALLY_RELEASE:-$TALLY}
DB=$WORK/archive.db
N=150000

"$GEN" $N 11 task 8 > runs.jsonl
count() { sqlite3 "$DB" 'select count(*) from summaries' 2>/dev/null || echo 0; }
has_rows() { [ "$(count)" -gt 0 ]; }
"$BIN" archive --db "$DB" add -q - < runs.jsonl &
pid=$!
check "a first batch committed while the stream is read" wait_until 60 has_rows
kill -KILL "$pid"
wait "$pid" 2>/dev/null
stored=$(count)
check_cmp "killed before the end" "$stored" "<" $N
check_eq "whole batches only" "$((stored % 50000))" 0
check_eq "the archive is intact" "$(sqlite3 "$DB" 'pragma integrity_check')" ok
runs=$("$BIN" archive --db "$DB" stats --format json cat3 | awk -F'[:,]' '/"count"/ {print $2 + 0; exit}')
check_eq "cat3's runs in the aggregates are its stored rows" "$runs" \
  "$(sqlite3 "$DB" "select count(*) from summaries where category = 'cat3'")"

out=$("$BIN" archive --db "$DB" add - < runs.jsonl 2>&1)
check_eq "the stream again stores the rest" "$out" "added $((N - stored)), already archived $stored, rejected 0"
check_eq "every summary once" "$(count)" $N
check_eq "ids without gaps" "$(sqlite3 "$DB" 'select max(id) - min(id) + 1 from summaries')" $N
runs=$("$BIN" archive --db "$DB" stats --format json cat3 | awk -F'[:,]' '/"count"/ {print $2 + 0; exit}')
check_eq "cat3 counted once in the aggregates" "$runs" "$(sqlite3 "$DB" "select count(*) from summaries where category = 'cat3'")"
check_eq "... which is an eighth of the stream" "$runs" $((N / 8))
finish
