#!/usr/bin/env bash
# The agent under clients of its own user that misbehave (each bounded in
# time; hostile_clients.py plays them):
#  - 65,536 conditional requests defined on one connection: each definition
#    costs O(log n), so all of them take seconds (they took minutes when
#    each request swept every csr's owner and counted every csr);
#  - 4 clients trickling 1 MB lines 16 bytes per send: the agent reads each
#    byte once, so it spends no more CPU than on the same bytes in 4 KB lines
#    (it rescanned the partial line from its first byte at every recv);
#  - 3 clients that flood requests and never read, with --client-output
#    1 MB: the agent drops them once the output pending for all clients
#    would pass 1 MB, the one holding the most first, and keeps serving the
#    others.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
command -v python3 >/dev/null || { not_ok "python3 is needed for the hostile clients"; finish; }
HOSTILE=$TALLY_TEST_ROOT/tests/integration/agent/hostile_clients.py
S=$WORK/sock/agent.sock
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
answers() { "$TALLY" agent --socket "$S" status >/dev/null; }

out=$("$TALLY" agent --foreground --socket "$WORK/x.sock" --client-output 0 2>&1); rc=$?
check_eq "--client-output 0 is refused" "$rc" 125
check_contains "... saying what it takes" "$out" "tally: agent: --client-output: give a size from 64 KB to 64 GB"

check "the agent starts" start_agent "$S" --no-archive --client-output 1MB

read -r defined secs < <(timeout 120 python3 "$HOSTILE" "$S" csrs 65536)
check_eq "65,536 csrs defined on one connection" "$defined" 65536
check_cmp "... in under 60 s (seconds taken; minutes before)" "$secs" "<" 60
check "the agent still answers" answers

a=$(cpu_ticks "$AGENT_PID")
read -r answered _ < <(timeout 120 python3 "$HOSTILE" "$S" trickle 4 1000000 4096 16)
b=$(cpu_ticks "$AGENT_PID")
check_eq "4 clients trickling 4 KB lines are answered" "$answered" 4
read -r answered _ < <(timeout 120 python3 "$HOSTILE" "$S" trickle 4 1000000 1000000 16)
c=$(cpu_ticks "$AGENT_PID")
check_eq "4 clients trickling 1 MB lines are answered" "$answered" 4
short=$((b - a)) long=$((c - b))
echo "# agent CPU (1/100 s): 4 KB lines $short, 1 MB lines $long"
check_cmp "1 MB lines cost the agent no more than twice the CPU of 4 KB lines, + 0.3 s" \
  "$long" "<=" "$((2 * short + 30))"

timeout 60 python3 "$HOSTILE" "$S" hog 3 40000 >"$WORK/hog.out" &
HOG=$!
sleep 1
check "a well-behaved client is served during the flood" \
  sh -c "\"$TALLY\" request --agent '$S' ':app_get_list()' | grep -q '\"done\":true'"
wait "$HOG"
check_eq "the 3 clients that never read were dropped" "$(cat "$WORK/hog.out")" 3
check "the agent still answers afterwards" answers

kill -TERM "$AGENT_PID"; wait "$AGENT_PID"; rc=$?
check_eq "the agent stops cleanly" "$rc" 0
finish
