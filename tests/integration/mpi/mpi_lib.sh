# Shared by the MPI integration tests (sourced after lib.sh): builds the
# fixtures of tests/fixtures/mpi with Open MPI's and MPICH's compilers into
# $WORK, and runs them under tally as root, oversubscribed on any core count.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
ROOT=${TALLY_TEST_ROOT:-$PWD}
FIX=$ROOT/tests/fixtures/mpi
PROBE_FLAGS="-I$ROOT/include -L$ROOT/build/lib -ltally-probe -Wl,-rpath,$ROOT/build/lib"

# build FLAVOUR NAME [FLAGS...]: $WORK/NAME.FLAVOUR from FIX/NAME.c (or .f90)
build() {
  local flavour=$1 name=$2; shift 2
  if [ -f "$FIX/$name.f90" ]; then
    mpif90.$flavour -O2 -o "$WORK/$name.$flavour" "$FIX/$name.f90" "$@" $PROBE_FLAGS
  else
    mpicc.$flavour -std=gnu11 -O2 -Wall -Wno-stringop-overflow -o "$WORK/$name.$flavour" "$FIX/$name.c" "$@" $PROBE_FLAGS
  fi
}

# launcher FLAVOUR NP: the mpirun words for FLAVOUR with NP ranks
launcher() {
  if [ "$1" = openmpi ]; then echo "mpirun.openmpi --oversubscribe -np $2"; else echo "mpirun.mpich -np $2"; fi
}

# expected_stencil_links NP ITERATIONS HALO: "from to bytes messages" lines,
# sorted, for the 5-point stencil on MPI_Dims_create's px x py grid
expected_stencil_links() {
  awk -v np="$1" -v it="$2" -v halo="$3" 'BEGIN {
    px = (np == 4) ? 2 : (np == 8) ? 4 : (np == 16) ? 4 : np; py = np / px;
    for (r = 0; r < np; r++) {
      cx = r % px; cy = int(r / px);
      if (cx > 0) print r, r - 1, it * halo * 8, it;
      if (cx < px - 1) print r, r + 1, it * halo * 8, it;
      if (cy > 0) print r, r - px, it * halo * 8, it;
      if (cy < py - 1) print r, r + px, it * halo * 8, it;
    } }' | sort -n -k1,1 -k2,2
}

# summary_links FILE: the summary's links as sorted "from to bytes messages" lines
summary_links() {
  jq -r '.mpi.links[] | "\(.from) \(.to) \(.bytes) \(.messages)"' "$1" | sort -n -k1,1 -k2,2
}

# hand_fraction PREFIX FIELD_TOTAL FIELD_COMM: sum(comm)/sum(total) over the ranks' hand files
hand_fraction() {
  cat "$1".* | awk -v t="$2" -v c="$3" '{ for (i = 1; i < NF; i++) { if ($i == t) T += $(i+1); if ($i == c) C += $(i+1) } }
    END { if (T > 0) printf "%.6f\n", C / T }'
}
