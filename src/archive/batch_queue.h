/* A bounded FIFO handing parts of transactions (parsed summaries; the last
 * part with the transaction's aggregates, ingest_files.h) from the thread
 * that reads and parses them to the thread that writes them to the
 * database. */
#ifndef TALLY_ARCHIVE_BATCH_QUEUE_H
#define TALLY_ARCHIVE_BATCH_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* Parts waiting: a transaction's, so that the reader goes on parsing while
 * the writer merges the aggregates and commits. */
#define BATCH_QUEUE_CAPACITY 10

struct ingest_batch;

struct batch_queue {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    struct ingest_batch *items[BATCH_QUEUE_CAPACITY];
    size_t head, count;
    bool done; /* the reader has finished */
};

void batch_queue_init(struct batch_queue *q);
void batch_queue_destroy(struct batch_queue *q);
/* Adds a part, waiting while the queue is full. */
void batch_queue_push(struct batch_queue *q, struct ingest_batch *batch);
/* The reader is done: batch_queue_pop returns what is left, then NULL. */
void batch_queue_close(struct batch_queue *q);
/* The next part, waiting for one; NULL when the reader is done and nothing
 * is left. */
struct ingest_batch *batch_queue_pop(struct batch_queue *q);

#endif
