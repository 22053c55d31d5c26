/* PREFIX.files.json with MPI-IO: the files libtally-mpi saw opened through
 * MPI_File_open (mpiio_files_json) merged into the level-3 helper's files by
 * path, as Darshan keeps one record per file and module. */
#ifndef TALLY_INSTRUMENT_IO_MPIIO_MERGE_H
#define TALLY_INSTRUMENT_IO_MPIIO_MERGE_H

#include <jansson.h>

/* Adds to doc's "files" (io_report_files_json) the MPIIO_* counters of each
 * file of mpiio (mpiio_files_json): on the file with the same path, and on
 * its processes' entries (the rank's pid; "rank" added), a process or a
 * file the helper did not see appended. Files only MPI-IO saw come after the
 * others, in mpiio's order (by bytes moved). 0, or -1 when out of memory
 * (doc then holds what was merged so far). */
int io_files_add_mpiio(json_t *doc, const json_t *mpiio);

#endif
