/* Open MPI's Fortran MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort
 * (mpif.h, `use mpi`, `use mpi_f08`): fortran_init.h's bodies under the
 * names fortran_openmpi.h makes. */
#include "fortran_openmpi.h"

#pragma GCC visibility push(default) /* the Fortran names this library interposes */

#define ENTRIES FORTRAN_ENTRIES
#include "fortran_init.h"
