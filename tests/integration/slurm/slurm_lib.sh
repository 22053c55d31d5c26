# Shared by the Slurm integration tests (sourced after lib.sh): a real
# single-node Slurm (munged, slurmctld, slurmd from the Debian packages)
# started as root with everything in $WORK/slurm (SLURM_CONF points there),
# the plugin loaded by $WORK/slurm/plugstack.conf, and the daemons stopped by
# their pids when the test exits. Ports are chosen from the test's pid so
# that two tests can run at once.
ROOT=${TALLY_TEST_ROOT:-$PWD}
SPANK_SO=$ROOT/build/lib/spank_tally.so
SL=$WORK/slurm
export SLURM_CONF=$SL/slurm.conf
# The tasks' agent: the user's default socket under this test's runtime dir
# (the jobs inherit the environment of srun/sbatch).
export XDG_RUNTIME_DIR=$WORK/run XDG_DATA_HOME=$WORK/data
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

slurm_stop() {
  local f pid
  for f in "$SL/slurmd.pid" "$SL/slurmctld.pid" "$SL/munge/pid"; do
    pid=$(cat "$f" 2>/dev/null) || continue
    kill "$pid" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  done
  [ -S "$XDG_RUNTIME_DIR/tally/agent.sock" ] && "$TALLY" agent stop >/dev/null 2>&1
  return 0
}
trap 'slurm_stop; rm -rf "$WORK"' EXIT

# slurm_start [PLUGSTACK ARGS...]: starts the three daemons and waits until
# the node is idle (at most 20 s). Returns non-zero (after printing the
# logs) when Slurm cannot start. plugstack.conf's line is
# $SLURM_PLUGSTACK_LINE when set, else the plugin with tally=$TALLY and ARGS.
slurm_start() {
  local host base
  host=$(hostname -s)
  base=$(( 20000 + ($$ % 2000) * 2 ))
  mkdir -p "$SL/munge" "$SL/state" "$SL/spool" && chmod 700 "$SL/munge"
  head -c 1024 /dev/urandom >"$SL/munge/key" && chmod 600 "$SL/munge/key"
  /usr/sbin/munged --key-file="$SL/munge/key" --socket="$SL/munge/sock" --pid-file="$SL/munge/pid" \
    --log-file="$SL/munge/log" --seed-file="$SL/munge/seed" --force || return 1
  echo "${SLURM_PLUGSTACK_LINE:-optional $SPANK_SO tally=$TALLY $*}" >"$SL/plugstack.conf"
  cat >"$SLURM_CONF" <<EOF
ClusterName=tallytest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$(( base + 1 ))
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool
SlurmctldPidFile=$SL/slurmctld.pid
SlurmdPidFile=$SL/slurmd.pid
SlurmctldLogFile=$SL/slurmctld.log
SlurmdLogFile=$SL/slurmd.log
AuthType=auth/munge
AuthInfo=socket=$SL/munge/sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SlurmdParameters=config_overrides
PlugStackConfig=$SL/plugstack.conf
NodeName=$host CPUs=8 RealMemory=4096 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  /usr/sbin/slurmctld -i && /usr/sbin/slurmd || { cat "$SL"/*.log; return 1; }
  if ! wait_until 20 sh -c 'sinfo -h -o %T 2>/dev/null | grep -q idle'; then
    cat "$SL"/*.log
    return 1
  fi
}
