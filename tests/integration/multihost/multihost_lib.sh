# Shared by the multi-host tests (sourced after lib.sh): simulated hosts
# (hosts.sh) on one site's nats-server (nats-sites.sh), each with the
# user's agent.conf naming it, and the MPI fixtures (mpi_lib.sh).
#   multihost_start HOST[:SKEW]...  hosts on site alpha; the first is the launch host
#   on_launch CMD...                CMD on the launch host with its HOME and runtime dir
#   mh_launcher FLAVOUR NP HOSTSPEC the mpirun words (HOSTSPEC "hostA:2,hostB:2"),
#                                   through the hosts' remote shell
#   mh_run_app FLAVOUR SUMMARY CMD... on_launch CMD, again when MPICH hung (below)
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
    echo "timeout -s TERM 30 mpirun.mpich -launcher ssh -launcher-exec $HOSTS_SSH -hosts $3 -n $2"
  fi
}

# mh_run_app FLAVOUR SUMMARY COMMAND...: runs COMMAND (a tally run whose
# mpirun is MPICH's or Open MPI's) on the launch host and returns its status.
# Debian 12's MPICH (ch4:ucx) hangs in MPI_Finalize in about one run in three
# when its ranks talk over TCP, as ranks on two hosts do (on one host too,
# with UCX_TLS=tcp,self): an open UCX bug, "TCP transport hangs during
# cleanup" (openucx/ucx#8738). mh_launcher gives MPICH's mpirun 30 s (a run takes 2-5 s here); a run
# stopped then although every rank had registered and none was missing
# (SUMMARY says so) is that hang, and is started again, at most 4 times,
# each said as a TAP comment. Any other failure is returned as it is.
mh_run_app() {
  local flavour=$1 summary=$2; shift 2
  local attempt st
  for attempt in 1 2 3 4; do
    rm -f "$summary"
    on_launch "$@"
    st=$?
    [ "$flavour" = mpich ] && [ "$st" = 124 ] && [ -s "$summary" ] &&
      [ "$(jq -c '[.mpi.ranks > 0, (.mpi.missing_ranks | length) == 0]' "$summary" 2>/dev/null)" = "[true,true]" ] || return "$st"
    echo "# attempt $attempt: MPICH hung in MPI_Finalize after every rank ran (openucx/ucx#8738); starting it again"
  done
  return "$st"
}

# mh_agent_pid HOST: the pid (on HOST) of the agent at HOST's default socket
mh_agent_pid() { host_run "$1" cat "/run/user/$(id -u)/tally/agent.lock" 2>/dev/null; }
