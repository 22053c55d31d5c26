/* What the libtally-mpi wrappers share: the off test (one load of this
 * library's own control page, a view of the segment's once registered) and
 * the recording of a call, its bytes and its links (docs/instrumentation.md
 * gives the byte and link rules). */
#ifndef TALLY_LIB_MPI_RECORD_H
#define TALLY_LIB_MPI_RECORD_H

#include <mpi.h>
#include <stdint.h>

#include "../probe/segment_client.h"

#define HIDDEN __attribute__((visibility("hidden")))

union tally_mpi_control_page {
    struct tally_seg_control c;
    char page[TALLY_SEG_PAGE];
};
extern HIDDEN union tally_mpi_control_page tally_mpi_control;

/* A monitor's switch seen (TALLY_ON_PENDING): acknowledged, the window
 * counters switched; returns the control word now. */
HIDDEN uint32_t record_switched(void);

/* True while MPI calls are recorded. Off and nothing pending: one load of
 * the control word and one branch; a pending switch is taken here, at the
 * first call after it. */
static inline int mpi_recording(void)
{
    uint32_t on = tally_mpi_control.c.on;
    if (__builtin_expect(!(on & (TALLY_ON_MPI | TALLY_ON_PENDING)), 1))
        return 0;
    if (__builtin_expect(on & TALLY_ON_PENDING, 0))
        on = record_switched();
    return (on & TALLY_ON_MPI) != 0;
}
#define MPI_RECORDING() mpi_recording()

enum call_kind { CALL_NONBLOCKING = 0, CALL_BLOCKING = 1, CALL_SETUP = 2 };

/* One call of FN from t0 to t1 ns, BYTES of payload. */
HIDDEN void record_call(enum tally_mpi_function fn, uint64_t t0, uint64_t t1, uint64_t bytes,
                        enum call_kind kind);
/* BYTES in one message from this rank to DEST, a rank of COMM (MPI_PROC_NULL ignored). */
HIDDEN void record_link(MPI_Comm comm, int dest, uint64_t bytes);
/* The collective link rule (wrappers_collective.c): BYTES to every other
 * rank of COMM / from ROOT to every other / from a non-root to ROOT / to
 * every higher rank; COUNTS[r] elements to every other rank r (at ROOT
 * only, for the rooted one); each returns the bytes put on links. */
HIDDEN uint64_t to_all_others(MPI_Comm comm, uint64_t bytes);
HIDDEN uint64_t root_to_others(MPI_Comm comm, int root, uint64_t bytes);
HIDDEN uint64_t to_root(MPI_Comm comm, int root, uint64_t bytes);
HIDDEN uint64_t to_higher_ranks(MPI_Comm comm, uint64_t bytes);
HIDDEN uint64_t per_rank_links(MPI_Comm comm, const int counts[], MPI_Datatype type);
HIDDEN uint64_t root_per_rank_links(MPI_Comm comm, int root, const int counts[], MPI_Datatype type);
#if MPI_VERSION >= 4 /* the same with the large-count bindings' MPI_Count counts */
HIDDEN uint64_t per_rank_links_c(MPI_Comm comm, const MPI_Count counts[], MPI_Datatype type);
HIDDEN uint64_t root_per_rank_links_c(MPI_Comm comm, int root, const MPI_Count counts[], MPI_Datatype type);
#endif
/* The point-to-point accounting (wrappers_p2p.c) of a call that ran from t0
 * to t1 and returned RC, shared by the C and the Fortran wrappers: a send of
 * COUNT x TYPE to DEST (one message on the link); a receive of what STATUS
 * says; a Sendrecv(_replace) (bytes sent plus received, the send's link). */
HIDDEN void account_send(enum tally_mpi_function fn, enum call_kind kind, uint64_t t0, uint64_t t1,
                         MPI_Datatype type, MPI_Count count, MPI_Comm comm, int dest);
HIDDEN void account_recv(uint64_t t0, uint64_t t1, int rc, const MPI_Status *status, MPI_Datatype type);
HIDDEN void account_sendrecv(uint64_t t0, uint64_t t1, int rc, MPI_Datatype stype, MPI_Count scount, int dest,
                             const MPI_Status *status, MPI_Datatype rtype, int source, MPI_Comm comm);
HIDDEN void account_sendrecv_replace(uint64_t t0, uint64_t t1, MPI_Datatype type, MPI_Count count, int dest,
                                     int source, MPI_Comm comm);
/* After a successful MPI_Init or MPI_Init_thread (FN; C or Fortran) that began at t0. */
HIDDEN void record_after_init(enum tally_mpi_function fn, uint64_t t0);
/* Around MPI_Finalize (C or Fortran) entered at t0: before returns whether
 * calls were recorded, which after takes. */
HIDDEN int record_before_finalize(uint64_t t0);
HIDDEN void record_after_finalize(uint64_t t0, int recording);
/* COUNT elements of TYPE in bytes (0 for an invalid type). */
HIDDEN uint64_t type_bytes(MPI_Datatype type, MPI_Count count);
/* This rank's rank in COMM and COMM's size. */
HIDDEN void comm_position(MPI_Comm comm, int *rank, int *size);
/* After MPI_Init: registers the process with its rank. */
HIDDEN void record_register(void);
/* This rank's segment (NULL before MPI_Init registered it). */
HIDDEN struct tally_segment *record_segment(void);
/* MPI-IO per file (record_io.c, Darshan's MPIIO counters, segment.h): an
 * open of FILENAME on COMM that took DT ns and gave FH (independent on a
 * communicator of one rank); a call on FH adding 1 to COUNT, BYTES to
 * BYTES_COUNTER and DT to TIME_COUNTER (-1: none of it); a close of FH. */
HIDDEN void record_io_open(MPI_Comm comm, const char *filename, MPI_File fh, uint64_t dt);
HIDDEN void record_io(MPI_File fh, int count, int bytes_counter, uint64_t bytes, int time_counter,
                      uint64_t dt);
HIDDEN void record_io_close(MPI_File fh, uint64_t dt);
/* At MPI_Finalize (entry) and MPI_Abort. */
HIDDEN void record_finalize(uint64_t now, int aborted);

#endif
