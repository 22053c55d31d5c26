/* Setting a command up for instrumentation: which MPI it runs with (so the
 * right libtally-mpi is preloaded: Open MPI and MPICH differ in ABI) and
 * where tally's libraries are. */
#ifndef TALLY_INSTRUMENT_LAUNCH_H
#define TALLY_INSTRUMENT_LAUNCH_H

#include <stddef.h>

enum mpi_flavour { MPI_FLAVOUR_UNKNOWN, MPI_FLAVOUR_OPENMPI, MPI_FLAVOUR_MPICH };

/* From the launcher's name (mpirun.openmpi, orterun, mpiexec.hydra...,
 * through symbolic links such as Debian's alternatives), else from the
 * libraries an executable among the words needs (libmpi.so.40, libmpich.so). */
enum mpi_flavour mpi_flavour_of_command(char *const *argv);
/* "openmpi", "mpich" (the suffix of libtally-mpi-SUFFIX.so). */
const char *mpi_flavour_name(enum mpi_flavour f);
/* The path of tally's library NAME: $TALLY_LIBDIR/NAME, else beside the
 * tally binary (build/lib/ or PREFIX/lib/tally/). Returns -1 when absent. */
int instrument_library_path(const char *name, char *out, size_t len);
/* PATH's lookup of WORD (a command name) into out; -1 when not found. */
int command_path(const char *word, char *out, size_t len);

#endif
