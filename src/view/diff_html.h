/* The page of 'tally trace diff A B --html OUT': the two traces side by side. */
#ifndef TALLY_VIEW_DIFF_HTML_H
#define TALLY_VIEW_DIFF_HTML_H

#include <stdio.h>

#include "trace/diff.h"

/* Returns -1 on a write error (errno set). */
int diff_html_write(const struct trace_diff *d, const char *name_a, const char *name_b, FILE *out);

#endif
