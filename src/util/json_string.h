/* A string's JSON text as jansson's encoder writes it (dump.c, without
 * JSON_ENSURE_ASCII or JSON_ESCAPE_SLASH): the shared form of the summaries
 * tally writes and of the archive's stored documents, so that both give the
 * bytes json_dumps would. */
#ifndef TALLY_UTIL_JSON_STRING_H
#define TALLY_UTIL_JSON_STRING_H

#include <stddef.h>

/* Room json_string_text may take for n bytes: each escaped as \u00XX, and
 * the quotes. */
#define JSON_STRING_ROOM(n) (6 * (n) + 2)

/* The n bytes of d (UTF-8, not checked here) as a JSON string, quotes
 * included: '"' and '\\' escaped, control characters as \b \f \n \r \t or
 * \u00XX, every other byte as it is. Written to out (JSON_STRING_ROOM(n)
 * bytes at least, not NUL-terminated) unless out is NULL; returns the
 * length of the text. */
size_t json_string_text(const unsigned char *d, size_t n, char *out);

#endif
