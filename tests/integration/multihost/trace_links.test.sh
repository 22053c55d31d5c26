#!/usr/bin/env bash
# tally trace from-runs --mpi: the links between hosts of a real MPI run on
# two simulated hosts (hosts.sh; 4 ranks of the stencil, 2 per host) go into
# the trace beside the hosts: one link hostA--hostB with edges to both hosts,
# its bandwidth used by the run's category, and over the trace it carries
# every byte the summary says crossed between the hosts' ranks (issue 21
# item 3). Links within a host are not links between hosts.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/multihost_lib.sh"
multihost_start hostA hostB:1000 || { not_ok "simulated hosts"; finish; }
HALO=64 ITS=200
flavour=${FLAVOURS:-openmpi}; flavour=${flavour%% *}
build $flavour stencil || { not_ok "build stencil with $flavour"; finish; }
mh_run_app $flavour s.summary $TALLY run --mpi --time-series --category stencil -o s -- $(mh_launcher $flavour 4 hostA:2,hostB:2) \
  "$WORK/stencil.$flavour" blocking $ITS $HALO 20 0 1 "$WORK/hand.$flavour" >out 2>err
check_eq "the run: exit status" "$?" 0
check "  ... its summary dates the link series" jq -e '.mpi.link_series_origin > 1e9' s.summary

"$TALLY" trace from-runs s --mpi -o t.paje 2>err.txt
check_eq "from-runs --mpi: exit 0" "$?" 0
check_eq "  ... nothing on stderr" "$(cat err.txt)" ""
check_eq "one link between the hosts, of type link" \
  "$(pj_dump t.paje | awk -F', *' '$1 == "Container" && $3 == "link" { print $7 }')" "hostA--hostB"
"$TALLY" view t.paje -o t.html
sed -n 's|.*<script type="application/json" id="tally-meta">\(.*\)</script>.*|\1|p' t.html >meta.json
check_eq "the topology: hostA — link — hostB" \
  "$(jq -c '. as $m | [.topology.edges[] | map($m.containers[.].n) | sort | join(" ")] | sort' meta.json)" '["hostA hostA--hostB","hostA--hostB hostB"]'
# the bytes that crossed: links of the summary between ranks on different hosts, both ways
crossed=$(jq '. as $s | ([$s.mpi.per_rank[] | {key: (.rank | tostring), value: .host}] | from_entries) as $h
  | [$s.mpi.links[] | select($h[.from | tostring] != $h[.to | tostring]) | .bytes] | add' s.summary)
check_cmp "  ... bytes crossed between the hosts" "$crossed" ">" 0
# the average over t+0 .. t+1000 s (past the trace's end usage is 0) times 1000 s: the MB carried
mb=$("$TALLY" trace aggregate t.paje --level link --kind bandwidth --from 0 --to 1000 --format json | jq '1000 * .groups[0].usage.stencil')
check_near "the link carried them all over the trace (MB)" "$mb" "$(awk -v b="$crossed" 'BEGIN { printf "%.6f", b / 1048576 }')" \
  "$(awk -v b="$crossed" 'BEGIN { printf "%.6f", b / 1048576 * 1e-4 }')"
# hostB's ranks were gathered at the end (only their totals crossed): their
# bytes are spread over each rank's life, up to its MPI_Finalize, not put in
# one burst at the gather after the run
fin=$(jq --argjson t0 "$("$TALLY" trace stats t.paje --format json | jq .start)" '.mpi.finalizing[0] - $t0' s.summary)
after=$("$TALLY" trace aggregate t.paje --level link --kind bandwidth --from "$fin" --to 1000 --format json |
  jq '(.to - .from) * .groups[0].usage.stencil')
check_cmp "  ... of which under 10 % after the ranks' MPI_Finalize (MB)" "$after" "<" \
  "$(awk -v b="$crossed" 'BEGIN { printf "%.6f", b / 1048576 * 0.1 }')"
check_eq "  ... its capacity inferred from the peak (never saturated)" "$(grep -c 'bandwidth.peak-capacity' t.paje)" 1
check_eq "without --mpi: no link" "$("$TALLY" trace from-runs s -o plain.paje && pj_dump plain.paje | grep -c '^Container.*, link, ')" 0
# a run without its link series: the file named
cp s.summary alone.summary; cp s.series alone.series
"$TALLY" trace from-runs alone --mpi -o x.paje 2>err.txt; st=$?
check_eq "--mpi without PREFIX.mpi.paje: exit 125" "$st" 125
check_contains "  ... naming it" "$(cat err.txt)" "alone.mpi.paje"
finish
