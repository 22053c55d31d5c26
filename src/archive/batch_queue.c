/* A bounded FIFO of parts of transactions between the reading and the
 * writing thread of 'tally archive add' (see batch_queue.h). A part (5,000
 * summaries) is the unit handed over: the threads wake each other once a
 * part, not once a summary (one record per wake-up had made the ping-pong
 * cost a fifth of the CPU). */
#include "archive/batch_queue.h"

#include <string.h>

#include "archive/ingest_files.h"

void batch_queue_init(struct batch_queue *q)
{
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->not_empty, NULL);
    pthread_cond_init(&q->not_full, NULL);
}

void batch_queue_destroy(struct batch_queue *q)
{
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->not_empty);
    pthread_cond_destroy(&q->not_full);
}

void batch_queue_close(struct batch_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->done = true;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
}

struct ingest_batch *batch_queue_push(struct batch_queue *q, struct ingest_batch *batch)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == BATCH_QUEUE_CAPACITY)
        pthread_cond_wait(&q->not_full, &q->lock);
    q->items[(q->head + q->count++) % BATCH_QUEUE_CAPACITY] = batch;
    pthread_cond_signal(&q->not_empty);
    struct ingest_batch *spent = q->spent;
    q->spent = NULL;
    pthread_mutex_unlock(&q->lock);
    return spent;
}

void batch_queue_give_back(struct batch_queue *q, struct ingest_batch *batch)
{
    pthread_mutex_lock(&q->lock);
    batch->spent_next = q->spent;
    q->spent = batch;
    pthread_mutex_unlock(&q->lock);
}

struct ingest_batch *batch_queue_take_spent(struct batch_queue *q)
{
    pthread_mutex_lock(&q->lock);
    struct ingest_batch *spent = q->spent;
    q->spent = NULL;
    pthread_mutex_unlock(&q->lock);
    return spent;
}

struct ingest_batch *batch_queue_pop(struct batch_queue *q)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == 0 && !q->done)
        pthread_cond_wait(&q->not_empty, &q->lock);
    struct ingest_batch *batch = NULL;
    if (q->count > 0) {
        batch = q->items[q->head];
        q->head = (q->head + 1) % BATCH_QUEUE_CAPACITY;
        q->count--;
        pthread_cond_signal(&q->not_full);
    }
    pthread_mutex_unlock(&q->lock);
    return batch;
}
