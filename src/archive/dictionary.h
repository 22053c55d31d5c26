/* The archive's dictionary of repeated texts (schema version 11): the task
 * names, categories, sets, hosts, tools and exit types of the summaries are
 * stored once each in the dictionary table (kind, id, text), and the rows of
 * summary_rows hold their ids, small integers numbered from 1 in each kind
 * (SQLite stores 1 in no byte, up to 127 in one). The summaries view
 * (summary_rows.h) joins the texts back for every reader.
 *
 * The writer finds a text's id in a cache kept with the store (one per
 * connection), else in the table, else adds it (inside the caller's
 * transaction) with the next id of its kind; a batch's texts that the cache
 * lacks are looked up and added together, a few statements for all of them.
 * An id added in a transaction that does not commit is forgotten at the
 * cache's next use, so a
 * transaction run again after a deadlock or a busy database never refers to
 * a text it did not store. Two PostgreSQL writers adding the same id at once
 * wait for each other; the one that finds the id taken takes the next. */
#ifndef TALLY_ARCHIVE_DICTIONARY_H
#define TALLY_ARCHIVE_DICTIONARY_H

#include <stddef.h>

#include "archive/store.h"

enum dictionary_kind {
    DICT_NAME = 1,
    DICT_CATEGORY,
    DICT_SET,
    DICT_HOST,
    DICT_TOOL,
    DICT_EXIT_TYPE,
    DICT_KINDS
};

/* Creates the dictionary table (empty). 0 or -1. */
int dictionary_create(struct store *s, char *why, size_t why_size);

/* A text to give its id: *id gets it (0 when text is NULL). */
struct dictionary_text {
    enum dictionary_kind kind;
    const char *text;
    long long *id;
};

/* The ids of texts[0..n), those new added, inside the caller's write
 * transaction: the ones the cache lacks found, and added, a few statements
 * for all of them (ROWS_STATEMENT_CHUNK a statement) instead of three round
 * trips each. 0 or -1 with a reason. */
int dictionary_ids(struct store *s, const struct dictionary_text *texts, size_t n, char *why,
                   size_t why_size);

#endif
