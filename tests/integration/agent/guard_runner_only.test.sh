#!/usr/bin/env bash
# The agent ends a followed tree when its runner's connection closes
# ("follow" with "guard", sent by tally run --agent at level 1): then it
# also ends the runner's children of its last scan. Only the registered
# runner itself may ask for that: a client of the same user that registers
# another process as its runner (here a shell with two children that no
# tally run started), follows one of its children with "guard" and closes
# its connection is refused, and the shell's children are left alone.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock
start_agent "$S" --no-archive || { not_ok "the agent starts"; finish; }
alive() { kill -0 "$1" 2>/dev/null && [ "$(proc_state "$1")" != Z ]; }

sh -c "sleep 81$$ & sleep 82$$ & wait" &
SHELL_PID=$!
check "the shell's two children run" wait_until 10 eval '[ "$(pgrep -P $SHELL_PID | wc -l)" -eq 2 ]'
C1=$(pgrep -f "^sleep 81$$\$") C2=$(pgrep -f "^sleep 82$$\$")
python3 - "$S" "$SHELL_PID" "$C1" >"$WORK/client.out" <<'PY'
import json, socket, sys, time
path, runner, child = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
f = s.makefile("rw")
def send(m):
    f.write(json.dumps(m) + "\n"); f.flush()
send({"op": "register", "app": "forged", "command": "x", "runner": runner})
print(f.readline().strip())
send({"op": "follow", "pid": child, "guard": True})
s.settimeout(1.5)
try:
    print(f.readline().strip())  # an error, or nothing (accepted)
except Exception:
    print("(no answer)")
time.sleep(2.5)  # the agent's scans (every second) see the shell's children
s.close()
PY
check_contains "the forged runner's guarded follow is refused" "$(cat "$WORK/client.out")" \
  "only from the registered runner (pid $SHELL_PID)"
sleep 1.5 # time for the agent to act on the closed connection
check "the followed child of the other process is left alone" alive "$C1"
check "the other child of the process named as runner is left alone" alive "$C2"
check_eq "the agent's log names no tree it ended" "$(grep -c 'gone without ending it' "$WORK/agent.err")" 0

# tally run itself is the registered runner: its guard is taken.
"$TALLY" run --level 1 --agent="$S" --app real -o /dev/null -- sleep 83$$ 2>"$WORK/run.err" &
RUN=$!
check "tally run's task runs" wait_until 10 pgrep -f "^sleep 83$$\$"
C3=$(pgrep -f "^sleep 83$$\$")
sleep 1.5
{ kill -KILL "$RUN"; wait "$RUN"; } 2>/dev/null
check "tally run killed: the agent ends its tree" wait_until 10 eval "! alive $C3"
check_eq "tally run said nothing (its follow was taken)" "$(cat "$WORK/run.err")" ""
kill "$C1" "$C2" "$SHELL_PID" 2>/dev/null
"$TALLY" agent --socket "$S" stop >/dev/null 2>&1
wait "$AGENT_PID"
finish
