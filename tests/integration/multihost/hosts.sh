# Simulated hosts for the multi-host tests (sourced after lib.sh). Each host
# is a set of namespaces held open by one process: its own hostname (UTS),
# its own PID namespace and /proc, its own System V IPC, a private /dev/shm
# and /run/user (tmpfs in its own mount namespace), its own CLOCK_MONOTONIC (a time namespace, offset by the
# skew the test asks for: the clocks of real hosts are unrelated) and an
# /etc/hosts that gives every simulated host its own loopback address. The
# network and the file system are shared, as on a cluster with a shared home.
#
# A host is entered:
#   - by mpirun's remote-shell agent, $HOSTS_SSH (Open MPI: --mca plm_rsh_agent
#     $HOSTS_SSH; Hydra: -launcher ssh -launcher-exec $HOSTS_SSH). It runs the
#     command as ssh would, through an "sshd" in the test's namespaces
#     (remote_shell: a process in one host's PID namespace cannot enter a
#     sibling's), with a login environment only: HOME, PATH, USER, LOGNAME,
#     SHELL, XDG_RUNTIME_DIR, plus the lines of $HOSTS_DIR/NAME/environment
#     (as ssh's ~/.ssh/environment);
#   - by the test, host_run NAME CMD... (the test's own environment).
# Each host's HOME is $HOSTS_DIR/NAME/home (so ~/.config/tally/agent.conf is
# per host; Hydra passes the launch host's HOME on to its ranks, as it would
# a shared home) and its XDG_RUNTIME_DIR is /run/user/UID, a tmpfs of its
# own as on a real host (so is the agent's default socket).
#
#   hosts_start NAME[:SKEW_S]...  starts the hosts (SKEW_S: seconds added to
#                                 the host's CLOCK_MONOTONIC)
#   host_run NAME CMD...          runs CMD on host NAME
#   host_env NAME VAR=VALUE...    adds to the host's login environment
#   host_stop NAME                kills every process of the host
# Everything is stopped when the test exits (before the EXIT trap set earlier).

HOSTS_DIR=$WORK/hosts
HOSTS_SSH=$HOSTS_DIR/ssh
declare -A _host_pid=()
_hosts_sshd=
_hosts_holders=()

_hosts_write_scripts() {
  cat > "$HOSTS_DIR/enter" <<ENTER
#!/bin/bash
# enter HOST COMMAND: COMMAND on HOST with a login environment (run by remote_shell)
dir=$HOSTS_DIR/\$1
[ -f "\$dir/pid" ] || { echo "ssh: Could not resolve hostname \$1: Name or service not known" >&2; exit 255; }
env=(HOME=\$dir/home PATH=/usr/local/bin:/usr/bin:/bin USER=\$(id -un) LOGNAME=\$(id -un)
     SHELL=/bin/sh XDG_RUNTIME_DIR=/run/user/\$(id -u))
if [ -f "\$dir/environment" ]; then
  while IFS= read -r line; do [ -n "\$line" ] && env+=("\$line"); done < "\$dir/environment"
fi
cd /
exec nsenter -t "\$(cat "\$dir/pid")" -u -i -p -m -T -- env -i "\${env[@]}" /bin/sh -c "cd; \$2"
ENTER
  cat > "$HOSTS_SSH" <<SSH
#!/bin/bash
# ssh for the simulated hosts: ssh's options are skipped, the rest is HOST COMMAND...
while [ \$# -gt 0 ]; do
  case \$1 in
    -[bcDEeFIiJLlmOopQRSWw]) shift 2;;
    -*) shift;;
    *) break;;
  esac
done
host=\$1; shift
exec $PROGS/remote_shell connect $HOSTS_DIR/sshd.sock "\$host" "\$*"
SSH
  chmod 755 "$HOSTS_DIR/enter" "$HOSTS_SSH"
}

hosts_start() {
  mkdir -p "$HOSTS_DIR"
  local spec name skew i=1
  { echo "127.0.0.1 localhost"
    for spec in "$@"; do echo "127.0.10.$i ${spec%%:*}"; i=$((i + 1)); done; } > "$HOSTS_DIR/hosts"
  _hosts_write_scripts
  if [ -z "$_hosts_sshd" ]; then
    "$PROGS/remote_shell" serve "$HOSTS_DIR/sshd.sock" "$HOSTS_DIR/enter" 2> "$HOSTS_DIR/sshd.log" &
    _hosts_sshd=$!
  fi
  for spec in "$@"; do
    name=${spec%%:*}; skew=0
    [ "$name" != "$spec" ] && skew=${spec#*:}
    local dir=$HOSTS_DIR/$name
    mkdir -p "$dir/home" /run/user
    unshare --uts --ipc --pid --fork --mount-proc --time --monotonic "$skew" \
      /bin/sh -c "hostname $name && mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
                  mount --bind $HOSTS_DIR/hosts /etc/hosts &&
                  mount -t tmpfs -o mode=755 tmpfs /run/user && mkdir -m 700 /run/user/$(id -u) &&
                  : > $dir/ready && exec sleep 1000000" \
      > "$dir/holder.log" 2>&1 &
    local outer=$! inner=
    _hosts_holders+=("$outer")
    for _ in $(seq 100); do [ -f "$dir/ready" ] && break; sleep 0.05; done
    inner=$(cat /proc/$outer/task/$outer/children 2>/dev/null)
    inner=${inner%% *}
    if [ ! -f "$dir/ready" ] || [ -z "$inner" ]; then
      echo "# host $name did not start: $(cat "$dir/holder.log")" >&2
      return 1
    fi
    echo "$inner" > "$dir/pid"
    _host_pid[$name]=$inner
  done
  for _ in $(seq 100); do [ -S "$HOSTS_DIR/sshd.sock" ] && break; sleep 0.05; done
  local previous
  previous=$(trap -p EXIT | sed "s/^trap -- '//; s/' EXIT\$//")
  trap "hosts_stop_all; $previous" EXIT
}

host_run() {
  local name=$1; shift
  nsenter -t "${_host_pid[$name]}" -u -i -p -m -T --wd="$PWD" -- "$@"
}

host_env() {
  local name=$1; shift
  printf '%s\n' "$@" >> "$HOSTS_DIR/$name/environment"
}

host_stop() {
  local pid=${_host_pid[$1]:-}
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null # pid 1 of its namespace: all of its processes go
  rm -f "$HOSTS_DIR/$1/pid"
  unset "_host_pid[$1]"
}

hosts_stop_all() {
  local name
  for name in "${!_host_pid[@]}"; do host_stop "$name"; done
  [ -n "$_hosts_sshd" ] && kill "$_hosts_sshd" 2>/dev/null
  local p
  for p in "${_hosts_holders[@]}" $_hosts_sshd; do wait "$p" 2>/dev/null; done
  _hosts_sshd= _hosts_holders=()
}
