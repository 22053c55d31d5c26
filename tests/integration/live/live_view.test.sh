#!/usr/bin/env bash
# tally view --live in headless Chromium: the page charts an application's
# processes on two hosts (two agents), its numbers are the processes' own
# (memory they touched), it updates without reloading, and G-PM's bar chart
# shows a counter read and reset every step (a known 5 per 100 ms). Also the
# data endpoint over NATS, and bad input. Screenshot in build/test-artifacts/live/.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/live/nats-sites.sh"
artifacts=$TALLY_TEST_ROOT/build/test-artifacts/live
mkdir -p "$artifacts"
user=$(id -un)
nats_sites_start "$user" || { not_ok "nats-servers start"; finish; }
pids=()
late_pid=
# (a stopped view is continued before its SIGTERM, never after one: a SIGCONT
# discards the SIGSTOP that LeakSanitizer's tracer sends an exiting process)
trap '[ -n "$late_pid" ] && kill -CONT "$late_pid"; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; touch "$WORK/release"; _nats_stop; wait 2>/dev/null; rm -rf "$WORK"' EXIT

for h in n1 n2; do
  mkdir -m 700 "$WORK/$h"
  "$TALLY" agent --foreground --no-archive --socket "$WORK/$h/agent.sock" --host "$h" --site alpha \
    --nats "$NATS_ALPHA" --creds "$WORK/creds/$user" 2>>"$WORK/agent.err" &
  pids+=($!)
done
for h in n1 n2; do
  wait_agent "$WORK/$h/agent.sock"
done
declare -A mb=([n1]=30 [n2]=70)
for h in n1 n2; do
  "$TALLY" run --agent "$WORK/$h/agent.sock" --app sim -o "$WORK/run-$h" -- \
    "$PROGS/hold_memory" "${mb[$h]}" 0 "$WORK/ready-$h" "$WORK/release" 2>>"$WORK/run.err" &
  pids+=($!)
done
for h in n1 n2; do for _ in $(seq 600); do [ -s "$WORK/ready-$h" ] && break; sleep 0.05; done; done
check "the application runs on n1 and n2" test -s "$WORK/ready-n1" -a -s "$WORK/ready-n2"

# A counter on n1 that grows by 5 every 100 ms, kept alive by a following tool.
"$TALLY" request --agent "$WORK/n1/agent.sock" ':pa_counter_create()' > /dev/null
"$TALLY" request --agent "$WORK/n1/agent.sock" --follow 'timer(100ms): pa_counter_increment([c_1], 5)' > /dev/null 2>&1 &
pids+=($!)

