/* The opened-files report in resource_monitor's layout (tally rm
 * --with-inotify, PREFIX.files): per file a line with its path, then a line
 *   device size_initial(B) size_final(B) opens closes reads writes
 * tally sees open files through /proc/PID/fd, not inotify: it knows the
 * path, and at the end the device and size; the counts it does not know are
 * written as -1, as the header says. */
#ifndef TALLY_REPORT_RM_FILES_H
#define TALLY_REPORT_RM_FILES_H

#include "monitor/task.h"

/* Writes PATH atomically. Returns -1 and prints one error line on failure. */
int rm_files_write(const char *path, const struct task_result *result);

#endif
