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
  for f in "$SL/slurmd.pid" "$SL/slurmctld.pid" "$SL/slurmdbd.pid" "$SL/mariadb/pid" "$SL/munge/pid"; do
    pid=$(cat "$f" 2>/dev/null) || continue
    kill "$pid" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  done
  [ -S "$XDG_RUNTIME_DIR/tally/agent.sock" ] && "$TALLY" agent stop >/dev/null 2>&1
  return 0
}
trap 'slurm_stop; rm -rf "$WORK"' EXIT

# slurm_accounting_start: before slurm_start, a real accounting database
# for the cluster: MariaDB (its own data directory, socket and loopback port
# under $SL/mariadb, a user 'slurm' for slurmdbd) and slurmdbd's
# configuration; slurm_start then starts slurmdbd (beside SLURM_CONF, after
# munged), registers the cluster, and has slurmctld store every job's
# accounting there, with jobacct_gather/linux sampling each task every
# second: what sacct reads. Returns non-zero (after printing the log) when
# MariaDB cannot start.
slurm_accounting_start() {
  local host base db=$SL/mariadb
  host=$(hostname -s)
  base=$(( 24000 + ($$ % 2000) * 2 ))
  mkdir -p "$db"
  mariadb-install-db --no-defaults --datadir="$db/data" --user=root \
    --auth-root-authentication-method=socket >"$db/install.log" 2>&1 || { cat "$db/install.log"; return 1; }
  mariadbd --no-defaults --datadir="$db/data" --user=root --socket="$db/sock" --port="$base" \
    --bind-address=127.0.0.1 --skip-name-resolve --pid-file="$db/pid" --log-error="$db/err.log" \
    --innodb-buffer-pool-size=32M --innodb-log-file-size=8M >/dev/null 2>&1 &
  wait_until 30 test -S "$db/sock" || { cat "$db/err.log"; return 1; }
  mariadb --no-defaults -S "$db/sock" -u root -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'tallytest';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" || return 1
  SLURM_DBD_PORT=$(( base + 1 ))
  printf '%s\n' AuthType=auth/munge "AuthInfo=socket=$SL/munge/sock" "DbdHost=$host" "DbdPort=$SLURM_DBD_PORT" \
    SlurmUser=root "PidFile=$SL/slurmdbd.pid" "LogFile=$SL/slurmdbd.log" StorageType=accounting_storage/mysql \
    StorageHost=127.0.0.1 "StoragePort=$base" StorageUser=slurm StoragePass=tallytest StorageLoc=slurm_acct_db \
    >"$SL/slurmdbd.conf"
  chmod 600 "$SL/slurmdbd.conf"
  SLURM_ACCOUNTING_LINES="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$host
AccountingStoragePort=$SLURM_DBD_PORT
AccountingStoragePass=$SL/munge/sock
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1"
}

# slurm_start [PLUGSTACK ARGS...]: starts the three daemons and waits until
# the node is idle (at most 20 s). Returns non-zero (after printing the
# logs) when Slurm cannot start. plugstack.conf's line is
# $SLURM_PLUGSTACK_LINE when set, else the plugin with tally=$TALLY and ARGS.
# With SLURM_SIM_NODES="hostA hostB ..." (simulated hosts of
# multihost/hosts.sh, started before), one slurmd runs inside each host, a
# node of that name at the host's address (the controller stays here), and
# all must be idle; each slurmd's pid file holds its pid in its host, and it
# is stopped with the host.
slurm_start() {
  local host base nodes="" names="" h i=1 addr
  host=$(hostname -s)
  base=$(( 20000 + ($$ % 2000) * 2 ))
  mkdir -p "$SL/munge" "$SL/state" "$SL/spool" && chmod 700 "$SL/munge"
  head -c 1024 /dev/urandom >"$SL/munge/key" && chmod 600 "$SL/munge/key"
  /usr/sbin/munged --key-file="$SL/munge/key" --socket="$SL/munge/sock" --pid-file="$SL/munge/pid" \
    --log-file="$SL/munge/log" --seed-file="$SL/munge/seed" --force || return 1
  echo "${SLURM_PLUGSTACK_LINE:-optional $SPANK_SO tally=$TALLY $*}" >"$SL/plugstack.conf"
  if [ -n "${SLURM_SIM_NODES:-}" ]; then
    for h in $SLURM_SIM_NODES; do
      addr=$(awk -v h="$h" '$2 == h { print $1 }' "$HOSTS_DIR/hosts")
      nodes+="NodeName=$h NodeAddr=$addr Port=$(( base + i )) CPUs=4 RealMemory=2048 State=UNKNOWN"$'\n'
      names+="${names:+,}$h"
      mkdir -p "$SL/spool-$h"
      i=$((i + 1))
    done
    # Slurm's PMIx plugin makes spmix_appdir_UID_JOB.STEP under /tmp on
    # every node, which the simulated nodes share: each has its own /dev/shm
    echo "PMIxCliTmpDirBase=/dev/shm" > "$(dirname "$SLURM_CONF")/mpi.conf"
  else
    nodes="NodeName=$host CPUs=8 RealMemory=4096 State=UNKNOWN"$'\n'
    names=$host
  fi
  cat >"$SLURM_CONF" <<EOF
ClusterName=tallytest
SlurmctldHost=$host${SLURM_SIM_NODES:+(127.0.0.1)}
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$(( base + 1 ))
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool${SLURM_SIM_NODES:+-%n}
SlurmctldPidFile=$SL/slurmctld.pid
SlurmdPidFile=$SL/slurmd${SLURM_SIM_NODES:+-%n}.pid
SlurmctldLogFile=$SL/slurmctld.log
SlurmdLogFile=$SL/slurmd${SLURM_SIM_NODES:+-%n}.log
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
${SLURM_ACCOUNTING_LINES:-JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none}
ReturnToService=2
SlurmdParameters=config_overrides
PlugStackConfig=$SL/plugstack.conf
${nodes}PartitionName=debug Nodes=$names Default=YES MaxTime=INFINITE State=UP
EOF
  if [ -n "${SLURM_ACCOUNTING_LINES:-}" ]; then
    /usr/sbin/slurmdbd || { cat "$SL/slurmdbd.log"; return 1; }
    wait_until 30 bash -c "(exec 3<>/dev/tcp/127.0.0.1/$SLURM_DBD_PORT) 2>/dev/null" || { cat "$SL/slurmdbd.log"; return 1; }
    sacctmgr -i add cluster tallytest >"$SL/sacctmgr.log" 2>&1 || { cat "$SL/sacctmgr.log"; return 1; }
  fi
  /usr/sbin/slurmctld -i || { cat "$SL"/*.log; return 1; }
  if [ -n "${SLURM_SIM_NODES:-}" ]; then
    for h in $SLURM_SIM_NODES; do
      host_run "$h" env SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmd -N "$h" || { cat "$SL"/*.log; return 1; }
    done
  else
    /usr/sbin/slurmd || { cat "$SL"/*.log; return 1; }
  fi
  local want
  want=$(echo "$names" | tr ',' '\n' | wc -l)
  if ! wait_until 20 sh -c "[ \$(sinfo -h -N -o %T 2>/dev/null | grep -c idle) = $want ]"; then
    cat "$SL"/*.log
    return 1
  fi
}
