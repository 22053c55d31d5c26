# Shared by the multi-host tests (sourced after lib.sh): simulated hosts
# (hosts.sh) on one site's nats-server (nats-sites.sh), each with the
# user's agent.conf naming it, and the MPI fixtures (mpi_lib.sh).
#   multihost_start HOST[:SKEW]...  hosts on site alpha; the first is the launch host
#   on_launch CMD...                CMD on the launch host with its HOME and runtime dir
#   mh_launcher FLAVOUR NP HOSTSPEC the mpirun words (HOSTSPEC "hostA:2,hostB:2"),
#                                   through the hosts' remote shell
. "$TALLY_TEST_ROOT/tests/integration/multihost/hosts.sh"
. "$TALLY_TEST_ROOT/tests/integration/live/nats-sites.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
MH_USER=$(id -un)

# mh_conf HOST URL SITE: HOST's ~/.config/tally/agent.conf
mh_conf() {
  mkdir -p "$HOSTS_DIR/$1/home/.config/tally"
  printf 'nats = %s\ncreds = %s\nsite = %s\n' "$2" "$WORK/creds/$MH_USER" "$3" \
    > "$HOSTS_DIR/$1/home/.config/tally/agent.conf"
}

multihost_start() {
  nats_sites_start "$MH_USER" || return 1
  hosts_start "$@" || return 1
  MH_LAUNCH=${1%%:*}
  local spec
  for spec in "$@"; do
    host_env "${spec%%:*}" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    mh_conf "${spec%%:*}" "$NATS_ALPHA" alpha
  done
}

on_launch() {
  HOME=$HOSTS_DIR/$MH_LAUNCH/home XDG_RUNTIME_DIR=/run/user/$(id -u) host_run "$MH_LAUNCH" "$@"
}

mh_launcher() {
  if [ "$1" = openmpi ]; then
    echo "mpirun.openmpi --mca plm_rsh_agent $HOSTS_SSH -H $3 -np $2"
  else
    echo "mpirun.mpich -launcher ssh -launcher-exec $HOSTS_SSH -hosts $3 -n $2"
  fi
}

# mh_agent_pid HOST: the pid (on HOST) of the agent at HOST's default socket
mh_agent_pid() { host_run "$1" cat "/run/user/$(id -u)/tally/agent.lock" 2>/dev/null; }
