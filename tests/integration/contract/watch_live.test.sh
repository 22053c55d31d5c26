#!/usr/bin/env bash
# Contract levels in the live tools (issue 10 item 4): 'tally contract watch
# --nats' sends each period's levels over NATS to the agent of the host the
# processes run on; that agent exports them on /metrics and answers them in
# proc_get_info 0x100, which 'tally top' and 'tally view --live' show. The
# workload is watch.test.sh's master/worker fixture (13 processes numbered
# 0..12 by a probe counter "rank"): one clean run recorded over NATS is the
# baseline; in the watched run workers 6..11 (ranks 7..12) do half the FLOPs
# per job, so exactly those are violated (intrinsic compute, level 1) and
# ranks 0..6 are not. Nothing depends on timing: FLOPs per job are exact.
# Per-user privacy: user bob, on the same nats-server with his own agent
# running an application of the same name, sees his own process and no
# levels, and cannot address this user's agents at all.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/live/nats-sites.sh"
MW=$PROGS/contract_master_worker
LIB=$TALLY_TEST_ROOT/build/lib/libtally-probe.so
artifacts=$TALLY_TEST_ROOT/build/test-artifacts/live
mkdir -p "$artifacts"
user=$(id -un)
nats_sites_start "$user" bob || { not_ok "nats-servers start"; finish; }
session=tally-top-contract-$$
pids=()
trap 'tmux kill-session -t $session 2>/dev/null; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; _nats_stop; wait 2>/dev/null; rm -rf "$WORK"' EXIT
mport=$(nats_free_port)
NATS=(--nats "$NATS_ALPHA" --creds "$WORK/creds/$user")
BOB=(--nats "$NATS_ALPHA" --creds "$WORK/creds/bob" --user bob)
mkdir -m 700 "$WORK/n1" "$WORK/bob"
"$TALLY" agent --foreground --no-archive --socket "$WORK/n1/agent.sock" --host n1 \
  --metrics "127.0.0.1:$mport" "${NATS[@]}" 2>>"$WORK/agent.err" &
pids+=($!)
"$TALLY" agent --foreground --no-archive --socket "$WORK/bob/agent.sock" --host n1 "${BOB[@]}" \
  2>>"$WORK/agent-bob.err" &
pids+=($!)
for s in n1 bob; do
  wait_agent "$WORK/$s/agent.sock"
done
S=$WORK/n1/agent.sock

# --- baseline: a clean run recorded over NATS
"$TALLY" contract watch --record "$WORK/base.jsonl" --app mw "${NATS[@]}" --period 1 \
  >/dev/null 2>"$WORK/base.err" &
wpid=$!
"$TALLY" run --agent "$S" --app mw --probes -o "$WORK/base" -- \
  "$MW" --probe-lib "$LIB" --pin 3 --seconds 5 >/dev/null 2>"$WORK/base.run.err"
sleep 1.5
kill -INT $wpid; wait $wpid
"$TALLY" contract build "$WORK/base.jsonl" -o "$WORK/mw.contract" 2>"$WORK/build.err"
check_eq "contract from a clean run recorded over NATS" "$?" 0

# --- the watched run, and bob's application of the same name
"$TALLY" run --agent "$WORK/bob/agent.sock" --app mw -o "$WORK/bobrun" -- sleep 25 2>/dev/null &
pids+=($!)
"$TALLY" contract watch "$WORK/mw.contract" --app mw "${NATS[@]}" --period 1 \
  >"$WORK/fewer.out" 2>"$WORK/fewer.err" &
wpid=$!
pids+=($wpid)
"$TALLY" run --agent "$S" --app mw --probes -o "$WORK/fewer" -- \
  "$MW" --probe-lib "$LIB" --pin 3 --seconds 16 --fewer 6-11 >/dev/null 2>"$WORK/fewer.run.err" &
rpid=$!
pids+=($rpid)

# proc_get_info 0x100 over NATS: every process's levels, kept by n1's agent
# (the watch reached it over NATS only). Until a period has all 13.
for _ in $(seq 300); do
  "$TALLY" request "${NATS[@]}" ':proc_get_info([app_mw], 0x181)' > "$WORK/info.out" 2>/dev/null
  [ "$(jq -r 'select(.result.contract != null) | .result.pid' "$WORK/info.out" | wc -l)" -eq 13 ] && break
  sleep 0.2
done
levels() { # high|low: the ranks at or above / below the threshold
  jq -r --arg w "$1" 'select(.result.contract != null) | .result | select((.contract.overall >= .contract.threshold) == ($w == "high")) | .probes.counters.rank' "$WORK/info.out" | sort -n | tr '\n' ' '
}
check_eq "0x100 over NATS: 13 processes with contract levels" \
  "$(jq -r 'select(.result.contract != null) | .result.pid' "$WORK/info.out" | wc -l)" 13
