/* The Fortran MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Abort, whose C
 * arguments are the same in Open MPI's bindings (mpif.h, `use mpi`, `use
 * mpi_f08`) and MPICH's `use mpi_f08`: wrappers_init.c's registration after
 * MPI_Init and ends of the measurement. Included (no guard) by one file per
 * MPI, which first defines ENTRIES(lower, UPPER, PARAMS, ARGS), its macro
 * making the exported names of mpi_LOWER that call f_LOWER (fortran.h). */

ENTRIES(init, INIT, (F *ierr), (ierr))
static void f_init(init_fn *real, F *ierr)
{
    uint64_t t0 = tally__now_ns();
    real(ierr);
    if (*ierr == MPI_SUCCESS)
        record_after_init(TALLY_MPI_Init, t0);
}

ENTRIES(init_thread, INIT_THREAD, (F *required, F *provided, F *ierr), (required, provided, ierr))
static void f_init_thread(init_thread_fn *real, F *required, F *provided, F *ierr)
{
    uint64_t t0 = tally__now_ns();
    real(required, provided, ierr);
    if (*ierr == MPI_SUCCESS)
        record_after_init(TALLY_MPI_Init_thread, t0);
}

ENTRIES(finalize, FINALIZE, (F *ierr), (ierr))
static void f_finalize(finalize_fn *real, F *ierr)
{
    uint64_t t0 = tally__now_ns();
    int recording = record_before_finalize(t0);
    real(ierr);
    record_after_finalize(t0, recording);
}

ENTRIES(abort, ABORT, (F *comm, F *errorcode, F *ierr), (comm, errorcode, ierr))
static void f_abort(abort_fn *real, F *comm, F *errorcode, F *ierr)
{
    record_finalize(tally__now_ns(), 1);
    real(comm, errorcode, ierr);
}
