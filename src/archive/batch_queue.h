/* A bounded FIFO handing batches of parsed summaries (with their
 * aggregates) from the thread that reads and parses them to the thread that
 * writes them to the database. */
#ifndef TALLY_ARCHIVE_BATCH_QUEUE_H
#define TALLY_ARCHIVE_BATCH_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* Batches waiting: one, so that the reader fills the next batch while the
 * writer writes one and a third waits (three batches in memory at most). */
#define BATCH_QUEUE_CAPACITY 1

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
/* Adds a batch, waiting while the queue is full. */
void batch_queue_push(struct batch_queue *q, struct ingest_batch *batch);
/* The reader is done: batch_queue_pop returns what is left, then NULL. */
void batch_queue_close(struct batch_queue *q);
/* The next batch, waiting for one; NULL when the reader is done and nothing
 * is left. */
struct ingest_batch *batch_queue_pop(struct batch_queue *q);

#endif
