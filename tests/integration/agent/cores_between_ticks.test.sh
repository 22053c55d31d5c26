#!/usr/bin/env bash
# A scan at a request (a task registered since the last tick, named by the
# request: agent_tasks_scan) leaves the readings of the processes the agent
# knew already as the tick took them: proc_get_info's "cores" of a busy loop
# stays its rate over the last interval. Before, each such scan recomputed it
# over the milliseconds since the previous scan, in 10 ms clock ticks: 0, or
# several cores for one thread.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock
start_agent "$S" --no-archive --interval 1 || { not_ok "the agent starts"; finish; }

"$TALLY" run --agent "$S" --app spin -o /dev/null -- sh -c 'while :; do :; done' 2>/dev/null &
RUN=$!
cores() { req "$S" ':proc_get_info([app_spin], 2)' | jq -r 'select(.service) | .result.cores[0]' | head -1; }
busy() { awk -v c="$(cores)" 'BEGIN { exit !(c > 0) }'; }
check "the agent has a rate of CPU for the busy loop (two ticks)" wait_until 15 busy

# 10 rounds, a few milliseconds apart: a task registered, then a request
# naming it and the busy loop (the scan there and then), the loop's cores.
python3 - "$S" >"$WORK/cores" <<'PY'
import json, os, socket, sys
path = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s, s.makefile("rw")
ask_sock, ask = conn()
runners = []
for k in range(10):
    s, f = conn()
    f.write(json.dumps({"op": "register", "app": "e%d" % k, "command": "x", "runner": os.getpid()}) + "\n")
    f.flush()
    f.readline()
    runners.append((s, f))
    ask.write(json.dumps({"op": "request", "text": ":proc_get_info([app_e%d, app_spin], 2)" % k}) + "\n")
    ask.flush()
    while True:
        line = json.loads(ask.readline())
        if line.get("done"):
            break
        if line.get("service") == "proc_get_info":
            print(line["result"]["cores"][0])
PY
check_eq "10 readings of the busy loop's cores" "$(grep -c . "$WORK/cores")" 10
out_of_range=$(awk '$1 <= 0 || $1 > 1.5' "$WORK/cores" | tr '\n' ' ')
check_eq "every one is a rate over an interval: above 0, at most 1.5 cores (one thread)" "$out_of_range" ""
kill "$RUN"; wait "$RUN" 2>/dev/null
"$TALLY" agent --socket "$S" stop >/dev/null 2>&1
wait "$AGENT_PID"
finish
