/* The rows of `tally top` from the agents' proc_get_info answers: each
 * process's readings (0x19f: CPU time, memory, I/O and network bytes, state,
 * command; its contract levels, 0x100; what it records, 0x80) and its rates
 * over the interval since the previous refresh (from two successive answers
 * for the same process). No I/O: the command gathers the answers, top_render
 * draws the rows. */
#ifndef TALLY_VIEW_TOP_ROWS_H
#define TALLY_VIEW_TOP_ROWS_H

#include <jansson.h>
#include <stddef.h>

#include "view/top_render.h"

/* What one process was at a refresh, for its rates at the next. */
struct top_previous {
    char key[320];      /* the answer's object: p_PID@HOST */
    char node[256];
    pid_t pid, ppid;
    double t, cpu, children_cpu, read, written, received, sent;
};

/* One refresh at monotonic time t: LINES (proc_get_info answers, each with
 * "object", "node" and "result") into rows[] (their strings point into
 * LINES) and now[] (the readings for the next refresh), both of
 * json_array_size(LINES) entries; a rate is NaN when OLD (OLD_N entries, of
 * the previous refresh) has no reading of the process, the time did not
 * advance or a counter went down. Returns the number of rows. */
size_t top_rows_build(json_t *lines, double t, const struct top_previous *old, size_t old_n,
                      struct top_row *rows, struct top_previous *now);
/* The same, knowing the previous refresh's time LAST_T (NaN: none): CPU% is a
 * process's own (cpu_time less children_cpu_time); a process born since
 * LAST_T shows its CPU over its life; ended_percent is the CPU of its
 * children that ended since then beyond what their own rows showed. */
size_t top_rows_build_since(json_t *lines, double t, double last_t, const struct top_previous *old,
                            size_t old_n, struct top_row *rows, struct top_previous *now);

#endif
