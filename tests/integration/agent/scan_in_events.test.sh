#!/usr/bin/env bash
# A conditional request whose action names the application of a task the
# agent has not scanned yet (proc_created([app_X]): proc_get_info([app_X]))
# fires during the scan that finds the task's processes: the agent scans
# once, not again from inside each event (it did: one nested scan of /proc
# per new process, as deep as the tree was large: 100 processes, 102 scans
# of /proc at one tick).
# Counted with strace: the agent's listings of /proc.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
command -v strace >/dev/null || { not_ok "strace is installed"; finish; }
S=$WORK/sock/agent.sock
# (LeakSanitizer cannot run under ptrace: leak checking off for the agent)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=openat \
  -o "$WORK/trace" "$TALLY" agent --foreground --socket "$S" --no-archive --interval 2 \
  2>>"$WORK/agent.err" &
AGENT_PID=$!
wait_agent "$S" || { not_ok "the agent starts"; finish; }

"$TALLY" request --agent "$S" --follow 'proc_created([app_deep]): proc_get_info([app_deep], 1)' \
  >"$WORK/created.out" 2>&1 &
F=$!
check "the csr is enabled" wait_until 10 grep -qs '"state":"enabled"' "$WORK/created.out"
before=$(grep -cE 'openat\(AT_FDCWD, "/proc", ' "$WORK/trace")
"$TALLY" run --level 1 --agent "$S" --app deep -o /dev/null -- \
  sh -c 'for i in $(seq 100); do sleep 30 & done; wait' 2>/dev/null &
RUN=$!
created() { [ "$(grep -c '"service":"proc_created"' "$WORK/created.out")" -ge 101 ]; }
check "the csr fired for the shell and its 100 sleeps" wait_until 20 created
check "its actions answered (proc_get_info's lines)" wait_until 10 grep -qs '"service":"proc_get_info"' "$WORK/created.out"
scans=$(( $(grep -cE 'openat\(AT_FDCWD, "/proc", ' "$WORK/trace") - before ))
# ticks every 2 s while the csr fired (at most 20 s): a few, never one per process
check_cmp "the agent listed /proc a few times, not once per new process ($scans)" "$scans" "<=" 12
req "$S" ':proc_kill([app_deep], "KILL")' >/dev/null
wait "$RUN" 2>/dev/null
kill -INT "$F"; wait "$F" 2>/dev/null
"$TALLY" agent --socket "$S" stop >/dev/null 2>&1
wait "$AGENT_PID"
finish
