#!/usr/bin/env bash
# The test suite's own nats-servers require authentication, as the agent
# demands of any server it joins (docs/agent-nats.md):
# - only live/nats-sites.sh (every NATS test, bench and the README tour go
#   through it) and agent/nats_security.test.sh (whose open servers are
#   there to be refused) start a nats-server;
# - both of nats-sites.sh's servers refuse a client without credentials,
#   and give user U only tally.U.> and _INBOX.U.>: checked in NATS's text
#   protocol (bash's /dev/tcp), against the real servers.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/live/nats-sites.sh"
ROOT=$TALLY_TEST_ROOT

starters=$(cd "$ROOT" && grep -rlE '^[^#]*nats-server +-[^-]' tests bench scripts Makefile | sort | tr '\n' ' ')
check_eq "only nats-sites.sh and nats_security start nats-servers" "$starters" \
  "tests/integration/agent/nats_security.test.sh tests/integration/live/nats-sites.sh "

nats_sites_start alice bob || { not_ok "nats-servers start"; finish; }
# say PORT LINES...: the server's replies to CONNECT + LINES + PING, until
# its PONG or an error (at most 3 s)
say() {
  local port=$1 line out=""; shift
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  IFS= read -r -t 3 line <&3 # INFO
  printf '%s\r\n' "$@" PING >&3
  while IFS= read -r -t 3 line <&3; do
    out+="${line%$'\r'} "
    case "$line" in PONG*|-ERR*) break;; esac
  done
  exec 3<&-
  printf '%s\n' "$out"
}
for site in ALPHA BETA; do
  url=NATS_$site
  port=${!url##*:}
  check_contains "$site: a client without credentials is refused" \
    "$(say "$port" 'CONNECT {"verbose":false}')" "-ERR 'Authorization Violation'"
  check_contains "$site: alice with her password is let in" \
    "$(say "$port" 'CONNECT {"verbose":false,"user":"alice","pass":"pw-alice"}')" "PONG"
  check_contains "$site: alice may not publish on bob's subjects" \
    "$(say "$port" 'CONNECT {"verbose":false,"user":"alice","pass":"pw-alice"}' 'PUB tally.bob.req.all 2' 'hi')" \
    "Permissions Violation for Publish to \"tally.bob.req.all\""
  check_contains "$site: nor read bob's answers" \
    "$(say "$port" 'CONNECT {"verbose":false,"user":"alice","pass":"pw-alice"}' 'SUB _INBOX.bob.> 1')" \
    "Permissions Violation for Subscription to \"_INBOX.bob.>\""
done
finish
