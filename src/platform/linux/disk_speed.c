/* Measuring a disk's sequential speed (platform.h, disk_measure_speed): a
 * file created in the directory and unlinked at once, written in 1 MiB
 * blocks of pseudo-random bytes (no file system compresses or dedups them)
 * with O_DIRECT when the file system allows it, fdatasync'd, then read back
 * (O_DIRECT, or after POSIX_FADV_DONTNEED when buffered). Each rate is the
 * bytes over the wall time of its phase, the sync included in the write. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "platform/platform.h"

#define BLOCK (1u << 20)

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Writes `blocks` blocks from buf; -1 with errno on failure. */
static int write_blocks(int fd, const char *buf, size_t blocks)
{
    for (size_t b = 0; b < blocks; b++)
        for (size_t done = 0; done < BLOCK;) {
            ssize_t n = write(fd, buf + done, BLOCK - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return -1;
            done += (size_t)n;
        }
    return fdatasync(fd);
}

int disk_measure_speed(const char *dir, size_t bytes, struct disk_speed *out, char *why,
                       size_t why_size)
{
    memset(out, 0, sizeof *out);
    size_t blocks = bytes / BLOCK ? bytes / BLOCK : 1;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/.tally-disk-XXXXXX", dir) >= (int)sizeof path) {
        snprintf(why, why_size, "%s: path too long", dir);
        return -1;
    }
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(why, why_size, "%s: %s", dir, strerror(errno));
        return -1;
    }
    unlink(path); /* nothing left behind, whatever happens */
    char *buf = NULL;
    if (posix_memalign((void **)&buf, 4096, BLOCK) != 0) {
        close(fd);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    uint64_t x = 0x9e3779b97f4a7c15u; /* xorshift64: incompressible bytes */
    for (size_t i = 0; i < BLOCK; i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy(buf + i, &x, 8);
    }
    int rc = -1;
    out->direct = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_DIRECT) == 0;
    double t0 = now_seconds();
    int w = write_blocks(fd, buf, blocks);
    if (w < 0 && out->direct && errno == EINVAL) { /* O_DIRECT taken, then refused: buffered */
        out->direct = false;
        if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_DIRECT) < 0 || ftruncate(fd, 0) < 0 ||
            lseek(fd, 0, SEEK_SET) < 0)
            goto fail;
        t0 = now_seconds();
        w = write_blocks(fd, buf, blocks);
    }
    if (w < 0)
        goto fail;
    double t1 = now_seconds();
    if (!out->direct)
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); /* clean pages after the sync: dropped */
    if (lseek(fd, 0, SEEK_SET) < 0)
        goto fail;
    size_t total = blocks * (size_t)BLOCK, got = 0;
    while (got < total) {
        ssize_t n = read(fd, buf, BLOCK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(why, why_size, "%s: reading back: %s", dir, n < 0 ? strerror(errno) : "short read");
            goto done;
        }
        got += (size_t)n;
    }
    double t2 = now_seconds();
    double mb = (double)total / (1024.0 * 1024.0);
    out->write_mbs = t1 > t0 ? mb / (t1 - t0) : 0;
    out->read_mbs = t2 > t1 ? mb / (t2 - t1) : 0;
    rc = 0;
    goto done;
fail:
    snprintf(why, why_size, "%s: writing: %s", dir, strerror(errno));
done:
    free(buf);
    close(fd);
    return rc;
}
