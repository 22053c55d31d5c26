#!/usr/bin/env bash
# Exit statuses: the task's own, 128+N on a signal, 127 when not found, 126
# when not executable (with a summary saying so).
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
ulimit -c 0
$TALLY run -o ok -- /bin/sh -c 'exit 3'
check_eq "task's status" "$?" 3
check_eq "summary exit_status" "$(jq -r .exit_status ok.summary)" 3
check_eq "summary exit_type" "$(jq -r .exit_type ok.summary)" normal

$TALLY run -o crash -- "$PROGS/crash" 11 50
check_eq "self-signalled crash: 128+11" "$?" 139
check_eq "crash exit_type" "$(jq -r .exit_type crash.summary)" signal
check_eq "crash signal" "$(jq -r .signal crash.summary)" 11
check_eq "crash exit_status" "$(jq -r .exit_status crash.summary)" 139
check_near "crashed process still measured" "$(summary_value crash.summary memory)" 51 3

$TALLY run -o abrt -- /bin/sh -c 'kill -ABRT $$'
check_eq "shell killing itself with SIGABRT: 128+6" "$?" 134

$TALLY run -o missing -- ./no-such-command arg 2> missing.err
check_eq "missing command: 127" "$?" 127
check_eq "missing: one line on stderr" "$(cat missing.err)" "tally: run: ./no-such-command: command not found"
check_eq "missing: summary exit_status" "$(jq -r .exit_status missing.summary)" 127
check_contains "missing: summary says not found" "$(jq -r .error missing.summary)" "not found"
check_eq "missing: no process ran" "$(summary_value missing.summary total_processes)" 0
check_eq "missing: no memory" "$(summary_value missing.summary memory)" 0

printf 'not a program\n' > notexec && chmod -x notexec
$TALLY run -o noexec -- ./notexec 2> noexec.err
check_eq "not executable: 126" "$?" 126
check_eq "noexec: one line on stderr" "$(cat noexec.err)" "tally: run: ./notexec: Permission denied"
check_contains "noexec: summary says so" "$(jq -r .error noexec.summary)" "cannot be executed"

# A command that itself exits 127 is not mistaken for 'not found'.
$TALLY run -o own127 -- /bin/sh -c 'exit 127'
check_eq "own 127" "$?" 127
check_eq "own 127: no error field" "$(jq -r '.error // "none"' own127.summary)" none

$TALLY run -o shell -c 'exit 5'
check_eq "-c runs a shell line" "$?" 5
check_eq "-c command recorded" "$(jq -r .command shell.summary)" "exit 5"
finish
