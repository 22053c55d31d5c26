/* Batches of ingest: parsed summaries gathered into batches with their
 * runs' aggregates (the reading side), each written in one transaction that
 * is run again when the database aborts it for a deadlock or a
 * serialization failure (the writing side; see ingest_files.h). */
#include "archive/ingest_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "archive/aggregate_store.h"
#include "archive/batch_queue.h"
#include "archive/file_rows.h"
#include "archive/partitions.h"
#include "util/error.h"

/* Summaries a transaction. Each transaction rewrites the aggregate rows of
 * every name and category day its runs fall on, so larger ones rewrite
 * each day fewer times: 50,000 (half a day to a few days of a site's runs)
 * took 20 % less of the writing thread's CPU than 10,000 into SQLite. Three
 * batches are in memory at most (batch_queue.h): ~0.2 GB of 50,000 parsed
 * summaries. PostgreSQL's bulk path holds a batch's values a second time,
 * as parameters of its COPY: 10,000 there. */
#define SQLITE_BATCH 50000
#define COPY_BATCH 10000

void ingest_session_init(struct ingest_session *session, struct store *store,
                         const struct ingest_options *options)
{
    memset(session, 0, sizeof *session);
    session->store = store;
    session->options = options;
    session->batch_size = store_can_copy(store) ? COPY_BATCH : SQLITE_BATCH;
}

#define MAX_TRANSACTION_TRIES 8

static void batch_free(struct ingest_batch *batch)
{
    if (!batch)
        return;
    for (size_t i = 0; i < batch->n; i++) {
        summary_record_free(batch->records[i]);
        free(batch->records[i]);
    }
    free(batch->records);
    aggregate_table_free(batch->aggregates);
    free(batch);
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

/* One transaction storing every record of the batch; counts only what
 * commits. */
static int try_write_batch(struct ingest_session *session, const struct ingest_batch *batch,
                           char *why, size_t why_size)
{
    struct store *s = session->store;
    size_t added = 0;
    long long last_id = 0;
    if (store_begin(s, why, why_size) < 0)
        return -1;
    if (ingest_records(s, batch->records, batch->n, &added, &last_id, why, why_size) < 0 ||
        ingest_name_fields(s, batch->records, batch->n, why, why_size) < 0 ||
        ingest_aggregates(s, batch->records, batch->n, batch->aggregates, why, why_size) < 0 ||
        store_file_rows(s, batch->records, batch->n, why, why_size) < 0 ||
        store_commit(s, why, why_size) < 0) {
        store_rollback(s);
        return -1;
    }
    session->added += added;
    session->duplicates += batch->n - added;
    if (last_id)
        session->last_id = last_id;
    return 0;
}

/* Writes a batch in one transaction, running it again when the database
 * aborted it for a deadlock or a serialization failure (two writers adding
 * overlapping summaries in different orders); nothing is counted twice
 * because counts are taken only from the transaction that commits. Frees
 * the batch. */
int ingest_session_write(struct ingest_session *session, struct ingest_batch *batch)
{
    char why[512];
    if (!batch || batch->n == 0 || session->database_failed) {
        batch_free(batch);
        return session->database_failed ? -1 : 0;
    }
    int rc = -1;
    /* the months of the batch get their partitions first, in transactions of
     * their own (nothing to do where summaries is not partitioned) */
    long long *days = malloc(batch->n * sizeof *days);
    for (size_t i = 0; days && i < batch->n; i++)
        days[i] = batch->records[i]->start_day;
    if (!days) {
        snprintf(why, sizeof why, "out of memory");
    } else {
        session->store->retryable = false;
        for (int attempt = 1; attempt <= MAX_TRANSACTION_TRIES; attempt++) {
            rc = partitions_ensure(session->store, "summaries", days, batch->n, 1, why,
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
        rc = try_write_batch(session, batch, why, sizeof why);
        if (rc == 0 || !session->store->retryable)
            break;
        usleep((useconds_t)(1000 * attempt + rand() % 5000)); /* back off, out of step */
    }
    if (rc < 0) {
        tally_error("archive: %s: %s", session->store->location, why);
        session->database_failed = true;
    }
    batch_free(batch);
    return rc;
}

/* The batch being filled, with room for a whole batch; NULL when out of
 * memory (said). */
static struct ingest_batch *filling(struct ingest_session *session)
{
    if (!session->filling) {
        struct ingest_batch *batch = calloc(1, sizeof *batch);
        if (batch && !(batch->records = calloc(session->batch_size, sizeof *batch->records))) {
            free(batch);
            batch = NULL;
        }
        if (!batch) {
            tally_error("archive: out of memory");
            session->database_failed = true;
        }
        session->filling = batch;
    }
    return session->filling;
}

int ingest_session_hand_over(struct ingest_session *session)
{
    struct ingest_batch *batch = session->filling;
    session->filling = NULL;
    if (!batch || batch->n == 0) {
        batch_free(batch);
        return session->database_failed ? -1 : 0;
    }
    /* archived now (whole seconds: SQLite keeps an integral REAL in 4
     * bytes): the day of the aggregates of a run without a start */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    for (size_t i = 0; i < batch->n; i++)
        batch->records[i]->archived_at = (double)now.tv_sec;
    /* NULL when out of memory: the writer builds them (ingest_aggregates) */
    batch->aggregates = ingest_aggregate_runs(batch->records, batch->n, true);
    if (session->queue) {
        batch_queue_push(session->queue, batch);
        return 0;
    }
    return ingest_session_write(session, batch);
}

int ingest_session_take(struct ingest_session *session, struct summary_record *record)
{
    struct ingest_batch *batch = session->database_failed ? NULL : filling(session);
    if (!batch) {
        summary_record_free(record);
        free(record);
        return -1;
    }
    batch->records[batch->n++] = record;
    if (batch->n >= session->batch_size)
        return ingest_session_hand_over(session);
    return 0;
}

int ingest_session_finish(struct ingest_session *session)
{
    int rc = ingest_session_hand_over(session);
    summary_members_free(&session->members);
    return rc;
}
