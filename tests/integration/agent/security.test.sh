#!/usr/bin/env bash
# Per-user security (seed 001, section 6.3): an agent runs with its user's
# privileges and serves nobody else. With two unprivileged users made here
# (tallytest_a, tallytest_b): another uid's connection is refused by
# SO_PEERCRED (root's, which can reach the socket), user B cannot even
# reach A's socket (directory 0700), and B's own agent refuses to list,
# read, stop, kill or attach A's processes, saying they belong to another user.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/local_users.sh"
if [ "$(id -u)" -ne 0 ]; then
  ok "# SKIP needs root to create the test users"; finish
fi
local_users tallytest_a tallytest_b
UA=$(id -u tallytest_a)
as_a() { as_user tallytest_a "$@"; }
as_b() { as_user tallytest_b "$@"; }
BASE=$(mktemp -d /tmp/tally-sec.XXXXXX)
chmod 755 "$BASE"
install -d -o tallytest_a -m 700 "$BASE/a"
install -d -o tallytest_b -m 700 "$BASE/b"
SA=$BASE/a/sock/agent.sock SB=$BASE/b/sock/agent.sock
cleanup() {
  touch "$BASE/a/release" 2>/dev/null
  [ -n "${PA:-}" ] && kill "$PA" 2>/dev/null
  [ -n "${PB:-}" ] && kill "$PB" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$BASE" "$WORK"
}
trap cleanup EXIT

(bg_as tallytest_a "$TALLY" agent --foreground --socket "$SA" --no-archive 2>"$WORK/a.err" >/dev/null) &
PA=$!
(bg_as tallytest_b "$TALLY" agent --foreground --socket "$SB" --no-archive 2>"$WORK/b.err" >/dev/null) &
PB=$!
status_of() { "$@" >/dev/null 2>&1; }
check "A's agent answers A" wait_until 20 status_of as_a "$TALLY" agent --socket "$SA" status
check "B's agent answers B" wait_until 20 status_of as_b "$TALLY" agent --socket "$SB" status
check_eq "A's agent runs as A" "$(stat -c %u /proc/$PA)" "$UA"
check_eq "A's socket directory is A's, mode 700" "$(stat -c '%u %a' "$BASE/a/sock")" "$UA 700"

# A's application.
(bg_as tallytest_a "$TALLY" run --agent "$SA" --app secret -o "$BASE/a/run" -- \
  "$PROGS/hold_memory" 4 0 "$BASE/a/ready" "$BASE/a/release" 2>"$WORK/run.err" >/dev/null) &
RUN=$!
check "A's application is up" wait_file "$BASE/a/ready"
APP=$(cat "$BASE/a/ready")
check "A sees it" wait_until 20 sh -c "setpriv --reuid=$UA --regid=$(id -g tallytest_a) --clear-groups \
  \"$TALLY\" request --agent '$SA' ':app_get_proclist([app_secret])' | grep -q 'p_$APP@'"

# Another uid on A's socket: root's tally refuses a socket in A's directory
# before connecting, and A's agent refuses root's raw connection (SO_PEERCRED).
out=$("$TALLY" request --agent "$SA" ':app_get_list()' 2>&1); rc=$?
check_contains "root's tally refuses A's socket directory" "$out" "$BASE/a/sock belongs to uid $UA (tallytest_a), not to you (uid 0 (root))"
check_eq "... and tally request exits 125" "$rc" 125
out=$(timeout 5 socat -u "UNIX-CONNECT:$SA" - 2>&1)
check_contains "a raw connection of another uid gets one refusal line" "$out" '"error": "refused: peer uid 0'
case "$out" in *secret*) not_ok "... and no application data";; *) ok "... and no application data";; esac

# B cannot reach A's socket at all.
out=$(as_b "$TALLY" request --agent "$SA" ':app_get_list()' 2>&1); rc=$?
check_contains "B cannot connect to A's socket" "$out" "Permission denied"
check_eq "... exit status 125" "$rc" 125

# B's own agent refuses A's processes.
for r in ":proc_get_info([p_$APP])" ":thread_stop([p_$APP])" ":proc_kill([p_$APP], \"KILL\")" ":proc_record_start([p_$APP])"; do
  out=$(as_b "$TALLY" request --agent "$SB" "$r" 2>&1)
  check_contains "B: $r refused" "$out" "process $APP belongs to another user"
done
st=$(proc_state "$APP")
check "A's process was neither stopped nor killed (state $st)" test "$st" = S -o "$st" = R
out=$(as_b "$TALLY" agent --socket "$SB" attach "$APP" --app stolen 2>&1)
check_contains "B cannot attach A's process" "$out" "process $APP belongs to another user"
out=$(as_b "$TALLY" request --agent "$SB" ':app_get_list()' ':app_get_proclist([app_secret])' 2>&1)
check_eq "B's agent lists no application" "$(printf '%s\n' "$out" | jq -r 'select(.service == "app_get_list") | .result.apps | length')" 0
check_contains "B cannot list A's application" "$out" "app_secret: no such application"

