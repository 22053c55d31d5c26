#!/usr/bin/env bash
# tally agent + tally run --agent + tally request on one host: every service
# checked against the process's own truth (/proc of a fixture that touched a
# known amount of memory and wrote a known number of bytes), stop/continue
# seen in /proc, counters and conditional requests, events, the archive,
# malformed requests (the agent survives), attach by pid.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock
start_agent "$S" --interval 0.2 --archive "$WORK/archive.db"
check "the agent answers on its socket" wait_agent "$S"
check_eq "socket directory is 0700" "$(stat -c %a "$WORK/sock")" 700

"$TALLY" run --agent "$S" --app sim -o "$WORK/sim" -- \
  "$PROGS/hold_memory" 64 3 "$WORK/ready" "$WORK/release" 2>"$WORK/run.err" &
RUN=$!
check "the fixture is ready" wait_file "$WORK/ready"
PID=$(cat "$WORK/ready")
check "the agent sees the fixture in app_sim" wait_until 20 \
  sh -c "\"$TALLY\" request --agent '$S' ':app_get_proclist([app_sim])' | grep -q 'p_$PID@'"

out=$(req "$S" ':app_get_list()')
check_eq "app_get_list names sim" "$(printf '%s\n' "$out" | jq -r 'select(.service) | .result.apps[0].app')" sim

# proc_get_info against /proc/PID itself
out=$(req "$S" ":proc_get_info([p_$PID], 0x4)")
rss_kb=$(awk '/^VmRSS/ { print $2 }' /proc/$PID/status)
check_near "memory = VmRSS (MB)" "$(result_of "$out" proc_get_info memory)" "$(echo "$rss_kb / 1024" | bc -l)" 0.5
check_cmp "memory covers the 64 MB touched" "$(result_of "$out" proc_get_info memory)" ">=" 64
out=$(req "$S" ":proc_get_info([p_$PID], 0x8)")
wchar=$(awk '/^wchar/ { print $2 }' /proc/$PID/io)
check_near "bytes_written = wchar (MB)" "$(result_of "$out" proc_get_info bytes_written)" "$(echo "$wchar / 1048576" | bc -l)" 0.001
check_cmp "bytes_written >= the 3 MB written" "$(result_of "$out" proc_get_info bytes_written)" ">=" 3
out=$(req "$S" ":proc_get_info([app_sim], 0x1)")
check_eq "0x1 gives the command" "$(printf '%s\n' "$out" | jq -r "select(.object == \"p_$PID@$(hostname)\") | .result.command")" hold_memory
check_eq "0x1 gives no memory" "$(printf '%s\n' "$out" | jq -r 'select(.service) | .result.memory' | head -1)" null
check_eq "reply names site and node" "$(printf '%s\n' "$out" | jq -r 'select(.service) | "\(.site) \(.node)"' | head -1)" "local $(hostname)"
check "the agent keeps a series for the fixture" wait_until 10 sh -c \
  "[ \$(\"$TALLY\" request --agent '$S' ':proc_get_info([p_$PID], 0x40)' | jq -r 'select(.service) | .result.series | length') -ge 3 ]"
out=$(req "$S" ":proc_get_info([p_$PID], 0x40)")
check_eq "series columns" "$(printf '%s\n' "$out" | jq -c 'select(.service) | .result.series_columns')" '["time","cpu_time","memory","state"]'
check_near "the series' last memory is the fixture's RSS (MB)" \
  "$(printf '%s\n' "$out" | jq -r 'select(.service) | .result.series[-1][2]')" "$(echo "$rss_kb / 1024" | bc -l)" 1
check_cmp "the series is bounded by --series" "$(printf '%s\n' "$out" | jq -r 'select(.service) | .result.series | length')" "<=" 120
out=$(req "$S" ":node_get_info([n_$(hostname)])")
check_eq "node_get_info cpus = nproc" "$(result_of "$out" node_get_info cpus)" "$(nproc)"

# stop / continue, seen in /proc
out=$(req "$S" ":thread_stop([p_$PID])")
check_eq "thread_stop says stopped" "$(printf '%s\n' "$out" | jq -r 'select(.service) | .result.state')" stopped
st=$(proc_state $PID)
check "stopped in /proc (T, or t under tally run's tracer): $st" test "$st" = T -o "$st" = t
req "$S" ":thread_continue([p_$PID])" >/dev/null
check "running again in /proc" wait_until 10 sh -c "s=\$(sed 's/.*) //' /proc/$PID/stat | cut -c1); [ \$s = S ] || [ \$s = R ]"

# counters and a conditional request: timer(100ms) increments by 2 and reads
"$TALLY" request --agent "$S" --follow ':pa_counter_create()' \
  'timer(100ms): pa_counter_increment([c_1], 2), pa_counter_read([c_1])' >"$WORK/follow.out" 2>&1 &
F=$!
check "the timer's stream flows" wait_until 20 sh -c "[ \$(grep -c pa_counter_read '$WORK/follow.out') -ge 3 ]"
kill -INT $F; wait $F; frc=$?
check_eq "tally request --follow ends cleanly on SIGINT" "$frc" 0
vals=$(jq -r 'select(.service == "pa_counter_read") | .result.value' "$WORK/follow.out" | head -3 | tr '\n' ' ')
check_eq "the counter read 2, 4, 6" "$vals" "2 4 6 "
check "each timer line names its csr" grep -q '"request":"csr_1".*"event":{"service":"timer"' "$WORK/follow.out"
check "the csr was deleted at the end" grep -q '"service":"csr_delete".*"state":"deleted"' "$WORK/follow.out"

