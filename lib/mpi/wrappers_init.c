/* MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort: the process registers
 * its segment with its rank after MPI_Init (a launcher that loads this
 * library never calls it, so it never registers), and the measurement ends
 * at MPI_Finalize's entry. */
#include "record.h"

#pragma GCC visibility push(default) /* the MPI_ names this library interposes */

void record_after_init(enum tally_mpi_function fn, uint64_t t0)
{
    record_register();
    if (MPI_RECORDING())
        record_call(fn, t0, tally__now_ns(), 0, CALL_SETUP);
}

int MPI_Init(int *argc, char ***argv)
{
    uint64_t t0 = tally__now_ns();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        record_after_init(TALLY_MPI_Init, t0);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t0 = tally__now_ns();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        record_after_init(TALLY_MPI_Init_thread, t0);
    return rc;
}

int record_before_finalize(uint64_t t0)
{
    int recording = MPI_RECORDING();
    record_finalize(t0, 0);
    return recording;
}

void record_after_finalize(uint64_t t0, int recording)
{
    if (recording)
        record_call(TALLY_MPI_Finalize, t0, tally__now_ns(), 0, CALL_SETUP);
}

int MPI_Finalize(void)
{
    uint64_t t0 = tally__now_ns();
    int recording = record_before_finalize(t0);
    int rc = PMPI_Finalize();
    record_after_finalize(t0, recording);
    return rc;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    record_finalize(tally__now_ns(), 1);
    return PMPI_Abort(comm, errorcode);
}
