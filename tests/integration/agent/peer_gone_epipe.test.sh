#!/usr/bin/env bash
# A runner's death is the same to the agent however the agent learns it: by
# reading the end of its connection, or by a write to it failing (EPIPE,
# ECONNRESET). Here the runner (a client registered as its own runner, with
# a child followed with "guard") asks many questions without reading the
# answers, so the agent holds output for it and waits to write it; then it
# is killed. The agent's next turn sees the socket writable and fails to
# write before it reads the end: the guarded tree must be ended all the same,
# and the log says so, as when the end is read first (the second case).
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock
start_agent "$S" --no-archive --interval 0.2 || { not_ok "the agent starts"; finish; }
alive() { kill -0 "$1" 2>/dev/null && [ "$(proc_state "$1")" != Z ]; }

runner() { # TAG QUESTIONS: a runner with a guarded child; it writes the child's pid to $WORK/TAG.child
  python3 - "$S" "$WORK/$1.child" "$2" "$1" <<'PY' &
import json, os, signal, socket, subprocess, sys, time
path, out, questions, tag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
f = s.makefile("rw")
def send(m):
    f.write(json.dumps(m) + "\n"); f.flush()
child = subprocess.Popen(["sleep", "60"])
send({"op": "register", "app": "guarded-" + tag, "command": "sleep 60", "runner": os.getpid()})
f.readline()
send({"op": "follow", "pid": child.pid, "guard": True})
time.sleep(0.5)
open(out, "w").write(str(child.pid))
# questions whose answers are never read: the agent keeps what the socket
# does not take and waits to write it
line = (json.dumps({"op": "request", "text": ":app_get_list()"}) + "\n").encode()
for _ in range(questions):
    s.sendall(line)
time.sleep(1)
os.kill(os.getpid(), signal.SIGKILL)
PY
}

runner unread 4000
RUNNER=$!
wait_file "$WORK/unread.child"
CHILD=$(cat "$WORK/unread.child")
check "the guarded child runs" alive "$CHILD"
wait "$RUNNER" 2>/dev/null
check "runner killed while the agent had answers pending: the agent ends its tree" \
  wait_until 10 eval "! alive $CHILD"
check_eq "... and its log says so" "$(grep -c 'task 1 (guarded-unread) is gone without ending it' "$WORK/agent.err")" 1

runner read 0
RUNNER=$!
wait_file "$WORK/read.child"
CHILD=$(cat "$WORK/read.child")
wait "$RUNNER" 2>/dev/null
check "runner killed with nothing pending: the agent ends its tree" wait_until 10 eval "! alive $CHILD"
check_eq "... and its log says so" "$(grep -c 'task 2 (guarded-read) is gone without ending it' "$WORK/agent.err")" 1
check_eq "the agent still answers" "$(req "$S" ':app_get_list()' | jq -r 'select(.done) | .done')" true
"$TALLY" agent --socket "$S" stop >/dev/null 2>&1
wait "$AGENT_PID"
finish
