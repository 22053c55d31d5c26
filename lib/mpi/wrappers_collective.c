/* PMPI wrappers for collectives, and the link rule (docs/instrumentation.md):
 * a collective is counted as the logical data movement its definition
 * describes, not the algorithm the library picks. Each rank records what it
 * contributes, as messages on links from itself:
 *   Bcast, Scatter(v)      root → every other rank (its block)
 *   Gather(v), Reduce      every non-root → root (its block)
 *   Allgather(v), Allreduce, Alltoall(v), Reduce_scatter
 *                          every rank → every other rank (its block for that rank)
 *   Scan                   rank i → every rank j > i
 *   Barrier                no bytes, no link
 * The function's bytes are the sum of the bytes this rank put on links. */
#include "record.h"

#pragma GCC visibility push(default) /* the MPI_ names this library interposes */

#define OFF_RETURN(call) \
    if (!MPI_RECORDING()) \
        return call

/* BYTES to every other rank of COMM; returns the total. */
uint64_t to_all_others(MPI_Comm comm, uint64_t bytes)
{
    int me, size;
    comm_position(comm, &me, &size);
    for (int r = 0; r < size; r++)
        if (r != me)
            record_link(comm, r, bytes);
    return bytes * (uint64_t)(size > 0 ? size - 1 : 0);
}

#define COLLECTIVE(FN, call, links_expr)                                                     \
    do {                                                                                     \
        OFF_RETURN(call);                                                                    \
        uint64_t t0 = tally__now_ns();                                                       \
        int rc = call;                                                                       \
        uint64_t t1 = tally__now_ns();                                                       \
        uint64_t bytes = (links_expr);                                                       \
        record_call(TALLY_MPI_##FN, t0, t1, bytes, CALL_BLOCKING);                           \
        return rc;                                                                           \
    } while (0)

uint64_t root_to_others(MPI_Comm comm, int root, uint64_t bytes)
{
    int me, size;
    comm_position(comm, &me, &size);
    return me == root ? to_all_others(comm, bytes) : 0;
}

uint64_t to_root(MPI_Comm comm, int root, uint64_t bytes)
{
    int me, size;
    comm_position(comm, &me, &size);
    if (me == root)
        return 0;
    record_link(comm, root, bytes);
    return bytes;
}

int MPI_Barrier(MPI_Comm comm)
{
    COLLECTIVE(Barrier, PMPI_Barrier(comm), 0);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    COLLECTIVE(Bcast, PMPI_Bcast(buf, count, type, root, comm),
               root_to_others(comm, root, type_bytes(type, count)));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    COLLECTIVE(Reduce, PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm),
               to_root(comm, root, type_bytes(type, count)));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    COLLECTIVE(Allreduce, PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm),
               to_all_others(comm, type_bytes(type, count)));
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    COLLECTIVE(Gather,
               PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
               to_root(comm, root, type_bytes(sendtype, sendcount)));
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    COLLECTIVE(Gatherv,
               PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            root, comm),
               to_root(comm, root, type_bytes(sendtype, sendcount)));
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    COLLECTIVE(Scatter,
               PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
               root_to_others(comm, root, type_bytes(sendtype, sendcount)));
}

uint64_t root_per_rank_links(MPI_Comm comm, int root, const int counts[], MPI_Datatype type)
{
    int me, size;
    comm_position(comm, &me, &size);
    return me == root ? per_rank_links(comm, counts, type) : 0;
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    COLLECTIVE(Scatterv,
               PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                             root, comm),
               root_per_rank_links(comm, root, sendcounts, sendtype));
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    COLLECTIVE(Allgather,
               PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
               to_all_others(comm, type_bytes(sendtype, sendcount)));
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    COLLECTIVE(Allgatherv,
               PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                               comm),
               to_all_others(comm, type_bytes(sendtype, sendcount)));
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    COLLECTIVE(Alltoall,
               PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
               to_all_others(comm, type_bytes(sendtype, sendcount)));
}

uint64_t per_rank_links(MPI_Comm comm, const int counts[], MPI_Datatype type)
{
    int me, size;
    comm_position(comm, &me, &size);
    uint64_t total = 0;
    for (int r = 0; r < size; r++)
        if (r != me) {
            uint64_t b = type_bytes(type, counts[r]);
            record_link(comm, r, b);
            total += b;
        }
    return total;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    COLLECTIVE(Alltoallv,
               PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, comm),
               per_rank_links(comm, sendcounts, sendtype));
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    COLLECTIVE(Reduce_scatter, PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm),
               per_rank_links(comm, recvcounts, type));
}

uint64_t to_higher_ranks(MPI_Comm comm, uint64_t bytes)
{
    int me, size;
    comm_position(comm, &me, &size);
    for (int r = me + 1; r < size; r++)
        record_link(comm, r, bytes);
    return bytes * (uint64_t)(size - me - 1);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm)
{
    COLLECTIVE(Scan, PMPI_Scan(sendbuf, recvbuf, count, type, op, comm),
               to_higher_ranks(comm, type_bytes(type, count)));
}
