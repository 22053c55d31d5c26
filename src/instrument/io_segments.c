/* Reading libtally-io's regions (io_segments.h). A copy of what each
 * process left, one at a time: only the header and the records it took are read (tmpfs
 * gives the untouched rest no pages). */
#include "instrument/io_segments.h"

#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static bool has_counts(const struct tally_io_record *r)
{
    for (int i = 0; i < TALLY_IO_COUNTER_COUNT; i++)
        if (r->counter[i])
            return true;
    return false;
}

static int read_image(const char *path, struct io_image *img)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int rc = -1;
    memset(img, 0, sizeof *img);
    struct tally_io_header *h = &img->header;
    if (fstat(fd, &st) < 0 || st.st_size != TALLY_IO_SIZE || read_at(fd, h, sizeof *h, 0) < 0 ||
        h->magic != TALLY_IO_MAGIC || h->version != TALLY_IO_VERSION || h->record_size != TALLY_IO_RECORD ||
        h->capacity != TALLY_IO_CAPACITY)
        goto out;
    h->exe[sizeof h->exe - 1] = h->exec_target[sizeof h->exec_target - 1] = '\0';
    uint32_t taken = h->records > TALLY_IO_CAPACITY ? TALLY_IO_CAPACITY : (uint32_t)h->records;
    img->records = calloc((size_t)taken + 1, sizeof *img->records);
    if (!img->records)
        goto out;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < taken; i++) {
        struct tally_io_record *r = &img->records[kept];
        if (read_at(fd, r, sizeof *r, TALLY_IO_HEADER + (off_t)i * TALLY_IO_RECORD) < 0)
            goto out;
        if (!r->ready)
            continue; /* taken by a process killed before it wrote the path */
        r->path[TALLY_IO_PATH - 1] = '\0';
        kept++;
    }
    struct tally_io_record *inc = &img->records[kept];
    if (read_at(fd, inc, sizeof *inc, TALLY_IO_HEADER + (off_t)TALLY_IO_CAPACITY * TALLY_IO_RECORD) == 0 &&
        has_counts(inc)) {
        memcpy(inc->path, TALLY_IO_INCOMPLETE_NAME, sizeof TALLY_IO_INCOMPLETE_NAME);
        kept++;
    }
    img->count = kept;
    rc = 0;
out:
    if (rc < 0) {
        free(img->records);
        img->records = NULL;
    }
    close(fd);
    return rc;
}

static int by_pid_then_image(const void *a, const void *b)
{
    const struct tally_io_header *x = &((const struct io_image *)a)->header;
    const struct tally_io_header *y = &((const struct io_image *)b)->header;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->image > y->image) - (x->image < y->image);
}

int io_image_set_load(const char *dir, struct io_image_set *set,
                      void (*each)(void *ctx, const struct io_image *img), void *ctx)
{
    memset(set, 0, sizeof *set);
    DIR *d = opendir(dir);
    if (!d) {
        tally_error_errno("level 3: %s", dir);
        return -1;
    }
    size_t cap = 0;
    struct dirent *e;
    char path[PATH_MAX];
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "io.", 3))
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            continue;
        if (VEC_RESERVE(set->items, cap, set->count + 1) < 0)
            break;
        struct io_image *img = &set->items[set->count];
        if (read_image(path, img) == 0) {
            each(ctx, img);
            free(img->records);
            img->records = NULL;
            set->count++;
        } else {
            set->unreadable++;
        }
    }
    closedir(d);
    if (set->count)
        qsort(set->items, set->count, sizeof *set->items, by_pid_then_image);
    return 0;
}

void io_image_set_free(struct io_image_set *set)
{
    free(set->items);
    memset(set, 0, sizeof *set);
}
