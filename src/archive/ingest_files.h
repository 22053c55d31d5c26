/* Reading summaries from files, directories and standard input into the
 * archive, in batched transactions, reporting each bad input with its path
 * and reason and going on with the others. */
#ifndef TALLY_ARCHIVE_INGEST_FILES_H
#define TALLY_ARCHIVE_INGEST_FILES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "archive/ingest.h"

/* Parsed summaries written in one transaction, with the aggregates of
 * their runs (ingest_aggregate_runs(records, n, true): built by the reading
 * side, so that the writing side does only the database's work). */
struct ingest_batch {
    struct summary_record **records;
    size_t n;
    struct aggregate_table *aggregates; /* NULL: not built (out of memory) */
};

struct ingest_session {
    struct store *store;
    const struct ingest_options *options;
    size_t batch_size;       /* summaries per transaction */
    struct ingest_batch *filling; /* the reading side's batch, not yet full */
    size_t added, duplicates, rejected; /* documents */
    atomic_bool database_failed; /* a write failed: stop */
    long long last_id;       /* archive id of the last stored summary */
    struct batch_queue *queue; /* ingest_paths: full batches go to the writer */
    struct summary_members members; /* the reading side's document, reused */
};

void ingest_session_init(struct ingest_session *session, struct store *store,
                         const struct ingest_options *options);
/* PATH: a file holding one or more JSON summaries (concatenated, or one per
 * line), a directory (every *.summary and *.json file under it but the
 * level-3 reports *.files.json, read with their summaries), or "-" for
 * standard input. Returns 0 when everything went in, -1 when something was
 * rejected (reported on stderr). */
int ingest_path(struct ingest_session *session, const char *path);
/* Ingests the summaries in a buffer; label names it in messages. */
int ingest_buffer(struct ingest_session *session, const char *label, const char *text, size_t len);
/* All of paths, in order, with reading and parsing in a second thread while
 * this one writes to the database (the two halves of the work are about
 * equal). Returns 0, or -1 when something was rejected. */
int ingest_paths(struct ingest_session *session, char *const *paths, size_t n);
/* The reading side: takes a parsed record (malloc'd; the session frees it)
 * into the batch being filled; a full batch gets its aggregates and goes to
 * the writer (session->queue) or, without one, is written here. -1 after a
 * database error. */
int ingest_session_take(struct ingest_session *session, struct summary_record *record);
/* The reading side: hands the batch being filled over as when full. */
int ingest_session_hand_over(struct ingest_session *session);
/* The writing side: writes a batch in one transaction and frees it. -1 on a
 * database error. */
int ingest_session_write(struct ingest_session *session, struct ingest_batch *batch);
/* Writes what is pending and frees it. -1 on a database error. Call it
 * once, at the end. */
int ingest_session_finish(struct ingest_session *session);

#endif
