/* The aggregates in the store: table aggregates (kind, key, day, data), one
 * row per task name (kind 0) or category (kind 1) and UTC day of the runs'
 * start (days since 1970-01-01; a run without a start counts on the day it
 * was archived), data being aggregate_encode's bytes (see aggregate.h).
 *
 * Ingest gathers a transaction's new runs in an aggregate_table (the
 * reading thread does, for a whole batch, before the runs have ids) and
 * merges it into the stored rows in the same transaction, so that the rows
 * and the aggregates never disagree. */
#ifndef TALLY_ARCHIVE_AGGREGATE_STORE_H
#define TALLY_ARCHIVE_AGGREGATE_STORE_H

#include <stdbool.h>

#include "archive/aggregate.h"
#include "archive/store.h"

enum aggregate_kind { AGGREGATE_BY_NAME = 0, AGGREGATE_BY_CATEGORY = 1 };

struct aggregate_table;

struct aggregate_table *aggregate_table_new(void);
void aggregate_table_free(struct aggregate_table *t);
/* Adds one run to its name's and its category's aggregate of its day. -1
 * when out of memory. */
int aggregate_table_add_run(struct aggregate_table *t, const char *name, const char *category,
                            long long day, const double *values, const bool *present,
                            long long id, bool stopped);
/* Puts every aggregate of t in order (aggregate_settle), so that flushing
 * it only reads it. -1 when out of memory. */
int aggregate_table_settle(struct aggregate_table *t);
/* Merges every aggregate of t into the store (inside the caller's
 * transaction); t is left as it was. ids: when not NULL, t was built with
 * run ids 1..nids standing for ids[0..nids) (aggregate_renumber). -1 with a
 * reason. */
int aggregate_table_flush(const struct aggregate_table *t, struct store *s, const long long *ids,
                          size_t nids, char *why, size_t why_size);

/* The day a run counts on: its start (epoch seconds) when known, else
 * archived_at. */
long long aggregate_day(bool has_start, double start, double archived_at);

/* Merges into a the stored aggregates of (kind, key) for days in
 * [first_day, last_day]. *found = number of day rows. -1 with a reason. */
int aggregate_load(struct store *s, enum aggregate_kind kind, const char *key, long long first_day,
                   long long last_day, struct aggregate *a, size_t *found, char *why,
                   size_t why_size);

/* 1 when some run has this key of this kind, 0 when none, -1 on error. */
int aggregate_key_exists(struct store *s, enum aggregate_kind kind, const char *key, char *why,
                         size_t why_size);

/* Builds the aggregates of every archived summary (schema migration 4). */
int aggregate_rebuild(struct store *s, char *why, size_t why_size);

#endif
