/* String interning for traces (private to src/trace): one copy per distinct
 * name, so names compare by pointer and the reader allocates nothing per event. */
#ifndef TALLY_TRACE_STRINGS_H
#define TALLY_TRACE_STRINGS_H

#include <stddef.h>

struct trace_strings;

struct trace_strings *trace_strings_new(void);
void trace_strings_free(struct trace_strings *st);
/* The interned copy of s[0..len) (created when missing); NULL when out of memory. */
const char *trace_strings_intern(struct trace_strings *st, const char *s, size_t len);

#endif
