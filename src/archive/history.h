/* A task's history as the analyses (stats, predict, outliers) read it: for
 * each archived run, its id, host, set, an optional group value, and the
 * value of every resource, fetched in one query of only those columns. */
#ifndef TALLY_ARCHIVE_HISTORY_H
#define TALLY_ARCHIVE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "archive/store.h"
#include "core/fields.h"

struct history {
    size_t rows;
    size_t nresources;
    const struct summary_field **resources; /* the fields analysed (not start/end) */
    double *values;      /* column-major: resource k's values start at k × capacity;
                          * NAN where a summary lacks the field */
    size_t *present;     /* per resource, how many rows have it */
    long long *ids;
    char **hosts;        /* NULL where unknown */
    char **sets;
    char **groups;       /* the --by value of each row, when grouped */
    char **exit_types;   /* with_identity: "limits" for a run stopped by a limit */
    size_t capacity;
    int out_of_memory;
    bool with_identity;
};

/* Loads the runs whose key_column ("name" or "category") is `key` (key
 * NULL: all), ordered by group_column
 * when it is not NULL (one of name, category, set, host, tool, exit_type) and
 * then by id. hosts, sets and exit types are filled only when with_identity (they cost a
 * copy per row). Only the fields the task's summaries carry are loaded (see
 * name_fields in schema.c). A long ungrouped history is read in two halves
 * at once, the upper one by a second thread on its own connection (the
 * decoding of rows is most of the cost of 'stats'). Returns -1 with a
 * reason. */
int history_load(struct store *s, const char *key_column, const char *key,
                 const char *group_column, bool with_identity, struct history *h, char *why,
                 size_t why_size);
void history_free(struct history *h);

static inline double history_value(const struct history *h, size_t row, size_t resource)
{
    return h->values[resource * h->capacity + row];
}

/* The values of one resource, one per row (NAN where missing). */
static inline const double *history_column(const struct history *h, size_t resource)
{
    return h->values + resource * h->capacity;
}

/* Maps a --by word to its column (set → set_id); NULL when not groupable. */
const char *history_group_column(const char *field);

#endif
