/* Open MPI's Fortran collectives with a buffer (mpif.h, `use mpi`, `use
 * mpi_f08`), counted by the collective link rule of wrappers_collective.c
 * (its functions, on the converted handles); fortran_openmpi.h makes the
 * names. Barrier: fortran_openmpi_nobuf.c. */
#include "fortran_openmpi.h"

#pragma GCC visibility push(default) /* the Fortran names this library interposes */

#define DONE(FN, links) record_call(TALLY_MPI_##FN, t0, t1, (links), CALL_BLOCKING)
#define FBYTES(type, count) type_bytes(DT(type), *(count))

FORTRAN_WRAPPER(bcast, BCAST, (void *buf, F *count, F *type, F *root, F *comm, F *ierr),
                (buf, count, type, root, comm, ierr), (void)0,
                DONE(Bcast, root_to_others(COMM(comm), *root, FBYTES(type, count))))

FORTRAN_WRAPPER(reduce, REDUCE, (void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm, F *ierr),
                (sbuf, rbuf, count, type, op, root, comm, ierr), (void)0,
                DONE(Reduce, to_root(COMM(comm), *root, FBYTES(type, count))))

FORTRAN_WRAPPER(allreduce, ALLREDUCE, (void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr),
                (sbuf, rbuf, count, type, op, comm, ierr), (void)0,
                DONE(Allreduce, to_all_others(COMM(comm), FBYTES(type, count))))

FORTRAN_WRAPPER(scan, SCAN, (void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr),
                (sbuf, rbuf, count, type, op, comm, ierr), (void)0,
                DONE(Scan, to_higher_ranks(COMM(comm), FBYTES(type, count))))

FORTRAN_WRAPPER(reduce_scatter, REDUCE_SCATTER,
                (void *sbuf, void *rbuf, F *rcounts, F *type, F *op, F *comm, F *ierr),
                (sbuf, rbuf, rcounts, type, op, comm, ierr), (void)0,
                DONE(Reduce_scatter, per_rank_links(COMM(comm), rcounts, DT(type))))

/* The block collectives: (sbuf, scount, stype, rbuf, rcount, rtype[, root], comm). */
#define BLOCK_PARAMS (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr)
#define BLOCK_ARGS (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr)
#define ROOTED_PARAMS \
    (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr)
#define ROOTED_ARGS (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr)

FORTRAN_WRAPPER(gather, GATHER, ROOTED_PARAMS, ROOTED_ARGS, (void)0,
                DONE(Gather, to_root(COMM(comm), *root, FBYTES(stype, scount))))
FORTRAN_WRAPPER(scatter, SCATTER, ROOTED_PARAMS, ROOTED_ARGS, (void)0,
                DONE(Scatter, root_to_others(COMM(comm), *root, FBYTES(stype, scount))))
FORTRAN_WRAPPER(allgather, ALLGATHER, BLOCK_PARAMS, BLOCK_ARGS, (void)0,
                DONE(Allgather, to_all_others(COMM(comm), FBYTES(stype, scount))))
FORTRAN_WRAPPER(alltoall, ALLTOALL, BLOCK_PARAMS, BLOCK_ARGS, (void)0,
                DONE(Alltoall, to_all_others(COMM(comm), FBYTES(stype, scount))))

FORTRAN_WRAPPER(gatherv, GATHERV,
                (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *root, F *comm,
                 F *ierr),
                (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr), (void)0,
                DONE(Gatherv, to_root(COMM(comm), *root, FBYTES(stype, scount))))

FORTRAN_WRAPPER(scatterv, SCATTERV,
                (void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm,
                 F *ierr),
                (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr), (void)0,
                DONE(Scatterv, root_per_rank_links(COMM(comm), *root, scounts, DT(stype))))

FORTRAN_WRAPPER(allgatherv, ALLGATHERV,
                (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *comm, F *ierr),
                (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr), (void)0,
                DONE(Allgatherv, to_all_others(COMM(comm), FBYTES(stype, scount))))

FORTRAN_WRAPPER(alltoallv, ALLTOALLV,
                (void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts, F *rdispls, F *rtype,
                 F *comm, F *ierr),
                (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr), (void)0,
                DONE(Alltoallv, per_rank_links(COMM(comm), scounts, DT(stype))))
