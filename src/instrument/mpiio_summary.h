/* The summary's mpi.mpiio: MPI-IO as Darshan's MPIIO module names it, from
 * libtally-mpi's segments (wrappers_io.c, record_io.c): totals over the
 * ranks and every file, merged by path across ranks. */
#ifndef TALLY_INSTRUMENT_MPIIO_SUMMARY_H
#define TALLY_INSTRUMENT_MPIIO_SUMMARY_H

#include <jansson.h>

#include "instrument/segments.h"

/* NULL when no rank made an MPI-IO call. */
json_t *mpiio_summary_json(const struct segment_set *ranks);

/* The files of mpi.mpiio.files, each with "processes": [{"pid", "rank",
 * the rank's counters that are not 0}], for PREFIX.files.json
 * (io_files_add_mpiio). NULL when no rank opened a file through MPI-IO. */
json_t *mpiio_files_json(const struct segment_set *ranks);

#endif
