/* PMPI wrappers for point-to-point calls and the Wait/Test families, and
 * their accounting (account_*, which the Fortran wrappers share). Off: one
 * load and a branch, then the PMPI call. On: two clock reads around it, the
 * call's bytes, and for sends one message on the link to the destination
 * (links are counted on the sending side only). */
#include "record.h"

#pragma GCC visibility push(default) /* the MPI_ names this library interposes */

#define OFF_RETURN(call) \
    if (!MPI_RECORDING()) \
        return call

#if MPI_VERSION >= 4 /* counts beyond INT_MAX */
typedef MPI_Count status_count;
#define GET_COUNT PMPI_Get_count_c
#else
typedef int status_count;
#define GET_COUNT PMPI_Get_count
#endif

/* The bytes a receive into TYPE got: whole TYPEs, or when the message ended
 * inside one (a short message into a derived type, such as the strided type
 * MPICH's mpi_f08 makes for an array section), the message's bytes. */
static uint64_t received_bytes(const MPI_Status *status, MPI_Datatype type)
{
    status_count count = 0;
    if (GET_COUNT(status, type, &count) != MPI_SUCCESS)
        return 0;
    if (count != MPI_UNDEFINED)
        return type_bytes(type, count);
    if (GET_COUNT(status, MPI_BYTE, &count) != MPI_SUCCESS || count == MPI_UNDEFINED || count < 0)
        return 0;
    return (uint64_t)count;
}

void account_send(enum tally_mpi_function fn, enum call_kind kind, uint64_t t0, uint64_t t1,
                  MPI_Datatype type, MPI_Count count, MPI_Comm comm, int dest)
{
    uint64_t bytes = type_bytes(type, count);
    record_call(fn, t0, t1, bytes, kind);
    record_link(comm, dest, bytes);
}

void account_recv(uint64_t t0, uint64_t t1, int rc, const MPI_Status *status, MPI_Datatype type)
{
    record_call(TALLY_MPI_Recv, t0, t1, rc == MPI_SUCCESS ? received_bytes(status, type) : 0, CALL_BLOCKING);
}

void account_sendrecv(uint64_t t0, uint64_t t1, int rc, MPI_Datatype stype, MPI_Count scount, int dest,
                      const MPI_Status *status, MPI_Datatype rtype, int source, MPI_Comm comm)
{
    uint64_t sent = dest == MPI_PROC_NULL ? 0 : type_bytes(stype, scount);
    uint64_t got = (rc == MPI_SUCCESS && source != MPI_PROC_NULL) ? received_bytes(status, rtype) : 0;
    record_call(TALLY_MPI_Sendrecv, t0, t1, sent + got, CALL_BLOCKING);
    record_link(comm, dest, sent);
}

void account_sendrecv_replace(uint64_t t0, uint64_t t1, MPI_Datatype type, MPI_Count count, int dest,
                              int source, MPI_Comm comm)
{
    uint64_t bytes = type_bytes(type, count);
    uint64_t sent = dest == MPI_PROC_NULL ? 0 : bytes, got = source == MPI_PROC_NULL ? 0 : bytes;
    record_call(TALLY_MPI_Sendrecv_replace, t0, t1, sent + got, CALL_BLOCKING);
    record_link(comm, dest, sent);
}

/* The calls with a count (the Send family, Recv, Irecv, Sendrecv(_replace))
 * are written once as macros and made for MPI_NAME (int counts) and, under
 * MPI 4.0, for its large-count binding MPI_NAME_c (MPI_Count counts),
 * recorded as MPI_NAME: MPICH's `use mpi_f08` calls MPI_Send_c, ... for
 * INTEGER(KIND=MPI_COUNT_KIND) counts. */

