/* A real number's JSON text as jansson writes it (jsonp_dtostr): the
 * shared form of the summaries tally writes and of the archive's stored
 * documents, so that both give the bytes json_dumps would. */
#ifndef TALLY_UTIL_JSON_REAL_H
#define TALLY_UTIL_JSON_REAL_H

#include <stddef.h>

/* Writes v into buf (NUL-terminated) as printf's format ("%.17g", "%.16g":
 * the precision a literal) would, with '.' as the decimal point whatever
 * the locale, ".0" added when neither a point nor an exponent is there,
 * and the exponent without '+' or leading zeros. Returns its length, or 0
 * when it does not fit in size or v is not finite (JSON has no NaN). */
size_t json_real_text(double v, const char *format, char *buf, size_t size);

#endif
