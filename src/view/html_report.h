/* Writes the view page: the HTML template with its style sheet, script and
 * data spliced in. An offline report embeds the signals; a served page embeds
 * only the description of the trace and asks the server for slices. */
#ifndef TALLY_VIEW_HTML_REPORT_H
#define TALLY_VIEW_HTML_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "trace/trace.h"
#include "view/view_data.h"

/* Returns -1 on a write error (errno set). */
int html_report_write(const struct trace *t, const struct view_page_options *o, FILE *out);

#endif
