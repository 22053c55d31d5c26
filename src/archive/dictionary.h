/* The archive's dictionary of repeated texts (schema version 11): the task
 * names, categories, sets, hosts, tools and exit types of the summaries are
 * stored once each in the dictionary table (kind, id, text), and the rows of
 * summary_rows hold their ids, small integers numbered from 1 in each kind
 * (SQLite stores 1 in no byte, up to 127 in one). The summaries view
 * (summary_rows.h) joins the texts back for every reader.
 *
 * The writer finds a text's id in a cache kept with the store (one per
 * connection), else in the table, else adds it (inside the caller's
 * transaction) with the next id of its kind. An id added in a transaction
 * that does not commit is forgotten at the cache's next use, so a
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

/* The id of text in kind (text not NULL), added when new, inside the
 * caller's write transaction. 0 or -1 with a reason. */
int dictionary_id(struct store *s, enum dictionary_kind kind, const char *text, long long *id,
                  char *why, size_t why_size);

#endif
