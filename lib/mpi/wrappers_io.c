/* PMPI wrappers for MPI-IO (tally run --mpi): MPI_File_open, close, sync,
 * set_view, seek, and the read and write families (independent, collective
 * _all, explicit offset _at, non-blocking i*). Each is recorded as its
 * function (calls, time, bytes: count x type size, what was asked, as
 * Darshan's MPIIO module counts) and on its file (record_io.c: Darshan's
 * MPIIO counters per file; an open on a communicator of one rank is
 * independent). MPI-IO time is not communication time
 * (CALL_SETUP: not in comm_ns or wait_ns). The monitoring side merges the
 * files of all ranks by path (src/instrument/mpi_summary.c). Under MPI 4.0 (MPICH) the large-count
 * bindings MPI_File_read_c, ... are recorded as the function they bind. */
#include "record.h"

#pragma GCC visibility push(default) /* the MPI_ names this library interposes */

#define OFF_RETURN(call) \
    if (!MPI_RECORDING()) \
        return call

/* One call of FN on FH: the function's table and the file's counters
 * (COUNT, BYTES_COUNTER, TIME_COUNTER: TALLY_MPIIO_* or -1). */
#define TIMED_IO(FN, FH, BYTES, COUNT, BYTES_COUNTER, TIME_COUNTER, call)                    \
    do {                                                                                     \
        OFF_RETURN(call);                                                                    \
        MPI_File fh_ = (FH);                                                                 \
        uint64_t t0 = tally__now_ns();                                                       \
        int rc = call;                                                                       \
        uint64_t t1 = tally__now_ns(), b = rc == MPI_SUCCESS ? (BYTES) : 0;                  \
        record_call(TALLY_MPI_##FN, t0, t1, b, CALL_SETUP);                                  \
        record_io(fh_, COUNT, BYTES_COUNTER, b, TIME_COUNTER, t1 - t0);                      \
        return rc;                                                                           \
    } while (0)
#define META(FN, FH, COUNT, call) TIMED_IO(FN, FH, 0, COUNT, -1, TALLY_MPIIO_F_META_TIME, call)

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    OFF_RETURN(PMPI_File_open(comm, filename, amode, info, fh));
    uint64_t t0 = tally__now_ns();
    int rc = PMPI_File_open(comm, filename, amode, info, fh);
    uint64_t t1 = tally__now_ns();
    record_call(TALLY_MPI_File_open, t0, t1, 0, CALL_SETUP);
    if (rc == MPI_SUCCESS)
        record_io_open(comm, filename, *fh, t1 - t0);
    return rc;
}

int MPI_File_close(MPI_File *fh)
{
    OFF_RETURN(PMPI_File_close(fh));
    MPI_File was = *fh; /* the close sets it to MPI_FILE_NULL */
    uint64_t t0 = tally__now_ns();
    int rc = PMPI_File_close(fh);
    uint64_t t1 = tally__now_ns();
    record_call(TALLY_MPI_File_close, t0, t1, 0, CALL_SETUP);
    record_io_close(was, t1 - t0);
    return rc;
}

int MPI_File_sync(MPI_File fh) { META(File_sync, fh, TALLY_MPIIO_SYNCS, PMPI_File_sync(fh)); }
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    META(File_seek, fh, -1, PMPI_File_seek(fh, offset, whence));
}
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info)
{
    META(File_set_view, fh, TALLY_MPIIO_VIEWS,
         PMPI_File_set_view(fh, disp, etype, filetype, datarep, info));
}

#define BYTES_OF_READ TALLY_MPIIO_BYTES_READ
#define TIME_OF_READ TALLY_MPIIO_F_READ_TIME
#define BYTES_OF_WRITE TALLY_MPIIO_BYTES_WRITTEN
#define TIME_OF_WRITE TALLY_MPIIO_F_WRITE_TIME

/* Each read or write, for a binding (SUFFIX empty or _c) and its count
 * type; COUNT is the Darshan counter it adds to, DIR READ or WRITE. */
