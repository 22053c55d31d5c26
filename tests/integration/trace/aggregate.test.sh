#!/usr/bin/env bash
# tally trace aggregate on the hand-written hierarchical trace (sites >
# clusters > hosts, values worked out by hand in the comments), output
# formats, category selection, --hierarchy, --map, eq. 1 breaks, bad input.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
FIX=$TALLY_TEST_ROOT/tests/fixtures/traces
H=$FIX/hierarchy.paje

group() { # group LEVEL NAME FIELD [extra args]: a number from the JSON output
  local level=$1 name=$2 field=$3; shift 3
  "$TALLY" trace aggregate "$H" --level "$level" --format json "$@" |
    jq -r --arg n "$name" --arg k "${KIND:-cpu}" ".groups[] | select(.name == \$n and .kind == \$k) | $field"
}

# hosts over [0,10]: h1 cap 2 cores x 100 = 200, burst 100 on [0,5) -> 50, continuous 50 on [5,10) -> 25
check_eq "h1 capacity (speed x core_count)" "$(group host h1 .capacity)" 200
check_eq "h1 burst" "$(group host h1 .usage.burst)" 50
check_eq "h1 continuous" "$(group host h1 .usage.continuous)" 25
check_eq "h1 idle" "$(group host h1 .idle)" 125
check_eq "h3 burst: 50 on [2,4)" "$(group host h3 .usage.burst)" 10
# clusters: g1 = h1 + h2 (eq. 3)
check_eq "g1 capacity" "$(group CLUSTER g1 .capacity)" 300
check_eq "g1 continuous: 25 + 100" "$(group cluster g1 .usage.continuous)" 125
check_eq "g1 idle" "$(group cluster g1 .idle)" 125
# sites
check_eq "grenoble burst: 50 + 10" "$(group Site grenoble .usage.burst)" 60
check_eq "lyon idle" "$(group site lyon .idle)" 0
# a slice cutting breakpoints: [4,6] grenoble burst = h1 100 on [4,5) -> 50
check_eq "grenoble burst over [4,6]" "$(group site grenoble .usage.burst --from 4 --to 6)" 50
check_eq "grenoble continuous over [4,6]: 25 + 100" "$(group site grenoble .usage.continuous --from 4 --to 6)" 125
# root: one entry per kind, never flop/s plus byte/s
check_eq "root kinds" "$("$TALLY" trace aggregate "$H" --format json | jq -c '[.groups[].kind]')" '["bandwidth","cpu"]'
check_eq "root cpu capacity" "$(group root root .capacity)" 550
check_eq "root bandwidth burst: 500 on [0,2)" "$(KIND=bandwidth group root root .usage.burst)" 100
check_eq "json level echoes the trace's type name" \
  "$("$TALLY" trace aggregate "$H" --level site --format json | jq -r .level)" SITE
# category selection: idle counts only the selected categories
check_eq "only burst listed" "$(group site grenoble '.usage | keys | join(",")' --category burst)" burst
check_eq "idle with burst only" "$(group site grenoble .idle --category burst)" 290
# csv and table
csv=$("$TALLY" trace aggregate "$H" --level host --format csv)
check_eq "csv header" "$(echo "$csv" | head -1)" "group,type,kind,capacity,burst,continuous,idle"
check_eq "csv h2 row" "$(echo "$csv" | grep '^h2,')" "h2,HOST,cpu,100,0,100,0"
check_contains "table names the slice" "$("$TALLY" trace aggregate "$H" --level host)" "slice [0, 10]"

# --hierarchy on a flat trace: h1 -> siteA, h2 -> siteB, both sites -> grid
printf 'h1 siteA\nh2 siteB  # comment\nsiteA grid region\nsiteB grid region\n' >groups.txt
out=$("$TALLY" trace aggregate "$FIX/clean.paje" --hierarchy groups.txt --level region --format json)
check_eq "hierarchy file: region capacity" "$(echo "$out" | jq '.groups[0].capacity')" 200
check_eq "hierarchy file: region a" "$(echo "$out" | jq '.groups[0].usage.a')" 90
# a long comment stays one line (found by tests/fuzz: its end was read as a line)
{ printf 'h1 siteA # '; head -c 3000 /dev/zero | tr '\0' x; printf '\nh2 siteA\n'; } >long-groups.txt
out=$("$TALLY" trace aggregate "$FIX/clean.paje" --hierarchy long-groups.txt --level site --format json)
check_eq "hierarchy file with a 3000-byte comment: both hosts in siteA" "$(echo "$out" | jq '.groups[0].capacity')" 200
printf 'nosuchhost siteA\n' >bad-groups.txt
"$TALLY" trace aggregate "$FIX/clean.paje" --hierarchy bad-groups.txt 2>err.txt; st=$?
check_eq "bad hierarchy file exits 125" "$st" 125
check_contains "bad hierarchy file names the line" "$(cat err.txt)" "bad-groups.txt:1: unknown container 'nosuchhost'"
# a host under a host (or a group type under itself) would make the type tree
# a cycle (found by tests/fuzz/hierarchy_fuzz.c): rejected, naming the line
printf 'h1 siteA\nh2 h1\n' >cycle-groups.txt
"$TALLY" trace aggregate "$FIX/clean.paje" --hierarchy cycle-groups.txt 2>err.txt; st=$?
check_eq "host under a host exits 125" "$st" 125
check_contains "host under a host names the line" "$(cat err.txt)" \
  "cycle-groups.txt:2: 'h2' (type HOST) cannot go under 'h1' (type HOST)"

