/* The small readers procfs.c is built on, for the other procfs files of
 * this folder (exec_image.c): one open/read/close into the caller's buffer,
 * and the number parsing of /proc/PID/stat's blank-separated fields. */
#ifndef TALLY_PLATFORM_LINUX_PROCFS_READ_H
#define TALLY_PLATFORM_LINUX_PROCFS_READ_H

#include <stdint.h>
#include <sys/types.h>

/* Reads a whole small file into buf (NUL-terminated). Returns its length or -1. */
ssize_t procfs_read_small(const char *path, char *buf, size_t size);
/* Reads /proc/PID/NAME into buf (see procfs_read_small). */
int procfs_read_pid_file(pid_t pid, const char *name, char *buf, size_t size);
/* The decimal number at *p (blanks before it skipped); *p moves past it. */
uint64_t procfs_parse_u64(const char **p);
/* Moves *p past n blank-separated fields. */
void procfs_skip_fields(const char **p, int n);

#endif
