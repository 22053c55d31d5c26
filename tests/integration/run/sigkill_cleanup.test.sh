#!/usr/bin/env bash
# Nothing left behind when tally itself is killed with SIGKILL (it cannot
# clean up then): at level 2 the kernel ends every traced process
# (PTRACE_O_EXITKILL), at levels 1 and 3 (no ptrace) the guardian process
# does, and with --agent at level 1 the agent that follows the tree. The
# run's scratch directory in /dev/shm (level 3: the I/O helper's regions;
# level 2 here with --probes: the segments) is removed by the guardian (at
# level 2 started for that alone): memory no one would give back otherwise.
# The tree has a background child, a foreground child and a grandchild that called setsid
# after a double fork (re-parented to tally); all must be gone, while two
# processes of the same user outside the tree (a plain one and one in its own
# session) must be left alone.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null && [ "$(ps -o stat= -p "$1" | cut -c1)" != Z ]; }
ppid_of() { ps -o ppid= -p "$1" 2>/dev/null | tr -d ' '; }
pids_of() { pgrep -f "^sleep $1\$"; }
none_alive() { for p in "$@"; do alive "$p" && return 1; done; return 0; }
# guardian_of TALLY_PID: the pid of the guardian whose socket (one of its fds) is
# the peer of one of tally's sockets (ss -x: local inode $6, peer inode $8).
guardian_of() {
  local f ino peer g
  for f in /proc/$1/fd/*; do
    ino=$(readlink "$f" 2>/dev/null) || continue
    case $ino in socket:\[*\]) ino=${ino#socket:[}; ino=${ino%]} ;; *) continue ;; esac
    peer=$(ss -xHn | awk -v i="$ino" '$6 == i { print $8; exit }')
    [ -n "$peer" ] || continue
    for g in $(pgrep -x tally-guardian); do
      for gf in /proc/$g/fd/*; do
        [ "$(readlink "$gf" 2>/dev/null)" = "socket:[$peer]" ] && { echo "$g"; return 0; }
      done
    done
  done
  return 1
}

# Bystanders: the same user's processes, not in any tally tree.
sleep 400.$$ &
bystander=$!
setsid sleep 401.$$ </dev/null >/dev/null 2>&1 &
wait_until 10 pgrep -f "^sleep 401.$$\$" >/dev/null
bystander_session=$(pgrep -f "^sleep 401.$$\$")

for level in 1 2 3; do
  bg=41$level.$$ fg=42$level.$$
  extra=""; [ "$level" = 2 ] && extra=--probes
  $TALLY run --level $level $extra --interval 0.1 -o out$level -- \
    sh -c "sleep $bg & $PROGS/escape gc$level 300; sleep $fg" >/dev/null 2>&1 &
  tally_pid=$!
  wait_until 10 pids_of "$fg" >/dev/null
  gc=$(cat gc$level 2>/dev/null)
  pids="$(pids_of "$bg") $(pids_of "$fg") $gc"
  check_eq "level $level: the tree is running (3 processes)" "$(echo $pids | wc -w)" 3
  scratch=$(tr '\0' '\n' < "/proc/$(pids_of "$fg" | head -1)/environ" | sed -n 's/^TALLY_\(IO\|PROBE\)_DIR=//p')
  [ "$level" != 1 ] && check "level $level: the run's scratch directory is there" test -d "$scratch"
  if [ "$level" != 2 ]; then
    # The double-forked grandchild is re-parented to tally; levels 1 and 3
    # (no ptrace) know it once a /proc scan has seen it (every --interval,
    # 0.1 s here): 1 s is ten scans.
    check "level $level: grandchild re-parented to tally" wait_until 10 eval '[ "$(ppid_of $gc)" = $tally_pid ]'
    sleep 1
    guardian=$(guardian_of $tally_pid)
    check "level $level: a guardian watches the run" test -n "$guardian"
  fi
  kill -KILL $tally_pid
  wait $tally_pid 2>/dev/null
  check "level $level: no process of the tree left after SIGKILL to tally" wait_until 10 none_alive $pids
  check "level $level: the grandchild that escaped with setsid is gone" eval "! alive $gc"
  [ "$level" != 1 ] && check "level $level: the run's scratch directory ($scratch) is removed" \
    wait_until 10 eval '[ -n "$scratch" ] && [ ! -e "$scratch" ]'
  check "level $level: bystander child of the same user still alive" alive $bystander
  check "level $level: bystander in its own session still alive" alive "$bystander_session"
  [ "$level" != 2 ] && check "level $level: the guardian exits once done" \
    eval '[ -n "$guardian" ] && wait_until 10 eval "! alive $guardian"'
  kill -KILL $pids 2>/dev/null # what a failed check left
done

# A normal run: the guardian is there while the task runs, and exits with
# tally (the task ends when the test creates 'go').
$TALLY run --level 1 -o normal -- sh -c "while [ ! -e go ]; do sleep 0.05; done" &
tally_pid=$!
wait_until 10 guardian_of $tally_pid >/dev/null
guardian=$(guardian_of $tally_pid)
check "level 1: guardian found for a normal run" test -n "$guardian"
touch go
wait $tally_pid
check_eq "level 1: normal run exits 0" "$?" 0
check "level 1: the guardian exits after a normal run" \
  eval '[ -n "$guardian" ] && wait_until 10 eval "! alive $guardian"'

# Level 1 with --agent: the agent follows the tree and ends it when its
# tally run is killed (no guardian process per run), and removes the run's
# segment directory (--probes here) as the guardian would; when the agent
# goes first, tally run measures the task itself and starts its own guardian.
mkdir -m 700 agentdir
S=$WORK/agentdir/agent.sock
$TALLY agent --foreground --socket "$S" --no-archive 2> agent.err &
agent=$!
wait_until 10 "$TALLY" agent status --socket "$S" >/dev/null 2>&1
for case in run agent; do
  n=${#case} # sleep takes numbers only: 3 (run), 5 (agent)
  bg=43$n.$$ fg=44$n.$$
  rm -f gc$case
  $TALLY run --level 1 --probes --agent="$S" --app guard$case -o out$case -- \
    sh -c "sleep $bg & $PROGS/escape gc$case 300; sleep $fg" >/dev/null 2> run$case.err &
  tally_pid=$!
  wait_until 10 pids_of "$fg" >/dev/null
  gc=$(cat gc$case 2>/dev/null)
  pids="$(pids_of "$bg") $(pids_of "$fg") $gc"
  check_eq "--agent ($case killed first): the tree is running (3 processes)" "$(echo $pids | wc -w)" 3
  scratch=$(tr '\0' '\n' < "/proc/$(pids_of "$fg" | head -1)/environ" | sed -n 's/^TALLY_PROBE_DIR=//p')
  check "--agent ($case killed first): the run's segment directory is there" test -d "$scratch"
  check "--agent: grandchild re-parented to tally" wait_until 10 eval '[ "$(ppid_of $gc)" = $tally_pid ]'
  # the agent's scans (every second) have seen the re-parented grandchild
  sleep 2.5
  if [ $case = run ]; then
    check "--agent: no guardian process: the agent guards the tree" eval '! guardian_of $tally_pid'
  else
    kill -KILL $agent
    wait $agent 2>/dev/null
    check "--agent: the agent killed, tally run says it measures the task itself" \
      wait_until 10 grep -q "the agent went away: tally run measures the task itself" run$case.err
    check "--agent: the agent killed, tally run starts a guardian" wait_until 10 guardian_of $tally_pid
  fi
  kill -KILL $tally_pid
  wait $tally_pid 2>/dev/null
  check "--agent ($case killed first): no process of the tree left after SIGKILL to tally" wait_until 10 none_alive $pids
  check "--agent ($case killed first): the grandchild that escaped with setsid is gone" eval "! alive $gc"
  check "--agent ($case killed first): the run's segment directory ($scratch) is removed" \
    wait_until 10 eval '[ -n "$scratch" ] && [ ! -e "$scratch" ]'
  check "--agent ($case killed first): bystander child of the same user still alive" alive $bystander
  check "--agent ($case killed first): bystander in its own session still alive" alive "$bystander_session"
  kill -KILL $pids 2>/dev/null # what a failed check left
done
check_contains "--agent: the agent's log says it ended the tree of the killed tally run" "$(cat agent.err)" \
  "the tally run of task 1 (guardrun) is gone without ending it: 4 processes of its tree ended"

kill $bystander "$bystander_session" 2>/dev/null
finish
