/* `tally view --serve`: an HTTP server (libmicrohttpd) bound to 127.0.0.1
 * that serves the view page without embedded signals and computes each slice
 * in the C core on request:
 *   GET /                                  the page
 *   GET /slice?from=T1&to=T2&level=TYPE    the JSON of `tally trace aggregate
 *       [&kind=K][&categories=c1,c2]       --format json` for that slice
 * Runs until SIGINT or SIGTERM, then stops cleanly. */
#ifndef TALLY_VIEW_SERVER_H
#define TALLY_VIEW_SERVER_H

#include "trace/trace.h"
#include "view/view_data.h"

/* Port 0 picks a free port. Prints "serving http://127.0.0.1:PORT/" on stdout
 * once listening. Returns 0 after a clean stop, -1 with a reason in err when
 * it cannot listen (e.g. the port is in use). */
int view_server_run(const struct trace *t, const struct view_page_options *page, unsigned port,
                    char *why, size_t why_size);

#endif
