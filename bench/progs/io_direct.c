/* Benchmark program (Table 3c-d/4c-d of seed 002): writes SIZE bytes to FILE
 * with a BUF-byte buffer, then reads them back, both with O_DIRECT so that the
 * device is really used (not the page cache).  The truth is SIZE bytes read and
 * SIZE bytes written.  Where the file system refuses O_DIRECT it falls back to
 * buffered I/O (fdatasync + POSIX_FADV_DONTNEED before reading back) and says
 * so on stderr with the word "fallback".  The file is removed at the end.
 * Usage: io_direct FILE SIZE_BYTES BUF_BYTES */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int open_file(const char *path, int flags, int *direct)
{
    if (*direct) {
        int fd = open(path, flags | O_DIRECT, 0644);
        if (fd >= 0 || errno != EINVAL)
            return fd;
        fprintf(stderr, "io_direct: O_DIRECT refused on %s, fallback to buffered I/O\n", path);
        *direct = 0;
    }
    return open(path, flags, 0644);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: io_direct FILE SIZE_BYTES BUF_BYTES\n");
        return 2;
    }
    const char *path = argv[1];
    long long size = strtoll(argv[2], NULL, 10);
    size_t buf_size = strtoull(argv[3], NULL, 10);
    if (buf_size == 0 || buf_size % 4096 || size % (long long)buf_size) {
        fprintf(stderr, "io_direct: SIZE must be a multiple of BUF, BUF of 4096\n");
        return 2;
    }
    void *buf;
    if (posix_memalign(&buf, 4096, buf_size)) {
        fprintf(stderr, "io_direct: out of memory\n");
        return 1;
    }
    memset(buf, 0xa5, buf_size);
    int direct = 1;
    int fd = open_file(path, O_WRONLY | O_CREAT | O_TRUNC, &direct);
    if (fd < 0) {
        perror("io_direct: open for writing");
        return 1;
    }
    for (long long done = 0; done < size; done += buf_size)
        if (write(fd, buf, buf_size) != (ssize_t)buf_size) {
            perror("io_direct: write");
            return 1;
        }
    if (!direct) {
        fdatasync(fd);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    }
    close(fd);
    fd = open_file(path, O_RDONLY, &direct);
    if (fd < 0) {
        perror("io_direct: open for reading");
        return 1;
    }
    for (long long done = 0; done < size; done += buf_size)
        if (read(fd, buf, buf_size) != (ssize_t)buf_size) {
            perror("io_direct: read");
            return 1;
        }
    close(fd);
    unlink(path);
    free(buf);
    return 0;
}
