#!/usr/bin/env bash
# Names in the offline pages are data, whatever their characters: a level-3
# run writes files named "<!--<script>" and "</script><script>...</script>"
# (a task names its files as it likes); tally view --files lists both in
# headless Chromium, with the page's own code intact and no script of a
# name run. (The JSON in the page's <script type="application/json">
# elements escaped "/" only: "<!--<script>" made the HTML parser take the
# element's end tag as text, and the page's code with it: an empty table.)
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
mkdir -p data
D=$PWD/data
HOSTILE='</script><img src=x onerror="document.documentElement.dataset.pwned=1">'
"$TALLY" run --level 3 -o r -- sh -c 'echo a > "$1/<!--<script>"; echo b > "$1/$2"; echo c > "$1/plain"' \
  sh "$D" "${HOSTILE//\//_}" 2>run.err
check_eq "the level-3 run ended well" "$?" 0
"$TALLY" view --files r.files.json -o files.html --title '<!--<script>'
check_eq "view --files: exit 0" "$?" 0
check_eq "no '<' of a name is in the page's data as such" "$(grep -c '<!--<script' files.html)" 0
timeout 60 node "$TALLY_TEST_ROOT/tests/integration/view/names_check.js" "file://$PWD/files.html" >out.json 2>driver.err
check_eq "the page loads in Chromium" "$?" 0
check_eq "its code is intact (3 script elements)" "$(jq .scripts out.json)" 3
check_eq "the file named <!--<script> is listed" "$(jq -r --arg p "$D/<!--<script>" '[.rows[] | select(. == $p)] | length' out.json)" 1
check_eq "the file named with markup is listed literally" \
  "$(jq -r --arg p "$D/${HOSTILE//\//_}" '[.rows[] | select(. == $p)] | length' out.json)" 1
check_eq "and its script did not run" "$(jq -r .ran out.json)" null
check_eq "the plain file is listed" "$(jq -r --arg p "$D/plain" '[.rows[] | select(. == $p)] | length' out.json)" 1
finish
