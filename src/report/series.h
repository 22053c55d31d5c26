/* The time-series report PREFIX.series: '#' comment lines, the last of which
 * is the column header, then one whitespace-separated row per sample:
 *   #wall_clock cpu_time cores max_concurrent_processes virtual_memory memory
 *    swap_memory bytes_read bytes_written bytes_received bytes_sent
 *    total_files disk proportional_memory
 * wall_clock in epoch seconds, cpu_time cumulative seconds, cores used over
 * the last interval, max_concurrent_processes the most processes alive during
 * the interval, memory, bytes and disk in MB (2^20 bytes). Rows are written to
 * a temporary file that replaces PATH at series_commit. */
#ifndef TALLY_REPORT_SERIES_H
#define TALLY_REPORT_SERIES_H

#include "monitor/task.h"
#include "util/atomic_file.h"

struct series_writer {
    struct atomic_file file;
    int open;
};

/* Returns -1 and prints one error line when the file cannot be created. */
int series_open(struct series_writer *writer, const char *path, const char *command);
void series_append(struct series_writer *writer, const struct task_sample *sample);
/* Returns -1 and prints one error line on failure. */
int series_commit(struct series_writer *writer);
void series_abort(struct series_writer *writer);

#endif
