#!/usr/bin/env bash
# tally contract watch of an application whose ranks run on two hosts: the
# 2-D stencil (Open MPI, 4 ranks: 0-1 on hostA where 'tally run --agent
# --app md --mpi' started it, 2-3 on hostB, which registered with hostB's
# agent), watched over NATS from outside both hosts. The samples of every
# period name the 4 ranks with their hosts; a clean run recorded this way is
# the baseline. A run whose halos are 4 times larger (256 doubles instead of
# 64: 4 times the bytes per message, exact whatever the load) is violated in
# intrinsic communicate on every rank, hostB's included, and while it runs
# hostB's agent holds its own ranks' levels (proc_get_info 0x100 over NATS).
# Each run lasts until the watch has what the test needs (STENCIL_UNTIL),
# so neither a quiet nor a loaded machine cuts it short.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/multihost_lib.sh"
multihost_start hostA hostB:1000 || { not_ok "simulated hosts"; finish; }
build openmpi stencil || { not_ok "build stencil"; finish; }
nats_args=(--nats "$NATS_ALPHA" --creds "$WORK/creds/$MH_USER")
previous=$(trap -p EXIT | sed "s/^trap -- '//; s/' EXIT\$//")
trap "touch '$WORK/base.release' '$WORK/large.release'; $previous" EXIT # a failed test ends its runs
# md NAME HALO: the stencil (at least 50 iterations) that runs until
# NAME.release exists (STENCIL_UNTIL: set by this script on every host, as
# mpirun does not carry the variable to hostB)
md() { printf '#!/bin/sh\nSTENCIL_UNTIL="%s/%s.release" exec "%s/stencil.openmpi" blocking 50 %s 100 0 1 "%s/hand.%s"\n' \
  "$WORK" "$1" "$WORK" "$2" "$WORK" "$1" > "md.$1"; chmod +x "md.$1"; }
# periods FILE: the fewest samples any of the 4 ranks has in FILE (JSON lines with .process)
periods() { jq -r '.process' "$1" 2>/dev/null | sort | uniq -c | awk 'NF == 2 { n++; if (min == "" || $1 < min) min = $1 } END { print (n == 4) ? min : 0 }'; }

# the baseline: recorded over NATS until every rank has 5 periods
md base 64
"$TALLY" contract watch --record base.jsonl --app md "${nats_args[@]}" --period 1 >base.out 2>base.err &
wpid=$!
on_launch $TALLY run --agent --app md --mpi -o base -- $(mh_launcher openmpi 4 hostA:2,hostB:2) \
  "$WORK/md.base" >base.run.out 2>base.run.err &
rpid=$!
five() { [ "$(periods base.jsonl)" -ge 5 ]; }
check "every rank recorded for 5 periods" wait_until 60 five
touch base.release
wait $rpid
echo $? >base.run.status
sleep 1.5 # the watch's last period
kill -INT $wpid
wait $wpid
echo $? >base.status
check_eq "the baseline run exits 0" "$(cat base.run.status)" 0
check_eq "watch --record exits 0" "$(cat base.status)" 0
check_eq "the recorded samples name the 4 ranks with their hosts" \
  "$(jq -r '"\(.process)@\(.host)"' base.jsonl | sort -u | tr '\n' ' ')" "0@hostA 1@hostA 2@hostB 3@hostB "
check_eq "bytes per message in the baseline: 8 x 64 on every rank" \
  "$(jq -r 'select(.metrics.messages_per_byte != null) | .metrics.messages_per_byte * 512 | . * 100 | round / 100' base.jsonl | sort -u | awk '$1 < 0.9 || $1 > 1.1 { print "bad " $1; next } { print "ok" }' | sort -u)" ok
"$TALLY" contract build base.jsonl --name md -o md.contract 2>build.err
check_eq "contract build from the samples of both hosts exits 0" "$?" 0
check_eq "4 processes in the contract" "$(grep -c '^process ' md.contract)" 4

# halos 4 times larger; while it runs, hostB's agent holds its ranks' levels
"$TALLY" contract watch md.contract --app md "${nats_args[@]}" --period 1 >large.out 2>large.err &
wpid=$!
md large 256
on_launch $TALLY run --agent --app md --mpi -o large -- $(mh_launcher openmpi 4 hostA:2,hostB:2) \
  "$WORK/md.large" >large.run.out 2>large.run.err &
rpid=$!
levels_on() { # HOST: "host:rank:overall>=threshold" of HOST's ranks, from its agent over NATS
  "$TALLY" request "${nats_args[@]}" --timeout 2 ":proc_get_info([n_$1], 0x180)" 2>/dev/null |
    jq -r 'select(.result.contract != null and .result.probes.rank != null) | "\(.node):\(.result.probes.rank):\(.result.contract.overall >= .result.contract.threshold)"' | sort -u | tr '\n' ' '
}
hostb_violated() { [ "$(levels_on hostB)" = "hostB:2:true hostB:3:true " ]; }
check "hostB's agent holds levels at the threshold for its ranks 2 and 3 ($(levels_on hostB))" wait_until 40 hostb_violated
three() { [ "$(jq -c 'select(.space == "intrinsic" and .dimension == "communicate")' large.out 2>/dev/null | periods /dev/stdin)" -ge 3 ]; }
check "the watch checked every rank for 3 periods" wait_until 60 three
touch large.release

wait $rpid
check_eq "the large-halo run exits 0" "$?" 0
sleep 1.5
kill -INT $wpid
wait $wpid
check_eq "watch exits 1 after SIGINT (levels at the threshold)" "$?" 1
check_eq "intrinsic communicate violated on every rank, on both hosts" \
  "$(jq -r 'select(.space == "intrinsic" and .dimension == "communicate" and .level >= 0.5) | "\(.process)@\(.host)"' large.out | sort -u | tr '\n' ' ')" \
  "0@hostA 1@hostA 2@hostB 3@hostB "
check_contains "the explanation says what changed" \
  "$(jq -r 'select(.process == "3" and .space == "intrinsic" and .dimension == "overall") | .explanation' large.out | head -1)" \
  "process 3 (host hostB) intrinsic:"
check_eq "no export failure" "$(grep -c 'not exported' large.err)" 0
finish
