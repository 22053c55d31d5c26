/* Fortran wrappers for Open MPI. Open MPI's Fortran bindings (mpif.h and
 * `use mpi`: mpi_send_ and friends in libmpi_mpifh) call PMPI_Send, not
 * MPI_Send, so the C wrappers never see Fortran calls; these interpose the
 * Fortran names and call Open MPI's pmpi_*_ entry points. MPICH's Fortran
 * bindings call the C MPI_ functions, so this file is empty there.
 * Covered: Init, Init_thread, Finalize, Send, Recv, Isend, Irecv, Wait,
 * Waitall, Sendrecv, Barrier, Bcast, Reduce, Allreduce, Alltoall. A Fortran
 * receive counts the bytes asked for (the status is not decoded). */
#include "record.h"

#ifdef OPEN_MPI

typedef MPI_Fint F;

#pragma GCC visibility push(default)

void pmpi_init_(F *ierr);
void pmpi_init_thread_(F *required, F *provided, F *ierr);
void pmpi_finalize_(F *ierr);
void pmpi_send_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr);
void pmpi_recv_(void *buf, F *count, F *type, F *source, F *tag, F *comm, F *status, F *ierr);
void pmpi_isend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *request, F *ierr);
void pmpi_irecv_(void *buf, F *count, F *type, F *source, F *tag, F *comm, F *request, F *ierr);
void pmpi_wait_(F *request, F *status, F *ierr);
void pmpi_waitall_(F *count, F *requests, F *statuses, F *ierr);
void pmpi_sendrecv_(void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount, F *rtype,
                    F *source, F *rtag, F *comm, F *status, F *ierr);
void pmpi_barrier_(F *comm, F *ierr);
void pmpi_bcast_(void *buf, F *count, F *type, F *root, F *comm, F *ierr);
void pmpi_reduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm, F *ierr);
void pmpi_allreduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr);
void pmpi_alltoall_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr);

static uint64_t fbytes(F *type, F *count)
{
    return type_bytes(MPI_Type_f2c(*type), (int)*count);
}

void mpi_init_(F *ierr)
{
    uint64_t t0 = tally__now_ns();
    pmpi_init_(ierr);
    if (*ierr == MPI_SUCCESS)
        record_after_init(t0);
}

void mpi_init_thread_(F *required, F *provided, F *ierr)
{
    uint64_t t0 = tally__now_ns();
    pmpi_init_thread_(required, provided, ierr);
    if (*ierr == MPI_SUCCESS)
        record_after_init(t0);
}

void mpi_finalize_(F *ierr)
{
    uint64_t t0 = tally__now_ns();
    int recording = MPI_RECORDING();
    record_finalize(t0, 0);
    pmpi_finalize_(ierr);
    if (recording)
        record_call(TALLY_MPI_Finalize, t0, tally__now_ns(), 0, CALL_SETUP);
}

#define FWRAP(FN, KIND, call, bytes_expr, link_stmt)                                         \
    do {                                                                                     \
        if (!MPI_RECORDING()) {                                                              \
            call;                                                                            \
            return;                                                                          \
        }                                                                                    \
        uint64_t t0 = tally__now_ns();                                                       \
        call;                                                                                \
        uint64_t t1 = tally__now_ns();                                                       \
        record_call(TALLY_MPI_##FN, t0, t1, (bytes_expr), KIND);                             \
        link_stmt;                                                                           \
    } while (0)

void mpi_send_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
{
    FWRAP(Send, CALL_BLOCKING, pmpi_send_(buf, count, type, dest, tag, comm, ierr), fbytes(type, count),
          record_link(MPI_Comm_f2c(*comm), (int)*dest, fbytes(type, count)));
}

void mpi_recv_(void *buf, F *count, F *type, F *source, F *tag, F *comm, F *status, F *ierr)
{
    FWRAP(Recv, CALL_BLOCKING, pmpi_recv_(buf, count, type, source, tag, comm, status, ierr),
          fbytes(type, count), (void)0);
}

void mpi_isend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *request, F *ierr)
{
    FWRAP(Isend, CALL_NONBLOCKING, pmpi_isend_(buf, count, type, dest, tag, comm, request, ierr),
          fbytes(type, count), record_link(MPI_Comm_f2c(*comm), (int)*dest, fbytes(type, count)));
}

void mpi_irecv_(void *buf, F *count, F *type, F *source, F *tag, F *comm, F *request, F *ierr)
{
    FWRAP(Irecv, CALL_NONBLOCKING, pmpi_irecv_(buf, count, type, source, tag, comm, request, ierr),
          fbytes(type, count), (void)0);
}

void mpi_wait_(F *request, F *status, F *ierr)
{
    FWRAP(Wait, CALL_BLOCKING, pmpi_wait_(request, status, ierr), 0, (void)0);
}

void mpi_waitall_(F *count, F *requests, F *statuses, F *ierr)
{
    FWRAP(Waitall, CALL_BLOCKING, pmpi_waitall_(count, requests, statuses, ierr), 0, (void)0);
}

void mpi_sendrecv_(void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount, F *rtype,
                   F *source, F *rtag, F *comm, F *status, F *ierr)
{
    FWRAP(Sendrecv, CALL_BLOCKING,
          pmpi_sendrecv_(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status, ierr),
          fbytes(stype, scount) + fbytes(rtype, rcount),
          record_link(MPI_Comm_f2c(*comm), (int)*dest, fbytes(stype, scount)));
}

void mpi_barrier_(F *comm, F *ierr)
{
    FWRAP(Barrier, CALL_BLOCKING, pmpi_barrier_(comm, ierr), 0, (void)0);
}

void mpi_bcast_(void *buf, F *count, F *type, F *root, F *comm, F *ierr)
{
    FWRAP(Bcast, CALL_BLOCKING, pmpi_bcast_(buf, count, type, root, comm, ierr),
          root_to_others(MPI_Comm_f2c(*comm), (int)*root, fbytes(type, count)), (void)0);
}

void mpi_reduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm, F *ierr)
{
    FWRAP(Reduce, CALL_BLOCKING, pmpi_reduce_(sbuf, rbuf, count, type, op, root, comm, ierr),
          to_root(MPI_Comm_f2c(*comm), (int)*root, fbytes(type, count)), (void)0);
}

void mpi_allreduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr)
{
    FWRAP(Allreduce, CALL_BLOCKING, pmpi_allreduce_(sbuf, rbuf, count, type, op, comm, ierr),
          to_all_others(MPI_Comm_f2c(*comm), fbytes(type, count)), (void)0);
}

void mpi_alltoall_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr)
{
    FWRAP(Alltoall, CALL_BLOCKING, pmpi_alltoall_(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr),
          to_all_others(MPI_Comm_f2c(*comm), fbytes(stype, scount)), (void)0);
}

#endif