#define IO_RW(FN, SUFFIX, COUNT_T, BUF_T, COUNT, DIR)                                        \
    int MPI_##FN##SUFFIX(MPI_File fh, BUF_T buf, COUNT_T count, MPI_Datatype type,           \
                         MPI_Status *status)                                                 \
    {                                                                                        \
        TIMED_IO(FN, fh, type_bytes(type, count), TALLY_MPIIO_##COUNT, BYTES_OF_##DIR, \
                 TIME_OF_##DIR, PMPI_##FN##SUFFIX(fh, buf, count, type, status)); \
    }
#define IO_RW_AT(FN, SUFFIX, COUNT_T, BUF_T, COUNT, DIR)                                     \
    int MPI_##FN##SUFFIX(MPI_File fh, MPI_Offset offset, BUF_T buf, COUNT_T count,           \
                         MPI_Datatype type, MPI_Status *status)                              \
    {                                                                                        \
        TIMED_IO(FN, fh, type_bytes(type, count), TALLY_MPIIO_##COUNT, BYTES_OF_##DIR, \
                 TIME_OF_##DIR,                                                 \
                 PMPI_##FN##SUFFIX(fh, offset, buf, count, type, status));                   \
    }
#define IO_I(FN, SUFFIX, COUNT_T, BUF_T, COUNT, DIR)                                         \
    int MPI_##FN##SUFFIX(MPI_File fh, BUF_T buf, COUNT_T count, MPI_Datatype type,           \
                         MPI_Request *request)                                               \
    {                                                                                        \
        TIMED_IO(FN, fh, type_bytes(type, count), TALLY_MPIIO_##COUNT, BYTES_OF_##DIR, \
                 TIME_OF_##DIR, PMPI_##FN##SUFFIX(fh, buf, count, type, request)); \
    }
#define IO_I_AT(FN, SUFFIX, COUNT_T, BUF_T, COUNT, DIR)                                      \
    int MPI_##FN##SUFFIX(MPI_File fh, MPI_Offset offset, BUF_T buf, COUNT_T count,           \
                         MPI_Datatype type, MPI_Request *request)                            \
    {                                                                                        \
        TIMED_IO(FN, fh, type_bytes(type, count), TALLY_MPIIO_##COUNT, BYTES_OF_##DIR, \
                 TIME_OF_##DIR,                                                 \
                 PMPI_##FN##SUFFIX(fh, offset, buf, count, type, request));                  \
    }

#define IO_FAMILY(SUFFIX, COUNT_T)                                                           \
    IO_RW(File_read, SUFFIX, COUNT_T, void *, INDEP_READS, READ)                             \
    IO_RW(File_read_all, SUFFIX, COUNT_T, void *, COLL_READS, READ)                          \
    IO_RW_AT(File_read_at, SUFFIX, COUNT_T, void *, INDEP_READS, READ)                       \
    IO_RW_AT(File_read_at_all, SUFFIX, COUNT_T, void *, COLL_READS, READ)                    \
    IO_I(File_iread, SUFFIX, COUNT_T, void *, NB_READS, READ)                                \
    IO_I_AT(File_iread_at, SUFFIX, COUNT_T, void *, NB_READS, READ)                          \
    IO_RW(File_write, SUFFIX, COUNT_T, const void *, INDEP_WRITES, WRITE)                  \
    IO_RW(File_write_all, SUFFIX, COUNT_T, const void *, COLL_WRITES, WRITE)               \
    IO_RW_AT(File_write_at, SUFFIX, COUNT_T, const void *, INDEP_WRITES, WRITE)            \
    IO_RW_AT(File_write_at_all, SUFFIX, COUNT_T, const void *, COLL_WRITES, WRITE)         \
    IO_I(File_iwrite, SUFFIX, COUNT_T, const void *, NB_WRITES, WRITE)                     \
    IO_I_AT(File_iwrite_at, SUFFIX, COUNT_T, const void *, NB_WRITES, WRITE)

IO_FAMILY(, int)
#if MPI_VERSION >= 4
IO_FAMILY(_c, MPI_Count)
#endif
