#!/usr/bin/env bash
# Another local user stands in for a user's agent: without XDG_RUNTIME_DIR
# (sudo, cron, runuser, batch jobs) the default socket is
# /tmp/tally-UID/agent.sock, a name anyone can take first. User B makes
# /tmp/tally-<A's uid>/ and serves a forger there that answers like an agent
# (a registration, a 1 s wall-time limit, a request's reply, a pong, each
# marked FORGED) and records what it is sent. Every tool of A's that talks to
# the agent (request, run --agent, agent status/stop/attach, top, view --live)
# refuses, naming B, exits 125 (run --agent: runs its task without the agent,
# to its end), prints nothing forged and sends B nothing; A's agent refuses to
# start there, in the foreground or detached, and puts nothing there. The
# same for a directory of A's own open to others (mode 0777), a symbolic
# link to B's directory, an XDG_RUNTIME_DIR whose tally/ is B's, and a
# server of another uid in A's own directory (SO_PEERCRED). Users
# tallyimp_a and tallyimp_b are made here (as root), only for this test, so
# that /tmp/tally-<A's uid> is no other test's.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/local_users.sh"
if [ "$(id -u)" -ne 0 ]; then
  ok "# SKIP needs root to create the test users"; finish
fi
local_users tallyimp_a tallyimp_b
UA=$(id -u tallyimp_a) UB=$(id -u tallyimp_b)
FAKE=/tmp/tally-$UA
BASE=$(mktemp -d /tmp/tally-imp.XXXXXX)
chmod 755 "$BASE"
install -d -o tallyimp_a -m 700 "$BASE/a"
install -d -o tallyimp_b -m 700 "$BASE/b"
# A with the environment of sudo or cron: no XDG_RUNTIME_DIR, no TALLY_AGENT
as_a() { as_user tallyimp_a env -u XDG_RUNTIME_DIR -u TALLY_AGENT "$@"; }
PF=
stop_forger() { [ -n "$PF" ] && kill "$PF" 2>/dev/null && wait "$PF" 2>/dev/null; PF=; }
cleanup() {
  stop_forger
  [ -n "${PA:-}" ] && kill "$PA" 2>/dev/null
  rm -rf "$FAKE" "$BASE"
}
trap cleanup EXIT

# The forger (B's): every connection gets lines an agent would send; all it
# receives is appended to $BASE/b/captured.
cat > "$BASE/b/forge.sh" <<'EOF'
#!/bin/sh
printf '%s\n' \
  '{"op":"registered","task":1,"forged":"FORGED"}' \
  '{"op":"set_limits","limits":"wall_time: 1 s","forged":"FORGED"}' \
  '{"service":"app_get_list","result":{"apps":["FORGED"]},"done":true,"errors":[]}' \
  '{"op":"pong","pid":1,"forged":"FORGED"}'
exec cat >> "$1"
EOF
chown tallyimp_b "$BASE/b/forge.sh"; chmod 755 "$BASE/b/forge.sh"
# start_forger DIR: B's forger listening on DIR/agent.sock (mode 0777: anyone may connect)
start_forger() {
  (umask 000; bg_as tallyimp_b socat "UNIX-LISTEN:$1/agent.sock,fork" \
    "EXEC:$BASE/b/forge.sh $BASE/b/captured" 2>/dev/null) &
  PF=$!
  wait_until 10 test -S "$1/agent.sock"
}
captured() { cat "$BASE/b/captured" 2>/dev/null | wc -c; }
not_forged() { case "$2" in *FORGED*) not_ok "$1 (printed: $2)";; *) ok "$1";; esac; }

# Every tool of A's that talks to the agent, on the default socket, refused
# with a message containing $1; $2 names the case.
tools_refuse() {
  local want=$1 what=$2 out rc start
  out=$(as_a "$TALLY" request ':app_get_list()' 2>&1); rc=$?
  check_contains "$what: tally request refuses" "$out" "$want"
  check_eq "  exit status 125" "$rc" 125
  not_forged "  and prints nothing forged" "$out"
  start=$(date +%s.%N)
  out=$(as_a "$TALLY" run --agent --app secret -o "$BASE/a/run" -- sleep 2 2>&1); rc=$?
  check_contains "$what: tally run --agent refuses the agent" "$out" "$want"
  check_eq "  the task runs to its end without it (no forged 1 s limit): exit 0" "$rc" 0
  check_cmp "  for its 2 s" "$(echo "$(date +%s.%N) - $start" | bc)" ">=" 2
  check_eq "  its summary is written, with no limit broken" \
    "$(jq -c '.limits_exceeded // [] | length' "$BASE/a/run.summary" 2>&1)" 0
  rm -f "$BASE/a/run.summary"
  for cmd in status stop "attach $$ --app x"; do
    # shellcheck disable=SC2086 # the words of cmd
    out=$(as_a "$TALLY" agent $cmd 2>&1); rc=$?
    check_contains "$what: tally agent $cmd refuses" "$out" "$want"
    check_eq "  exit status 125" "$rc" 125
    not_forged "  and prints nothing forged" "$out"
  done
  out=$(as_a timeout 10 "$TALLY" top --once 2>&1); rc=$?
  check_eq "$what: tally top refuses: exit 125" "$rc/$(printf '%s' "$out" | grep -c "$want")" 125/1
  out=$(cd "$BASE" && as_a timeout 10 "$TALLY" view --live secret 2>&1); rc=$?
  check_eq "$what: tally view --live refuses: exit 125" "$rc/$(printf '%s' "$out" | grep -c "$want")" 125/1
  check_eq "$what: the forger received nothing of A's" "$(captured)" 0
}

