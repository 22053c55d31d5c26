/* A bounded FIFO of parsed summaries between the reading and the writing
 * thread of 'tally archive add' (see record_queue.h). The threads wake each
 * other for RECORD_QUEUE_WAKE records at a time, not for each one: one record
 * per wake-up made the ping-pong cost a fifth of the CPU. */
#include "archive/record_queue.h"

#include <string.h>

void record_queue_init(struct record_queue *q)
{
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->not_empty, NULL);
    pthread_cond_init(&q->not_full, NULL);
}

void record_queue_destroy(struct record_queue *q)
{
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->not_empty);
    pthread_cond_destroy(&q->not_full);
}

void record_queue_close(struct record_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->done = true;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
}

void record_queue_push(struct record_queue *q, struct summary_record *record)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == RECORD_QUEUE_CAPACITY)
        pthread_cond_wait(&q->not_full, &q->lock);
    q->items[(q->head + q->count++) % RECORD_QUEUE_CAPACITY] = record;
    if (q->count >= RECORD_QUEUE_WAKE)
        pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
}

size_t record_queue_pop_some(struct record_queue *q, struct summary_record **out, size_t max)
{
    pthread_mutex_lock(&q->lock);
    while (q->count < RECORD_QUEUE_WAKE && !q->done)
        pthread_cond_wait(&q->not_empty, &q->lock);
    size_t n = 0;
    while (n < max && q->count > 0) {
        out[n++] = q->items[q->head];
        q->head = (q->head + 1) % RECORD_QUEUE_CAPACITY;
        q->count--;
    }
    if (q->count <= RECORD_QUEUE_CAPACITY - RECORD_QUEUE_WAKE)
        pthread_cond_signal(&q->not_full);
    pthread_mutex_unlock(&q->lock);
    return n;
}

