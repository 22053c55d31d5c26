#!/usr/bin/env bash
# MPI-IO under tally run --mpi (libtally-mpi's wrappers_io.c), with Open MPI
# and MPICH: tests/fixtures/mpi/mpiio.c makes known MPI_File_* calls of known
# sizes on every rank (collective and independent opens, write_at,
# write_at_all, sync, read_at, read_at_all, set_view, seek, iread; rank 0
# also write and iwrite on a file of its own), and the summary's functions
# and Darshan-named totals (mpi.mpiio) must be exactly those.
# make check: runs beside other tests
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
MiB=1048576
for flavour in openmpi mpich; do
  build $flavour mpiio || { not_ok "build mpiio with $flavour"; continue; }
  for np in 2 3; do
    p="io.$flavour.$np"
    mkdir -p "$p.d"
    $TALLY run --mpi -o "$p" -- $(launcher $flavour $np) "$WORK/mpiio.$flavour" "$p.d" >/dev/null 2>"$p.err"
    check_eq "$flavour, $np ranks: ran" "$?" 0
    check_eq "$flavour, $np ranks: the shared file's size (N MiB + N x 16 KiB)" \
      "$(stat -c %s "$p.d/shared.dat")" $((np * MiB + np * 16384))
    fn() { jq -c "[.mpi.functions[\"MPI_File_$1\"] | .calls, .bytes[0]]" "$p.summary"; }
    check_eq "$flavour, $np: MPI_File_open: N + 1 calls" "$(fn open)" "[$((np + 1)),0]"
    check_eq "$flavour, $np: MPI_File_write_at: N x 1 MiB" "$(fn write_at)" "[$np,$((np * MiB))]"
    check_eq "$flavour, $np: MPI_File_write_at_all: N x 4096 ints" "$(fn write_at_all)" "[$np,$((np * 16384))]"
    check_eq "$flavour, $np: MPI_File_read_at" "$(fn read_at)" "[$np,$((np * MiB))]"
    check_eq "$flavour, $np: MPI_File_read_at_all" "$(fn read_at_all)" "[$np,$((np * 16384))]"
    check_eq "$flavour, $np: MPI_File_iread: N x 1000 bytes" "$(fn iread)" "[$np,$((np * 1000))]"
    check_eq "$flavour, $np: MPI_File_write (rank 0: 100 bytes)" "$(fn write)" "[1,100]"
    check_eq "$flavour, $np: MPI_File_iwrite (rank 0: 50 bytes)" "$(fn iwrite)" "[1,50]"
    check_eq "$flavour, $np: close, sync, set_view, seek" "$(fn close) $(fn sync) $(fn set_view) $(fn seek)" \
      "[$((np + 1)),0] [$np,0] [$np,0] [$np,0]"
    check_eq "$flavour, $np: Darshan's counts (opens indep/coll, reads and writes indep/coll/nb, syncs, views)" \
      "$(jq -c '.mpi.mpiio | [.MPIIO_INDEP_OPENS, .MPIIO_COLL_OPENS, .MPIIO_INDEP_READS, .MPIIO_COLL_READS, .MPIIO_NB_READS, .MPIIO_INDEP_WRITES, .MPIIO_COLL_WRITES, .MPIIO_NB_WRITES, .MPIIO_SYNCS, .MPIIO_VIEWS]' "$p.summary")" \
      "[1,$np,$np,$np,$np,$((np + 1)),$np,1,$np,$np]"
    check_eq "$flavour, $np: MPIIO_BYTES_WRITTEN and MPIIO_BYTES_READ" \
      "$(jq -c '.mpi.mpiio | [.MPIIO_BYTES_WRITTEN, .MPIIO_BYTES_READ]' "$p.summary")" \
      "[$((np * MiB + np * 16384 + 150)),$((np * MiB + np * 16384 + np * 1000))]"
    check_eq "$flavour, $np: every open split independent/collective by file, none past the bound" \
      "$(jq -c '.mpi.mpiio | [.MPIIO_INDEP_OPENS + .MPIIO_COLL_OPENS, .opens_past_bound, (.files | length)]' "$p.summary")" "[$((np + 1)),0,2]"
    file() { jq -c --arg p "$PWD/$p.d/$1" ".mpi.mpiio.files[] | select(.path == \$p) | [$2]" "$p.summary"; }
    check_eq "$flavour, $np: shared.dat (the relative name made absolute): ranks, opens indep/coll" \
      "$(file shared.dat '.ranks, .MPIIO_INDEP_OPENS, .MPIIO_COLL_OPENS')" "[$np,0,$np]"
    check_eq "$flavour, $np: shared.dat: reads indep/coll/nb, writes indep/coll/nb, syncs, views" \
      "$(file shared.dat '.MPIIO_INDEP_READS, .MPIIO_COLL_READS, .MPIIO_NB_READS, .MPIIO_INDEP_WRITES, .MPIIO_COLL_WRITES, .MPIIO_NB_WRITES, .MPIIO_SYNCS, .MPIIO_VIEWS')" \
      "[$np,$np,$np,$np,$np,0,$np,$np]"
    check_eq "$flavour, $np: shared.dat: bytes written and read" \
      "$(file shared.dat '.MPIIO_BYTES_WRITTEN, .MPIIO_BYTES_READ')" "[$((np * MiB + np * 16384)),$((np * MiB + np * 16384 + np * 1000))]"
    check_eq "$flavour, $np: rank0.dat: 1 rank, 1 independent open, 1 write + 1 iwrite, 150 bytes" \
      "$(file rank0.dat '.ranks, .MPIIO_INDEP_OPENS, .MPIIO_COLL_OPENS, .MPIIO_INDEP_WRITES, .MPIIO_NB_WRITES, .MPIIO_BYTES_WRITTEN, .MPIIO_BYTES_READ')" \
      "[1,1,0,1,1,150,0]"
    check_eq "$flavour, $np: files by bytes moved" "$(jq -r '.mpi.mpiio.files[0].path' "$p.summary")" "$PWD/$p.d/shared.dat"
    check_eq "$flavour, $np: read, write and meta times are > 0" \
      "$(jq -c '.mpi.mpiio | [.MPIIO_F_READ_TIME, .MPIIO_F_WRITE_TIME, .MPIIO_F_META_TIME] | map(. > 0)' "$p.summary")" "[true,true,true]"
    check_eq "$flavour, $np: MPI-IO time is not communication time (comm ratio unchanged by it)" \
      "$(jq '[.mpi.per_rank[] | (.comm_time[0] <= .span[0])] | all' "$p.summary")" true
  done
