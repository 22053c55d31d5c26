/* The links between hosts in a trace from runs (trace from-runs --mpi): each
 * run's PREFIX.mpi.paje (tally run --mpi --time-series: rank — link — rank,
 * bytes/s over each pair of ranks) dated by its summary's
 * mpi.link_series_origin, the pairs of ranks on two different hosts summed
 * into one link container per pair of hosts ("hostA--hostB", type "link",
 * edges host — link — host) whose "bandwidth" usage, in MB/s, is the run's
 * category. Its capacity is the peak of that usage (inferred: never said to
 * be saturated). Hosts that ran no series of their own (their ranks were
 * gathered) become containers without resources. */
#ifndef TALLY_TRACE_MPI_LINKS_H
#define TALLY_TRACE_MPI_LINKS_H

#include <stddef.h>

#include "trace/trace.h"

struct mpi_links;

struct mpi_links *mpi_links_new(void);
void mpi_links_free(struct mpi_links *m);
/* Reads PREFIX.summary and PREFIX.mpi.paje, adding their links between
 * hosts to m (hosts and link containers go into t now, the signals at
 * mpi_links_build). Returns -1 with a reason naming the file. */
int mpi_links_add_run(struct mpi_links *m, struct trace *t, const char *prefix, char *why,
                      size_t why_size);
/* Pushes the links' signals into t (before trace_finish); widens t's span
 * to them. Returns -1 when out of memory. */
int mpi_links_build(struct mpi_links *m, struct trace *t);

#endif
