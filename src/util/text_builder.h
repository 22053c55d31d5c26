/* Text built piece by piece in memory (open_memstream), SQL statements above
 * all, with one check at the end that every piece fitted: a write that
 * failed for memory gives no text, never a truncated one. */
#ifndef TALLY_UTIL_TEXT_BUILDER_H
#define TALLY_UTIL_TEXT_BUILDER_H

#include <stddef.h>
#include <stdio.h>

/* The stream writes through pointers to text and len: the builder must stay
 * where it is (on the caller's stack) from open to finish. */
struct text_builder {
    FILE *out; /* write the pieces here (fputs, fprintf) */
    char *text;
    size_t len;
};

/* 0, or -1 with "out of memory" in why. */
int text_builder_open(struct text_builder *b, char *why, size_t why_size);
/* Closes the stream: the whole text (malloc'd; the caller frees it), or
 * NULL with "out of memory" in why when a piece could not be written. */
char *text_builder_finish(struct text_builder *b, char *why, size_t why_size);

#endif