serve() { # OUT ARGS...: starts tally view --live, sets PORT
  local out=$1; shift
  "$TALLY" view --live sim --serve 0 --interval 0.5 "$@" > "$out" 2>&1 &
  pids+=($!)
  PORT=
  for _ in $(seq 200); do PORT=$(sed -n 's|serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$out"); [ -n "$PORT" ] && break; sleep 0.05; done
}
serve "$WORK/nats.out" --nats "$NATS_ALPHA" --creds "$WORK/creds/$user" \
  --bars 'timer(1s): pa_counter_read([c_1], 1)'
check "view --live over NATS serves a page" test -n "$PORT"
got=
for _ in $(seq 100); do
  got=$(curl -s "http://127.0.0.1:$PORT/data" | jq -c '.points[-1].hosts | keys')
  [ "$got" = '["n1","n2"]' ] && break; sleep 0.1
done
check_eq "over NATS the data has both hosts" "$got" '["n1","n2"]'
view_port=$PORT

# A second view, stopped (SIGSTOP) across the application's end: when it polls
# again, neither agent answers for the application any more (an agent leaves
# the application's NATS subject once its task ended). It must still find
# that the application finished, not wait for an answer that never comes.
state_is() { [ "$(curl -s "http://127.0.0.1:$1/data?since=1e12" | jq -r .state)" = "$2" ]; }
serve "$WORK/late.out" --nats "$NATS_ALPHA" --creds "$WORK/creds/$user"
late_port=$PORT late_pid=${pids[-1]}
PORT=$view_port
check "a second view sees the application running" wait_until 20 state_is "$late_port" running
kill -STOP "$late_pid"

if node "$TALLY_TEST_ROOT/tests/integration/live/live_check.js" "http://127.0.0.1:$PORT/" \
     "$artifacts/live.png" 3 0 "$WORK/release" > "$WORK/page.json" 2> "$WORK/page.err"; then
  ok "the page loads in Chromium"
else
  not_ok "the page loads in Chromium: $(cat "$WORK/page.err")"
fi
check_eq "page: the application's name" "$(jq -r .later.app "$WORK/page.json")" sim
check_eq "page: one memory line per host" "$(jq -c '.later.hosts | sort' "$WORK/page.json")" '["n1","n2"]'
for h in n1 n2; do
  m=$(jq -r --arg h $h '.later.memory[$h]' "$WORK/page.json")
  check_cmp "page: memory of $h (MB) at least what its process touched" "$m" ">=" "${mb[$h]}"
  check_cmp "page: memory of $h (MB) not far above" "$m" "<" "$(( ${mb[$h]} + 20 ))"
done
check_cmp "page: updated without reloading (updates)" "$(jq '.later.updates - .first.updates' "$WORK/page.json")" ">=" 3
check_eq "page: no reload (navigations)" "$(jq .later.navigations "$WORK/page.json")" 1
check_cmp "page: more points than at first" "$(jq '.later.points - .first.points' "$WORK/page.json")" ">" 0
check_eq "page: the bar chart is shown" "$(jq .later.barsShown "$WORK/page.json")" true
# every full step adds 10 x 5 = 50; the first bar may cover part of a step
bars=$(jq -r '.later.bars[1:] | map(tostring) | join(" ")' "$WORK/page.json")
full=$(jq '[.later.bars[1:][] | select(. >= 40 and . <= 60)] | length' "$WORK/page.json")
check_eq "page: every bar after the first is about 50 (5 every 100 ms for 1 s: $bars)" \
  "$full" "$(jq '.later.bars[1:] | length' "$WORK/page.json")"

# readable axes (issue 22): 0, s, 2s, ... with s 1, 2 or 5 times a power of
# ten, at least 4 ticks; the value axis reaches the largest value charted
readable() { # TICKS (space-separated): the step's mantissa is 1, 2 or 5 and every tick a multiple
  awk -v t="$1" 'BEGIN { n = split(t, v, " "); if (n < 4 || v[1] != 0) exit 1; s = v[2]
    m = s / 10 ^ int(log(s) / log(10) + 1e-9 - (s < 1)); if (m < 0.999) m *= 10
    if (!(m > 0.999 && m < 1.001) && !(m > 1.999 && m < 2.001) && !(m > 4.999 && m < 5.001)) exit 1
    for (i = 2; i <= n; i++) if (v[i] - v[i-1] < s * 0.999 || v[i] - v[i-1] > s * 1.001) exit 1 }'
}
for m in cores memory; do
  yt=$(jq -r --arg m $m '.later.ticks[$m].y | map(tostring) | join(" ")' "$WORK/page.json")
  xt=$(jq -r --arg m $m '.later.ticks[$m].x | map(tostring) | join(" ")' "$WORK/page.json")
  check "page: $m's value ticks are readable ($yt)" readable "$yt"
  check "page: $m's time ticks are readable ($xt)" readable "$xt"
done
top=$(jq '.later.ticks.memory.y[-1]' "$WORK/page.json")
check_cmp "page: the memory axis reaches n2's memory" "$top" ">=" "$(jq '.later.memory.n2' "$WORK/page.json")"
# the application ended (live_check released it): the page says so
check_eq "page: the application's state once its processes ended" "$(jq -r .ended.state "$WORK/page.json")" finished
check_contains "page: the status line says finished" "$(jq -r .ended.status "$WORK/page.json")" "finished at "
check_eq "data: state finished" "$(curl -s "http://127.0.0.1:$PORT/data?since=1e12" | jq -r .state)" finished
left_app() { # HOST: its agent no longer takes requests for app_sim
  [ "$("$TALLY" agent status --socket "$WORK/$1/agent.sock" | jq -c .nats.apps)" = '[]' ]
}
check "both agents left the application's subject" wait_until 10 eval 'left_app n1 && left_app n2'
kill -CONT "$late_pid"
check "the view stopped across the end finds the application finished (the hosts it saw answer without it)" \
  wait_until 30 state_is "$late_port" finished
check_eq "its data says no process is left" "$(curl -s "http://127.0.0.1:$late_port/data?since=1e12" | jq -r .status)" \
  "finished: no process left"

# bad input
out=$("$TALLY" view --live 2>&1); check_eq "--live without a name: exit status" "$?" 125
out=$("$TALLY" view --live sim --serve 0 --agent "$WORK/none.sock" 2>&1)
check_eq "no agent there: exit status" "$?" 125
check_contains "no agent there: said in one line" "$out" "tally: view: --live sim:"
out=$("$TALLY" view --live sim --interval 0.01 2>&1); check_eq "--interval too short: exit status" "$?" 125
check_contains "--interval too short: says so" "$out" "at least 0.1 s"
out=$("$TALLY" view --live sim --interval soon 2>&1); check_eq "--interval not a time: exit status" "$?" 125
check_contains "--interval not a time: says why (not 'at least 0.1 s')" "$out" "'soon' is not a number"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/data?since=x")
check_eq "a bad 'since' is a 400" "$code" 400
check_eq "... saying which argument" "$(curl -s "http://127.0.0.1:$PORT/data?since=x")" "since: not a number"
out=$(curl -s -w '%{http_code}' "http://127.0.0.1:$PORT/data?since=1&bars_since=inf")
check_eq "a bad 'bars_since' is a 400 naming bars_since, not since" "$out" "bars_since: not a number
400"
finish
