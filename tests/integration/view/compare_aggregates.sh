# Sourced by the view tests: compare_aggregates DESCRIPTION A.json B.json
# checks that two aggregate JSON documents (tally trace aggregate --format
# json, the server's /slice, the page's own computation) have the same groups
# (name, kind) with the same capacity, usage per category and idle, within a
# relative 1e-6 (the page rounds values to 7 significant digits).
aggregate_lines() {
  jq -r '.groups[] | . as $g | (["capacity", .capacity], ["idle", .idle],
         (.usage | to_entries[] | [.key, .value])) | "\($g.name)/\($g.kind)/\(.[0]) \(.[1])"' "$1" | sort
}
compare_aggregates() {
  local what=$1 a=$2 b=$3 diff
  diff=$(join -a1 -a2 -e MISSING -o 0,1.2,2.2 <(aggregate_lines "$a") <(aggregate_lines "$b") |
    awk '{ if ($2 == "MISSING" || $3 == "MISSING") { print "missing " $0; next }
           d = $2 - $3; if (d < 0) d = -d; s = ($2 < 0 ? -$2 : $2); if (s < 1) s = 1;
           if (d > 1e-6 * s) print "differs " $0 }')
  local n
  n=$(aggregate_lines "$a" | wc -l)
  if [ -z "$diff" ] && [ "$n" -gt 0 ]; then ok "$what ($n numbers agree)"; else not_ok "$what: ${diff:-no groups} "; fi
}
