#!/usr/bin/env bash
# tally agent --metrics under many scrapes at once: 40 scrapes by the
# agent's own user, released together, each sending its request 0.2 s after
# connecting (a scraper on a busy host), are all answered. Before, the gate's
# bound of 16 connections ended the oldest silent ones to make room, and a
# scrape accepted before its request arrived was one of them: 16 of 40. The
# host user's own connections (a loopback client of the agent's uid, found
# with NETLINK_SOCK_DIAG) now have a bound of their own (64), so that also a
# flood of silent connections by another local user (as root: a user of its
# own, 4 threads for 5 s) does not end them; the flood's are still bounded
# (16) and ended as before.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/local_users.sh"
PY=$TALLY_TEST_ROOT/tests/integration/agent/metrics_flood.py
S=$WORK/sock/agent.sock
start_metrics_agent "$S" || { not_ok "the agent starts with --metrics"; finish; }

for round in 1 2; do
  check_eq "round $round: 40 scrapes at once, each speaking 0.2 s after connecting: all answered" \
    "$(python3 "$PY" scrape "$PORT" 40 0.2)" 40
done
check_eq "40 scrapes at once speaking at once: all answered" "$(python3 "$PY" scrape "$PORT" 40 0)" 40

if [ "$(id -u)" -eq 0 ]; then
  local_users tally-flood
  as_user tally-flood /usr/bin/python3 "$PY" flood "$PORT" 5 >"$WORK/flood.out" &
  FLOOD=$!
  sleep 1
  check_eq "during another user's flood of silent connections: 40 own scrapes (0.2 s late) answered" \
    "$(python3 "$PY" scrape "$PORT" 40 0.2)" 40
  wait "$FLOOD"
  check_cmp "the flood was one (connections opened in 5 s)" "$(cat "$WORK/flood.out")" ">" 500
else
  ok "# SKIP another user's flood: needs root to run as another user"
fi
check_eq "a scrape afterwards" "$(curl -s -o /dev/null -m 3 -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")" 200
kill -TERM "$AGENT_PID"; wait "$AGENT_PID"; rc=$?
check_eq "the agent stops cleanly" "$rc" 0
finish
