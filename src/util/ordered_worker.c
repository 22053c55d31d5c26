/* A thread working on handed items in order (see ordered_worker.h). */
#include "util/ordered_worker.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct ordered_worker {
    ordered_work_fn work;
    void *ctx;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t handed, worked;
    size_t items;  /* handed over */
    size_t done;   /* worked on, from 0 */
    bool failed;   /* the item `done` failed; nothing after it is worked on */
    bool stopping;
};

static void *worker_main(void *arg)
{
    struct ordered_worker *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->done == w->items && !w->stopping)
            pthread_cond_wait(&w->handed, &w->lock);
        if (w->stopping || w->failed)
            break;
        size_t item = w->done;
        pthread_mutex_unlock(&w->lock);
        int rc = w->work(w->ctx, item);
        pthread_mutex_lock(&w->lock);
        if (rc < 0)
            w->failed = true;
        else
            w->done++;
        pthread_cond_broadcast(&w->worked);
        if (w->failed)
            break;
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

struct ordered_worker *ordered_worker_start(ordered_work_fn work, void *ctx)
{
    struct ordered_worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->work = work;
    w->ctx = ctx;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->handed, NULL);
    pthread_cond_init(&w->worked, NULL);
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->handed);
        pthread_cond_destroy(&w->worked);
        free(w);
        return NULL;
    }
    return w;
}

void ordered_worker_hand(struct ordered_worker *w, size_t items)
{
    pthread_mutex_lock(&w->lock);
    if (items > w->items)
        w->items = items;
    pthread_cond_signal(&w->handed);
    pthread_mutex_unlock(&w->lock);
}

int ordered_worker_wait(struct ordered_worker *w, size_t item)
{
    pthread_mutex_lock(&w->lock);
    while (w->done <= item && !w->failed)
        pthread_cond_wait(&w->worked, &w->lock);
    int rc = w->done > item ? 0 : -1;
    pthread_mutex_unlock(&w->lock);
    return rc;
}

void ordered_worker_stop(struct ordered_worker *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stopping = true;
    pthread_cond_signal(&w->handed);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->handed);
    pthread_cond_destroy(&w->worked);
    free(w);
}
