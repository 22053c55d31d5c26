/* Reading libtally-io's regions (io_segments.h): the slots of the run file
 * DIR/io.slots, then the images that had files of their own, DIR/io.PID.N.
 * A copy of what each process left, one at a time: only the header and the
 * records it took are read (tmpfs gives the untouched rest no pages). */
#include "instrument/io_segments.h"

#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/vec.h"

static int read_at(int fd, void *buf, size_t len, off_t at)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, at + (off_t)done);
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

#define COUNTER_KIND(name, kind) TALLY_IO_##kind,
static const int counter_kinds[] = {TALLY_IO_COUNTERS(COUNTER_KIND)};

static int64_t clamped(double v)
{
    if (!(v == v)) /* NaN */
        return 0;
    if (v > 4e18)
        return (int64_t)4e18;
    if (v < -4e18)
        return (int64_t)-4e18;
    return (int64_t)v;
}

/* The time-stamp counter now, with CLOCK_REALTIME read beside it; false
 * where there is none. */
static bool ticks_now(uint64_t *ticks, uint64_t *ns)
{
#if defined(__x86_64__) || defined(__i386__)
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *ticks = __builtin_ia32_rdtsc();
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return true;
#else
    (void)ticks;
    (void)ns;
    return false;
#endif
}

/* A region's times and timestamps (header.ticks) into ns: for the
 * time-stamp counter, the rate measured from the anchor to now against
 * CLOCK_REALTIME, timestamps counted from the anchor (in integers: a double
 * of ns since the epoch keeps only 256 ns). Unconvertible (no counter here,
 * or no time elapsed): times and timestamps become 0. */
struct tick_clock {
    int64_t anchor_ns, anchor_ticks;
    double rate; /* ns per tick; 0: unconvertible */
};

/* A timestamp in ticks → ns since the epoch (0 when unconvertible). */
static int64_t tick_time(const struct tick_clock *k, uint64_t t)
{
    int64_t out;
    if (k->rate <= 0 || __builtin_add_overflow(k->anchor_ns, clamped((double)(int64_t)(t - (uint64_t)k->anchor_ticks) * k->rate), &out))
        return 0;
    return out;
}

static void ticks_to_ns(struct tally_io_header *h, struct tally_io_record *records, uint32_t count)
{
    struct tick_clock k = {(int64_t)h->anchor_ns, (int64_t)h->anchor_ticks, 1};
    if (h->ticks == TALLY_IO_TICKS_TSC) {
        uint64_t tnow = 0, nnow = 0;
        k.rate = ticks_now(&tnow, &nnow) && tnow > h->anchor_ticks && nnow > h->anchor_ns
                     ? (double)(nnow - h->anchor_ns) / (double)(tnow - h->anchor_ticks)
                     : 0;
    } else if (h->ticks != TALLY_IO_TICKS_NS) {
        k.rate = 0;
    }
    h->start_ns = (uint64_t)tick_time(&k, h->start_ticks);
    h->end_ns = h->end_ticks ? (uint64_t)tick_time(&k, h->end_ticks) : 0;
    for (uint32_t i = 0; i < count; i++) {
        int64_t *c = records[i].counter;
        for (int j = 0; j < TALLY_IO_COUNTER_COUNT; j++) {
            int kind = counter_kinds[j];
            if (kind == TALLY_IO_D || kind == TALLY_IO_DM)
                c[j] = clamped((double)c[j] * k.rate);
            else if ((kind == TALLY_IO_T0 || kind == TALLY_IO_T1) && c[j])
                c[j] = tick_time(&k, (uint64_t)c[j]);
        }
    }
}

static bool has_counts(const struct tally_io_record *r)
{
    for (int i = 0; i < TALLY_IO_COUNTER_COUNT; i++)
        if (r->counter[i])
            return true;
    return false;
}

/* What a load hands each image to, and which images: all, or only pid's. */
struct loader {
    struct io_image_set *set;
    size_t cap;
    void (*each)(void *ctx, const struct io_image *img);
    void *ctx;
    pid_t only; /* 0: every pid */
};

/* The region at offset AT of FD: 0; 1 when it is another pid's than
 * `only` (its records not read); -1 when unreadable. */