check_eq "... overall at or above the threshold on ranks 7-12" "$(levels high)" "7 8 9 10 11 12 "
check_eq "... below it on ranks 0-6" "$(levels low)" "0 1 2 3 4 5 6 "
check_eq "... the contract's process name is the rank" \
  "$(jq -r 'select(.result.contract != null) | .result | select(.contract.process != (.probes.counters.rank | tostring)) | .pid' "$WORK/info.out")" ""
check_eq "... the violated ones: level 1, worst dimension intrinsic compute" \
  "$(jq -r 'select(.result.contract.overall >= 0.5) | .result.contract | "\(.overall) \(.worst.space) \(.worst.dimension)"' "$WORK/info.out" | sort -u)" \
  "1 intrinsic compute"
check_eq "... threshold 0.5 (the contract's)" \
  "$(jq -r 'select(.result.contract != null) | .result.contract.threshold' "$WORK/info.out" | sort -u)" 0.5
check_eq "... dimensions of both spaces, overall included" \
  "$(jq -r 'select(.result.contract.process == "9") | .result.contract.levels[] | "\(.space) \(.dimension)"' "$WORK/info.out" | sort | tr '\n' ',')" \
  "execution communicate,execution compute,execution cpu,execution overall,execution progress,intrinsic communicate,intrinsic compute,intrinsic overall,"
check_eq "without 0x100, no contract" \
  "$("$TALLY" request "${NATS[@]}" ':proc_get_info([app_mw], 0x1)' | jq -r 'select(.result.contract != null) | .result.pid' | wc -l)" 0
curl -s "http://127.0.0.1:$mport/metrics" > "$WORK/metrics.out"
check_eq "/metrics of n1's agent: the levels sent over NATS (13 overall intrinsic gauges)" \
  "$(grep -c '^tally_contract_violation{app="mw",.*host="n1",space="intrinsic",dimension="overall"' "$WORK/metrics.out")" 13
check_eq "the watch says nothing of export failures" "$(grep -c 'not exported' "$WORK/fewer.err")" 0

rank_pid() { jq -r --arg r "$1" 'select(.result.probes.counters.rank == ($r | tonumber)) | .result.pid' "$WORK/info.out"; }
violating_pids=$(for r in 7 8 9 10 11 12; do rank_pid $r; done | sort -n | tr '\n' ' ')
clean_pids=$(for r in 0 1 2 3 4 5 6; do rank_pid $r; done | sort -n | tr '\n' ' ')

# --- tally top --once over NATS, not on a terminal: '!' and no colour
"$TALLY" top --app mw "${NATS[@]}" --once --interval 0.3 > "$WORK/top.out" 2>&1
marked() { awk -v want="$2" '$1 == "n1" && $2 ~ /^[0-9]+$/ && NF > 10 { m = ($10 ~ /!$/) ? "yes" : "no"; if (m == want) print $2 }' "$1" | sort -n | tr '\n' ' '; }
check_contains "top: the title counts the violating processes" "$(head -1 "$WORK/top.out")" " - 6 violating"
check_contains "top: a CONTRACT column" "$(cat "$WORK/top.out")" " CONTRACT "
check_eq "top: '!' on the processes of ranks 7-12" "$(marked "$WORK/top.out" yes)" "$violating_pids"
check_eq "top: no '!' on ranks 0-6" "$(marked "$WORK/top.out" no)" "$clean_pids"
check_eq "top: the violated ones show 1.00! intrinsic compute" \
  "$(awk '$10 == "1.00!" { print $11, $12 }' "$WORK/top.out" | sort -u)" "intrinsic compute"
check_eq "top: the host line counts them (VIOL)" "$(awk '$1 == "n1" && $2 == 13 { print $NF }' "$WORK/top.out")" 6
check "top: no escape sequences when not on a terminal" sh -c "! grep -q \$(printf '\\033') '$WORK/top.out'"

# --- tally top in tmux: the violating lines in bold red
tmux new-session -d -s "$session" -x 200 -y 40 \
  "$TALLY top --app mw --nats $NATS_ALPHA --creds $WORK/creds/$user --interval 0.5 --sort pid; echo EXITED \$?; sleep 30"
