#!/usr/bin/env bash
# Names the agents and the processes give are text, never markup: an agent
# whose host name is an HTML element with a script in its error handler
# (any user can name their agent's host) is shown literally by the live page
# (tally view --live) in headless Chromium, in every legend and in the hosts
# table, and its script never runs (the page built them with innerHTML).
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock
HOST='<img src=x onerror="document.documentElement.dataset.pwned=1">'
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$WORK"' EXIT
start_agent "$S" --no-archive --interval 0.5 --host "$HOST" || { not_ok "the agent starts"; finish; }
pids+=("$AGENT_PID")
"$TALLY" run --agent "$S" --app sim -o /dev/null -- sleep 30 2>"$WORK/run.err" &
pids+=($!)
"$TALLY" view --live sim --agent "$S" --serve 0 --interval 0.5 >"$WORK/view.out" 2>&1 &
pids+=($!)
PORT=
for _ in $(seq 200); do PORT=$(sed -n 's|serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/view.out"); [ -n "$PORT" ] && break; sleep 0.05; done
check "view --live serves a page" test -n "$PORT"
got= # (the page's first point comes with the agents' first answer)
for _ in $(seq 200); do
  got=$(curl -s "http://127.0.0.1:$PORT/data" | jq -r '(.points[-1].hosts // {}) | keys[]' 2>/dev/null)
  [ -n "$got" ] && break
  sleep 0.05
done
check_eq "the data names the host as the agent gave it" "$got" "$HOST"
if node "$TALLY_TEST_ROOT/tests/integration/live/hostile_check.js" "http://127.0.0.1:$PORT/" \
     >"$WORK/page.json" 2>"$WORK/page.err"; then
  ok "the page loads in Chromium"
else
  not_ok "the page loads in Chromium: $(cat "$WORK/page.err")"
fi
check_eq "page: the name's script did not run" "$(jq -r .ran "$WORK/page.json")" null
check_eq "page: its markup made no element" "$(jq -r .images "$WORK/page.json")" 0
check_eq "page: each of the 4 legends shows the name literally" \
  "$(jq -r --arg h "$HOST" '[.legends[] | select(. == $h)] | length' "$WORK/page.json")" 4
check_eq "page: the hosts table shows it literally" "$(jq -r '.rows[0]' "$WORK/page.json")" "$HOST"
check_eq "page: the charts are drawn for it" "$(jq -r .hosts "$WORK/page.json")" "$HOST"
finish