# malformed and refused requests: error lines with positions; the agent survives
out=$(req "$S" 'proc_get_info((')
check_contains "a syntax error names its column" "$out" '"pos":'
out=$(req "$S" ':proc_get_info([p_1])')
check_contains "p_1 is refused: not registered" "$out" "process 1 is not part of any registered application"
gone=$(sh -c 'echo $$') # a pid that has just ended (in range: p_999999999 is no pid at all)
out=$(req "$S" ":proc_get_info([p_$gone])")
check_contains "a vanished pid is refused" "$out" "does not exist"
out=$(req "$S" ':proc_get_info([p_999999999])')
check_contains "a pid above the kernel's limit is refused as no pid" "$out" "is not a pid"
out=$(printf 'not a request\n{"op": 3}\n{bad json\n%s\n' "$(head -c 3000 /dev/urandom | tr -d '\n\0')" |
      timeout 5 socat -t 2 - "UNIX-CONNECT:$S" 2>&1 || true)
check_contains "garbage text gets a request error" "$out" '"done":true'
check_contains "bad JSON gets an error line" "$out" 'bad JSON'
check_contains "a message without op is refused" "$out" 'needs \"op\"'
check "the agent is alive after garbage" sh -c "\"$TALLY\" agent --socket '$S' status >/dev/null"

# events: proc_terminated fires when the app's process is killed
"$TALLY" request --agent "$S" --follow "proc_terminated([app_sim]): node_get_info([n_$(hostname)])" \
  >"$WORK/term.out" 2>&1 &
F=$!
check "the event request is enabled" wait_until 10 grep -qs '"state":"enabled"' "$WORK/term.out"
out=$(req "$S" ":proc_kill([p_$PID])")
check_eq "proc_kill sent TERM" "$(printf '%s\n' "$out" | jq -r 'select(.service) | .result.signal')" 15
wait $RUN; rc=$?
check_eq "tally run reports the task killed by SIGTERM" "$rc" 143
check "tally run wrote its summary" test -s "$WORK/sim.summary"
check "proc_terminated fired for the fixture" wait_until 10 grep -q "\"event\":{\"service\":\"proc_terminated\",\"object\":\"p_$PID@" "$WORK/term.out"
kill -INT $F; wait $F
check "the finished task is in the archive" wait_until 10 sh -c "[ \"\$(sqlite3 '$WORK/archive.db' 'select count(*) from summaries where name = \"sim\"')\" = 1 ]"

# attach a running tree by pid: followed at level 1 by the agent itself
sh -c 'sleep 30 & sleep 30' &
TREE=$!
out=$("$TALLY" agent --socket "$S" attach $TREE --app attached)
check_contains "attach answers with its task" "$out" '"op":"attached"'
check "the attached tree's children are followed" wait_until 10 sh -c \
  "[ \$(\"$TALLY\" request --agent '$S' ':app_get_proclist([app_attached])' | jq -r 'select(.service) | .result.processes | length') = 3 ]"
out=$(req "$S" ":proc_set_limits([app_attached], \"wall_time: 0.5 s\")")
check_contains "proc_set_limits answers with the limits" "$out" '"wall_time":[0.5,"s"]'
check "the watchdog ended the attached tree" wait_until 20 sh -c "! kill -0 $TREE 2>/dev/null || [ \"\$(sed 's/.*) //' /proc/$TREE/stat | cut -c1)\" = Z ]"
wait $TREE 2>/dev/null
check "the attached task is archived" wait_until 10 sh -c "[ \"\$(sqlite3 '$WORK/archive.db' 'select count(*) from summaries where name = \"attached\"')\" = 1 ]"
out=$(req "$S" ':app_get_list()')
check_eq "no application left" "$(printf '%s\n' "$out" | jq -r 'select(.service) | .result.apps | length')" 0

# Level 2 through tally run: every process, however short, reaches the
# agent's events (five /bin/true of a millisecond each, between two ticks).
"$TALLY" request --agent "$S" --follow 'proc_created([app_short]): app_get_list()' \
  >"$WORK/created.out" 2>&1 &
F=$!
check "proc_created on app_short is enabled" wait_until 10 grep -qs '"state":"enabled"' "$WORK/created.out"
"$TALLY" run --agent "$S" --app short -o "$WORK/short" -- \
  sh -c 'for i in 1 2 3 4 5; do /bin/true; done; touch '"$WORK/short.done"'; sleep 0.3' 2>/dev/null
check "the short task ended" test -e "$WORK/short.done"
check "proc_created fired for every process of the short task (at least 7 of its 8)" wait_until 10 sh -c \
  "[ \$(grep -c '\"event\":{\"service\":\"proc_created\"' '$WORK/created.out') -ge 7 ]"
kill -INT $F; wait $F

"$TALLY" agent --socket "$S" stop
wait $AGENT_PID; arc=$?
check_eq "the agent shuts down cleanly" "$arc" 0
check "its socket is gone" test ! -e "$S"
finish
