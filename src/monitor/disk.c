/* Directory footprint (see disk.h). A file with N hard links adds 1/N of
 * its blocks at each link, so it counts once when all links are inside the
 * walked tree (the seed's "aliasing" of hard links). */
#include "monitor/disk.h"

#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "util/clock.h"
#include "core/units.h"

/* nftw has no context argument: walks are serialized by this lock. */
static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;
static double walk_bytes, walk_files;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)path;
    (void)ftw;
    if (type == FTW_F || type == FTW_SL) {
        double links = st->st_nlink > 1 ? (double)st->st_nlink : 1;
        walk_bytes += (double)st->st_blocks * 512.0 / links;
        walk_files += 1;
    }
    return 0;
}

double disk_measure(const char *const *dirs, size_t count, struct disk_usage *out)
{
    double started = clock_monotonic_seconds();
    pthread_mutex_lock(&walk_lock);
    walk_bytes = walk_files = 0;
    if (count == 0)
        nftw(".", visit, 32, FTW_PHYS | FTW_MOUNT);
    for (size_t i = 0; i < count; i++)
        nftw(dirs[i], visit, 32, FTW_PHYS | FTW_MOUNT);
    out->megabytes = walk_bytes / BYTES_PER_MB;
    out->files = walk_files;
    pthread_mutex_unlock(&walk_lock);
    return clock_monotonic_seconds() - started;
}

struct disk_watch {
    const char *const *dirs;
    size_t count;
    double interval;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stopping, fresh;
    struct disk_usage latest;
};

static void *watch_loop(void *arg)
{
    struct disk_watch *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stopping) {
        pthread_mutex_unlock(&w->lock);
        struct disk_usage d;
        double took = disk_measure(w->dirs, w->count, &d);
        pthread_mutex_lock(&w->lock);
        w->latest = d;
        w->fresh = true;
        double gap = fmax(w->interval, 100 * took);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        double end = (double)until.tv_sec + until.tv_nsec / 1e9 + gap;
        until.tv_sec = (time_t)end;
        until.tv_nsec = (long)((end - floor(end)) * 1e9);
        while (!w->stopping && pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

struct disk_watch *disk_watch_start(const char *const *dirs, size_t count, double interval)
{
    struct disk_watch *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->dirs = dirs;
    w->count = count;
    w->interval = interval;
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
