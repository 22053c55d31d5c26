/* PMPI wrappers for MPI-IO (tally run --mpi): MPI_File_open, close, sync,
 * set_view, seek, and the read and write families (independent, collective
 * _all, explicit offset _at, non-blocking i*). Each is recorded as its
 * function (calls, time, bytes: count x type size, what was asked, as
 * Darshan's MPIIO module counts); an open on a communicator of one rank is
 * also counted as independent. MPI-IO time is not communication time
 * (CALL_SETUP: not in comm_ns or wait_ns). The monitoring side names the
 * totals as Darshan does (MPIIO_INDEP_OPENS, MPIIO_COLL_WRITES, ...:
 * src/instrument/mpi_summary.c). Under MPI 4.0 (MPICH) the large-count
 * bindings MPI_File_read_c, ... are recorded as the function they bind. */
#include "record.h"

#pragma GCC visibility push(default) /* the MPI_ names this library interposes */

#define OFF_RETURN(call) \
    if (!MPI_RECORDING()) \
        return call

#define TIMED_IO(FN, BYTES, call)                                                            \
    do {                                                                                     \
        OFF_RETURN(call);                                                                    \
        uint64_t t0 = tally__now_ns();                                                       \
        int rc = call;                                                                       \
        record_call(TALLY_MPI_##FN, t0, tally__now_ns(), rc == MPI_SUCCESS ? (BYTES) : 0,    \
                    CALL_SETUP);                                                             \
        return rc;                                                                           \
    } while (0)

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    OFF_RETURN(PMPI_File_open(comm, filename, amode, info, fh));
    uint64_t t0 = tally__now_ns();
    int rc = PMPI_File_open(comm, filename, amode, info, fh);
    record_call(TALLY_MPI_File_open, t0, tally__now_ns(), 0, CALL_SETUP);
    record_io_open(comm);
    return rc;
}

int MPI_File_close(MPI_File *fh) { TIMED_IO(File_close, 0, PMPI_File_close(fh)); }
int MPI_File_sync(MPI_File fh) { TIMED_IO(File_sync, 0, PMPI_File_sync(fh)); }
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    TIMED_IO(File_seek, 0, PMPI_File_seek(fh, offset, whence));
}
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info)
{
    TIMED_IO(File_set_view, 0, PMPI_File_set_view(fh, disp, etype, filetype, datarep, info));
}

/* Each read or write, for a binding (SUFFIX empty or _c) and its count type. */
#define IO_RW(FN, SUFFIX, COUNT_T, BUF_T)                                                    \
    int MPI_##FN##SUFFIX(MPI_File fh, BUF_T buf, COUNT_T count, MPI_Datatype type,           \
                         MPI_Status *status)                                                 \
    {                                                                                        \
        TIMED_IO(FN, type_bytes(type, count), PMPI_##FN##SUFFIX(fh, buf, count, type, status)); \
    }
#define IO_RW_AT(FN, SUFFIX, COUNT_T, BUF_T)                                                 \
    int MPI_##FN##SUFFIX(MPI_File fh, MPI_Offset offset, BUF_T buf, COUNT_T count,           \
                         MPI_Datatype type, MPI_Status *status)                              \
    {                                                                                        \
        TIMED_IO(FN, type_bytes(type, count),                                                \
                 PMPI_##FN##SUFFIX(fh, offset, buf, count, type, status));                   \
    }
#define IO_I(FN, SUFFIX, COUNT_T, BUF_T)                                                     \
    int MPI_##FN##SUFFIX(MPI_File fh, BUF_T buf, COUNT_T count, MPI_Datatype type,           \
                         MPI_Request *request)                                               \
    {                                                                                        \
        TIMED_IO(FN, type_bytes(type, count), PMPI_##FN##SUFFIX(fh, buf, count, type, request)); \
    }
#define IO_I_AT(FN, SUFFIX, COUNT_T, BUF_T)                                                  \
    int MPI_##FN##SUFFIX(MPI_File fh, MPI_Offset offset, BUF_T buf, COUNT_T count,           \
                         MPI_Datatype type, MPI_Request *request)                            \
    {                                                                                        \
        TIMED_IO(FN, type_bytes(type, count),                                                \
                 PMPI_##FN##SUFFIX(fh, offset, buf, count, type, request));                  \
    }

#define IO_FAMILY(SUFFIX, COUNT_T)                                                           \
    IO_RW(File_read, SUFFIX, COUNT_T, void *)                                                \
    IO_RW(File_read_all, SUFFIX, COUNT_T, void *)                                            \
    IO_RW_AT(File_read_at, SUFFIX, COUNT_T, void *)                                          \
    IO_RW_AT(File_read_at_all, SUFFIX, COUNT_T, void *)                                      \
    IO_I(File_iread, SUFFIX, COUNT_T, void *)                                                \
    IO_I_AT(File_iread_at, SUFFIX, COUNT_T, void *)                                          \
    IO_RW(File_write, SUFFIX, COUNT_T, const void *)                                         \
    IO_RW(File_write_all, SUFFIX, COUNT_T, const void *)                                     \
    IO_RW_AT(File_write_at, SUFFIX, COUNT_T, const void *)                                   \
    IO_RW_AT(File_write_at_all, SUFFIX, COUNT_T, const void *)                               \
    IO_I(File_iwrite, SUFFIX, COUNT_T, const void *)                                         \
    IO_I_AT(File_iwrite_at, SUFFIX, COUNT_T, const void *)

IO_FAMILY(, int)
#if MPI_VERSION >= 4
IO_FAMILY(_c, MPI_Count)
#endif
