/* Batches of ingest: parsed summaries gathered into parts of transactions
 * with the transaction's runs' aggregates (the reading side); each part
 * stored as it comes, in a transaction that commits with its last part, and
 * that is run again whole when the database aborts it for a deadlock or a
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
#include "util/vec.h"

/* Summaries a transaction. Each transaction rewrites the aggregate rows of
 * every name and category day its runs fall on, so larger ones rewrite
 * each day fewer times: 50,000 (half a day to a few days of a site's runs)
 * took 20 % less of the writing thread's CPU than 10,000 into SQLite; into
 * PostgreSQL, the second half of a 10^6 stream (on the days the first half
 * filled) took 8.9 s instead of 14.3. The
 * reader hands a transaction over in parts, which the writer stores as
 * they come (a whole transaction at once would leave the writer idle
 * while the reader parses it): 5,000 into SQLite, 10,000 into PostgreSQL
 * (a COPY each: its values are held a second time, as the COPY's). In
 * memory: the writer's transaction, BATCH_QUEUE_CAPACITY parts waiting and
 * the part being filled, ~110,000 parsed summaries (~0.1 GB) into SQLite,
 * ~160,000 into PostgreSQL; with the transaction's aggregates and the
 * libraries, the whole process peaked at 246 MiB for the first half of the
 * bench's 10^6 into SQLite, 314 MB for its second half into PostgreSQL
 * (bench/results/archive.md). PostgreSQL's monthly partitions are made
 * before the transaction begins, for the months of its first part and the
 * month after; a later part of a month without its partition (a stream
 * not in the order of its starts) ends the transaction, which is then
 * written again whole once the partitions are made (as after a
 * deadlock). */
#define SQLITE_BATCH 50000
#define SQLITE_PART 5000
#define COPY_BATCH 50000
#define COPY_PART 10000

void ingest_session_init(struct ingest_session *session, struct store *store,
                         const struct ingest_options *options)
{
    memset(session, 0, sizeof *session);
    session->store = store;
    session->options = options;
    bool copy = store_can_copy(store);
    session->batch_size = copy ? COPY_BATCH : SQLITE_BATCH;
    session->part_size = copy ? COPY_PART : SQLITE_PART;
}

#define MAX_TRANSACTION_TRIES 8

static void batch_free(struct ingest_batch *batch)
{
    if (!batch)
        return;
    for (size_t i = 0; i < batch->n; i++)
        summary_record_free(batch->records[i]);
    free(batch->records);
    free(batch->slab);
    aggregate_table_free(batch->aggregates);
    free(batch);
}

void ingest_batches_free(struct ingest_batch *spent)
{
    while (spent) {
        struct ingest_batch *next = spent->spent_next;
        batch_free(spent);
        spent = next;
    }
}

/* The writer is done with a part: freed here, or by the reader that
 * allocated it (batch_queue.h says why). */
