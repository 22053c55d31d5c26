#!/usr/bin/env bash
# An agent over NATS serves only its user, whatever the server does:
# - it refuses to join a nats-server that admits clients without credentials
#   (nats-server's default, or no_auth_user), unless --nats-insecure, which
#   it says loudly (and there anyone's proc_kill does kill the user's task);
# - on a server that gives each user only its own subjects (the
#   configuration of docs/agent-nats.md), another user's proc_kill naming
#   this user (--user alice) is refused by the server, and the client says so;
# - started before its server, it joins once the server answers and requires
#   authentication;
# - on a server whose permissions are too wide (any user may publish on any
#   subject), a request of another NATS user naming this user (--user alice)
#   is refused: requests are signed with the user's credentials (HMAC-SHA256)
#   and the agent checks the signature with its own;
# - a replayed (old) request is refused.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/live/nats-sites.sh"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; [ -n "${KEEP:-}" ] && cat "$WORK"/*.err "$WORK"/*.log >&2; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/creds" "$WORK/sock"/a1 "$WORK/sock"/a2 "$WORK/sock"/a3 "$WORK/sock"/a4
chmod 700 "$WORK/sock" "$WORK/sock"/*
printf 'alice:pw-alice\n' > "$WORK/creds/alice"
printf 'mallory:pw-mallory\n' > "$WORK/creds/mallory"
chmod 600 "$WORK/creds/"*

start_server() { # NAME CONFIG-LINES...
  local name=$1; shift
  printf '%s\n' "$@" > "$WORK/$name.conf"
  nats-server -c "$WORK/$name.conf" > "$WORK/$name.log" 2>&1 &
  pids+=($!)
  _nats_wait_ready "$WORK/$name.log"
}

# 1. A server with no authorization (nats-server's default).
OPEN_PORT=$(nats_free_port)
start_server open "listen: 127.0.0.1:$OPEN_PORT" || { not_ok "open nats-server starts"; finish; }
out=$(timeout 20 "$TALLY" agent --foreground --no-archive --socket "$WORK/sock/a1/agent.sock" \
      --nats "nats://127.0.0.1:$OPEN_PORT" --user alice 2>&1); rc=$?
check_eq "an agent refuses a server that admits anyone: exit 125" "$rc" 125
check_contains "... saying why" "$out" "refusing to join nats://127.0.0.1:$OPEN_PORT: the server admits clients without credentials"
check_contains "... and how to mend it" "$out" "--nats-insecure"
check "... and it does not listen" test ! -e "$WORK/sock/a1/agent.sock"
# The same server named with credentials in the URL: still refused (the
# probe connects without them).
out=$(timeout 20 "$TALLY" agent --foreground --no-archive --socket "$WORK/sock/a1/agent.sock" \
      --nats "nats://alice:pw-alice@127.0.0.1:$OPEN_PORT" --user alice 2>&1); rc=$?
check_eq "credentials in the URL do not hide an open server: exit 125" "$rc" 125

"$TALLY" agent --foreground --no-archive --socket "$WORK/sock/a2/agent.sock" \
  --nats "nats://127.0.0.1:$OPEN_PORT" --user alice --nats-insecure 2>"$WORK/a2.err" &
pids+=($!)
check "--nats-insecure: the agent joins" wait_until 60 test -S "$WORK/sock/a2/agent.sock"
check "... and says what it risks" wait_until 20 grep -q "anyone who can reach that server can command this agent" "$WORK/a2.err"
out=$("$TALLY" request --nats "nats://127.0.0.1:$OPEN_PORT" --user alice --timeout 3 ':app_get_list()' 2>&1)
check_eq "... and answers an unsigned request (no credentials anywhere)" \
  "$(printf '%s\n' "$out" | jq -r 'select(.service == "app_get_list") | .result.apps | length' | head -1)" 0
# What the warning says is true: on that server anyone (here a client with
# no credentials at all, naming --user alice) kills alice's task. This is
# what every agent did on an open server before it refused them.
"$TALLY" run --agent "$WORK/sock/a2/agent.sock" --app victim -o "$WORK/open-victim" -- sleep 60 2>/dev/null &
OPEN_VICTIM=$!
pids+=($OPEN_VICTIM)
check "the insecure agent follows alice's task (its process)" wait_until 30 sh -c \
  "'$TALLY' request --nats 'nats://127.0.0.1:$OPEN_PORT' --user alice --timeout 1 ':proc_get_info([app_victim], 0x1)' 2>&1 | grep -q '\"pid\":'"
"$TALLY" request --nats "nats://127.0.0.1:$OPEN_PORT" --user alice --timeout 3 ':proc_kill([app_victim], "KILL")' >/dev/null 2>&1
wait "$OPEN_VICTIM"; rc=$?
check_eq "... and anyone's unsigned proc_kill kills it there (--nats-insecure's risk): tally run exits 137" "$rc" 137

# Detached (the default), the warning goes to whoever started the agent and
# stays in its agent.log, where it is looked for later.
mkdir -m 700 "$WORK/sock/a3"
out=$("$TALLY" agent --no-archive --socket "$WORK/sock/a3/agent.sock" \
      --nats "nats://127.0.0.1:$OPEN_PORT" --user alice --nats-insecure 2>&1); rc=$?
check_eq "--nats-insecure, detached: the agent starts (exit 0)" "$rc" 0
check_contains "... the starting terminal gets the warning" "$out" "anyone who can reach that server can command this agent"
check "... and so does its agent.log" grep -q "anyone who can reach that server can command this agent" "$WORK/sock/a3/agent.log"
"$TALLY" agent stop --socket "$WORK/sock/a3/agent.sock" >/dev/null 2>&1

# A server that lets clients without credentials in as a user
# (no_auth_user): the probe connects as anyone would, is admitted, and the
# agent refuses it, though the server has users and passwords.
NOAUTH_PORT=$(nats_free_port)
start_server noauth "listen: 127.0.0.1:$NOAUTH_PORT" \
  'authorization { users = [ {user: alice, password: pw-alice}, {user: mallory, password: pw-mallory} ] }' \
  'no_auth_user: alice' || { not_ok "no_auth_user nats-server starts"; finish; }
out=$(timeout 20 "$TALLY" agent --foreground --no-archive --socket "$WORK/sock/a1/agent.sock" \
      --nats "nats://127.0.0.1:$NOAUTH_PORT" --user alice --creds "$WORK/creds/alice" 2>&1); rc=$?
check_eq "a server whose no_auth_user admits anyone as alice is refused: exit 125" "$rc" 125
check_contains "... in one line saying why" "$out" "refusing to join nats://127.0.0.1:$NOAUTH_PORT: the server admits clients without credentials"
check_eq "... one line only" "$(printf '%s\n' "$out" | wc -l)" 1

# 2. Too wide permissions: alice and mallory may each publish anywhere.
WIDE_PORT=$(nats_free_port)
start_server wide "listen: 127.0.0.1:$WIDE_PORT" \
  'authorization { users = [ {user: alice, password: pw-alice}, {user: mallory, password: pw-mallory} ] }' \
  || { not_ok "wide nats-server starts"; finish; }
WIDE=nats://127.0.0.1:$WIDE_PORT
"$TALLY" agent --foreground --no-archive --socket "$WORK/sock/a3/agent.sock" --nats "$WIDE" \
  --user alice --creds "$WORK/creds/alice" 2>"$WORK/a3.err" &
pids+=($!)
check "an agent joins a server that requires authentication" wait_until 20 test -S "$WORK/sock/a3/agent.sock"
"$TALLY" run --agent "$WORK/sock/a3/agent.sock" --app victim -o "$WORK/victim" -- sleep 30 2>/dev/null &
VICTIM=$!
pids+=($VICTIM)
ask() { "$TALLY" request --nats "$WIDE" --timeout 3 "$@" 2>&1; }
check "alice's signed request is answered" wait_until 30 sh -c \
  "'$TALLY' request --nats '$WIDE' --user alice --creds '$WORK/creds/alice' --timeout 1 ':app_get_list()' 2>&1 | grep -q victim"
out=$(ask --user alice --creds "$WORK/creds/mallory" ':proc_kill([app_victim], "KILL")')
check_contains "mallory's request as alice is refused" "$out" "not signed with the NATS credentials of user 'alice'"
sleep 0.3
check "... and alice's task was not killed" kill -0 "$VICTIM"

# 2b. The configuration docs/agent-nats.md gives: alice and mallory each
# restricted to their own subjects. Mallory naming alice (--user alice) is
# refused by the server itself, with or without alice's signature check.
STRICT_PORT=$(nats_free_port)
perms() { echo "permissions: {publish: [\"tally.$1.>\", \"_INBOX.$1.>\"], subscribe: [\"tally.$1.>\", \"_INBOX.$1.>\"]}"; }
start_server strict "listen: 127.0.0.1:$STRICT_PORT" \
  "authorization { users = [ {user: alice, password: pw-alice, $(perms alice)}, {user: mallory, password: pw-mallory, $(perms mallory)} ] }" \
  || { not_ok "strict nats-server starts"; finish; }
STRICT=nats://127.0.0.1:$STRICT_PORT
mkdir -m 700 -p "$WORK/sock/a5"
"$TALLY" agent --foreground --no-archive --socket "$WORK/sock/a5/agent.sock" --nats "$STRICT" \
  --user alice --creds "$WORK/creds/alice" 2>"$WORK/a5.err" &
pids+=($!)
check "alice's agent joins the server with per-user permissions" wait_until 20 test -S "$WORK/sock/a5/agent.sock"
"$TALLY" run --agent "$WORK/sock/a5/agent.sock" --app victim -o "$WORK/strict-victim" -- sleep 60 2>/dev/null &
STRICT_VICTIM=$!
pids+=($STRICT_VICTIM)
check "alice's own request reaches her agent, which follows her task's process" wait_until 30 sh -c \
  "'$TALLY' request --nats '$STRICT' --user alice --creds '$WORK/creds/alice' --timeout 1 ':proc_get_info([app_victim], 0x1)' 2>&1 | grep -q '\"pid\":'"
out=$("$TALLY" request --nats "$STRICT" --creds "$WORK/creds/mallory" --user alice --timeout 3 \
      ':proc_kill([app_victim], "KILL")' 2>&1); rc=$?
check_eq "mallory's proc_kill naming alice: exit status 1" "$rc" 1
check_contains "... the client says the server refused it" "$out" "refused by the NATS server: this user may not address tally.alice."
sleep 0.5
check "... and alice's task is alive" kill -0 "$STRICT_VICTIM"
check_contains "... the server logged the violation" "$(cat "$WORK/strict.log")" 'Publish Violation - User "mallory", Subject "tally.alice.'
out=$("$TALLY" request --nats "$STRICT" --creds "$WORK/creds/mallory" --user mallory --timeout 2 ':app_get_list()' 2>&1)
check "mallory on her own subjects sees none of alice's applications" eval '! grep -q victim <<<"$out"'
kill "$STRICT_VICTIM" 2>/dev/null

# 3. A replayed (old) request, correctly signed, is refused: the envelope's
# time is 10 minutes old (made here as a tool would, with alice's key).
old=$(( $(date +%s) - 600 ))
inner=$(jq -cn --arg t "$old" '{id: "_INBOX.alice.replay#1", user: "alice", time: ($t|tonumber), request: ":app_get_list()"}')
sig=$(printf '%s' "$inner" | openssl dgst -sha256 -hmac "$(cat "$WORK/creds/alice")"$'\n' -hex 2>/dev/null | awk '{print $NF}')
# (the key is the creds file's whole content, its newline included)
check_eq "openssl signs it with alice's key" "${#sig}" 64
# Published by hand in NATS's text protocol (bash's /dev/tcp), as alice.
raw_request() { # PAYLOAD: prints the answer's payload line
  local payload=$1 line
  exec 3<>"/dev/tcp/127.0.0.1/$WIDE_PORT" || return 1
  IFS= read -r -t 3 line <&3 # INFO
  printf 'CONNECT {"user":"alice","pass":"pw-alice","verbose":false,"pedantic":false}\r\nSUB _INBOX.alice.replay 1\r\nPUB tally.alice.req.all _INBOX.alice.replay %d\r\n%s\r\nPING\r\n' \
    "${#payload}" "$payload" >&3
  while IFS= read -r -t 5 line <&3; do
    case "$line" in MSG*) IFS= read -r -t 3 line <&3; printf '%s\n' "${line%$'\r'}"; break;; esac
  done
  exec 3<&-
}
fresh_inner=$(jq -cn --arg t "$(date +%s)" '{id: "_INBOX.alice.replay#2", user: "alice", time: ($t|tonumber), request: ":app_get_list()"}')
fresh_sig=$(printf '%s' "$fresh_inner" | openssl dgst -sha256 -hmac "$(cat "$WORK/creds/alice")"$'\n' -hex | awk '{print $NF}')
out=$(raw_request "$(jq -cn --arg s "$fresh_inner" --arg g "$fresh_sig" '{signed: $s, sig: $g}')")
check_contains "a request signed by hand with alice's key is answered (the format is as documented)" "$out" '"app_get_list"'
out=$(raw_request "$(jq -cn --arg s "$inner" --arg g "$sig" '{signed: $s, sig: $g}')")
check_contains "the same, 10 minutes old: refused as replayed" "$out" "(at most 300: replayed, or a clock far off)"
check "... naming its age (600 s, or 601 if a second turned)" grep -qE 'made 60[01] s from' <<<"$out"
out=$(raw_request "$(jq -cn --arg s "$fresh_inner" '{signed: $s, sig: "0000000000000000000000000000000000000000000000000000000000000000"}')")
check_contains "a wrong signature: refused" "$out" "not signed with the NATS credentials of user 'alice'"
out=$(raw_request "$fresh_inner")
check_contains "an unsigned request: refused" "$out" "not signed with the NATS credentials of user 'alice'"
kill "$VICTIM" 2>/dev/null

# 4. An agent started before its server joins once the server answers.
LATE_PORT=$(nats_free_port)
"$TALLY" agent --foreground --no-archive --socket "$WORK/sock/a4/agent.sock" --nats "nats://127.0.0.1:$LATE_PORT" \
  --user alice --creds "$WORK/creds/alice" 2>"$WORK/a4.err" &
pids+=($!)
check "an agent whose server is not up yet still starts" wait_until 60 test -S "$WORK/sock/a4/agent.sock"
check "... saying it will join later" wait_until 20 grep -q "no NATS server answers at nats://127.0.0.1:$LATE_PORT yet" "$WORK/a4.err"
start_server late "listen: 127.0.0.1:$LATE_PORT" \
  'authorization { users = [ {user: alice, password: pw-alice, permissions: {publish: ["tally.alice.>", "_INBOX.alice.>"], subscribe: ["tally.alice.>", "_INBOX.alice.>"]}} ] }' \
  || not_ok "late nats-server starts"
check "... and answers over NATS once the server is up" wait_until 30 sh -c \
  "'$TALLY' request --nats nats://127.0.0.1:$LATE_PORT --user alice --creds '$WORK/creds/alice' --timeout 1 ':app_get_list()' 2>&1 | grep -q app_get_list"
finish