# A's agent refuses processes that are not A's (root's shell here).
out=$(as_a "$TALLY" request --agent "$SA" ":proc_get_info([p_$$])" 2>&1)
check_contains "A: root's process belongs to another user" "$out" "process $$ belongs to another user"
out=$(as_a "$TALLY" request --agent "$SA" ":proc_get_info([p_$APP], 0x1)" 2>&1)
check_eq "A reads its own process" "$(printf '%s\n' "$out" | jq -r 'select(.service) | .result.uid')" "$UA"

# Pids that wrap when cast to pid_t (4294967297 is 1) are refused by the
# command line and by the agent's attach and register messages.
out=$(as_a "$TALLY" agent --socket "$SA" attach 4294967297 --app wrap 2>&1); rc=$?
check_eq "attach 4294967297: exit 125" "$rc" 125
check_contains "... refused as not a pid" "$out" "'4294967297' is not a pid"
for op in '{"op":"attach","pid":4294967297,"app":"wrap"}' '{"op":"register","runner":4294967297,"app":"wrap"}'; do
  out=$(printf '%s\n' "$op" | as_a timeout 5 socat -t 2 - "UNIX-CONNECT:$SA" 2>&1)
  check_contains "raw $op: refused, naming the value" "$out" "4294967297 is not a pid (a number from 1 to pid_max"
done
# ... and by a registered run's follow and processes messages: the runner's
# process events name the pids its tree starts and ends (4294967297 would
# put pid 1 in A's application), follow names one to measure.
out=$( { printf '%s\n' "{\"op\":\"register\",\"runner\":$PA,\"app\":\"pidreg\"}" \
           '{"op":"follow","pid":4294967297}' '{"op":"follow","pid":"1"}' \
           '{"op":"processes","events":[[4294967297,1],[4294967296,1],[-4294967295,1]]}'
         sleep 0.5
         printf '%s\n' '{"op":"request","text":":app_get_proclist([app_pidreg])"}'
         sleep 1; } | as_a timeout 10 socat -t 3 - "UNIX-CONNECT:$SA" 2>&1)
check_contains "raw follow 4294967297: refused, naming the value" "$out" '"follow: \"pid\" 4294967297 is not a pid'
check_contains "raw follow \"1\" (a string): refused, naming the value" "$out" '"follow: \"pid\" \"1\" is not a pid'
check_eq "wrapping pids in process events put no process in the application" \
  "$(printf '%s\n' "$out" | jq -c 'select(.service == "app_get_proclist") | .result.processes')" "[]"
out=$(as_a "$TALLY" request --agent "$SA" ':proc_get_info([p_4294967297])' 2>&1)
check_contains "the request language refuses p_4294967297, naming it" "$out" "'4294967297' is not a pid"
out=$(as_a "$TALLY" request --agent "$SA" ':app_get_list()' 2>&1)
check_contains "... and nothing was attached or registered" "$(printf '%s' "$out" | jq -c '.result.apps')" '"secret"'
case "$out" in *wrap*) not_ok "... no application 'wrap'";; *) ok "... no application 'wrap'";; esac

# An agent.conf that is not A's own names a NATS server A's agent would
# obey: refused, naming it; one A cannot even reach (HOME another user's,
# as under sudo) is no configuration.
install -d -o tallytest_b -m 755 "$BASE/bconf" "$BASE/bconf/tally"
printf 'nats = nats://127.0.0.1:1\n' > "$BASE/bconf/tally/agent.conf"
chown tallytest_b "$BASE/bconf/tally/agent.conf"; chmod 644 "$BASE/bconf/tally/agent.conf"
out=$(as_a env XDG_CONFIG_HOME="$BASE/bconf" timeout 20 "$TALLY" agent --foreground --socket "$BASE/a/s2/agent.sock" 2>&1); rc=$?
check_eq "A's agent refuses B's agent.conf: exit 125" "$rc" 125
check_contains "... naming it" "$out" "$BASE/bconf/tally/agent.conf: not read: it belongs to another user"
out=$(as_a env -u XDG_CONFIG_HOME HOME=/root timeout 3 "$TALLY" agent --foreground --no-archive --socket "$BASE/a/s3/agent.sock" 2>&1); rc=$?
check_eq "an unreachable HOME's agent.conf is no configuration: the agent runs (until timeout)" "$rc" 124
case "$out" in *agent.conf*) not_ok "... and says nothing of it ($out)";; *) ok "... and says nothing of it";; esac

# A socket in a directory open to others (here a 1777 one, like /tmp) is
# refused, and the directory keeps its mode: the agent never closes it.
shared=$(mktemp -d); chmod 1777 "$shared"
out=$("$TALLY" agent --foreground --socket "$shared/agent.sock" 2>&1); rc=$?
check_eq "agent in a shared directory: refused, exit 125" "$rc" 125
check_contains "... saying why" "$out" "$shared is open to other users (mode 1777)"
check_eq "... and the directory keeps its mode" "$(stat -c %a "$shared")" 1777
rmdir "$shared"

# Another local user standing in for A's agent (a forged /tmp/tally-UID, a
# server of another uid): agent/stand_in.

touch "$BASE/a/release"
wait $RUN; rc=$?
check_eq "A's application ends normally" "$rc" 0
finish
