#!/usr/bin/env bash
# Agents on three hosts and two sites, joined by real nats-servers (site beta is a
# leaf node of site alpha): an application spanning them is reached by its token
# from either site; conditional requests stream from every agent; a restarted
# server loses nothing; another user is refused by the server itself.
# Hosts are distinct --host names of agents on this machine (docs/agent-nats.md).
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/live/nats-sites.sh"

# Two unprivileged users made by the suite when it runs as root (as in CI).
if [ "$(id -u)" = 0 ]; then
  for u in tallytest_a tallytest_b; do id "$u" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$u"; done
  A=tallytest_a B=tallytest_b
  # setpriv execs the command itself (runuser would stay in between and keep
  # signals such as the SIGINT that ends a --follow from reaching it)
  AS_A=(setpriv --reuid="$A" --regid="$A" --init-groups)
  AS_B=(setpriv --reuid="$B" --regid="$B" --init-groups)
else
  A=$(id -un) B=$(id -un)
  AS_A=() AS_B=()
fi
# Not functions: "func &" runs in a subshell that ignores SIGINT and whose
# death leaves the program running; "${AS_A[@]}" prog & makes $! the program.
as_a() { "${AS_A[@]}" "$@"; }
as_b() { "${AS_B[@]}" "$@"; }
chmod 755 "$WORK"
nats_sites_start "$A" "$B" || { not_ok "nats-servers start"; finish; }
ok "two sites: alpha $NATS_ALPHA, beta $NATS_BETA (leaf node)"

A_DIR=$(mktemp -d /tmp/tally-nats-a.XXXXXX)
[ "$(id -u)" = 0 ] && chown "$A" "$A_DIR"
agents=() runs=()
# The application's processes end when "release" exists: they must see it
# (they look every 20 ms) before the directory goes, or they outlive the test.
release_runs() {
  touch "$A_DIR/release"
  for _ in $(seq 100); do
    local alive=0
    for p in "${runs[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.05
  done
  for p in "${runs[@]}"; do kill -KILL "$p" 2>/dev/null; done
  wait "${runs[@]}" 2>/dev/null
}
trap 'for p in "${agents[@]}"; do kill "$p" 2>/dev/null; done; release_runs; [ -n "${NATS_TEST_DEBUG:-}" ] && cat "$A_DIR"/*.err >&2; _nats_stop; rm -rf "$WORK" "$A_DIR"' EXIT

start_agent_on() { # HOST SITE URL
  as_a mkdir -m 700 -p "$A_DIR/$1"
  "${AS_A[@]}" "$TALLY" agent --foreground --no-archive --socket "$A_DIR/$1/agent.sock" --nats "$3" \
    --creds "$WORK/creds/$A" --user "$A" --site "$2" --host "$1" 2>>"$A_DIR/agent-$1.err" &
  agents+=($!)
  for _ in $(seq 400); do
    as_a "$TALLY" agent --socket "$A_DIR/$1/agent.sock" status >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  return 1
}
check "agent n1 (site alpha)" start_agent_on n1 alpha "$NATS_ALPHA"
check "agent n2 (site alpha)" start_agent_on n2 alpha "$NATS_ALPHA"
check "agent n3 (site beta)" start_agent_on n3 beta "$NATS_BETA"

# The application: one process per host holding a known amount of memory.
declare -A mb=([n1]=40 [n2]=60 [n3]=80) pid
for h in n1 n2 n3; do
  "${AS_A[@]}" "$TALLY" run --agent "$A_DIR/$h/agent.sock" --app sim -o "$A_DIR/run-$h" -- \
    "$PROGS/hold_memory" "${mb[$h]}" 0 "$A_DIR/ready-$h" "$A_DIR/release" 2>>"$A_DIR/run.err" &
  runs+=($!)
done
for h in n1 n2 n3; do
  for _ in $(seq 600); do [ -s "$A_DIR/ready-$h" ] && break; sleep 0.05; done
  pid[$h]=$(cat "$A_DIR/ready-$h" 2>/dev/null)
done
check "the application's three processes run" test -n "${pid[n1]}" -a -n "${pid[n2]}" -a -n "${pid[n3]}"
nreq() { as_a "$TALLY" request --nats "$1" --creds "$WORK/creds/$A" --user "$A" "${@:2}"; }
# The agents learn a task's processes at their next sample (1 s): wait for it.
known=0
for _ in $(seq 100); do
  known=$(nreq "$NATS_ALPHA" ':app_get_proclist([app_sim])' 2>/dev/null | jq -s '[.[] | select(.service == "app_get_proclist") | .result.processes[]] | length')
  [ "$known" = 3 ] && break; sleep 0.1
done
check_eq "the agents know the application's processes" "$known" 3

# An application token reaches exactly the agents hosting it, from either site.
for site in alpha beta; do
  url=$NATS_ALPHA; [ $site = beta ] && url=$NATS_BETA
  out=$(nreq "$url" ':proc_get_info([app_sim], 0x5)' 2>&1)
  check_eq "app_sim from site $site: one answer per process" \
    "$(printf '%s\n' "$out" | jq -s '[.[] | select(.service == "proc_get_info")] | length')" 3
  check_eq "app_sim from site $site: every agent done, no error" \
    "$(printf '%s\n' "$out" | jq -c 'select(.done) | [(.nodes | sort), .errors]')" '[["n1","n2","n3"],[]]'
  for h in n1 n2 n3; do
    got=$(printf '%s\n' "$out" | jq -r --arg o "p_${pid[$h]}@$h" 'select(.object == $o) | .result.memory[0]')
    check_cmp "p_${pid[$h]}@$h memory (MB) from $site at least what it touched" "$got" ">=" "${mb[$h]}"
    check_cmp "p_${pid[$h]}@$h memory (MB) from $site not far above" "$got" "<" "$(( ${mb[$h]} + 15 ))"
  done