for _ in $(seq 200); do tmux capture-pane -p -t "$session" | grep -q " violating" && break; sleep 0.1; done
sleep 0.8
tmux capture-pane -p -e -t "$session" > "$WORK/tmux.out"
# tmux re-encodes the attributes (bold and red come back as ESC[1m ESC[31m)
# and carries them over lines until a reset: the state is followed through
red() {
  perl -ne 'my $start; while (/\G(?:\e\[([0-9;]*)m|(.))/gs) { if (defined $1) { my $a = $1; $r = 1 if $a =~ /(^|;)31$/; $r = 0 if $a =~ /^(0|39)?$/; } elsif (!defined $start && $2 ne "\n") { $start = $r; } }
            s/\e\[[0-9;]*m//g; my @f = split; print "$f[1]\n" if $start && @f > 2 && $f[0] eq "n1" && $f[1] =~ /^\d+$/ && $f[1] != 13;' "$WORK/tmux.out" | sort -n | tr '\n' ' '
}
check_eq "tmux: the process lines of ranks 7-12 are red, no other" "$(red)" "$violating_pids"
tmux send-keys -t "$session" q
for _ in $(seq 100); do tmux capture-pane -p -t "$session" | grep -q "EXITED" && break; sleep 0.05; done
check_contains "tmux: 'q' quits with status 0" "$(tmux capture-pane -p -t "$session")" "EXITED 0"

# --- the live page in Chromium
"$TALLY" view --live mw --serve 0 --interval 0.5 "${NATS[@]}" > "$WORK/view.out" 2>&1 &
pids+=($!)
PORT=
for _ in $(seq 200); do PORT=$(sed -n 's|serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/view.out"); [ -n "$PORT" ] && break; sleep 0.05; done
if node "$TALLY_TEST_ROOT/tests/integration/live/live_check.js" "http://127.0.0.1:$PORT/" \
     "$artifacts/live-contract.png" 0 13 > "$WORK/page.json" 2> "$WORK/page.err"; then
  ok "the live page with contract levels loads in Chromium"
else
  not_ok "the live page with contract levels loads in Chromium: $(cat "$WORK/page.err")"
fi
page() { jq -r "$1" "$WORK/page.json"; }
check_eq "page: the contract panel is shown" "$(page .later.contractShown)" true
check_eq "page: the threshold line at 0.5" "$(page '"\(.later.threshold) \(.later.thresholdLines)"')" "0.5 1"
check_eq "page: ranks 7-12 violating (process@host)" \
  "$(page '.later.contract | to_entries[] | select(.value.violating and .value.red) | .key' | tr '\n' ' ')" \
  "7@n1 8@n1 9@n1 10@n1 11@n1 12@n1 "
check_eq "page: ranks 0-6 not" \
  "$(page '.later.contract | to_entries[] | select(.value.violating | not) | .key' | tr '\n' ' ')" \
  "0@n1 1@n1 2@n1 3@n1 4@n1 5@n1 6@n1 "
check_eq "page: the violated ones' worst dimension" \
  "$(page '.later.contract | to_entries[] | select(.value.violating) | .value.worst' | sort -u)" "intrinsic compute"
check_eq "page: one overall line per process, at 1 for rank 9" \
  "$(page '"\(.later.contractLines | length) \(.later.contractLines["9@n1"])"')" "13 1"
check_eq "page: heat strip: rank 9's intrinsic compute at 1, rank 2's below 0.5" \
  "$(page '"\(.later.strip["9@n1 intrinsic compute"].last) \(.later.strip["2@n1 intrinsic compute"].last < 0.5)"')" "1 true"
check_eq "page: heat strip: 8 dimensions for each of the 13 processes" "$(page '.later.strip | length')" 104
check_cmp "page: rank 9's strip has cells over time" "$(page '.later.strip["9@n1 intrinsic overall"].cells')" ">=" 1

# --- bob: his own mw, no levels; this user's agents out of his reach
"$TALLY" request "${BOB[@]}" ':proc_get_info([app_mw], 0x101)' > "$WORK/bob.out" 2>&1
check_eq "bob's request over NATS: only his own process (sleep)" \
  "$(jq -r 'select(.result.command != null) | .result.command' "$WORK/bob.out" | sort -u)" sleep
check_eq "... with no contract levels" "$(jq -r 'select(.result.contract != null) | .result.pid' "$WORK/bob.out" | wc -l)" 0
"$TALLY" top --app mw "${BOB[@]}" --once --interval 0.3 > "$WORK/bobtop.out" 2>&1
check_contains "bob's top: his one process" "$(head -1 "$WORK/bobtop.out")" "1 process on 1 host"
check_eq "bob's top: no CONTRACT column" "$(grep -c 'CONTRACT\|violating' "$WORK/bobtop.out")" 0
out=$(timeout 20 "$TALLY" request --nats "$NATS_ALPHA" --creds "$WORK/creds/bob" --user "$user" ':proc_get_info([app_mw], 0x100)' 2>&1)
check_contains "bob addressing this user's agents: refused by the server" "$out" "refused by the NATS server"

# --- the watch stops: the levels are forgotten on n1
kill -INT $wpid; wait $wpid
"$TALLY" request "${NATS[@]}" ':proc_get_info([app_mw], 0x100)' > "$WORK/after.out" 2>/dev/null
check_eq "after the watch stops: no levels kept" "$(jq -r 'select(.result.contract != null) | .result.pid' "$WORK/after.out" | wc -l)" 0
wait $rpid # the run ends by itself: nothing of it outlives the test
finish