#define SEND_WRAPPER(FN, NAME, KIND, PARAMS, ARGS)                                           \
    int MPI_##NAME PARAMS                                                                    \
    {                                                                                        \
        OFF_RETURN(PMPI_##NAME ARGS);                                                        \
        uint64_t t0 = tally__now_ns();                                                       \
        int rc = PMPI_##NAME ARGS;                                                           \
        account_send(TALLY_MPI_##FN, KIND, t0, tally__now_ns(), type, count, comm, dest);    \
        return rc;                                                                           \
    }
#define SEND_PARAMS(COUNT_T) (const void *buf, COUNT_T count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
#define ISEND_PARAMS(COUNT_T)                                                                \
    (const void *buf, COUNT_T count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *request)
#define SEND_ARGS (buf, count, type, dest, tag, comm)
#define ISEND_ARGS (buf, count, type, dest, tag, comm, request)

#define SENDS(SUFFIX, COUNT_T)                                                               \
    SEND_WRAPPER(Send, Send##SUFFIX, CALL_BLOCKING, SEND_PARAMS(COUNT_T), SEND_ARGS)         \
    SEND_WRAPPER(Ssend, Ssend##SUFFIX, CALL_BLOCKING, SEND_PARAMS(COUNT_T), SEND_ARGS)       \
    SEND_WRAPPER(Bsend, Bsend##SUFFIX, CALL_BLOCKING, SEND_PARAMS(COUNT_T), SEND_ARGS)       \
    SEND_WRAPPER(Rsend, Rsend##SUFFIX, CALL_BLOCKING, SEND_PARAMS(COUNT_T), SEND_ARGS)       \
    SEND_WRAPPER(Isend, Isend##SUFFIX, CALL_NONBLOCKING, ISEND_PARAMS(COUNT_T), ISEND_ARGS)  \
    SEND_WRAPPER(Issend, Issend##SUFFIX, CALL_NONBLOCKING, ISEND_PARAMS(COUNT_T), ISEND_ARGS)

/* A receive's bytes are read from its status: ours when the program passed
 * MPI_STATUS_IGNORE. */
#define RECV_WRAPPER(NAME, COUNT_T)                                                          \
    int MPI_##NAME(void *buf, COUNT_T count, MPI_Datatype type, int source, int tag, MPI_Comm comm, \
                   MPI_Status *status)                                                       \
    {                                                                                        \
        OFF_RETURN(PMPI_##NAME(buf, count, type, source, tag, comm, status));                \
        MPI_Status own;                                                                      \
        MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;                        \
        uint64_t t0 = tally__now_ns();                                                       \
        int rc = PMPI_##NAME(buf, count, type, source, tag, comm, st);                       \
        account_recv(t0, tally__now_ns(), rc, st, type);                                     \
        return rc;                                                                           \
    }

/* Bytes of a posted receive: the buffer's size (the actual size is known
 * only to the Wait/Test that completes it). */
#define IRECV_WRAPPER(NAME, COUNT_T)                                                         \
    int MPI_##NAME(void *buf, COUNT_T count, MPI_Datatype type, int source, int tag, MPI_Comm comm, \
                   MPI_Request *request)                                                     \
    {                                                                                        \
        OFF_RETURN(PMPI_##NAME(buf, count, type, source, tag, comm, request));               \
        uint64_t t0 = tally__now_ns();                                                       \
        int rc = PMPI_##NAME(buf, count, type, source, tag, comm, request);                  \
        record_call(TALLY_MPI_Irecv, t0, tally__now_ns(), type_bytes(type, count), CALL_NONBLOCKING); \
        return rc;                                                                           \
    }

#define SENDRECV_WRAPPER(NAME, COUNT_T)                                                      \
    int MPI_##NAME(const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, int dest, int sendtag, \
                   void *recvbuf, COUNT_T recvcount, MPI_Datatype recvtype, int source, int recvtag, \
                   MPI_Comm comm, MPI_Status *status)                                        \
    {                                                                                        \
        OFF_RETURN(PMPI_##NAME(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, \
                               recvtype, source, recvtag, comm, status));                   \
        MPI_Status own;                                                                      \
        MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;                        \
        uint64_t t0 = tally__now_ns();                                                       \
        int rc = PMPI_##NAME(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, \
                             recvtype, source, recvtag, comm, st);                           \
        account_sendrecv(t0, tally__now_ns(), rc, sendtype, sendcount, dest, st, recvtype, source, comm); \
        return rc;                                                                           \
    }

#define SENDRECV_REPLACE_WRAPPER(NAME, COUNT_T)                                              \
    int MPI_##NAME(void *buf, COUNT_T count, MPI_Datatype type, int dest, int sendtag, int source, \
                   int recvtag, MPI_Comm comm, MPI_Status *status)                           \
    {                                                                                        \
        OFF_RETURN(PMPI_##NAME(buf, count, type, dest, sendtag, source, recvtag, comm, status)); \
        uint64_t t0 = tally__now_ns();                                                       \
        int rc = PMPI_##NAME(buf, count, type, dest, sendtag, source, recvtag, comm, status); \
        account_sendrecv_replace(t0, tally__now_ns(), type, count, dest, source, comm);      \
        return rc;                                                                           \
    }

SENDS(, int)
RECV_WRAPPER(Recv, int)
IRECV_WRAPPER(Irecv, int)
SENDRECV_WRAPPER(Sendrecv, int)
SENDRECV_REPLACE_WRAPPER(Sendrecv_replace, int)

#if MPI_VERSION >= 4
SENDS(_c, MPI_Count)
RECV_WRAPPER(Recv_c, MPI_Count)
IRECV_WRAPPER(Irecv_c, MPI_Count)
SENDRECV_WRAPPER(Sendrecv_c, MPI_Count)
SENDRECV_REPLACE_WRAPPER(Sendrecv_replace_c, MPI_Count)
#endif

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    OFF_RETURN(PMPI_Probe(source, tag, comm, status));
    uint64_t t0 = tally__now_ns();
    int rc = PMPI_Probe(source, tag, comm, status);
    record_call(TALLY_MPI_Probe, t0, tally__now_ns(), 0, CALL_BLOCKING);
    return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    OFF_RETURN(PMPI_Iprobe(source, tag, comm, flag, status));
    uint64_t t0 = tally__now_ns();
    int rc = PMPI_Iprobe(source, tag, comm, flag, status);
    record_call(TALLY_MPI_Iprobe, t0, tally__now_ns(), 0, CALL_NONBLOCKING);
    return rc;
}

/* The Wait family blocks (its time is waiting time); the Test family does not. */
#define TIMED(FN, KIND, call)                                                                \
    do {                                                                                     \
        OFF_RETURN(call);                                                                    \
        uint64_t t0 = tally__now_ns();                                                       \
        int rc = call;                                                                       \
        record_call(TALLY_MPI_##FN, t0, tally__now_ns(), 0, KIND);                           \
        return rc;                                                                           \
    } while (0)

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    TIMED(Wait, CALL_BLOCKING, PMPI_Wait(request, status));
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    TIMED(Waitall, CALL_BLOCKING, PMPI_Waitall(count, requests, statuses));
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    TIMED(Waitany, CALL_BLOCKING, PMPI_Waitany(count, requests, index, status));
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    TIMED(Waitsome, CALL_BLOCKING, PMPI_Waitsome(incount, requests, outcount, indices, statuses));
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    TIMED(Test, CALL_NONBLOCKING, PMPI_Test(request, flag, status));
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    TIMED(Testall, CALL_NONBLOCKING, PMPI_Testall(count, requests, flag, statuses));
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    TIMED(Testany, CALL_NONBLOCKING, PMPI_Testany(count, requests, index, flag, status));
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    TIMED(Testsome, CALL_NONBLOCKING, PMPI_Testsome(incount, requests, outcount, indices, statuses));
}
