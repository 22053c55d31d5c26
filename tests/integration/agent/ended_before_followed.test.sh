#!/usr/bin/env bash
# A command shorter than the agent's answer: tally run --agent (level 1)
# sends "follow" for its command and, when the command has already ended
# and been reaped by the time the agent reads that request (a loaded
# machine, a command that ends at once), the agent has nothing of it to
# sample and nothing is missing: tally run's summary holds the kernel's
# totals, exact for such a task. The agent answers follow_end with an empty
# summary, so tally run says nothing (before, it said "the agent gave no
# samples of the task": seen under srun --tally on a loaded machine). A
# process that is alive but no child of the runner is still refused.
# Played here by a client (as tally run, the registered runner) with a
# child it has reaped before asking, so that the order is certain.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock
start_agent "$S" --no-archive || { not_ok "the agent starts"; finish; }

sleep 84$$ &
STRANGER=$!
python3 - "$S" "$STRANGER" >"$WORK/client.out" <<'PY'
import json, os, socket, subprocess, sys
path, stranger = sys.argv[1], int(sys.argv[2])
def client():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.settimeout(5)
    return s.makefile("rw")
def send(f, m):
    f.write(json.dumps(m) + "\n"); f.flush()
f = client()
send(f, {"op": "register", "app": "short", "command": "true", "runner": os.getpid()})
print("registered:", "task" in json.loads(f.readline()))
child = subprocess.Popen(["true"]); child.wait()   # ended and reaped
send(f, {"op": "follow", "pid": child.pid})
send(f, {"op": "follow_end"})
print("ended first:", f.readline().strip())
g = client()
send(g, {"op": "register", "app": "other", "command": "x", "runner": os.getpid()})
g.readline()
send(g, {"op": "follow", "pid": stranger})
print("stranger:", g.readline().strip())
send(g, {"op": "follow_end"})
print("stranger end:", g.readline().strip())
PY
out=$(cat "$WORK/client.out")
check_contains "registered" "$out" "registered: True"
check_contains "a command reaped before the follow was read: an empty summary, no error" "$out" \
  'ended first: {"op":"followed","summary":{}}'
check_contains "a live process that is no child of the runner is still refused" "$out" \
  "not a child of the task's tally run"
check_contains "  and its follow_end has no summary" "$out" 'stranger end: {"op":"followed","summary":null}'
kill "$STRANGER" 2>/dev/null
"$TALLY" agent --socket "$S" stop >/dev/null 2>&1
wait "$AGENT_PID"
finish
