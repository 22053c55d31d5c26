/* The Fortran calls without a buffer: Probe, Iprobe, the Wait and Test
 * families and Barrier, whose C arguments are the same in Open MPI's
 * bindings (mpif.h, `use mpi`, `use mpi_f08`) and MPICH's `use mpi_f08`,
 * recorded as their C wrappers record them (time only: no bytes, no link;
 * Probe, the Wait family and Barrier block). Included (no guard) by one file
 * per MPI, which first defines WRAPPER(lower, UPPER, PARAMS, ARGS, BEFORE,
 * ...), its macro making the exported names of a timed wrapper (fortran.h's
 * FORTRAN_TIMED). */

#define TIMED(FN, KIND) record_call(TALLY_MPI_##FN, t0, t1, 0, KIND)

WRAPPER(probe, PROBE, (F *source, F *tag, F *comm, F *status, F *ierr), (source, tag, comm, status, ierr),
        (void)0, TIMED(Probe, CALL_BLOCKING))
WRAPPER(iprobe, IPROBE, (F *source, F *tag, F *comm, F *flag, F *status, F *ierr),
        (source, tag, comm, flag, status, ierr), (void)0, TIMED(Iprobe, CALL_NONBLOCKING))

/* The Wait family blocks (its time is waiting time); the Test family does not. */
WRAPPER(wait, WAIT, (F *request, F *status, F *ierr), (request, status, ierr), (void)0,
        TIMED(Wait, CALL_BLOCKING))
WRAPPER(waitall, WAITALL, (F *count, F *requests, F *statuses, F *ierr), (count, requests, statuses, ierr),
        (void)0, TIMED(Waitall, CALL_BLOCKING))
WRAPPER(waitany, WAITANY, (F *count, F *requests, F *index, F *status, F *ierr),
        (count, requests, index, status, ierr), (void)0, TIMED(Waitany, CALL_BLOCKING))
WRAPPER(waitsome, WAITSOME, (F *incount, F *requests, F *outcount, F *indices, F *statuses, F *ierr),
        (incount, requests, outcount, indices, statuses, ierr), (void)0, TIMED(Waitsome, CALL_BLOCKING))
WRAPPER(test, TEST, (F *request, F *flag, F *status, F *ierr), (request, flag, status, ierr), (void)0,
        TIMED(Test, CALL_NONBLOCKING))
WRAPPER(testall, TESTALL, (F *count, F *requests, F *flag, F *statuses, F *ierr),
        (count, requests, flag, statuses, ierr), (void)0, TIMED(Testall, CALL_NONBLOCKING))
WRAPPER(testany, TESTANY, (F *count, F *requests, F *index, F *flag, F *status, F *ierr),
        (count, requests, index, flag, status, ierr), (void)0, TIMED(Testany, CALL_NONBLOCKING))
WRAPPER(testsome, TESTSOME, (F *incount, F *requests, F *outcount, F *indices, F *statuses, F *ierr),
        (incount, requests, outcount, indices, statuses, ierr), (void)0, TIMED(Testsome, CALL_NONBLOCKING))

/* A collective without bytes or links. */
WRAPPER(barrier, BARRIER, (F *comm, F *ierr), (comm, ierr), (void)0, TIMED(Barrier, CALL_BLOCKING))

#undef TIMED
