/* A bounded FIFO handing parsed summaries from the thread that reads and
 * parses them to the thread that writes them to the database. */
#ifndef TALLY_ARCHIVE_RECORD_QUEUE_H
#define TALLY_ARCHIVE_RECORD_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "archive/ingest.h"

#define RECORD_QUEUE_CAPACITY 16384
#define RECORD_QUEUE_WAKE 64

struct record_queue {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    struct summary_record *items[RECORD_QUEUE_CAPACITY];
    size_t head, count;
    bool done; /* the reader has finished */
};

void record_queue_init(struct record_queue *q);
void record_queue_destroy(struct record_queue *q);
/* Adds a record, waiting while the queue is full. */
void record_queue_push(struct record_queue *q, struct summary_record *record);
/* The reader is done: record_queue_pop_some returns what is left, then 0. */
void record_queue_close(struct record_queue *q);
/* Up to max records into out; 0 when the reader is done and nothing is left. */
size_t record_queue_pop_some(struct record_queue *q, struct summary_record **out, size_t max);

#endif