done

# A process token names its node: only that agent is asked, across the leaf node.
out=$(nreq "$NATS_ALPHA" ":proc_get_info([p_${pid[n3]}@n3], 0x1)" 2>&1)
check_eq "p_PID@n3 answered by n3 only" "$(printf '%s\n' "$out" | jq -c 'select(.done) | .nodes')" '["n3"]'
check_eq "p_PID@n3: the right process" \
  "$(printf '%s\n' "$out" | jq -r 'select(.service == "proc_get_info") | .result.pid')" "${pid[n3]}"
out=$(nreq "$NATS_BETA" ':node_get_info([n_n1, n_n3])' 2>&1)
check_eq "node_get_info of two nodes on two sites" \
  "$(printf '%s\n' "$out" | jq -r 'select(.service == "node_get_info") | .result.node' | sort | tr '\n' ' ')" "n_n1 n_n3 "
check_eq "... and no error for the other node's token" "$(printf '%s\n' "$out" | jq -c 'select(.done) | .errors')" '[]'

# Manipulation over NATS: stop and continue one process, observed in /proc.
nreq "$NATS_BETA" ":thread_stop([p_${pid[n2]}@n2])" >/dev/null 2>&1
st=$(sed 's/.*) //' /proc/${pid[n2]}/stat | cut -c1)
# under tally run's tracer a stopped process is in a group stop, shown as t
check "thread_stop over NATS: process stopped ($st)" test "$st" = T -o "$st" = t
nreq "$NATS_BETA" ":thread_continue([p_${pid[n2]}@n2])" >/dev/null 2>&1
st=$(sed 's/.*) //' /proc/${pid[n2]}/stat | cut -c1)
check "thread_continue over NATS: process running again ($st)" test "$st" != T -a "$st" != t

# A conditional request streams from every agent until interrupted, then is deleted.
"${AS_A[@]}" "$TALLY" request --nats "$NATS_ALPHA" --creds "$WORK/creds/$A" --user "$A" --follow \
  'timer(300ms): proc_get_info([app_sim], 0x1)' > "$A_DIR/follow.out" 2>&1 &
fpid=$!
for _ in $(seq 200); do
  [ "$(jq -s '[.[] | select(.request == "csr_1" and .service == "proc_get_info")] | length' "$A_DIR/follow.out" 2>/dev/null || echo 0)" -ge 6 ] && break
  sleep 0.05
done
kill -INT $fpid; wait $fpid
check_eq "follow: exit status after SIGINT" "$?" 0
check_eq "follow: the stream came from the three agents" \
  "$(jq -r 'select(.service == "proc_get_info") | .node' "$A_DIR/follow.out" | sort -u | tr '\n' ' ')" "n1 n2 n3 "
check_eq "follow: each agent's csr deleted at the end" \
  "$(jq -r 'select(.service == "csr_delete") | .node + ":" + .result.state' "$A_DIR/follow.out" | sort | tr '\n' ' ')" \
  "n1:deleted n2:deleted n3:deleted "

# The hub restarts under running agents: they reconnect and nothing registered is lost.
nats_restart_alpha
ok_after=0
for _ in $(seq 200); do
  out=$(nreq "$NATS_ALPHA" --timeout 1 ':proc_get_info([app_sim], 0x1)' 2>/dev/null)
  [ "$(printf '%s\n' "$out" | jq -s '[.[] | select(.service == "proc_get_info")] | length')" = 3 ] && { ok_after=1; break; }
  sleep 0.1
done
check_eq "after the hub restarted: the application is reached on every host again" "$ok_after" 1

# Another user: the server itself refuses to let B address A's agents.
out=$(as_b "$TALLY" request --nats "$NATS_ALPHA" --creds "$WORK/creds/$B" --user "$A" ':app_get_list()' 2>&1)
check_eq "user B addressing A's subjects: exit status" "$?" 1
check_contains "... refused by the NATS server, in words" "$out" "refused by the NATS server"
out=$(as_b "$TALLY" request --nats "$NATS_ALPHA" --timeout 1 --creds "$WORK/creds/$B" ":thread_stop([p_${pid[n1]}@n1])" 2>&1)
check_eq "user B on its own subjects reaches no agent of A (exit)" "$?" 125
check_contains "... and says nobody answered" "$out" "no agent answered"
st=$(sed 's/.*) //' /proc/${pid[n1]}/stat | cut -c1)
check "... and A's process was not stopped ($st)" test "$st" != T -a "$st" != t
if [ "$A" != "$B" ]; then
  out=$(as_b "$TALLY" request --nats "$NATS_ALPHA" --creds "$WORK/creds/$A" --user "$A" ':app_get_list()' 2>&1)
  check_eq "user B cannot use A's credentials file (exit)" "$?" 125
  check_contains "... cannot read it" "$out" "cannot read"
fi

# Bad input: a malformed request is answered with its position, the agents live on.
out=$(nreq "$NATS_ALPHA" ':proc_get_info([app_sim], ' 2>&1)
check_eq "malformed request: exit status" "$?" 1
check_contains "malformed request: the error names a column" "$out" '"pos":'
out=$(nreq "$NATS_ALPHA" ':app_get_list()' 2>&1)
check_eq "after it, every agent still answers" "$(printf '%s\n' "$out" | jq -c 'select(.done) | .nodes | sort')" '["n1","n2","n3"]'
out=$("$TALLY" request --nats nats://127.0.0.1:1 ':app_get_list()' 2>&1)
check_eq "no server there: exit status" "$?" 125
check_contains "no server there: said in words" "$out" "cannot connect"

release_runs
finish
