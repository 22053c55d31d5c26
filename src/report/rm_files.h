/* The opened-files report in resource_monitor's layout (tally rm
 * --with-inotify, PREFIX.files): per file a line with its path, then a line
 *   device size_initial(B) size_final(B) opens closes reads writes
 * tally sees open files through /proc/PID/fd, not inotify: it knows the
 * path, and at the end the device and size; the counts it does not know are
 * written as -1, as the header says. At level 3 (rm_files_write_entries)
 * the counts come from libtally-io's records and the layout is exactly
 * resource_monitor's. */
#ifndef TALLY_REPORT_RM_FILES_H
#define TALLY_REPORT_RM_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "monitor/task_types.h"

/* Writes PATH atomically. Returns -1 and prints one error line on failure. */
int rm_files_write(const char *path, const struct task_result *result);

/* One file of the report as resource_monitor writes it (--with-inotify at
 * level 3, from libtally-io's records): -1 for what is not known. */
struct rm_file_entry {
    const char *path;
    const char *list_path; /* the path in the summary's lists (valid UTF-8), NULL: path */
    long long device, size_initial, size_final;
    long long opens, closes, reads, writes;
    bool output; /* written to: in the summary's output_files, else input_files */
};

/* Writes PATH atomically in resource_monitor's exact layout: the two header
 * lines, then per file "%-15s\n%-15s " (path, "") and
 * "%6lld %20lld %20lld %6lld %6lld %6lld %6lld\n". -1 after one error line. */
int rm_files_write_entries(const char *path, const struct rm_file_entry *entries, size_t n);
/* The summary's input_files (outputs false) or output_files string, as
 * resource_monitor writes it: "[\n", per file 18 blanks and
 * [ "PATH", MB ] (MB: the size rounded up; files of unknown size left out),
 * joined by ",\n", then "\n" and 15 blanks and "]". malloc'd, NULL when out
 * of memory. */
char *rm_files_list_text(const struct rm_file_entry *entries, size_t n, bool outputs);

#endif
