# tally contract watch over NATS: the same live path as watch.test.sh, with
# the watch reaching the application's agent through a real nats-server
# (per-user permissions, docs/agent-nats.md) instead of its socket. One
# clean run recorded over NATS is the baseline; in a run where workers 6..11
# (ranks 7..12) do half the FLOPs per job, exactly those are violated in
# intrinsic compute. Over NATS the levels go to the agent of the processes'
# host (n1) over NATS: the watch says nothing of an export failure, and
# once it stops n1's agent keeps none (watch_live.test.sh checks them live).
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/live/nats-sites.sh"
MW=$PROGS/contract_master_worker
LIB=$TALLY_TEST_ROOT/build/lib/libtally-probe.so
user=$(id -un)
nats_sites_start "$user" || { not_ok "nats-servers start"; finish; }
trap 'kill $apid $wpid 2>/dev/null; _nats_stop; wait 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir -m 700 "$WORK/n1"
S=$WORK/n1/agent.sock
"$TALLY" agent --foreground --no-archive --socket "$S" --host n1 \
  --nats "$NATS_ALPHA" --creds "$WORK/creds/$user" 2>"$WORK/agent.err" &
apid=$!
wait_agent "$S"

watched() { # NAME WATCH-ARGS... -- FIXTURE-ARGS...
  local name=$1; shift
  local wargs=()
  while [ "$1" != "--" ]; do wargs+=("$1"); shift; done; shift
  "$TALLY" contract watch "${wargs[@]}" --app mw --nats "$NATS_ALPHA" --creds "$WORK/creds/$user" \
    --period 1 >"$WORK/$name.out" 2>"$WORK/$name.err" &
  wpid=$!
  "$TALLY" run --agent "$S" --app mw --probes -o "$WORK/$name" -- \
    "$MW" --probe-lib "$LIB" --pin 3 "$@" >/dev/null 2>"$WORK/$name.run.err"
  sleep 1.5 # the watch's last period
  kill -INT $wpid
  wait $wpid
  echo $? > "$WORK/$name.status"
  wpid=
}

watched base --record "$WORK/base.jsonl" -- --seconds 5
check_eq "over NATS: the recorded samples name 13 processes" "$(jq -r .process "$WORK/base.jsonl" | sort -u | wc -l)" 13
check_eq "... on the agent's host" "$(jq -r .host "$WORK/base.jsonl" | sort -u)" n1
"$TALLY" contract build "$WORK/base.jsonl" -o "$WORK/mw.contract" 2>"$WORK/build.err"
check_eq "contract build exits 0" "$?" 0
watched fewer "$WORK/mw.contract" -- --seconds 5 --fewer 6-11
check_eq "over NATS: watch exits 1 (levels at the threshold)" "$(cat "$WORK/fewer.status")" 1
check_eq "intrinsic compute violated on exactly ranks 7-12" \
  "$(jq -r 'select(.space == "intrinsic" and .dimension == "compute" and .level >= 0.5) | .process' "$WORK/fewer.out" | sort -n | uniq | tr '\n' ' ')" \
  "7 8 9 10 11 12 "
check_eq "the levels exported over NATS without a failure" "$(grep -c 'not exported' "$WORK/fewer.err")" 0
check_eq "... and forgotten on n1 once the watch stopped" \
  "$("$TALLY" request --agent "$S" ':proc_get_info([n_n1], 0x100)' | jq -r 'select(.result.contract != null) | .result.pid' | wc -l)" 0
finish
