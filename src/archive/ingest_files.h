/* Reading summaries from files, directories and standard input into the
 * archive, in batched transactions, reporting each bad input with its path
 * and reason and going on with the others. */
#ifndef TALLY_ARCHIVE_INGEST_FILES_H
#define TALLY_ARCHIVE_INGEST_FILES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "archive/ingest.h"

/* Parsed summaries handed from the reading side to the writing side: a
 * part of a transaction (a few thousand summaries, so that the writer
 * stores one part while the reader parses the next), the last part with
 * the aggregates of the whole transaction's runs (built by the reading
 * side, numbered by position in the transaction from 1, so that the
 * writing side does only the database's work). */
struct ingest_batch {
    struct summary_record **records; /* pointers into slab, for the functions of ingest.h */
    struct summary_record *slab;     /* the records, one allocation a part */
    size_t n;
    bool ends_transaction;
    struct aggregate_table *aggregates; /* the last part's: settled, or NULL
                                         * (out of memory: the writer builds them) */
    struct ingest_batch *spent_next;    /* given back to the reader (batch_queue.h) */
};

struct ingest_session {
    struct store *store;
    const struct ingest_options *options;
    size_t batch_size;       /* summaries per transaction */
    size_t part_size;        /* summaries per part handed over */
    size_t added, duplicates, rejected; /* documents */
    atomic_bool database_failed; /* a write failed: stop */
    long long last_id;       /* archive id of the last stored summary */
    struct batch_queue *queue; /* ingest_paths: parts go to the writer */
    /* the reading side */
    struct summary_members members; /* its document, reused */
    struct ingest_batch *filling;   /* the part not yet handed over */
    size_t transaction_count;       /* summaries of its transaction handed over */
    struct aggregate_table *transaction_aggregates; /* theirs, being built */
    bool aggregates_failed;         /* out of memory building them */
    /* the writing side: the transaction being written, its parts kept until
     * it commits (to run it again) */
    struct ingest_batch **parts;
    size_t nparts, parts_capacity;
    struct summary_record **records; /* every part's, in order */
    size_t nrecords, records_capacity;
    bool open;   /* its transaction has begun */
    bool broken; /* a statement of it failed: run whole again at its end */
    size_t open_added; /* what its open transaction stored so far */
    long long open_last_id;
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
/* One document's whole text (a JSON object); label names it in messages
 * ("sacct.txt: line 7"). 0, or -1 when it was rejected (said). */
int ingest_document(struct ingest_session *session, const char *label, const char *text, size_t len);
/* The reading side's work: documents given to the session (ingest_path,
 * ingest_buffer, ingest_document); 0, or -1 when something was rejected. */
typedef int (*ingest_reader_fn)(struct ingest_session *session, void *arg);
/* read(session, arg) in a second thread while this one writes its parts to
 * the database (the two halves of the work are about equal); in this one
 * alone when no thread can be had. Returns what read returned. */
int ingest_in_thread(struct ingest_session *session, ingest_reader_fn read, void *arg);
/* All of paths, in order, read in a second thread (ingest_in_thread).
 * Returns 0, or -1 when something was rejected. */
int ingest_paths(struct ingest_session *session, char *const *paths, size_t n);
/* The reading side: takes a parsed record over (its contents are moved
 * into the part being filled, which frees what it holds); a full part goes to the writer
 * (session->queue) or, without one, is written here. -1 after a database
 * error. */
int ingest_session_take(struct ingest_session *session, struct summary_record *record);
/* The reading side: hands the part being filled over, ending its
 * transaction. */
int ingest_session_hand_over(struct ingest_session *session);
/* The writing side: stores a part in its transaction, which commits with
 * its last part; frees the parts once their transaction committed or
 * failed. -1 on a database error. */
int ingest_session_write(struct ingest_session *session, struct ingest_batch *part);
/* Frees a list of parts given back by the writer (batch_queue.h): the
 * reader does, at each part it hands over, and the caller of ingest_paths
 * once the reader has ended. */
void ingest_batches_free(struct ingest_batch *spent);
/* Writes what is pending and frees it. -1 on a database error. Call it
 * once, at the end. */
int ingest_session_finish(struct ingest_session *session);

#endif
