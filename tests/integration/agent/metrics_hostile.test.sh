#!/usr/bin/env bash
# tally agent --metrics against what a local user can do to it: ':PORT'
# listens on 127.0.0.1 only (and the agent says where, and who can read it);
# 64 clients that trickle a header line every 3 s (the issue's case: before
# the gate, they blocked every scrape for 24 s), holding their connections
# open, do not lock scrapes out: each scrape meanwhile is answered within
# 1.5 s, and each slow client is cut off after the per-connection deadline
# (5 s). Bounded: 64 clients on 127.0.0.1 for at most 30 s. As root, the
# slow clients and the scrapes are another local user's (tally-flood), who
# share the bound of 16 connections every user but the agent's own has (the
# agent's own user has a bound of its own: agent/metrics_flood); otherwise
# they are this user's.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/local_users.sh"
client() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
  local_users tally-flood
  client() { as_user tally-flood "$@"; }
  echo "# the slow clients and the scrapes: user tally-flood (not the agent's)"
else
  echo "# the slow clients and the scrapes: this user, the agent's own (not root: no other user to be)"
fi
command -v python3 >/dev/null || { not_ok "python3 is needed for the slow clients"; finish; }
S=$WORK/sock/agent.sock

out=$("$TALLY" agent --foreground --socket "$WORK/bad.sock" --metrics 'nohost:99999' 2>&1); rc=$?
check_eq "a bad --metrics is refused" "$rc" 125
check_contains "... naming it" "$out" "tally: agent: --metrics 'nohost:99999' is not [ADDR]:PORT"

for _ in 1 2 3 4 5; do
  PORT=$(free_port)
  "$TALLY" agent --foreground --socket "$S" --no-archive --metrics ":$PORT" 2>"$WORK/agent.err" &
  AGENT_PID=$!
  wait_agent "$S" && break
  wait "$AGENT_PID"
done
check "the agent serves metrics on :$PORT" kill -0 "$AGENT_PID"
listening=$(ss -Hltn "sport = :$PORT" | awk '{ print $4 }')
check_eq "':PORT' listens on the loopback interface only" "$listening" "127.0.0.1:$PORT"
check_contains "the agent says where, and who can read them" "$(cat "$WORK/agent.err")" \
  "tally: agent: metrics at http://127.0.0.1:$PORT/metrics, readable by any user of this host"

# 64 slow clients: each sends a request line, then one header line every 3 s
# for up to 24 s; each records how long its connection lasted.
cat >"$WORK/slow.py" <<'PY'
import socket, sys, time, threading
port, n = int(sys.argv[1]), int(sys.argv[2])
lasted = []
def client():
    s = socket.create_connection(("127.0.0.1", port), timeout=2)
    start = time.monotonic()
    s.sendall(b"GET /metrics HTTP/1.1\r\n")
    s.settimeout(3)
    cut = False
    try:
        for i in range(8):
            try:
                s.recv(4096)  # the agent closed the connection (or answered)
                cut = True
                break
            except socket.timeout:
                s.sendall(b"X-Slow-%d: 1\r\n" % i)
    except OSError:
        cut = True
    lasted.append(time.monotonic() - start if cut else 99)
    s.close()
threads = [threading.Thread(target=client) for _ in range(n)]
for t in threads: t.start()
print("started", flush=True)
for t in threads: t.join()
print("%d %.1f" % (len(lasted), max(lasted)), flush=True)
PY
client timeout 40 python3 -c "$(cat "$WORK/slow.py")" "$PORT" 64 >"$WORK/slow.out" &
SLOW=$!
check "64 slow clients connected" wait_until 10 grep -q started "$WORK/slow.out"
sleep 1
scraped=0 slowest=0
for _ in 1 2 3 4 5 6 7 8; do
  read -r code took < <(client curl -s -o /dev/null -m 10 -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$PORT/metrics")
  [ "$code" = 200 ] && scraped=$((scraped + 1))
  slowest=$(awk -v a="$slowest" -v b="$took" 'BEGIN { print (b > a ? b : a) }')
  sleep 0.5
done
check_eq "scrapes answered while 64 slow clients trickle (of 8, 10 s allowed each)" "$scraped" 8
check_cmp "  each promptly (slowest, s; 24 s before the gate)" "$slowest" "<=" 1.5
wait "$SLOW"
read -r clients longest < <(tail -n 1 "$WORK/slow.out")
check_eq "every slow client finished" "$clients" 64
check_cmp "each slow client was cut off within the 5 s deadline and a tick (longest, s)" \
  "$longest" "<=" 7
code=$(client curl -s -o /dev/null -m 3 -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
check_eq "a scrape afterwards" "$code" 200

kill -TERM "$AGENT_PID"; wait "$AGENT_PID"; rc=$?
check_eq "the agent stops cleanly" "$rc" 0
finish
