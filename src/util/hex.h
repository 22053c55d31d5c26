/* Bytes as lowercase hexadecimal text and back (a segment copy in a JSON
 * line, src/agent/agent_launch.c and src/client/launch_gather.c). */
#ifndef TALLY_UTIL_HEX_H
#define TALLY_UTIL_HEX_H

#include <stddef.h>

/* 2 * len characters and a NUL into out (2 * len + 1 bytes); returns out. */
char *hex_encode(const void *data, size_t len, char *out);
/* Decodes text (an even number of hex digits, either case) into out, at
 * most cap bytes. Returns the number of bytes, or -1 when text is not
 * that or does not fit. */
long hex_decode(const char *text, void *out, size_t cap);

#endif