# 1. B's directory, mode 0755 (A can reach the socket), with B's forger in it.
rm -rf "$FAKE"
as_user tallyimp_b mkdir -m 755 "$FAKE"
start_forger "$FAKE"
tools_refuse "$FAKE belongs to uid $UB (tallyimp_b), not to you (uid $UA (tallyimp_a))" \
  "B's directory"
out=$(as_a "$TALLY" agent --foreground 2>&1); rc=$?
check_eq "A's agent refuses to start in B's directory: exit 125" "$rc" 125
check_contains "  naming B" "$out" "$FAKE belongs to uid $UB (tallyimp_b)"
stop_forger

# 2. B's directory open to all (0777), agent.log a symbolic link of B's to
# a file A may write: the detached agent refuses before it opens its log.
chmod 777 "$FAKE"
as_user tallyimp_b ln -s "$BASE/a/planted" "$FAKE/agent.log"
out=$(as_a "$TALLY" agent 2>&1); rc=$?
check_eq "A's detached agent refuses B's directory: exit 125" "$rc" 125
check_contains "  naming B" "$out" "$FAKE belongs to uid $UB (tallyimp_b)"
check "  and opened nothing there (no file made through B's link)" test ! -e "$BASE/a/planted"
check_eq "  nor anything else" "$(find "$FAKE" -mindepth 1 -printf '%f %u\n')" "agent.log tallyimp_b"
rm -rf "$FAKE"

# 3. A's own directory, but open to others (mode 0777): B's forger in it.
as_user tallyimp_a mkdir -m 700 "$FAKE"
chmod 777 "$FAKE"
start_forger "$FAKE"
tools_refuse "$FAKE is open to other users (mode 0777)" "A's directory of mode 0777"
out=$(as_a "$TALLY" agent --foreground 2>&1); rc=$?
check_eq "A's agent refuses its own directory of mode 0777: exit 125" "$rc/$(stat -c %a "$FAKE")" 125/777
check_contains "  saying why" "$out" "$FAKE is open to other users (mode 0777)"
stop_forger
rm -rf "$FAKE"

# 4. /tmp/tally-UID a symbolic link of B's to B's directory.
install -d -o tallyimp_b -m 755 "$BASE/b/d"
as_user tallyimp_b ln -s "$BASE/b/d" "$FAKE"
start_forger "$BASE/b/d"
tools_refuse "$FAKE is not a directory but a symbolic link of uid $UB (tallyimp_b)" \
  "a symbolic link of B's"
out=$(as_a "$TALLY" agent 2>&1); rc=$?
check_eq "A's agent refuses the symbolic link: exit 125" "$rc" 125
check_contains "  naming B" "$out" "symbolic link of uid $UB (tallyimp_b)"
stop_forger
rm -f "$FAKE"

# 5. XDG_RUNTIME_DIR set (sudo -E from B's session): its tally/ is B's.
install -d -m 755 "$BASE/run"
install -d -o tallyimp_b -m 755 "$BASE/run/tally"
start_forger "$BASE/run/tally"
out=$(as_user tallyimp_a env XDG_RUNTIME_DIR="$BASE/run" "$TALLY" request ':app_get_list()' 2>&1); rc=$?
check_contains "XDG_RUNTIME_DIR/tally of B's: tally request refuses, naming B" "$out" \
  "$BASE/run/tally belongs to uid $UB (tallyimp_b)"
check_eq "  exit 125, nothing sent" "$rc/$(captured)" "125/0"
not_forged "  and nothing forged printed" "$out"
stop_forger

# 6. A's own directory, mode 0700, but the server is root's (root can make
# one there): SO_PEERCRED refuses it.
install -d -o tallyimp_a -m 700 "$BASE/a/fake"
(umask 000; exec socat "UNIX-LISTEN:$BASE/a/fake/agent.sock,fork" \
  "EXEC:$BASE/b/forge.sh $BASE/root-captured" 2>/dev/null) &
PR=$!
wait_until 10 test -S "$BASE/a/fake/agent.sock"
out=$(as_a "$TALLY" request --agent "$BASE/a/fake/agent.sock" ':app_get_list()' 2>&1); rc=$?
check_contains "a socket of A's directory served by root: refused" "$out" \
  "is served by uid 0 (root), not by you (uid $UA (tallyimp_a))"
check_eq "  exit 125" "$rc" 125
not_forged "  and nothing forged printed" "$out"
kill "$PR" 2>/dev/null; wait "$PR" 2>/dev/null
check_eq "  and sent it nothing" "$(cat "$BASE/root-captured" 2>/dev/null | wc -c)" 0

# With /tmp/tally-UID gone, A's own agent makes it (0700, A's) and serves A.
out=$(as_a "$TALLY" agent --no-archive 2>&1); rc=$?
check_eq "A's agent starts on the default socket once B's directory is gone" "$rc/$out" "0/"
check_eq "  in a directory of A's, mode 0700" "$(stat -c '%u %a' "$FAKE")" "$UA 700"
PA=$(as_a "$TALLY" agent status | jq -r .pid)
check_eq "  and answers A: its pid runs as A" "$(stat -c %u "/proc/$PA")" "$UA"
as_a "$TALLY" agent stop >/dev/null 2>&1
check "  and stops" wait_until 10 sh -c "! kill -0 $PA 2>/dev/null"
PA=
finish
