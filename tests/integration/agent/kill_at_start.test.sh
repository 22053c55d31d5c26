#!/usr/bin/env bash
# proc_kill([app_X]) sent the moment tally run --agent has registered its
# task, before the agent's next scan (every --interval, here 5 s) knows the
# task's processes: the agent scans then and there, so the command is
# killed, not a "done" with nothing signalled. An application whose task is
# registered but has no process yet (a runner that has started nothing) is
# an error that says so, not a silent success.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock
start_agent "$S" --no-archive --interval 5 || { not_ok "the agent starts"; finish; }
registered() { req "$S" ':app_get_list()' | grep -q "\"app\":\"$1\""; }

for i in 1 2 3; do
  "$TALLY" run --agent "$S" --app k$i -o /dev/null -- sleep 7$i$$ 2>"$WORK/run$i.err" &
  RUN=$!
  wait_until 10 registered k$i
  out=$(req "$S" ":proc_kill([app_k$i], \"KILL\")")
  check_contains "run $i: proc_kill at once signals the command" "$out" '"result":{"signal":9}'
  check "run $i: its command is gone" wait_until 5 eval "! pgrep -f '^sleep 7$i$$\$' >/dev/null"
  left=$(pgrep -f "^sleep 7$i$$\$") && kill $left # (when it was not killed)
  wait "$RUN"
  check_eq "run $i: tally run reports its command killed (128 + 9)" "$?" 137
done

# A runner that registered and started nothing (its connection open until
# the test says): an honest error, also when the request names another
# application that has a process.
python3 - "$S" "$WORK/registered" "$WORK/done" <<'PY' &
import json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.write(json.dumps({"op": "register", "app": "empty", "command": "x", "runner": os.getpid()}) + "\n")
f.flush()
open(sys.argv[2], "w").write(f.readline())
for _ in range(200):
    if os.path.exists(sys.argv[3]):
        break
    time.sleep(0.05)
PY
CLIENT=$!
wait_file "$WORK/registered"
out=$(req "$S" ':proc_kill([app_empty], "KILL")'; echo "status $?")
# ... and named together with an application that has a process: that one
# is signalled, the empty one still has its error.
"$TALLY" run --agent "$S" --app busy -o /dev/null -- sleep 80$$ 2>/dev/null &
RUN=$!
wait_until 10 registered busy
mixed=$(req "$S" ':proc_kill([app_busy, app_empty], "KILL")'; echo "status $?")
wait "$RUN"
touch "$WORK/done"
wait "$CLIENT"
check_contains "an application with no process yet: tally request exits 1" "$out" "status 1"
check_contains "... the error says nothing was signalled and why" "$out" \
  "app_empty: proc_kill: no process of it is running here (its command not started yet, or ended): nothing signalled"
check_eq "... and no process was signalled" "$(grep -c '"signal"' <<<"$out")" 0
check_contains "with another application's process: that process is signalled" "$mixed" '"result":{"signal":9}'
check_contains "... and the empty application has its error" "$mixed" \
  "app_empty: proc_kill: no process of it is running here"
check_contains "... tally request exits 1" "$mixed" "status 1"
"$TALLY" agent --socket "$S" stop >/dev/null 2>&1
wait "$AGENT_PID"
finish
