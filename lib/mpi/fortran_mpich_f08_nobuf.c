/* MPICH's `use mpi_f08` Probe, Iprobe, Wait and Test families and Barrier
 * (mpi_wait_f08_, ...: they call PMPI_ directly): fortran_nobuf.h's wrappers
 * under the names fortran_mpich_f08.h makes. The calls with a buffer reach
 * the C wrappers (fortran_mpich_f08.h). */
#include "fortran_mpich_f08.h"

#pragma GCC visibility push(default) /* the Fortran names this library interposes */

#define WRAPPER MPICH_F08_WRAPPER
#include "fortran_nobuf.h"
