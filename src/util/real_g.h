/* printf's "%.Pg" of a double, by exact integer arithmetic instead of
 * glibc's multiple-precision digits (about 2,600 instructions a number by
 * strfromd, most of tally's own work writing PREFIX.files.json): the same
 * text, for the numbers the reports mostly hold. */
#ifndef TALLY_UTIL_REAL_G_H
#define TALLY_UTIL_REAL_G_H

#include <stddef.h>

/* Room real_g needs in buf: a sign, 17 digits, "0.0000" or "e-05", a NUL. */
#define REAL_G_SIZE 32

/* Writes into buf (REAL_G_SIZE bytes at least) what snprintf(buf, size,
 * "%.Pg", v) writes in the C locale with the default rounding (to nearest,
 * ties to even), when 1e-5 <= |v| < 1e17 and 1 <= P <= 17, and returns its
 * length; returns 0, writing nothing, for any other v or P (zero, tiny,
 * huge, not finite), which are left to printf. */
size_t real_g(double v, int precision, char *buf);

#endif
