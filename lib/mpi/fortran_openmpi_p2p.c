/* Open MPI's Fortran point-to-point calls with a buffer (mpif.h, `use mpi`,
 * `use mpi_f08`), recorded as their C wrappers record them (wrappers_p2p.c's
 * accounting; fortran_openmpi.h makes the names). Probe, Iprobe and the
 * Wait/Test families: fortran_openmpi_nobuf.c. */
#include "fortran_openmpi.h"

#pragma GCC visibility push(default) /* the Fortran names this library interposes */

#define SEND_PARAMS (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
#define SEND_ARGS (buf, count, type, dest, tag, comm, ierr)
#define ISEND_PARAMS (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *request, F *ierr)
#define ISEND_ARGS (buf, count, type, dest, tag, comm, request, ierr)
#define SENT(FN, KIND) account_send(TALLY_MPI_##FN, KIND, t0, t1, DT(type), *count, COMM(comm), *dest)

FORTRAN_WRAPPER(send, SEND, SEND_PARAMS, SEND_ARGS, (void)0, SENT(Send, CALL_BLOCKING))
FORTRAN_WRAPPER(ssend, SSEND, SEND_PARAMS, SEND_ARGS, (void)0, SENT(Ssend, CALL_BLOCKING))
FORTRAN_WRAPPER(bsend, BSEND, SEND_PARAMS, SEND_ARGS, (void)0, SENT(Bsend, CALL_BLOCKING))
FORTRAN_WRAPPER(rsend, RSEND, SEND_PARAMS, SEND_ARGS, (void)0, SENT(Rsend, CALL_BLOCKING))
FORTRAN_WRAPPER(isend, ISEND, ISEND_PARAMS, ISEND_ARGS, (void)0, SENT(Isend, CALL_NONBLOCKING))
FORTRAN_WRAPPER(issend, ISSEND, ISEND_PARAMS, ISEND_ARGS, (void)0, SENT(Issend, CALL_NONBLOCKING))

FORTRAN_WRAPPER(recv, RECV, (void *buf, F *count, F *type, F *source, F *tag, F *comm, F *status, F *ierr),
                (buf, count, type, source, tag, comm, status, ierr),
                F own[F_STATUS_LEN]; status = fortran_status(status, own),
                MPI_Status c; account_recv(t0, t1, *ierr, c_status(status, &c), DT(type)))

/* Bytes of a posted receive: the buffer's size, as in C. */
FORTRAN_WRAPPER(irecv, IRECV, ISEND_PARAMS, ISEND_ARGS, (void)0,
                record_call(TALLY_MPI_Irecv, t0, t1, type_bytes(DT(type), *count), CALL_NONBLOCKING))

FORTRAN_WRAPPER(sendrecv, SENDRECV,
                (void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount, F *rtype,
                 F *source, F *rtag, F *comm, F *status, F *ierr),
                (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status, ierr),
                F own[F_STATUS_LEN]; status = fortran_status(status, own),
                MPI_Status c; account_sendrecv(t0, t1, *ierr, DT(stype), *scount, *dest, c_status(status, &c),
                                               DT(rtype), *source, COMM(comm)))

FORTRAN_WRAPPER(sendrecv_replace, SENDRECV_REPLACE,
                (void *buf, F *count, F *type, F *dest, F *stag, F *source, F *rtag, F *comm, F *status,
                 F *ierr),
                (buf, count, type, dest, stag, source, rtag, comm, status, ierr), (void)0,
                account_sendrecv_replace(t0, t1, DT(type), *count, *dest, *source, COMM(comm)))
