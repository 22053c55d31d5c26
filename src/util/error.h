/* One-line error messages on stderr, in the form "tally: <what>: <why>". */
#ifndef TALLY_UTIL_ERROR_H
#define TALLY_UTIL_ERROR_H

__attribute__((format(printf, 1, 2))) void tally_error(const char *fmt, ...);
/* As tally_error, followed by ": strerror(errno)". */
__attribute__((format(printf, 1, 2))) void tally_error_errno(const char *fmt, ...);

#endif
