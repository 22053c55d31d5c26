/* A write-ahead log checkpointed in a thread of its own (see
 * sqlite_checkpointer.h). SQLite calls the writer connection's log hook
 * after each commit with the log's length in pages; the hook, instead of
 * checkpointing there (SQLite's default, past 1,000 pages), wakes this
 * thread, which runs a passive checkpoint on its own connection: that one
 * copies what is committed without taking the writer's lock, so both go on
 * at once.
 *
 * SQLite rewinds the log to its start only at a commit whose transaction
 * began after a checkpoint had copied all of it. The writer begins its next
 * transaction at once, while this thread still copies the last one, so the
 * log would grow for the whole ingest (and reads of its pages cost more as
 * it grows). Once it is past rewind_pages, the hook waits for the
 * running checkpoint to end before the writer goes on: that one transaction
 * then begins on a fully copied log and rewinds it. The writer waits once
 * every few transactions, for one checkpoint, instead of at every commit. */
#include "archive/sqlite_checkpointer.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "archive/libsqlite_api.h"

/* SQLite's own threshold (wal_autocheckpoint), given back at the stop */
#define AUTOCHECKPOINT_PAGES 1000

struct sqlite_checkpointer {
    sqlite3 *writer, *own;
    int rewind_pages;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    bool pending;  /* a commit since the last checkpoint began */
    bool running;  /* a checkpoint is being run */
    bool stopping;
};

static void *checkpoint_main(void *arg)
{
    struct sqlite_checkpointer *c = arg;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->pending && !c->stopping)
            pthread_cond_wait(&c->wake, &c->lock);
        if (c->stopping)
            break;
        c->pending = false;
        c->running = true;
        pthread_mutex_unlock(&c->lock);
        /* a failure (another process checkpointing, a lock) is left to the
         * next commit's wake-up, or to the writer's own at the stop */
        SQLITE(sqlite3_wal_checkpoint_v2)(c->own, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&c->lock);
        c->running = false;
        pthread_cond_broadcast(&c->idle);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* The writer's log hook, after each commit: pages, the log's length. */
static int after_commit(void *arg, sqlite3 *db, const char *schema, int pages)
{
    struct sqlite_checkpointer *c = arg;
    pthread_mutex_lock(&c->lock);
    c->pending = true;
    pthread_cond_signal(&c->wake);
    if (pages > c->rewind_pages)
        while (c->pending || c->running)
            pthread_cond_wait(&c->idle, &c->lock);
    pthread_mutex_unlock(&c->lock);
    return SQLITE_OK;
}

struct sqlite_checkpointer *sqlite_checkpointer_start(sqlite3 *writer, const char *path,
                                                      int rewind_pages)
{
    struct sqlite_checkpointer *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->writer = writer;
    c->rewind_pages = rewind_pages;
    /* a read opens the file and its log: a connection that has read
     * nothing checkpoints nothing */
    if (SQLITE(sqlite3_open_v2)(path, &c->own, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK ||
        SQLITE(sqlite3_exec)(c->own, "PRAGMA schema_version", NULL, NULL, NULL) != SQLITE_OK) {
        SQLITE(sqlite3_close)(c->own);
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->wake, NULL);
    pthread_cond_init(&c->idle, NULL);
    if (pthread_create(&c->thread, NULL, checkpoint_main, c) != 0) {
        pthread_mutex_destroy(&c->lock);
        pthread_cond_destroy(&c->wake);
        pthread_cond_destroy(&c->idle);
        SQLITE(sqlite3_close)(c->own);
        free(c);
        return NULL;
    }
    SQLITE(sqlite3_wal_hook)(writer, after_commit, c);
    return c;
}

void sqlite_checkpointer_stop(struct sqlite_checkpointer *c)
{
    if (!c)
        return;
    /* the writer's own checkpoints again (this replaces the hook) */
    SQLITE(sqlite3_wal_autocheckpoint)(c->writer, AUTOCHECKPOINT_PAGES);
    pthread_mutex_lock(&c->lock);
    c->stopping = true;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->wake);
    pthread_cond_destroy(&c->idle);
    SQLITE(sqlite3_close)(c->own);
    free(c);
}
