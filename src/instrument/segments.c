/* Segment directory and segment copies (segments.h). Copies, not live maps,
 * for what is reported: a process that is still writing cannot change a
 * report half-way, and a process killed mid-run leaves its file behind to be
 * read like any other. */
#include "instrument/segments.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/directories.h"
#include "util/error.h"
#include "util/vec.h"

int segment_dir_create(char *path, size_t len)
{
    struct stat st;
    const char *base = (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
                           ? "/dev/shm" : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if ((size_t)snprintf(path, len, "%s/tally-probe-XXXXXX", base) >= len || !mkdtemp(path)) {
        tally_error_errno("instrumentation: cannot create a segment directory in %s", base);
        return -1;
    }
    return 0;
}

void segment_dir_remove(const char *path)
{
    remove_flat_directory(path);
}

static struct tally_segment *read_copy(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    struct tally_segment *s = NULL;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size == TALLY_SEG_SIZE && (s = malloc(sizeof *s))) {
        size_t done = 0;
        while (done < sizeof *s) {
            ssize_t n = pread(fd, (char *)s + done, sizeof *s - done, (off_t)done);
            if (n <= 0)
                break;
            done += (size_t)n;
        }
        if (done != sizeof *s || s->control.c.magic != TALLY_SEG_MAGIC ||
            s->control.c.version != TALLY_SEG_VERSION) {
            free(s);
            s = NULL;
        } else { /* strings from another process: terminate them */
            s->d.host[sizeof s->d.host - 1] = s->d.library[sizeof s->d.library - 1] = '\0';
            s->d.exe[sizeof s->d.exe - 1] = '\0';
            for (int i = 0; i < TALLY_SEG_MAX_PROBES; i++)
                s->d.probes[i].name[TALLY_SEG_NAME - 1] = '\0';
            for (int i = 0; i < TALLY_SEG_MAX_COUNTERS; i++)
                s->d.counters[i].name[TALLY_SEG_NAME - 1] = '\0';
            if (s->d.probe_count > TALLY_SEG_MAX_PROBES)
                s->d.probe_count = TALLY_SEG_MAX_PROBES;
            if (s->d.counter_count > TALLY_SEG_MAX_COUNTERS)
                s->d.counter_count = TALLY_SEG_MAX_COUNTERS;
        }
    }
    close(fd);
    return s;
}

static int by_rank_then_pid(const void *a, const void *b)
{
    const struct tally_segment *x = *(struct tally_segment *const *)a, *y = *(struct tally_segment *const *)b;
    if (x->d.rank != y->d.rank)
        return x->d.rank < y->d.rank ? -1 : 1;
    return (x->d.pid > y->d.pid) - (x->d.pid < y->d.pid);
}

int segment_set_load(const char *dir, struct segment_set *set)
{
    set->items = NULL;
    set->count = 0;
    DIR *d = opendir(dir);
    if (!d) {
        tally_error_errno("instrumentation: %s", dir);
        return -1;
    }
    size_t cap = 0;
    struct dirent *e;
    char path[PATH_MAX];
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".seg") || e->d_name[0] == '.')
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            continue;
        struct tally_segment *s = read_copy(path);
        if (!s)
            continue;
        struct tally_segment **slot = VEC_PUSH(set->items, set->count, cap);
        if (!slot) {
            free(s);
            break;
        }
        *slot = s;
    }
    closedir(d);
    if (set->count)
        qsort(set->items, set->count, sizeof *set->items, by_rank_then_pid);
    return 0;
}

void segment_set_free(struct segment_set *set)
{
    for (size_t i = 0; i < set->count; i++)
        free(set->items[i]);
    free(set->items);
    set->items = NULL;
    set->count = 0;
}

struct tally_segment *segment_map(const char *dir, pid_t pid)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%d.seg", dir, (int)pid) >= sizeof path)
        return NULL;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size == TALLY_SEG_SIZE)
        p = mmap(NULL, TALLY_SEG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    struct tally_segment *s = p;
    if (s->control.c.magic != TALLY_SEG_MAGIC) {
        munmap(p, TALLY_SEG_SIZE);
        return NULL;
    }
    return s;
}

void segment_unmap(struct tally_segment *s)
{
    if (s)
        munmap(s, TALLY_SEG_SIZE);
}