static int read_image(int fd, off_t at, struct io_image *img, pid_t only)
{
    int rc = -1;
    memset(img, 0, sizeof *img);
    struct tally_io_header *h = &img->header;
    if (read_at(fd, h, sizeof *h, at) < 0 ||
        h->magic != TALLY_IO_MAGIC || h->version != TALLY_IO_VERSION || h->record_size != TALLY_IO_RECORD ||
        h->capacity != TALLY_IO_CAPACITY)
        goto out;
    h->exe[sizeof h->exe - 1] = h->exec_target[sizeof h->exec_target - 1] = '\0';
    if (only && h->pid != only)
        return 1;
    uint32_t taken = h->records > TALLY_IO_CAPACITY ? TALLY_IO_CAPACITY : (uint32_t)h->records;
    img->records = calloc((size_t)taken + 1, sizeof *img->records);
    if (!img->records)
        goto out;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < taken; i++) {
        struct tally_io_record *r = &img->records[kept];
        if (read_at(fd, r, sizeof *r, at + TALLY_IO_HEADER + (off_t)i * TALLY_IO_RECORD) < 0)
            goto out;
        if (!r->ready)
            continue; /* taken by a process killed before it wrote the path */
        r->path[TALLY_IO_PATH - 1] = '\0';
        kept++;
    }
    /* The incomplete record counts only files that found no record of
     * their own, each counted in past_bound first (the helper's
     * io_record_for_abs): read only then (a pread per region less; the
     * 1000-process loop has 2000). */
    struct tally_io_record *inc = &img->records[kept];
    if (h->past_bound &&
        read_at(fd, inc, sizeof *inc, at + TALLY_IO_HEADER + (off_t)TALLY_IO_CAPACITY * TALLY_IO_RECORD) == 0 &&
        has_counts(inc)) {
        memcpy(inc->path, TALLY_IO_INCOMPLETE_NAME, sizeof TALLY_IO_INCOMPLETE_NAME);
        kept++;
    }
    img->count = kept;
    ticks_to_ns(h, img->records, kept);
    rc = 0;
out:
    if (rc < 0) {
        free(img->records);
        img->records = NULL;
    }
    return rc;
}

static int by_pid_then_order(const void *a, const void *b)
{
    const struct io_image *x = a, *y = b;
    if (x->header.pid != y->header.pid)
        return x->header.pid < y->header.pid ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* Hands the image read at AT of FD to each() and keeps its header. */
static void take_image(struct loader *l, int fd, off_t at, uint64_t order)
{
    struct io_image_set *set = l->set;
    if (VEC_RESERVE(set->items, l->cap, set->count + 1) < 0)
        return;
    struct io_image *img = &set->items[set->count];
    int rc = read_image(fd, at, img, l->only);
    if (rc == 0) {
        img->order = order;
        l->each(l->ctx, img);
        free(img->records);
        img->records = NULL;
        set->count++;
    } else if (rc < 0) {
        set->unreadable++;
    }
}

/* The slots of DIR/io.slots (none when the file is absent). */
static void take_slots(const char *dir, struct loader *l)
{
    struct io_image_set *set = l->set;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, TALLY_IO_RUN_FILE) >= sizeof path)
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct tally_io_run run;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size == (off_t)tally_io_slot_offset(TALLY_IO_SLOTS) &&
        read_at(fd, &run, sizeof run, 0) == 0 && run.magic == TALLY_IO_RUN_MAGIC &&
        run.version == TALLY_IO_VERSION && run.slot_size == TALLY_IO_SLOT && run.slots == TALLY_IO_SLOTS) {
        uint64_t taken = run.taken < TALLY_IO_SLOTS ? run.taken : TALLY_IO_SLOTS;
        /* Room for every slot at once (not grown and copied as they come);
         * a failure here leaves take_image to grow it. */
        if (!l->only)
            (void)VEC_RESERVE(set->items, l->cap, set->count + taken);
        for (uint64_t i = 0; i < taken; i++)
            take_image(l, fd, (off_t)tally_io_slot_offset(i), i);
    } else {
        set->unreadable++;
    }
    close(fd);
}

static int load(const char *dir, struct loader *l)
{
    struct io_image_set *set = l->set;
    memset(set, 0, sizeof *set);
    DIR *d = opendir(dir);
    if (!d) {
        tally_error_errno("level 3: %s", dir);
        return -1;
    }
    take_slots(dir, l);
    struct dirent *e;
    char path[PATH_MAX];
    while ((e = readdir(d))) {
        char *end;
        unsigned long image;
        const char *dot = strncmp(e->d_name, "io.", 3) ? NULL : strchr(e->d_name + 3, '.');
        if (!dot || (image = strtoul(dot + 1, &end, 10), *end) || dot[1] < '0' || dot[1] > '9')
            continue; /* io.slots, its creator's io.slots.tmp.PID, anything else */
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            continue;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0 || st.st_size != TALLY_IO_SIZE)
            set->unreadable++;
        else /* after every slot: a pid's files come once the slots ran out */
            take_image(l, fd, 0, (uint64_t)TALLY_IO_SLOTS + image);
        if (fd >= 0)
            close(fd);
    }
    closedir(d);
    if (set->count)
        qsort(set->items, set->count, sizeof *set->items, by_pid_then_order);
    /* An image's number: its place among its pid's regions. */
    for (size_t i = 0; i < set->count; i++)
        set->items[i].header.image =
            i > 0 && set->items[i - 1].header.pid == set->items[i].header.pid ? set->items[i - 1].header.image + 1 : 0;
    return 0;
}

int io_image_set_load(const char *dir, struct io_image_set *set,
                      void (*each)(void *ctx, const struct io_image *img), void *ctx)
{
    struct loader l = {.set = set, .each = each, .ctx = ctx};
    return load(dir, &l);
}

int io_image_set_load_pid(const char *dir, pid_t pid, struct io_image_set *set,
                          void (*each)(void *ctx, const struct io_image *img), void *ctx)
{
    struct loader l = {.set = set, .each = each, .ctx = ctx, .only = pid};
    return load(dir, &l);
}

void io_image_set_free(struct io_image_set *set)
{
    free(set->items);
    memset(set, 0, sizeof *set);
}
