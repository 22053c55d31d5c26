#!/usr/bin/env bash
# tally view --serve: the page without embedded signals, slices computed by
# the C core (GET /slice = tally trace aggregate --format json), the timeline
# too (GET /timeline: each step = tally trace aggregate over that step),
# bound to 127.0.0.1 only, clean stop on SIGTERM and SIGINT, port in use
# reported.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
source "$TALLY_TEST_ROOT/tests/integration/view/compare_aggregates.sh"
trace=$TALLY_TEST_ROOT/tests/fixtures/traces/view-platform.paje

# start_server LOG: starts tally view --serve 0 in the background; sets pid and port
start_server() {
  "$TALLY" view "$trace" --serve 0 >"$1" 2>"$1.err" &
  pid=$!
  port=
  for _ in $(seq 100); do
    port=$(sed -n 's|^serving http://127.0.0.1:\([0-9]*\)/$|\1|p' "$1")
    [ -n "$port" ] && break
    sleep 0.1
  done
}
# stop_server SIGNAL: sends it and waits (10 s at most); sets stop_status
stop_server() {
  kill -"$1" "$pid"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; stop_status=timeout; else wait "$pid"; stop_status=$?; fi
}

start_server server.log
check "server announces its port" test -n "$port"
base=http://127.0.0.1:$port

page=$(curl -sf "$base/")
check_contains "GET / serves the page" "$page" "<!DOCTYPE html>"
check_contains "served page fetches slices" "$(echo "$page" | sed -n 's|.*id="tally-meta">\(.*\)</script>.*|\1|p' | jq .serve)" "true"
check_eq "served page embeds no signals" "$(echo "$page" | grep -c 'id="tally-signals"')" 0

for slice in "0 100 HOST" "50 100 HOST" "0 20 HOST" "12.5 61.25 SITE" "30 70 LINK" "50 100 root" "10 90 host"; do
  set -- $slice
  curl -sf "$base/slice?from=$1&to=$2&level=$3" > served.json
  "$TALLY" trace aggregate "$trace" --from "$1" --to "$2" --level "$3" --format json > cli.json
  compare_aggregates "/slice [$1,$2] $3 = tally trace aggregate" served.json cli.json
done
check_eq "slice h5 capacity over [50,100]" "$(curl -sf "$base/slice?from=50&to=100&level=HOST" | jq '.groups[] | select(.name == "h5") | .capacity')" 120
check_eq "kind filter" "$(curl -sf "$base/slice?from=0&to=100&level=root&kind=bandwidth" | jq -c '[.groups[].kind]')" '["bandwidth"]'

# /timeline: steps of 12.5 s over [0, 100]; step 5 is [62.5, 75]
curl -sf "$base/timeline?level=HOST&group=h5&kind=cpu&steps=8" > tl.json
check_eq "/timeline: 8 steps of h5" "$(jq -c '[.group, .level, .kind, .steps, (.capacity | length), (.usage.burst | length)]' tl.json)" '["h5","HOST","cpu",8,8,8]'
"$TALLY" trace aggregate "$trace" --from 62.5 --to 75 --level HOST --format json > cli.json
check_near "/timeline: h5 capacity of step 5 = tally trace aggregate" "$(jq '.capacity[5]' tl.json)" "$(jq '.groups[] | select(.name == "h5") | .capacity' cli.json)" 1e-9
check_near "/timeline: h5 burst of step 5 = tally trace aggregate" "$(jq '.usage.burst[5]' tl.json)" "$(jq '.groups[] | select(.name == "h5") | .usage.burst' cli.json)" 1e-9
curl -sf "$base/timeline?level=root&kind=bandwidth&steps=4&from=50&to=100" > tl.json
"$TALLY" trace aggregate "$trace" --from 62.5 --to 75 --level root --kind bandwidth --format json > cli.json
check_near "/timeline over [50, 100]: root bandwidth continuous of step 1 = tally trace aggregate" "$(jq '.usage.continuous[1]' tl.json)" "$(jq '.groups[0].usage.continuous' cli.json)" 1e-9

code() { curl -s -o /dev/null -w '%{http_code}' "$base$1"; }
check_eq "/timeline unknown group: 400" "$(code '/timeline?level=HOST&group=h9&kind=cpu&steps=4')" 400
check_contains "/timeline unknown group: says why" "$(curl -s "$base/timeline?level=HOST&group=h9&kind=cpu&steps=4")" "group 'h9'"
check_eq "/timeline without kind: 400" "$(code '/timeline?level=root&steps=4')" 400
check_eq "/timeline bad steps: 400" "$(code '/timeline?level=root&kind=cpu&steps=2.5')" 400
check_eq "/timeline too many steps: 400" "$(code '/timeline?level=root&kind=cpu&steps=100000')" 400
# out of size_t's range: refused before the conversion (it was undefined behaviour)
for s in -1 1e20 0; do
  check_eq "/timeline steps=$s: 400" "$(code "/timeline?level=root&kind=cpu&steps=$s")" 400
  check_contains "/timeline steps=$s: says the range" \
    "$(curl -s "$base/timeline?level=root&kind=cpu&steps=$s")" "steps: expected 1 to 10000"
done
check_eq "unknown level: 400" "$(code '/slice?from=0&to=10&level=nope')" 400
check_contains "unknown level: says why" "$(curl -s "$base/slice?from=0&to=10&level=nope")" "unknown level"
check_eq "bad from: 400" "$(code '/slice?from=abc&to=10&level=HOST')" 400
check_eq "empty slice: 400" "$(code '/slice?from=10&to=10&level=HOST')" 400
check_eq "unknown path: 404" "$(code '/etc/passwd')" 404

# loopback only: the listening socket is bound to 127.0.0.1
# (from /proc/net/tcp: local address in hex, state 0A = LISTEN)
listening=$(awk -v p="$(printf '%04X' "$port")" '$4 == "0A" && substr($2, index($2, ":") + 1) == p { print $2 }' /proc/net/tcp)
check_eq "bound to 127.0.0.1 only" "$listening" "0100007F:$(printf '%04X' "$port")"

# port in use: one line, exit 125
"$TALLY" view "$trace" --serve "$port" > busy.log 2>busy.err
check_eq "port in use: exit 125" "$?" 125
check_eq "port in use: one line" "$(wc -l < busy.err)" 1
check_contains "port in use: says so" "$(cat busy.err)" "in use"
"$TALLY" view "$trace" --serve 99999 2>err.txt
check_eq "bad port: exit 125" "$?" 125
check_contains "bad port: named" "$(cat err.txt)" "99999"

stop_server TERM
check_eq "SIGTERM: clean exit 0" "$stop_status" 0
check_eq "SIGTERM: nothing on stderr" "$(cat server.log.err)" ""
start_server server2.log
check "restarts" test -n "$port"
check_eq "serves again" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")" 200
stop_server INT
check_eq "SIGINT: clean exit 0" "$stop_status" 0
finish
