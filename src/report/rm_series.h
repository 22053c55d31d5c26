/* The time series in resource_monitor's column layout (tally rm
 * --with-time-series): '#' comment lines, the last one the header
 *   #wall_clock cpu_time cores max_concurrent_processes virtual_memory memory
 *    swap_memory bytes_read bytes_written bytes_received bytes_sent bandwidth
 *    machine_load total_files disk
 * with the values resource_monitor 9.9 writes: wall_clock in epoch seconds,
 * cpu_time in seconds, memory, bytes and disk in MB (2^20 bytes), bandwidth
 * in Mbps. Uses series.h's writer (atomic file, series_commit/abort), so
 * 'tally trace from-runs' reads it like a tally series. */
#ifndef TALLY_REPORT_RM_SERIES_H
#define TALLY_REPORT_RM_SERIES_H

#include "report/series.h"

/* Returns -1 and prints one error line when the file cannot be created. */
int rm_series_open(struct series_writer *writer, const char *path);
/* One row: the sample plus what it lacks, the machine load and the network
 * bandwidth over the last interval (Mbps). */
void rm_series_append(struct series_writer *writer, const struct task_sample *sample,
                      double machine_load, double bandwidth);

#endif
