/* Benchmark program (issue 2): a grandchild writes exactly NBYTES to FILE with
 * write() and reads them back with read(), while its parent and grandparent
 * only wait.  Truth: bytes_written = bytes_read = NBYTES (plus the few bytes the
 * dynamic loader reads), total_processes = 3.  The file is removed at the end.
 * Usage: grandchild_io FILE NBYTES */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { CHUNK = 65536 };

static int write_then_read(const char *path, long long nbytes)
{
    static char buf[CHUNK];
    memset(buf, 'g', sizeof buf);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror("grandchild_io: open");
        return 1;
    }
    for (long long done = 0; done < nbytes;) {
        size_t n = nbytes - done < CHUNK ? (size_t)(nbytes - done) : CHUNK;
        ssize_t w = write(fd, buf, n);
        if (w <= 0) {
            perror("grandchild_io: write");
            return 1;
        }
        done += w;
    }
    if (lseek(fd, 0, SEEK_SET) != 0)
        return 1;
    for (long long done = 0; done < nbytes;) {
        ssize_t r = read(fd, buf, CHUNK);
        if (r <= 0) {
            perror("grandchild_io: read");
            return 1;
        }
        done += r;
    }
    close(fd);
    unlink(path);
    return 0;
}

static int wait_ok(pid_t pid)
{
    int status;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: grandchild_io FILE NBYTES\n");
        return 2;
    }
    long long nbytes = strtoll(argv[2], NULL, 10);
    pid_t child = fork();
    if (child == 0) {
        pid_t grandchild = fork();
        if (grandchild == 0)
            _exit(write_then_read(argv[1], nbytes));
        _exit(grandchild < 0 ? 1 : wait_ok(grandchild));
    }
    return child < 0 ? 1 : wait_ok(child);
}