# --map: other names for capacity and usage
sed -e 's/speed/power/; s/ pburst/ uburst/; s/ pcontinuous/ ucontinuous/' "$H" >mapped.paje
out=$("$TALLY" trace aggregate mapped.paje --level host --format json \
       --map capacity=power,usage-prefix=u,multiplier=core_count,kind=cpu)
check_eq "--map: h1 capacity" "$(echo "$out" | jq '.groups[] | select(.name=="h1") | .capacity')" 200
check_eq "--map: h1 burst" "$(echo "$out" | jq '.groups[] | select(.name=="h1") | .usage.burst')" 50
"$TALLY" trace aggregate "$H" --map capacity=power 2>err.txt; st=$?
check_eq "incomplete --map exits 125" "$st" 125
check_contains "incomplete --map says why" "$(cat err.txt)" "usage-prefix= are required"

# eq. 1 broken: h2 used 150 of 100 on [3,4)
sed -e 's/^3 10 H h1$/5 3 pc h2 50\n6 4 pc h2 50\n3 10 H h1/' "$H" >over.paje
out=$("$TALLY" trace aggregate over.paje --level host --format json 2>err.txt)
check_eq "violation in JSON" "$(echo "$out" | jq -c '.violations[0] | [.resource, .from, .to, .usage, .capacity]')" '["h2",3,4,150,100]'
check_contains "violation on stderr" "$(cat err.txt)" "usage above capacity (eq. 1) on h2 (cpu) over [3, 4]: 150 > 100"
out=$("$TALLY" trace aggregate over.paje --level host --format json --from 5 --to 10 2>err.txt)
check_eq "no violation outside the slice" "$(echo "$out" | jq '.violations | length')" 0

# bad input: one line, file:line, exit 125, nothing on stdout
{ head -40 "$H"; echo "99 0 x y 1"; } >bad.paje
"$TALLY" trace aggregate bad.paje >out.txt 2>err.txt; st=$?
check_eq "malformed trace exits 125" "$st" 125
check_eq "error message" "$(cat err.txt)" "tally: bad.paje:41: unknown event id 99"
check_eq "nothing on stdout" "$(wc -c <out.txt)" 0
head -c 1500 "$H" >truncated.paje
"$TALLY" trace aggregate truncated.paje 2>err.txt; st=$?
check_eq "truncated trace exits 125" "$st" 125
check_contains "truncated trace names the file" "$(cat err.txt)" "tally: truncated.paje:"
"$TALLY" trace aggregate "$H" --level rack 2>err.txt; st=$?
check_eq "unknown level exits 125" "$st" 125
check_contains "unknown level lists the types" "$(cat err.txt)" "unknown level 'rack' (types: SITE CLUSTER HOST LINK, root)"
"$TALLY" trace aggregate "$H" --from 5 --to 2 2>err.txt; st=$?
check_eq "empty slice exits 125" "$st" 125
"$TALLY" trace aggregate "$H" --category nope 2>err.txt; st=$?
check_contains "unknown category" "$(cat err.txt)" "unknown category 'nope' (trace has: burst continuous)"
"$TALLY" trace aggregate missing.paje 2>err.txt; st=$?
check_eq "missing file" "$(cat err.txt)" "tally: missing.paje: No such file or directory"
check_contains "aggregate --help" "$("$TALLY" trace aggregate --help)" "usage: tally trace aggregate"
"$TALLY" trace bogus 2>err.txt; st=$?
check_eq "unknown subcommand exits 125" "$st" 125
check_contains "unknown subcommand named" "$(cat err.txt)" "tally: trace: unknown subcommand 'bogus'"
check_contains "tally trace --help lists subcommands" "$("$TALLY" trace --help)" "from-runs"
"$TALLY" trace aggregate "$H" --format xml 2>err.txt; st=$?
check_eq "bad --format exits 125" "$st" 125
check_contains "bad --format says what is accepted" "$(cat err.txt)" "expected table, csv or json"
finish
