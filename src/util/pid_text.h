/* Pids read from text: a command line, a message, a file name ("PID.seg",
 * "io.PID.N"). The one parser every reader of a pid goes through, so that a
 * number outside (0, max] is refused before it is ever cast to pid_t
 * (4294967297 cast to pid_t is 1: 'follow pid 1' and, with limits, signal
 * it). The ceiling is the caller's: the host's pid_max
 * (platform's proc_pid_max) for a pid of this host, PID_KERNEL_LIMIT for one
 * of another host. */
#ifndef TALLY_UTIL_PID_TEXT_H
#define TALLY_UTIL_PID_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The kernel's hard limit on pid_max (PID_MAX_LIMIT on 64-bit): no pid of
 * any Linux host is above it. */
#define PID_KERNEL_LIMIT 4194304

/* Whether VALUE is a pid no larger than MAX: 0 < VALUE <= MAX (and never
 * above PID_KERNEL_LIMIT, whatever MAX). */
bool pid_in_range(long long value, long long max);

/* Reads the decimal digits at TEXT (no sign, no blank, at least one digit)
 * as a pid in (0, MAX] into *out. When END is NULL the digits must be the
 * whole string; otherwise *end is where they stop. -1 (and *out untouched)
 * when there are no digits, the value is outside (0, MAX], or, END being
 * NULL, something follows them. */
int pid_parse(const char *text, const char **end, long long max, pid_t *out);

/* The same over the LEN bytes at TEXT (not NUL-terminated): all must be
 * digits. */
int pid_parse_span(const char *text, size_t len, long long max, pid_t *out);

#endif
