/* The files report PREFIX.files (--files): JSON {"files": ["/path", ...]},
 * the files the task had open, seen in /proc/PID/fd at samples and exits. */
#ifndef TALLY_REPORT_FILES_H
#define TALLY_REPORT_FILES_H

#include "monitor/task_types.h"

/* Writes PATH atomically. Returns -1 and prints one error line on failure. */
int files_report_write(const char *path, const struct task_result *result);

#endif
