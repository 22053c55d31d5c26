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
    struct ingest_batch *spent; /* written parts given back, for the reader to free */
};

void batch_queue_init(struct batch_queue *q);
void batch_queue_destroy(struct batch_queue *q);
/* Adds a part, waiting while the queue is full; returns the parts the
 * writer gave back since (a list through their spent_next), for the reader
 * to free: memory is freed by the thread that allocated it, so the two
 * threads never wait on each other's malloc arena (a free from the writer
 * took the reader's arena lock while the reader grew its buffers: 3,500
 * sleeps of each thread per 500,000 summaries). */
struct ingest_batch *batch_queue_push(struct batch_queue *q, struct ingest_batch *batch);
/* The writer is done with a part: it goes back to the reader. */
void batch_queue_give_back(struct batch_queue *q, struct ingest_batch *batch);
/* The parts given back and not yet taken (a list, as batch_queue_push's). */
struct ingest_batch *batch_queue_take_spent(struct batch_queue *q);
/* The reader is done: batch_queue_pop returns what is left, then NULL. */
void batch_queue_close(struct batch_queue *q);
/* The next part, waiting for one; NULL when the reader is done and nothing
 * is left. */
struct ingest_batch *batch_queue_pop(struct batch_queue *q);

#endif
