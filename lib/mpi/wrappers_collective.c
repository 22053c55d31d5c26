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
 * The function's bytes are the sum of the bytes this rank put on links.
 * Each wrapper is written once for MPI_NAME (int counts) and, under MPI 4.0,
 * once more for the large-count binding MPI_NAME_c (MPI_Count counts,
 * MPI_Aint displacements), recorded as MPI_NAME: MPICH's `use mpi_f08`
 * calls MPI_Allreduce_c, ... for INTEGER(KIND=MPI_COUNT_KIND) counts. */
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

uint64_t to_higher_ranks(MPI_Comm comm, uint64_t bytes)
{
    int me, size;
    comm_position(comm, &me, &size);
    for (int r = me + 1; r < size; r++)
        record_link(comm, r, bytes);
    return bytes * (uint64_t)(size - me - 1);
}

/* COUNTS[r] (or COUNTS_C[r], the large-count bindings') elements of TYPE to
 * every other rank r of COMM. */
static uint64_t counted_links(MPI_Comm comm, const int *counts, const MPI_Count *counts_c, MPI_Datatype type)
{
    int me, size;
    comm_position(comm, &me, &size);
    uint64_t total = 0;
    for (int r = 0; r < size; r++)
        if (r != me) {
            uint64_t b = type_bytes(type, counts ? counts[r] : counts_c[r]);
            record_link(comm, r, b);
            total += b;
        }
    return total;
}

/* The same from ROOT only. */
static uint64_t root_counted_links(MPI_Comm comm, int root, const int *counts, const MPI_Count *counts_c,
                                   MPI_Datatype type)
{
    int me, size;
    comm_position(comm, &me, &size);
    return me == root ? counted_links(comm, counts, counts_c, type) : 0;
}

uint64_t per_rank_links(MPI_Comm comm, const int counts[], MPI_Datatype type)
{
    return counted_links(comm, counts, NULL, type);
}

uint64_t root_per_rank_links(MPI_Comm comm, int root, const int counts[], MPI_Datatype type)
{
    return root_counted_links(comm, root, counts, NULL, type);
}

#if MPI_VERSION >= 4
uint64_t per_rank_links_c(MPI_Comm comm, const MPI_Count counts[], MPI_Datatype type)
{
    return counted_links(comm, NULL, counts, type);
}

uint64_t root_per_rank_links_c(MPI_Comm comm, int root, const MPI_Count counts[], MPI_Datatype type)
{
    return root_counted_links(comm, root, NULL, counts, type);
}
#endif

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

int MPI_Barrier(MPI_Comm comm)
{
    COLLECTIVE(Barrier, PMPI_Barrier(comm), 0);
}

/* MPI_Bcast##S ... with COUNT_T counts and DISPL_T displacements (S empty:
 * int and int; S _c: MPI_Count and MPI_Aint). */
