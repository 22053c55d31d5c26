/* The time-series report PREFIX.series: '#' comment lines, the last of which
 * is the column header, then one whitespace-separated row per sample:
 *   #wall_clock cpu_time cores max_concurrent_processes virtual_memory memory
 *    swap_memory bytes_read bytes_written bytes_received bytes_sent
 *    total_files disk proportional_memory storage_bytes_read
 *    storage_bytes_written host_cores host_memory_total host_network_bandwidth
 *    host_cpu_time host_memory_used host_disk_read host_disk_written
 *    host_received host_sent
 * wall_clock in epoch seconds, cpu_time cumulative seconds, cores used over
 * the last interval, max_concurrent_processes the most processes alive during
 * the interval, memory, bytes and disk in MB (2^20 bytes). The host_
 * columns are the whole host at that moment (struct series_host, which the
 * caller reads: platform.h's host_read_sample for tally run): its
 * capacities (cores, MemTotal, network bandwidth in MB/s, 0 when unknown) and
 * its counters, every user's processes included, from which 'tally trace
 * from-runs' draws the load tally did not run. Rows are written to
 * a temporary file that replaces PATH at series_commit. */
#ifndef TALLY_REPORT_SERIES_H
#define TALLY_REPORT_SERIES_H

#include "monitor/task_types.h"
#include "util/atomic_file.h"

/* The whole host at one sample (the host_ columns). */
struct series_host {
    int cores;
    double memory_total, net_bandwidth;           /* MB, MB/s (0: unknown) */
    double cpu_busy, memory_used;                 /* CPU-seconds since boot, MB */
    double disk_read, disk_written, net_received, net_sent; /* MB since boot */
};

struct series_writer {
    struct atomic_file file;
    int open;
    struct series_host host; /* the last host reading */
    int have_host;
};

/* Returns -1 and prints one error line when the file cannot be created. */
int series_open(struct series_writer *writer, const char *path, const char *command);
/* host: the host now, or NULL when it could not be read (the last reading
 * is written again). */
void series_append(struct series_writer *writer, const struct task_sample *sample,
                   const struct series_host *host);
/* Returns -1 and prints one error line on failure. */
int series_commit(struct series_writer *writer);
void series_abort(struct series_writer *writer);

#endif
