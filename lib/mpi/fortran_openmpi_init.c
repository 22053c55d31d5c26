/* Open MPI's Fortran MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort
 * (mpif.h, `use mpi`, `use mpi_f08`): the same registration and ends of the
 * measurement as wrappers_init.c; fortran_openmpi.h makes the names. */
#include "fortran_openmpi.h"

#ifdef OPEN_MPI /* mpi.h says which MPI */

#pragma GCC visibility push(default) /* the Fortran names this library interposes */

FORTRAN_ENTRIES(init, INIT, (F *ierr), (ierr))
static void f_init(init_fn *real, F *ierr)
{
    uint64_t t0 = tally__now_ns();
    real(ierr);
    if (*ierr == MPI_SUCCESS)
        record_after_init(t0);
}

FORTRAN_ENTRIES(init_thread, INIT_THREAD, (F *required, F *provided, F *ierr), (required, provided, ierr))
static void f_init_thread(init_thread_fn *real, F *required, F *provided, F *ierr)
{
    uint64_t t0 = tally__now_ns();
    real(required, provided, ierr);
    if (*ierr == MPI_SUCCESS)
        record_after_init(t0);
}

FORTRAN_ENTRIES(finalize, FINALIZE, (F *ierr), (ierr))
static void f_finalize(finalize_fn *real, F *ierr)
{
    uint64_t t0 = tally__now_ns();
    int recording = record_before_finalize(t0);
    real(ierr);
    record_after_finalize(t0, recording);
}

FORTRAN_ENTRIES(abort, ABORT, (F *comm, F *errorcode, F *ierr), (comm, errorcode, ierr))
static void f_abort(abort_fn *real, F *comm, F *errorcode, F *ierr)
{
    record_finalize(tally__now_ns(), 1);
    real(comm, errorcode, ierr);
}

#endif
