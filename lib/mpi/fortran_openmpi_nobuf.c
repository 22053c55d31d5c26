/* Open MPI's Fortran Probe, Iprobe, Wait and Test families and Barrier
 * (mpif.h, `use mpi`, `use mpi_f08`): fortran_nobuf.h's wrappers under the
 * names fortran_openmpi.h makes. */
#include "fortran_openmpi.h"

#pragma GCC visibility push(default) /* the Fortran names this library interposes */

#define WRAPPER FORTRAN_WRAPPER
#include "fortran_nobuf.h"
