/* The monthly partitions of summaries on a backend that partitions it
 * (PostgreSQL: summaries is partitioned by range of start_day, one partition
 * per UTC month, created when a summary of that month first comes, and a
 * default partition for summaries without a start). */
#ifndef TALLY_ARCHIVE_PARTITIONS_H
#define TALLY_ARCHIVE_PARTITIONS_H

#include <stddef.h>

#include "archive/store.h"

/* The partition holding day (days since 1970-01-01) into name (at least 32
 * bytes) and its range [*first, *last); 0, or -1 for a day that goes to the
 * default partition (no start, or a year outside 1..9999). */
int partition_of_day(long long day, char *name, size_t name_len, long long *first, long long *last);

/* Creates the partitions the days need (table: "summary_rows", or the table a
 * migration is filling), each once; nothing on a backend that does not
 * partition. With serialise, creation takes an advisory lock first, so that
 * concurrent writers create a month once (call it outside a transaction
 * holding rows). 0, or -1 with a reason. */
int partitions_ensure(struct store *s, const char *table, const long long *days, size_t n,
                      int serialise, char *why, size_t why_size);

/* Whether a day of days falls in a month whose partition does not exist
 * yet (a writer in a transaction that has rows, where it creates none):
 * 1, 0 (also on a backend that does not partition), or -1 with a reason. */
int partitions_missing(struct store *s, const long long *days, size_t n, char *why, size_t why_size);

#endif
