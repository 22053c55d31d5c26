/* The monitoring thread of an instrumented run. It waits (inotify) for each
 * process to register its segment, then:
 *  - with a marker function of an unmodified program (tally run --marker
 *    SYMBOL): attaches a uprobe counting the symbol's hits in that process,
 *    opens the window after `start` hits by writing the process's control
 *    word, closes it after `iterations` more (or the time limit), and
 *    detaches the uprobe;
 *  - with a link series (--time-series): samples every rank's link counters
 *    at each interval. */
#ifndef TALLY_INSTRUMENT_SESSION_H
#define TALLY_INSTRUMENT_SESSION_H

#include <stddef.h>

#include "instrument/mpi_summary.h"

struct link_series;

struct session_options {
    const char *dir;                  /* the segment directory */
    const struct window_spec *window; /* window->marker: the symbol, or NULL for none */
    char *const *argv;                /* the command: where the program is found */
    struct link_series *series;       /* NULL, or sampled every series_interval s */
    double series_interval;
};

struct instrument_session;

/* Resolves the marker, if any (which program of argv has the function), and
 * starts the thread. NULL with a one-line reason in why. */
struct instrument_session *instrument_session_start(const struct session_options *o, char *why, size_t why_size);
/* Ends the thread (the task is over); idempotent. Returns the first problem
 * it met (e.g. no privilege for uprobes), or NULL. */
const char *instrument_session_finish(struct instrument_session *s);
void instrument_session_free(struct instrument_session *s);

#endif
