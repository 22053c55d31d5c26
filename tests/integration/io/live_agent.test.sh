#!/usr/bin/env bash
# Level 3 live (issue 19 item 7): a task run with 'tally run --agent --level 3'
# is seen file by file while it runs, through proc_get_info's 0x200, and its
# I/O per module on the agent's /metrics. A python3 process writes two known
# blocks (1234 and 766 bytes, one os.write each) to one file, reads 500 of
# them back, then waits; the answers are checked against those truths, and
# /metrics against the sum of every file of every process of the answers.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
S=$WORK/sock/agent.sock
start_metrics_agent "$S"
trap 'kill $RUN $PLAIN $AGENT_PID 2>/dev/null; wait 2>/dev/null' EXIT
check "the agent serves metrics" kill -0 "$AGENT_PID"

F=$WORK/data.bin
"$TALLY" run --agent "$S" --app liveio --level 3 -o "$WORK/liveio" -- python3 -c "
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
os.write(fd, b'a' * 1234)
os.write(fd, b'b' * 766)
os.lseek(fd, 0, 0)
os.read(fd, 500)
open(sys.argv[2], 'w').write(str(os.getpid()))
while not os.path.exists(sys.argv[3]):
    time.sleep(0.05)
os._exit(0)
" "$F" "$WORK/ready" "$WORK/release" 2>"$WORK/run.err" &
RUN=$!
check "the program did its I/O" wait_file "$WORK/ready"
PID=$(cat "$WORK/ready")

out=$(req "$S" "proc_get_info([p_$PID], 0x201)")
file() { printf '%s\n' "$out" | jq -r --arg p "$F" --arg c "$1" 'select(.service == "proc_get_info") | .result.file_io.files[] | select(.path == $p) | .[$c]'; }
check_eq "0x200: the helper runs in the process" \
  "$(printf '%s\n' "$out" | jq -r 'select(.service == "proc_get_info") | .result.file_io.interposed')" true
check_eq "  its file, live: POSIX_OPENS" "$(file POSIX_OPENS)" 1
check_eq "  POSIX_WRITES" "$(file POSIX_WRITES)" 2
check_eq "  POSIX_BYTES_WRITTEN (1234 + 766)" "$(file POSIX_BYTES_WRITTEN)" 2000
check_eq "  POSIX_READS" "$(file POSIX_READS)" 1
check_eq "  POSIX_BYTES_READ" "$(file POSIX_BYTES_READ)" 500
check_eq "  POSIX_SIZE_WRITE_100_1K (the 766)" "$(file POSIX_SIZE_WRITE_100_1K)" 1
check_eq "  POSIX_SIZE_WRITE_1K_10K (the 1234)" "$(file POSIX_SIZE_WRITE_1K_10K)" 1
check_eq "  POSIX_SEEKS" "$(file POSIX_SEEKS)" 1
check_eq "  the per-process split names the process" \
  "$(printf '%s\n' "$out" | jq -r --arg p "$F" 'select(.service == "proc_get_info") | .result.file_io.files[] | select(.path == $p) | .processes[0].pid')" "$PID"
check_eq "  the state flag answered too (0x1)" \
  "$(printf '%s\n' "$out" | jq -r 'select(.service == "proc_get_info") | .result.app')" liveio
check_eq "0x200 is not in the default (no file_io without it)" \
  "$(req "$S" "proc_get_info([p_$PID])" | jq -r 'select(.service == "proc_get_info") | .result | has("file_io")')" false

# /metrics: the application's I/O per module so far, every process of the
# task included (python3 reads its own modules too; a launcher script may
# have run before it): checked against the run's own PREFIX.files.json once
# the program, idle since, has ended
metric() { printf '%s\n' "$M" | sed -n "s/^tally_io_$1_total{app=\"liveio\".*module=\"$2\",$3=\"$4\"} //p"; }
M=$(curl -s "http://127.0.0.1:$PORT/metrics")
check_cmp "tally_io_bytes_total posix write holds the 2000 bytes written" "$(metric bytes posix direction write)" ">=" 2000
check_cmp "tally_io_bytes_total posix read holds the 500 bytes read" "$(metric bytes posix direction read)" ">=" 500
OM='Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5'
text=$(curl -s -H "$OM" "http://127.0.0.1:$PORT/metrics")
check_contains "OpenMetrics: the family has a unit" "$text" "# UNIT tally_io_bytes bytes"
check_contains "  and is a counter" "$text" "# TYPE tally_io_bytes counter"
if command -v promtool >/dev/null; then
  curl -s "http://127.0.0.1:$PORT/metrics" | promtool check metrics >"$WORK/promtool.out" 2>&1
  check_eq "promtool check metrics: no problem, no warning" "$?/$(cat "$WORK/promtool.out")" "0/"
fi

touch "$WORK/release"
wait "$RUN"
check_eq "the run ends" "$?" 0
sum() { jq --arg c "$1" '[.files[] | .[$c] // 0] | add' "$WORK/liveio.files.json"; }
check_eq "tally_io_bytes_total posix write: as the run's report has it" "$(metric bytes posix direction write)" "$(sum POSIX_BYTES_WRITTEN)"
check_eq "tally_io_bytes_total posix read: as the report has it" "$(metric bytes posix direction read)" "$(sum POSIX_BYTES_READ)"
check_eq "tally_io_bytes_total stdio write: as the report has it" "$(metric bytes stdio direction write)" "$(sum STDIO_BYTES_WRITTEN)"
check_eq "tally_io_operations_total posix open: as the report has it" "$(metric operations posix operation open)" "$(sum POSIX_OPENS)"
check_eq "tally_io_operations_total posix write: as the report has it" "$(metric operations posix operation write)" "$(sum POSIX_WRITES)"
check_eq "the ended task's series are gone" "$(curl -s "http://127.0.0.1:$PORT/metrics" | grep -c '^tally_io_.*app="liveio"')" 0
# a task not run at level 3: the flag says so, and no I/O series for it
"$TALLY" run --agent "$S" --app plain -o "$WORK/plain" -- sleep 60 &
PLAIN=$!
check "the plain task is followed" wait_until 20 sh -c "'$TALLY' request --agent '$S' 'proc_get_info([app_plain], 0x1)' | grep -q sleep"
pp=$(req "$S" "proc_get_info([app_plain], 0x201)" | jq -r 'select(.service == "proc_get_info" and .result.command == "sleep") | .result.file_io.error')
check_contains "0x200 on a task not at level 3: says so" "$pp" "not followed at level 3"
check_eq "no tally_io series for it" "$(curl -s "http://127.0.0.1:$PORT/metrics" | grep -c '^tally_io_.*app="plain"')" 0
check "the agent is still up" kill -0 "$AGENT_PID"
kill "$PLAIN"; wait "$PLAIN" 2>/dev/null
finish
