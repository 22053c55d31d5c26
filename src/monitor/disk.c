/* Directory footprint (see disk.h). A file with N hard links adds 1/N of
 * its blocks at each link, so it counts once when all links are inside the
 * walked tree (the seed's "aliasing" of hard links). */
#include "monitor/disk.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "core/units.h"
#include "monitor/disk_walk.h"
#include "util/clock.h"

double disk_measure(const char *const *dirs, size_t count, struct disk_usage *out)
{
    double started = clock_monotonic_seconds(), bytes = 0, files = 0;
    if (count == 0)
        disk_walk(".", &bytes, &files);
    for (size_t i = 0; i < count; i++)
        disk_walk(dirs[i], &bytes, &files);
    out->megabytes = bytes / BYTES_PER_MB;
    out->files = files;
    return clock_monotonic_seconds() - started;
}

struct disk_watch {
    const char *const *dirs;
    size_t count;
    double interval, first_in;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stopping, fresh;
    struct disk_usage latest;
};

/* Waits, the lock held, until gap seconds have passed or the watch stops. */
static void pause_for(struct disk_watch *w, double gap)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double end = (double)until.tv_sec + until.tv_nsec / 1e9 + gap;
    until.tv_sec = (time_t)end;
    until.tv_nsec = (long)((end - floor(end)) * 1e9);
    while (!w->stopping && pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0)
        ;
}

/* The first walk first_in seconds after the start of the watch, then one
 * every interval, or less often when a walk takes long. */
static void *watch_loop(void *arg)
{
    struct disk_watch *w = arg;
    pthread_mutex_lock(&w->lock);
    if (w->first_in > 0)
        pause_for(w, w->first_in);
    while (!w->stopping) {
        pthread_mutex_unlock(&w->lock);
        struct disk_usage d;
        double took = disk_measure(w->dirs, w->count, &d);
        pthread_mutex_lock(&w->lock);
        w->latest = d;
        w->fresh = true;
        pause_for(w, fmax(w->interval, 100 * took));
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

struct disk_watch *disk_watch_start(const char *const *dirs, size_t count, double interval,
                                     double first_in)
{
    struct disk_watch *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->dirs = dirs;
    w->count = count;
    w->interval = interval;
    w->first_in = first_in;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    /* The walker must not take the signals that interrupt the main loop. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&w->thread, NULL, watch_loop, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        free(w);
        return NULL;
    }
    return w;
}

bool disk_watch_latest(struct disk_watch *w, struct disk_usage *out)
{
    pthread_mutex_lock(&w->lock);
    bool fresh = w->fresh;
    if (fresh)
        *out = w->latest;
    w->fresh = false;
    pthread_mutex_unlock(&w->lock);
    return fresh;
}

void disk_watch_stop(struct disk_watch *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stopping = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    free(w);
}
