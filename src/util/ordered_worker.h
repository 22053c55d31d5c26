/* A thread that does one job on items 0, 1, 2, ... in their order, as the
 * caller hands them over, while the caller goes on with other work and
 * takes each item's outcome when it needs it (ingest's aggregate rows
 * encoded while the writing thread reads the next ones and writes those
 * encoded: aggregate_store.c). */
#ifndef TALLY_UTIL_ORDERED_WORKER_H
#define TALLY_UTIL_ORDERED_WORKER_H

#include <stddef.h>

/* The job on one item: 0, or -1 (a failure: the items after it are not
 * worked on). */
typedef int (*ordered_work_fn)(void *ctx, size_t item);

struct ordered_worker;

/* Starts the thread; NULL when it cannot (the caller does the work then). */
struct ordered_worker *ordered_worker_start(ordered_work_fn work, void *ctx);
/* Items [0, items) may be worked on (items only grows). */
void ordered_worker_hand(struct ordered_worker *w, size_t items);
/* Waits until the item, handed before, has been worked on: 0, or -1 when it
 * or an item before it failed. */
int ordered_worker_wait(struct ordered_worker *w, size_t item);
/* Stops after the item being worked on, if any (the others are left), and
 * frees the worker. NULL: nothing to do. */
void ordered_worker_stop(struct ordered_worker *w);

#endif
