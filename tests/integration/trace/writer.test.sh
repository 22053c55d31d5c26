#!/usr/bin/env bash
# The Paje writer: 'tally trace export' output read by pj_dump (PajeNG) gives
# back the same values, containers and hierarchy; tally reads it back too.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
FIX=$TALLY_TEST_ROOT/tests/fixtures/traces

# regroup the hierarchy fixture's sites under a "region" while exporting
printf 'grenoble fr region\nlyon fr region\n' >regions.txt
"$TALLY" trace export "$FIX/hierarchy.paje" --hierarchy regions.txt -o out.paje
check "export wrote a file" test -s out.paje
pj_dump out.paje >dump.csv 2>pj.err
check "pj_dump reads the export" test -s dump.csv
check_eq "pj_dump has no complaint" "$(cat pj.err)" ""

pj_avg() { # CONTAINER VARIABLE T1 T2
  awk -F', *' -v c="$1" -v v="$2" -v t1="$3" -v t2="$4" '
    $1 == "Variable" && $2 == c && $3 == v {
      s = ($4 > t1) ? $4 : t1; e = ($5 < t2) ? $5 : t2
      if (e > s) sum += $7 * (e - s)
    }
    END { printf "%.10g\n", sum / (t2 - t1) }' dump.csv
}
orig=$("$TALLY" trace aggregate "$FIX/hierarchy.paje" --level host --format json --from 1 --to 9)
for h in h1 h2 h3 h4; do
  for var in capacity burst continuous; do
    if [ $var = capacity ]; then want=$(echo "$orig" | jq --arg h $h '.groups[] | select(.name==$h) | .capacity')
    else want=$(echo "$orig" | jq --arg h $h --arg c $var '.groups[] | select(.name==$h) | .usage[$c]'); fi
    check_near "pj_dump of export: $h cpu.$var over [1,9]" "$(pj_avg $h cpu.$var 1 9)" "$want" 1e-6
  done
done
check_near "pj_dump of export: wan bandwidth.burst over [0,10]" "$(pj_avg wan bandwidth.burst 0 10)" 100 1e-6
# containers and hierarchy as pj_dump sees them: "Container, parent, type, start, end, duration, name"
check_eq "h3 under g2" "$(awk -F', *' '$1=="Container" && $7=="h3" {print $2}' dump.csv)" g2
check_eq "grenoble under the new region" "$(awk -F', *' '$1=="Container" && $7=="grenoble" {print $2}' dump.csv)" fr
check_eq "region type" "$(awk -F', *' '$1=="Container" && $7=="fr" {print $3}' dump.csv)" region
check_eq "h1 lifetime" "$(awk -F', *' '$1=="Container" && $7=="h1" {print $4, $5}' dump.csv)" "0 10"
# tally reads its own output to the same numbers, at the new level too
check_eq "re-read: region cpu capacity" "$("$TALLY" trace aggregate out.paje --level region --format json | jq '.groups[] | select(.kind=="cpu") | .capacity')" 550
check_eq "re-read: site continuous" "$("$TALLY" trace aggregate out.paje --level SITE --format json | jq -c '[.groups[] | .usage.continuous]')" "[125,100]"

# a SimGrid-style topology survives: the writer emits links pj_dump lists
"$TALLY" trace export "$FIX/saturation.paje" -o sat.paje
check_eq "export of a trace without edges has no links" "$(pj_dump sat.paje | grep -c '^Link')" 0
# names Paje cannot quote (found by tests/fuzz/hierarchy_fuzz.c): a '"' in a
# group name is written as ' and the export stays readable, by tally and pj_dump
printf 'h1 "quoted"site\n' >quote-groups.txt
"$TALLY" trace export "$FIX/clean.paje" --hierarchy quote-groups.txt -o quoted.paje
check_eq "a name with a quote: tally reads the export" \
  "$("$TALLY" trace aggregate quoted.paje --level site --format json | jq -r '.groups[0].name')" "'quoted'site"
check_eq "a name with a quote: pj_dump reads the export" \
  "$(pj_dump quoted.paje 2>&1 | awk -F', *' '$1=="Container" && $3=="site" {print $7}')" "'quoted'site"
"$TALLY" trace export "$FIX/nope.paje" -o x.paje 2>err.txt; st=$?
check_eq "missing input exits 125" "$st" 125
check "nothing written on error" test ! -e x.paje
finish
