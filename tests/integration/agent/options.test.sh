#!/usr/bin/env bash
# Options of tally agent, tally request and tally run --agent: help, bad
# options and bad combinations, each a one-line message and exit 125.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
S=$WORK/none/agent.sock

out=$("$TALLY" agent --help); rc=$?
check_eq "agent --help exits 0" "$rc" 0
check_contains "agent --help shows usage" "$out" "usage: tally agent"
out=$("$TALLY" request --help); rc=$?
check_eq "request --help exits 0" "$rc" 0
check_contains "request --help shows usage" "$out" "usage: tally request"

expect_error() { # DESCRIPTION NEEDLE COMMAND...
  local d=$1 needle=$2; shift 2
  local out rc
  out=$("$@" 2>&1 >/dev/null); rc=$?
  check_eq "$d: exit 125" "$rc" 125
  check_contains "$d: says why" "$out" "$needle"
  check_eq "$d: one line" "$(printf '%s\n' "$out" | wc -l)" 1
}
expect_error "agent bad option" "agent: unknown or incomplete option '--bogus'" "$TALLY" agent --bogus
expect_error "agent bad interval" "agent: --interval" "$TALLY" agent --interval 1x
expect_error "agent unknown command" "agent: unknown command 'frobnicate'" "$TALLY" agent --socket "$S" frobnicate
expect_error "attach without --app" "attach needs --app" "$TALLY" agent --socket "$S" attach $$
expect_error "attach without pid" "attach needs a PID" "$TALLY" agent --socket "$S" attach
expect_error "status without agent" "cannot connect to the agent at $S" "$TALLY" agent --socket "$S" status
expect_error "request without agent" "is 'tally agent' running?" "$TALLY" request --agent "$S" ':app_get_list()'
expect_error "request without text" "request: give a REQUEST" "$TALLY" request --agent "$S"
expect_error "request bad option" "request: unknown or incomplete option '--nope'" "$TALLY" request --nope x
expect_error "run --app without --agent" "run: --app needs --agent" "$TALLY" run --app x -- true
expect_error "run --agent without --app" "run: --agent needs --app NAME" "$TALLY" run --agent "$S" -- true
check "no agent was started by the refused runs" test ! -e "$S"
finish
