# Helpers for the agent's integration tests (sourced after lib.sh).
# start_agent SOCKET [ARGS...]: starts 'tally agent --foreground' on SOCKET
# in the background (AGENT_PID) and waits (bounded, lib.sh's wait_agent)
# until it answers.
start_agent() {
  local sock=$1; shift
  "$TALLY" agent --foreground --socket "$sock" "$@" 2>>"$WORK/agent.err" &
  AGENT_PID=$!
  wait_agent "$sock"
}

# start_metrics_agent SOCKET: starts 'tally agent --foreground' on SOCKET
# with --metrics on a free port of 127.0.0.1 (PORT; the agent says so in one
# line when a port is taken: a few are tried) and --interval 0.2, in the
# background (AGENT_PID, its stderr in $WORK/agent.err), and waits until it
# answers.
start_metrics_agent() {
  local sock=$1
  for _ in 1 2 3 4 5; do
    PORT=$(free_port)
    "$TALLY" agent --foreground --socket "$sock" --no-archive --interval 0.2 \
      --metrics "127.0.0.1:$PORT" 2>"$WORK/agent.err" &
    AGENT_PID=$!
    wait_agent "$sock" && return 0
    wait "$AGENT_PID"
  done
  return 1
}

# wait_file FILE: until it exists (up to 30 s)
wait_file() {
  for _ in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.05; done
  return 1
}

# req SOCKET REQUEST...: the JSON lines (stdout) of tally request
req() { local s=$1; shift; "$TALLY" request --agent "$s" "$@" 2>&1; }

# proc_state PID: the state letter of /proc/PID/stat
proc_state() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1; }

# result_of LINES SERVICE FIELD: the number of FIELD in SERVICE's first reply
result_of() {
  printf '%s\n' "$1" | jq -r --arg s "$2" --arg f "$3" \
    'select(.service == $s) | .result[$f] | if type == "array" then .[0] else . end' | head -1
}
