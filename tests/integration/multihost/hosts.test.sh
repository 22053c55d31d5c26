#!/usr/bin/env bash
# The simulated hosts themselves (hosts.sh): each has its own hostname, PID
# namespace, /dev/shm and monotonic clock; its remote shell gives a login
# environment only; Open MPI's and MPICH's mpirun place ranks on both hosts
# through it.
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/multihost/hosts.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
hosts_start hostA hostB:1000
check_eq "hostname of hostA" "$(host_run hostA hostname)" hostA
check_eq "hostname through the remote shell" "$($HOSTS_SSH -x -o BatchMode=yes hostB hostname)" hostB
check_eq "own PID namespace (init is the holder)" "$(host_run hostB cat /proc/1/comm)" sleep
host_run hostA sh -c 'echo a > /dev/shm/mark'
check "private /dev/shm" host_run hostB test ! -e /dev/shm/mark
cat > mono.c <<'C'
#include <stdio.h>
#include <time.h>
int main(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); printf("%lld\n", (long long)t.tv_sec); return 0; }
C
cc -o mono mono.c
check_near "hostB's monotonic clock runs 1000 s ahead of hostA's" "$(( $(host_run hostB ./mono) - $(host_run hostA ./mono) ))" 1000 1
export FOO=leaks
env_seen=$($HOSTS_SSH hostB 'env | sort | cut -d= -f1 | tr "\n" " "')
check_eq "login environment only" "$env_seen" "HOME LOGNAME OLDPWD PATH PWD SHELL USER XDG_RUNTIME_DIR "
check_eq "remote status comes back" "$($HOSTS_SSH hostB 'exit 7'; echo $?)" 7
for h in hostA hostB; do host_env $h OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; done
cat > where.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int c, char **v) { MPI_Init(&c, &v); int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); char h[64]; gethostname(h, 64);
  MPI_Barrier(MPI_COMM_WORLD); printf("%d %s\n", r, h); MPI_Finalize(); return 0; }
C
mpicc.openmpi -o where.openmpi where.c && mpicc.mpich -o where.mpich where.c
check_eq "Open MPI: 2 ranks on each host" \
  "$(host_run hostA timeout 60 mpirun.openmpi --mca plm_rsh_agent $HOSTS_SSH -H hostA:2,hostB:2 -np 4 ./where.openmpi | sort | tr '\n' ' ')" \
  "0 hostA 1 hostA 2 hostB 3 hostB "
# Debian 12's MPICH (ch4:ucx) hangs in MPI_Finalize about one run in three
# when ranks talk over TCP, on one host as well (UCX_TLS=tcp,self): an open
# UCX bug, "TCP transport hangs during cleanup" (openucx/ucx#8738). The ranks
# have printed by then, so the placement is checked on their lines alone and
# a run stuck in that finalize is stopped after 20 s.
check_eq "MPICH: 2 ranks on each host" \
  "$(host_run hostA timeout 20 mpirun.mpich -launcher ssh -launcher-exec $HOSTS_SSH -hosts hostA:2,hostB:2 -n 4 ./where.mpich 2>/dev/null | grep '^[0-9] host' | sort | tr '\n' ' ')" \
  "0 hostA 1 hostA 2 hostB 3 hostB "
finish
