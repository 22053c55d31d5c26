/* A command's words as one line of text that keeps every byte: what the
 * summary's "command", the series header and the agent's registry show.
 * Words of plain characters stay bare; others are quoted as a POSIX shell
 * would read them ('...'), and words with control characters or bytes that
 * are not UTF-8 as bash's $'...' (\n, \t, \xNN), so the line is always one
 * line of valid UTF-8, can be pasted into bash, and command_line_split reads
 * the same words back. */
#ifndef TALLY_UTIL_COMMAND_LINE_H
#define TALLY_UTIL_COMMAND_LINE_H

#include <stdbool.h>
#include <stddef.h>

/* The words (NULL-terminated) quoted and joined by spaces (malloc'd), or NULL
 * when out of memory. */
char *command_line_quote(char *const *words);

/* Reads a line as command_line_quote writes it (and as a shell would: bare
 * words, '...', "..." with \\ \" \$ \`, $'...', backslash escapes) into a
 * NULL-terminated array of malloc'd words (free with command_line_free).
 * Returns the word count, or -1 with a reason in why (an unterminated quote,
 * out of memory). */
int command_line_split(const char *line, char ***words, char *why, size_t why_size);
void command_line_free(char **words);

/* True when TEXT is valid UTF-8 (no overlong forms, no surrogates). */
bool command_line_is_utf8(const char *text);

/* TEXT on one line of UTF-8 (malloc'd): control characters and bytes that
 * are not UTF-8 written as C escapes (\n, \t, \r, \xNN), all else as it is
 * (a line from command_line_quote comes back unchanged); NULL when out of
 * memory. For line-oriented files whose lines must not break, to be read by
 * people: the summary's JSON keeps the exact text. */
char *command_line_one_line(const char *text);

#endif
