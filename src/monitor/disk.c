/* Directory footprint (see disk.h). A file with N hard links adds 1/N of
 * its blocks at each link, so it counts once when all links are inside the
 * walked tree (the seed's "aliasing" of hard links). */
#include "monitor/disk.h"

#include <ftw.h>
#include <sys/stat.h>
#include <time.h>

#include "util/units.h"

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

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double disk_measure(const char *const *dirs, size_t count, struct disk_usage *out)
{
    double started = now_seconds();
    walk_bytes = walk_files = 0;
    if (count == 0)
        nftw(".", visit, 32, FTW_PHYS | FTW_MOUNT);
    for (size_t i = 0; i < count; i++)
        nftw(dirs[i], visit, 32, FTW_PHYS | FTW_MOUNT);
    out->megabytes = walk_bytes / BYTES_PER_MB;
    out->files = walk_files;
    return now_seconds() - started;
}
