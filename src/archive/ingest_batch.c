/* The writing side of ingest: parsed summaries gathered into batches, each
 * written in one transaction that is run again when the database aborts it
 * for a deadlock or a serialization failure (see ingest_files.h). */
#include "archive/ingest_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive/file_rows.h"
#include "archive/partitions.h"
#include "util/error.h"

#define DEFAULT_BATCH 10000

void ingest_session_init(struct ingest_session *session, struct store *store,
                         const struct ingest_options *options)
{
    memset(session, 0, sizeof *session);
    session->store = store;
    session->options = options;
    session->batch_size = DEFAULT_BATCH;
}

#define MAX_TRANSACTION_TRIES 8

static void free_pending(struct ingest_session *session)
{
    for (size_t i = 0; i < session->npending; i++) {
        summary_record_free(session->pending[i]);
        free(session->pending[i]);
    }
    session->npending = 0;
}

/* The per-file rows of the records just stored (not of those archived
 * before: their rows are there already). */
static int store_file_rows(struct store *s, struct summary_record *const *records, size_t n,
                           char *why, size_t why_size)
{
    for (size_t i = 0; i < n; i++)
        if (records[i]->id && records[i]->files &&
            file_rows_store(s, records[i]->id, records[i]->files, why, why_size) < 0)
            return -1;
    return 0;
}

/* One transaction storing every pending record; counts only what commits. */
static int try_write_pending(struct ingest_session *session, char *why, size_t why_size)
{
    struct store *s = session->store;
    size_t added = 0;
    long long last_id = 0;
    if (store_begin(s, why, why_size) < 0)
        return -1;
    if (ingest_records(s, session->pending, session->npending, &added, &last_id, why, why_size) < 0 ||
        ingest_name_fields(s, session->pending, session->npending, why, why_size) < 0 ||
        ingest_aggregates(s, session->pending, session->npending, why, why_size) < 0 ||
        store_file_rows(s, session->pending, session->npending, why, why_size) < 0 ||
        store_commit(s, why, why_size) < 0) {
        store_rollback(s);
        return -1;
    }
    session->added += added;
    session->duplicates += session->npending - added;
    if (last_id)
        session->last_id = last_id;
    return 0;
}

/* Writes the pending records in one transaction, running it again when the
 * database aborted it for a deadlock or a serialization failure (two
 * writers adding overlapping summaries in different orders); nothing is
 * counted twice because counts are taken only from the transaction that
 * commits. */
static int write_pending(struct ingest_session *session)
{
    char why[512];
    if (session->npending == 0 || session->database_failed) {
        free_pending(session);
        return session->database_failed ? -1 : 0;
    }
    int rc = -1;
    /* the months of the batch get their partitions first, in transactions of
     * their own (nothing to do where summaries is not partitioned) */
    long long *days = malloc(session->npending * sizeof *days);
    for (size_t i = 0; days && i < session->npending; i++)
        days[i] = session->pending[i]->start_day;
    if (!days) {
        snprintf(why, sizeof why, "out of memory");
    } else {
        session->store->retryable = false;
        for (int attempt = 1; attempt <= MAX_TRANSACTION_TRIES; attempt++) {
            rc = partitions_ensure(session->store, "summaries", days, session->npending, 1, why,
                                   sizeof why);
            if (rc == 0 || !session->store->retryable)
                break;
            session->store->retryable = false;
            usleep((useconds_t)(1000 * attempt + rand() % 5000));
        }
        free(days);
    }
    for (int attempt = 1, partitioned = rc == 0; partitioned && attempt <= MAX_TRANSACTION_TRIES;
         attempt++) {
        session->store->retryable = false;
        rc = try_write_pending(session, why, sizeof why);
        if (rc == 0 || !session->store->retryable)
            break;
        usleep((useconds_t)(1000 * attempt + rand() % 5000)); /* back off, out of step */
    }
    if (rc < 0) {
        tally_error("archive: %s: %s", session->store->location, why);
        session->database_failed = true;
    }
    free_pending(session);
    return rc;
}

/* Takes a parsed record (in the writing thread) into the current batch, and
 * writes the batch when it is full. */
int ingest_session_take(struct ingest_session *session, struct summary_record *record)
{
    if (session->database_failed) {
        summary_record_free(record);
        free(record);
        return -1;
    }
    if (!session->pending) {
        session->pending = calloc(session->batch_size, sizeof *session->pending);
        if (!session->pending) {
            tally_error("archive: out of memory");
            session->database_failed = true;
            summary_record_free(record);
            free(record);
            return -1;
        }
    }
    session->pending[session->npending++] = record;
    if (session->npending >= session->batch_size)
        return write_pending(session);
    return 0;
}

int ingest_session_finish(struct ingest_session *session)
{
    int rc = write_pending(session);
    free(session->pending);
    session->pending = NULL;
    summary_members_free(&session->members);
    return rc;
}
