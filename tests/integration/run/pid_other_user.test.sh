#!/usr/bin/env bash
# tally run --pid on another user's process is refused saying it belongs to
# another user (as the agent says it), not that it is not running; a pid that
# runs nowhere is still "not a running process". Two unprivileged users are
# made here (as root), as in agent/security.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/local_users.sh"
if [ "$(id -u)" -ne 0 ]; then
  ok "# SKIP needs root to create the test users"; finish
fi
local_users tallytest_a tallytest_b
as_b() { as_user tallytest_b "$@"; }
chmod 777 "$WORK"
(bg_as tallytest_a sleep 30) &
VICTIM=$!
check "A's process runs" wait_until 5 sh -c "[ \"\$(stat -c %u /proc/$VICTIM)\" = $(id -u tallytest_a) ]"
as_b "$TALLY" run --pid "$VICTIM" -o "$WORK/b" 2>b.err; rc=$?
check_eq "B following A's process: status 125, one line" "$rc/$(wc -l < b.err)" "125/1"
check_eq "  saying it belongs to another user" "$(cat b.err)" \
  "tally: --pid: process $VICTIM belongs to another user"
check "  and A's process is untouched" kill -0 "$VICTIM"
check "  no summary written" test ! -e "$WORK/b.summary"
gone=$(sh -c 'echo $$')
as_b "$TALLY" run --pid "$gone" -o "$WORK/g" 2>g.err
check_eq "a pid that runs nowhere: not a running process" "$(cat g.err)" \
  "tally: --pid: '$gone' is not a running process"
kill "$VICTIM"
finish
