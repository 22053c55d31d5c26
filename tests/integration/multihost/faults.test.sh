#!/usr/bin/env bash
# Faults of one application across two simulated hosts (Open MPI, 4 ranks,
# 2 on hostB): the run always ends with its summary, names the ranks it
# could not get and why, and never waits longer than $TALLY_GATHER_TIMEOUT.
#   - hostB's ranks are refused by their agent (TALLY_AGENT names another
#     user's socket): said once for hostB, ranks 2-3 missing;
#   - hostB's agent is killed mid-run: ranks 2-3 missing;
#   - hostB's agent is unreachable (its NATS is not there): bounded wait.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/multihost_lib.sh"
multihost_start hostA hostB || { not_ok "simulated hosts"; finish; }
build openmpi stencil || { not_ok "build stencil"; finish; }
export TALLY_GATHER_TIMEOUT=2
run4() { # NAME ITERATIONS: tally run --mpi of the stencil on 2+2 ranks, timed
  local t0=$(date +%s.%N)
  on_launch $TALLY run --mpi -o "$1" -- $(mh_launcher openmpi 4 hostA:2,hostB:2) \
    "$WORK/stencil.openmpi" blocking "$2" 64 20 0 1 "$WORK/hand.$1" >"out.$1" 2>"err.$1"
  echo "$?" > "status.$1"
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' > "secs.$1"
}

# 1. another user's agent at hostB's TALLY_AGENT
mkdir -m 700 other && chown nobody other
setpriv --reuid=nobody --regid=nogroup --clear-groups $TALLY agent --foreground --no-archive \
  --socket "$WORK/other/agent.sock" 2>other.log &
other=$!
wait_until 10 test -S other/agent.sock
host_env hostB TALLY_AGENT="$WORK/other/agent.sock"
run4 refused 40
kill "$other"; wait "$other" 2>/dev/null
sed -i '/^TALLY_AGENT=/d' "$HOSTS_DIR/hostB/environment"
check_eq "refused: the run succeeds" "$(cat status.refused)" 0
check_eq "refused: said once for hostB" "$(grep -c 'on hostB: not instrumented' err.refused)" 1
check_contains "refused: names the rank, the host and why" "$(grep 'not instrumented' err.refused)" "tally: rank "
check_eq "refused: ranks 2 and 3 missing" "$(jq -c .mpi.missing_ranks refused.summary)" "[2,3]"
check_eq "refused: the others measured" "$(jq -c '[.mpi.per_rank[].rank]' refused.summary)" "[0,1]"
check_contains "refused: the warning names them" "$(cat err.refused)" "ranks 2-3 of 4 missing"

# 2. hostB's agent killed while the application runs
host_run hostB env -i HOME="$HOSTS_DIR/hostB/home" XDG_RUNTIME_DIR=/run/user/$(id -u) PATH=/usr/bin:/bin $TALLY agent
agent_b=$(mh_agent_pid hostB)
check "killed: hostB's agent runs" test -n "$agent_b"
run4 killed 600 &
runner=$!
wait_until 30 host_run hostB sh -c 'ls /dev/shm/tally-*-launch-*/*.seg 2>/dev/null | grep -q .'
host_run hostB kill -KILL "$agent_b"
wait "$runner"
check_eq "killed: the run succeeds" "$(cat status.killed)" 0
check_eq "killed: ranks 2 and 3 missing" "$(jq -c .mpi.missing_ranks killed.summary)" "[2,3]"
check_contains "killed: the warning says so" "$(jq -r '.mpi.warnings[0]' killed.summary)" "ranks 2-3 of 4 missing: no agent gave them within 2 s"
check_eq "killed: hostA's ranks measured" "$(jq -c '[.mpi.per_rank[] | "\(.rank)@\(.host)"]' killed.summary)" '["0@hostA","1@hostA"]'

# 3. hostB's agent unreachable: its NATS is a port nobody listens on
mh_conf hostB "nats://127.0.0.1:$(nats_free_port)" alpha
run4 unreachable 40
check_eq "unreachable: the run succeeds" "$(cat status.unreachable)" 0
check_eq "unreachable: ranks 2 and 3 missing" "$(jq -c .mpi.missing_ranks unreachable.summary)" "[2,3]"
# the refused run waited its 2 s gather too; this one also waits up to 2 s
# for hostB's agent to find no NATS server before it listens
echo "# seconds: refused $(cat secs.refused), unreachable $(cat secs.unreachable)"
check_cmp "unreachable: the wait is bounded (as the refused run's, + 2 s agent start, + 6 s slack)" \
  "$(cat secs.unreachable)" "<" "$(awk -v r="$(cat secs.refused)" 'BEGIN { print r + 8 }')"
check_contains "unreachable: the warning gives the bound" "$(jq -r '.mpi.warnings[0]' unreachable.summary)" \
  "ranks 2-3 of 4 missing: no agent gave them within 2 s"
check "unreachable: no rank refused (they registered with hostB's agent)" sh -c '! grep -q "not instrumented" err.unreachable'
finish