static void release(struct ingest_session *session, struct ingest_batch *part)
{
    if (session->queue)
        batch_queue_give_back(session->queue, part);
    else
        batch_free(part);
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

/* What follows the rows in a transaction, and its commit. */
static int finish_transaction(struct ingest_session *session, const struct aggregate_table *aggs,
                              char *why, size_t why_size)
{
    struct store *s = session->store;
    struct summary_record *const *records = session->records;
    size_t n = session->nrecords;
    if (ingest_name_fields(s, records, n, why, why_size) < 0 ||
        ingest_aggregates(s, records, n, aggs, why, why_size) < 0 ||
        store_file_rows(s, records, n, why, why_size) < 0 || store_commit(s, why, why_size) < 0) {
        store_rollback(s);
        return -1;
    }
    return 0;
}

static void count_committed(struct ingest_session *session, size_t added, long long last_id)
{
    session->added += added;
    session->duplicates += session->nrecords - added;
    if (last_id)
        session->last_id = last_id;
}

/* The whole transaction in one go (after a failure); counts only what
 * commits. */
static int try_write_transaction(struct ingest_session *session, const struct aggregate_table *aggs,
                                 char *why, size_t why_size)
{
    struct store *s = session->store;
    size_t added = 0;
    long long last_id = 0;
    if (store_begin(s, why, why_size) < 0)
        return -1;
    if (ingest_records(s, session->records, session->nrecords, &added, &last_id, why, why_size) < 0) {
        store_rollback(s);
        return -1;
    }
    if (finish_transaction(session, aggs, why, why_size) < 0)
        return -1;
    count_committed(session, added, last_id);
    return 0;
}

/* The months of records get their partitions, in transactions of their
 * own (nothing to do where summaries is not partitioned). */
/* The start days of records (malloc'd, room for one more), or NULL (out
 * of memory, said). */
static long long *start_days(struct summary_record *const *records, size_t n, char *why,
                             size_t why_size)
{
    long long *days = malloc((n + 1) * sizeof *days);
    if (!days) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        days[i] = records[i]->start_day;
    return days;
}

static int ensure_partitions(struct ingest_session *session, struct summary_record *const *records,
                             size_t n, char *why, size_t why_size)
{
    long long *days = start_days(records, n, why, why_size);
    if (!days)
        return -1;
    /* and the month after the last day's: a stream in the order of its
     * starts crosses into it in a later part of the transaction */
    long long last = SUMMARY_NO_START_DAY, first_of_month, first_of_next;
    char month[32];
    for (size_t i = 0; i < n; i++)
        if (days[i] != SUMMARY_NO_START_DAY && (last == SUMMARY_NO_START_DAY || days[i] > last))
            last = days[i];
    if (last != SUMMARY_NO_START_DAY &&
        partition_of_day(last, month, sizeof month, &first_of_month, &first_of_next) == 0)
        days[n++] = first_of_next;
    int rc = -1;
    session->store->retryable = false;
    for (int attempt = 1; attempt <= MAX_TRANSACTION_TRIES; attempt++) {
        rc = partitions_ensure(session->store, "summary_rows", days, n, 1, why, why_size);
        if (rc == 0 || !session->store->retryable)
            break;
        session->store->retryable = false;
        usleep((useconds_t)(1000 * attempt + rand() % 5000));
    }
    free(days);
    return rc;
}

/* Keeps a part (and its records) in the transaction being written. */
static int keep_part(struct ingest_session *session, struct ingest_batch *part)
{
    if (VEC_RESERVE(session->records, session->records_capacity, session->nrecords + part->n) < 0 ||
        !VEC_PUSH(session->parts, session->nparts, session->parts_capacity)) {
        release(session, part);
        return -1;
    }
    session->parts[session->nparts - 1] = part;
    if (part->n) /* (an empty last part has no records array) */
        memcpy(session->records + session->nrecords, part->records, part->n * sizeof *part->records);
    session->nrecords += part->n;
    return 0;
}

static void drop_transaction(struct ingest_session *session)
{
    for (size_t i = 0; i < session->nparts; i++)
        release(session, session->parts[i]);
    session->nparts = session->nrecords = 0;
    session->open = session->broken = false;
    session->open_added = 0;
    session->open_last_id = 0;
}

static void fail(struct ingest_session *session, const char *why)
{
    tally_error("archive: %s: %s", session->store->location, why);
    session->database_failed = true;
    if (session->open)
        store_rollback(session->store);
    drop_transaction(session);
}

/* Stores a part in the open transaction (begun with the first part); a
 * failure breaks the transaction, run again whole at its end when the
 * database says a new attempt may succeed. */
static void store_part(struct ingest_session *session, struct ingest_batch *part)
{
    char why[512];
    struct store *s = session->store;
    size_t added = 0;
    long long last_id = 0;
    s->retryable = false;
    if (!session->open) {
        if (ensure_partitions(session, part->records, part->n, why, sizeof why) < 0) {
            fail(session, why);
            return;
        }
        if (store_begin(s, why, sizeof why) < 0) {
            session->broken = true;
            if (!s->retryable)
                fail(session, why);
            return;
        }
        session->open = true;
    } else if (s->backend->partition_by) {
        /* a month the transaction's first part did not have: its partition
         * cannot be made in the transaction, which is written again whole */
        long long *days = start_days(part->records, part->n, why, sizeof why);
        int missing = days ? partitions_missing(s, days, part->n, why, sizeof why) : -1;
        free(days);
        if (missing != 0) {
            store_rollback(s);
            session->open = false;
            session->broken = true;
            if (missing < 0)
                fail(session, why);
            return;
        }
    }
    if (ingest_records(s, part->records, part->n, &added, &last_id, why, sizeof why) < 0) {
        bool retryable = s->retryable;
        store_rollback(s);
        session->open = false;
        session->broken = true;
        if (!retryable)
            fail(session, why);
        return;
    }
    session->open_added += added;
    if (last_id)
        session->open_last_id = last_id;
}

/* Ends the transaction with its last part: commits the open one, or runs
 * it again whole, backing off out of step with the other writer (two
 * writers adding overlapping summaries in different orders); nothing is
 * counted twice because counts are taken only from the transaction that
 * commits. */
static int end_transaction(struct ingest_session *session, const struct aggregate_table *aggs)
{
    char why[512] = "";
    struct store *s = session->store;
    s->retryable = false;
    if (session->open && !session->broken) {
        session->open = false;
        if (finish_transaction(session, aggs, why, sizeof why) == 0) {
            count_committed(session, session->open_added, session->open_last_id);
            drop_transaction(session);
            return 0;
        }
        if (!s->retryable) {
            fail(session, why);
            return -1;
        }
    }
    session->open = false;
    int rc = ensure_partitions(session, session->records, session->nrecords, why, sizeof why);
    for (int attempt = 1; rc == 0 && attempt <= MAX_TRANSACTION_TRIES; attempt++) {
        usleep((useconds_t)(1000 * attempt + rand() % 5000)); /* back off, out of step */
        s->retryable = false;
        if (try_write_transaction(session, aggs, why, sizeof why) == 0) {
            drop_transaction(session);
            return 0;
        }
        if (!s->retryable)
            break;
    }
    fail(session, why[0] ? why : "the transaction could not be written");
    return -1;
}

int ingest_session_write(struct ingest_session *session, struct ingest_batch *part)
{
    if (!part)
        return session->database_failed ? -1 : 0;
    if (session->database_failed) {
        release(session, part);
        drop_transaction(session);
        return -1;
    }
    bool ends = part->ends_transaction;
    struct aggregate_table *aggs = part->aggregates; /* kept with the part */
    if (keep_part(session, part) < 0) {
        fail(session, "out of memory");
        return -1;
    }
    if (!session->broken && part->n > 0)
        store_part(session, part);
    if (session->database_failed)
        return -1;
    if (!ends)
        return 0;
    if (session->nrecords == 0) {
        drop_transaction(session);
        return 0;
    }
    return end_transaction(session, aggs);
}

/* The part being filled, with room for a whole part; NULL when out of
 * memory (said). */
static struct ingest_batch *filling(struct ingest_session *session)
{
    if (!session->filling) {
        struct ingest_batch *batch = calloc(1, sizeof *batch);
        if (batch && (!(batch->records = malloc(session->part_size * sizeof *batch->records)) ||
                      !(batch->slab = malloc(session->part_size * sizeof *batch->slab)))) {
            free(batch->records);
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

/* Hands the part being filled over (to the queue, or writes it here); the
 * last of a transaction takes the transaction's aggregates with it. */
static int hand_over(struct ingest_session *session, bool ends_transaction)
{
    struct ingest_batch *part = session->filling;
    session->filling = NULL;
    if (!part && ends_transaction && session->transaction_count > 0)
        part = calloc(1, sizeof *part); /* an empty last part */
    if (!part) {
        if (ends_transaction && session->transaction_count > 0) {
            tally_error("archive: out of memory");
            session->database_failed = true;
        }
        return session->database_failed ? -1 : 0;
    }
    /* archived now (whole seconds: SQLite keeps an integral REAL in 4
     * bytes): the day of the aggregates of a run without a start */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    for (size_t i = 0; i < part->n; i++)
        part->records[i]->archived_at = (double)now.tv_sec;
    if (!session->transaction_aggregates && !session->aggregates_failed &&
        !(session->transaction_aggregates = aggregate_table_new()))
        session->aggregates_failed = true;
    if (!session->aggregates_failed &&
        ingest_aggregate_runs(session->transaction_aggregates, part->records, part->n,
                              (long long)session->transaction_count + 1) < 0)
        session->aggregates_failed = true;
    session->transaction_count += part->n;
    ends_transaction = ends_transaction || session->transaction_count >= session->batch_size;
    if (ends_transaction) {
        part->ends_transaction = true;
        /* NULL when out of memory: the writer builds them (ingest_aggregates) */
        if (!session->aggregates_failed &&
            aggregate_table_settle(session->transaction_aggregates) == 0) {
            part->aggregates = session->transaction_aggregates;
        } else {
            aggregate_table_free(session->transaction_aggregates);
        }
        session->transaction_aggregates = NULL;
        session->aggregates_failed = false;
        session->transaction_count = 0;
    }
    if (session->queue) {
        ingest_batches_free(batch_queue_push(session->queue, part));
        return 0;
    }
    return ingest_session_write(session, part);
}

int ingest_session_hand_over(struct ingest_session *session)
{
    return hand_over(session, true);
}

int ingest_session_take(struct ingest_session *session, struct summary_record *record)
{
    struct ingest_batch *part = session->database_failed ? NULL : filling(session);
    if (!part) {
        summary_record_free(record);
        return -1;
    }
    part->slab[part->n] = *record;
    part->records[part->n] = &part->slab[part->n];
    part->n++;
    if (part->n >= session->part_size)
        return hand_over(session, false);
    return 0;
}

int ingest_session_finish(struct ingest_session *session)
{
    int rc = ingest_session_hand_over(session);
    drop_transaction(session); /* nothing left, unless after a failure */
    free(session->parts);
    free(session->records);
    session->parts = NULL;
    session->records = NULL;
    aggregate_table_free(session->transaction_aggregates);
    session->transaction_aggregates = NULL;
    summary_members_free(&session->members);
    return rc;
}
