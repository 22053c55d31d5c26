/* Files of lines of blank-separated words where '#' starts a comment, such
 * as "HOST key=value ..." (trace from-runs --capacity) and "HOST key value
 * ..." (contract --capabilities): one bounded reader (text_file.h) that
 * hands each line's words to its caller and names the line of an error. */
#ifndef TALLY_UTIL_WORD_LINES_H
#define TALLY_UTIL_WORD_LINES_H

#include <stddef.h>

/* One line's words (n >= 1; the words may be changed). 0 to go on, -1
 * with the reason in why to stop. */
typedef int (*word_line_fn)(void *ctx, char **words, size_t n, char *why, size_t why_size);

/* Calls fn for each line of PATH with at least one word. 0 at the end; -1
 * with "PATH: why" in err when PATH cannot be read (a bound passed, not
 * text), "PATH:LINE: why" when fn refused a line. */
int word_lines_read(const char *path, word_line_fn fn, void *ctx, char *why, size_t why_size);

#endif
