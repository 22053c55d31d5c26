/* A host's own capacities over time and the load of everyone else on it,
 * from the host_ columns of 'tally run --time-series' (report/series.h), for
 * trace from-runs (private to src/trace). */
#ifndef TALLY_TRACE_HOST_LOAD_H
#define TALLY_TRACE_HOST_LOAD_H

#include <stddef.h>

#include "trace/trace.h"

/* The category of the usage no monitored task accounts for: every other
 * process of the host (other users', the system's, tally's own). */
#define HOST_OTHER_LOAD "other-load"

/* One reading of the whole host (counters cumulative, MB and CPU-seconds). */
struct host_row {
    double time;
    double cores, memory_total, net_bandwidth;   /* capacities (net: MB/s, 0 unknown) */
    double cpu, memory_used, disk, net;          /* host-wide counters; memory_used a level */
};

/* Everything known of one host: its readings and its span. */
struct host_log {
    struct host_row *rows;
    size_t n, cap;
    double first, last;        /* its first and last moment (tasks' starts and ends) */
    double summary_cpus;       /* machine_cpus of its summaries (old series: the cpu capacity) */
    double disk_bandwidth;     /* MB/s from --capacity, 0 unknown */
    double net_bandwidth;      /* MB/s from --capacity, 0: the series' own */
};

int host_log_add(struct host_log *log, const struct host_row *row);
void host_log_free(struct host_log *log);

/* Reads the --capacity FILE: lines "HOST disk=MB/s network=MB/s" (either
 * key may be missing; HOST "*" is every host; '#' starts a comment) into
 * logs[container] for each host container of t. Returns -1 with
 * "FILE:LINE: why" in err. */
int host_capacity_file(struct trace *t, struct host_log *logs, const char *path, char *why,
                       size_t why_size);

/* For the host container h whose category usage signals are built: its
 * capacities (cpu, memory, io, network), its span (container start and
 * end), and the category HOST_OTHER_LOAD on each resource. A capacity the
 * host does not tell (disk bandwidth, an interface without a speed) is the
 * peak of the total usage, marked capacity_inferred. Returns -1 when out of
 * memory. */
int host_load_apply(struct trace *t, int h, struct host_log *log);

#endif
