/* The summaries as stored from schema version 11: the table summary_rows,
 * whose name, category, set, host, tool and exit type columns hold ids of
 * the dictionary (dictionary.h), and the view summaries, which joins their
 * texts back, so that every reader selects from summaries as before (a
 * condition on a name finds the name's id through the dictionary's unique
 * index, then compares integers). Writers write summary_rows. */
#ifndef TALLY_ARCHIVE_SUMMARY_ROWS_H
#define TALLY_ARCHIVE_SUMMARY_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include "archive/dictionary.h"
#include "archive/store.h"

/* A column of summaries held as a dictionary id in summary_rows. */
struct summary_text_column {
    enum dictionary_kind kind;
    const char *column; /* in the view, e.g. "set_id" */
    const char *ref;    /* in summary_rows, e.g. "set_ref" */
};

#define SUMMARY_TEXT_COLUMNS 6
extern const struct summary_text_column summary_text_columns[SUMMARY_TEXT_COLUMNS];

/* Whether summary_rows has the column start_day: where it is partitioned
 * by it (PostgreSQL). Elsewhere the day is only in summary_keys, the half
 * of a summary's key, and the view has no such column. */
static inline bool summary_rows_have_start_day(const struct store *s)
{
    return s->backend->partition_by != NULL;
}

/* Schema version 11: the dictionary filled from summaries, summaries
 * rewritten as summary_rows (PostgreSQL's partitioned table changed in
 * place, its partitions kept), and the view. Every row is kept, with its
 * id. */
int summary_rows_migrate(struct store *s, char *why, size_t why_size);

/* (Re)creates the view summaries over summary_rows, with a column per
 * numeric field of core/fields.c (each must exist in summary_rows). */
int summary_rows_view_create(struct store *s, char *why, size_t why_size);

#endif
