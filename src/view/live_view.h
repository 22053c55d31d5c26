/* 'tally view --live APP': a page in the browser charting an application's
 * live measurements, updating without reload — usage per host over time
 * (CPU cores, memory, I/O and network rates, processes), and G-PM's bar
 * chart of a value per step from a conditional request (e.g. bytes sent per
 * iteration: 'thread_executes_probe([app_sim], "nextstep"):
 * pa_counter_read([c_1], 1)'). The server asks the agents every interval
 * (over the socket or NATS: live_client.h) and keeps the points; the page
 * fetches /data?since=T. Served on 127.0.0.1 only. */
#ifndef TALLY_VIEW_LIVE_VIEW_H
#define TALLY_VIEW_LIVE_VIEW_H

#include <stddef.h>

#include "client/live_client.h"

struct live_view_options {
    const char *app;
    unsigned port;                   /* 0: any free port (printed) */
    double interval;                 /* seconds between polls (default 1) */
    const char *bars;                /* conditional request whose values are drawn as bars */
    const char *bars_field;          /* the result field holding the value (default "value") */
    size_t keep;                     /* points kept (default 3600) */
    struct live_client_options client;
};

/* Serves until SIGINT/SIGTERM. 0, or -1 with why. */
int live_view_serve(const struct live_view_options *options, char *why, size_t why_size);

#endif