#define COLLECTIVES(S, COUNT_T, DISPL_T)                                                     \
    int MPI_Bcast##S(void *buf, COUNT_T count, MPI_Datatype type, int root, MPI_Comm comm)  \
    {                                                                                        \
        COLLECTIVE(Bcast, PMPI_Bcast##S(buf, count, type, root, comm),                       \
                   root_to_others(comm, root, type_bytes(type, count)));                     \
    }                                                                                        \
                                                                                             \
    int MPI_Reduce##S(const void *sendbuf, void *recvbuf, COUNT_T count, MPI_Datatype type, MPI_Op op, \
                      int root, MPI_Comm comm)                                               \
    {                                                                                        \
        COLLECTIVE(Reduce, PMPI_Reduce##S(sendbuf, recvbuf, count, type, op, root, comm),    \
                   to_root(comm, root, type_bytes(type, count)));                            \
    }                                                                                        \
                                                                                             \
    int MPI_Allreduce##S(const void *sendbuf, void *recvbuf, COUNT_T count, MPI_Datatype type, MPI_Op op, \
                         MPI_Comm comm)                                                      \
    {                                                                                        \
        COLLECTIVE(Allreduce, PMPI_Allreduce##S(sendbuf, recvbuf, count, type, op, comm),    \
                   to_all_others(comm, type_bytes(type, count)));                            \
    }                                                                                        \
                                                                                             \
    int MPI_Gather##S(const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, void *recvbuf, \
                      COUNT_T recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)     \
    {                                                                                        \
        COLLECTIVE(Gather,                                                                   \
                   PMPI_Gather##S(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), \
                   to_root(comm, root, type_bytes(sendtype, sendcount)));                    \
    }                                                                                        \
                                                                                             \
    int MPI_Gatherv##S(const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, void *recvbuf, \
                       const COUNT_T recvcounts[], const DISPL_T displs[], MPI_Datatype recvtype, \
                       int root, MPI_Comm comm)                                              \
    {                                                                                        \
        COLLECTIVE(Gatherv,                                                                  \
                   PMPI_Gatherv##S(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, \
                                   root, comm),                                              \
                   to_root(comm, root, type_bytes(sendtype, sendcount)));                    \
    }                                                                                        \
                                                                                             \
    int MPI_Scatter##S(const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, void *recvbuf, \
                       COUNT_T recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)    \
    {                                                                                        \
        COLLECTIVE(Scatter,                                                                  \
                   PMPI_Scatter##S(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), \
                   root_to_others(comm, root, type_bytes(sendtype, sendcount)));             \
    }                                                                                        \
                                                                                             \
    int MPI_Scatterv##S(const void *sendbuf, const COUNT_T sendcounts[], const DISPL_T displs[], \
                        MPI_Datatype sendtype, void *recvbuf, COUNT_T recvcount, MPI_Datatype recvtype, \
                        int root, MPI_Comm comm)                                             \
    {                                                                                        \
        COLLECTIVE(Scatterv,                                                                 \
                   PMPI_Scatterv##S(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, \
                                    root, comm),                                             \
                   root_per_rank_links##S(comm, root, sendcounts, sendtype));                \
    }                                                                                        \
                                                                                             \
    int MPI_Allgather##S(const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, void *recvbuf, \
                         COUNT_T recvcount, MPI_Datatype recvtype, MPI_Comm comm)            \
    {                                                                                        \
        COLLECTIVE(Allgather,                                                                \
                   PMPI_Allgather##S(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), \
                   to_all_others(comm, type_bytes(sendtype, sendcount)));                    \
    }                                                                                        \
                                                                                             \
    int MPI_Allgatherv##S(const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, void *recvbuf, \
                          const COUNT_T recvcounts[], const DISPL_T displs[], MPI_Datatype recvtype, \
                          MPI_Comm comm)                                                     \
    {                                                                                        \
        COLLECTIVE(Allgatherv,                                                               \
                   PMPI_Allgatherv##S(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, \
                                      comm),                                                 \
                   to_all_others(comm, type_bytes(sendtype, sendcount)));                    \
    }                                                                                        \
                                                                                             \
    int MPI_Alltoall##S(const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, void *recvbuf, \
                        COUNT_T recvcount, MPI_Datatype recvtype, MPI_Comm comm)             \
    {                                                                                        \
        COLLECTIVE(Alltoall,                                                                 \
                   PMPI_Alltoall##S(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), \
                   to_all_others(comm, type_bytes(sendtype, sendcount)));                    \
    }                                                                                        \
                                                                                             \
    int MPI_Alltoallv##S(const void *sendbuf, const COUNT_T sendcounts[], const DISPL_T sdispls[], \
                         MPI_Datatype sendtype, void *recvbuf, const COUNT_T recvcounts[],   \
                         const DISPL_T rdispls[], MPI_Datatype recvtype, MPI_Comm comm)      \
    {                                                                                        \
        COLLECTIVE(Alltoallv,                                                                \
                   PMPI_Alltoallv##S(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, \
                                     recvtype, comm),                                        \
                   per_rank_links##S(comm, sendcounts, sendtype));                           \
    }                                                                                        \
                                                                                             \
    int MPI_Reduce_scatter##S(const void *sendbuf, void *recvbuf, const COUNT_T recvcounts[], \
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm)                   \
    {                                                                                        \
        COLLECTIVE(Reduce_scatter, PMPI_Reduce_scatter##S(sendbuf, recvbuf, recvcounts, type, op, comm), \
                   per_rank_links##S(comm, recvcounts, type));                               \
    }                                                                                        \
                                                                                             \
    int MPI_Scan##S(const void *sendbuf, void *recvbuf, COUNT_T count, MPI_Datatype type, MPI_Op op, \
                    MPI_Comm comm)                                                           \
    {                                                                                        \
        COLLECTIVE(Scan, PMPI_Scan##S(sendbuf, recvbuf, count, type, op, comm),              \
                   to_higher_ranks(comm, type_bytes(type, count)));                          \
    }

COLLECTIVES(, int, int)
#if MPI_VERSION >= 4
COLLECTIVES(_c, MPI_Count, MPI_Aint)
#endif