done
# the bound: rank 0 opens 70 more files; it keeps 64 files (shared.dat,
# rank0.dat and 62 extra ones), the 8 other opens are counted past the bound,
# and the totals from the functions stay exact
mkdir -p bound.d
$TALLY run --mpi -o bound -- $(launcher openmpi 2) "$WORK/mpiio.openmpi" bound.d 70 >/dev/null 2>&1
check_eq "past the bound: files kept, opens past it, indep opens kept, MPI_File_open calls, bytes written" \
  "$(jq -c '.mpi | [(.mpiio.files | length), .mpiio.opens_past_bound, .mpiio.MPIIO_INDEP_OPENS, .functions.MPI_File_open.calls, .mpiio.MPIIO_BYTES_WRITTEN]' bound.summary)" \
  "[64,8,63,73,$((2 * MiB + 2 * 16384 + 150 + 70))]"

# --level 3 with --mpi: PREFIX.files.json has the MPIIO_ counters beside the
# POSIX_ ones of the same files, merged by path, and each rank's own on its
# process's entry (with its rank), as the summary's mpi.mpiio.files has them
mkdir -p l3.d
$TALLY run --level 3 --mpi -o l3 -- $(launcher openmpi 2) "$WORK/mpiio.openmpi" l3.d >/dev/null 2>l3.err
check_eq "--level 3 --mpi: ran" "$?" 0
f3() { jq -c --arg p "$PWD/l3.d/$1" ".files[] | select(.path == \$p) | [$2]" l3.files.json; }
check_eq "  ... shared.dat: MPIIO bytes written and read, collective opens, beside POSIX's bytes" \
  "$(f3 shared.dat '.MPIIO_BYTES_WRITTEN, .MPIIO_BYTES_READ, .MPIIO_COLL_OPENS, .POSIX_BYTES_WRITTEN >= .MPIIO_BYTES_WRITTEN')" \
  "[$((2 * MiB + 2 * 16384)),$((2 * MiB + 2 * 16384 + 2000)),2,true]"
check_eq "  ... the same as the summary's mpi.mpiio.files" \
  "$(f3 shared.dat '.MPIIO_BYTES_WRITTEN, .MPIIO_INDEP_READS, .MPIIO_SYNCS')" \
  "$(jq -c --arg p "$PWD/l3.d/shared.dat" '.mpi.mpiio.files[] | select(.path == $p) | [.MPIIO_BYTES_WRITTEN, .MPIIO_INDEP_READS, .MPIIO_SYNCS]' l3.summary)"
check_eq "  ... each rank's own counters on its process (pid of mpi.per_rank, rank, bytes written)" \
  "$(jq -r --arg p "$PWD/l3.d/shared.dat" '.files[] | select(.path == $p) | .processes[] | select(.MPIIO_BYTES_WRITTEN) | "\(.pid),\(.rank),\(.MPIIO_BYTES_WRITTEN)"' l3.files.json | sort)" \
  "$(jq -r '.mpi.per_rank[] | "\(.pid),\(.rank),'$((MiB + 16384))'"' l3.summary | sort)"
check_eq "  ... rank0.dat: rank 0's 150 bytes through MPI-IO, on rank 0 alone" \
  "$(f3 rank0.dat '.MPIIO_BYTES_WRITTEN, (.processes | map(select(.MPIIO_BYTES_WRITTEN)) | map(.rank))')" "[150,[0]]"

# a program without MPI-IO has no mpiio object
build openmpi alltoall && $TALLY run --mpi -o noio -- $(launcher openmpi 2) "$WORK/alltoall.openmpi" >/dev/null 2>&1
check_eq "no MPI-IO calls: no mpiio object" "$(jq '.mpi | has("mpiio")' noio.summary)" false
finish
