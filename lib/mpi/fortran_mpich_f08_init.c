/* MPICH's `use mpi_f08` MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort
 * (mpi_init_f08_, ...: they call PMPI_ directly): fortran_init.h's bodies
 * under the names fortran_mpich_f08.h makes. */
#include "fortran_mpich_f08.h"

#pragma GCC visibility push(default) /* the Fortran names this library interposes */

#define ENTRIES MPICH_F08_ENTRIES
#include "fortran_init.h"
