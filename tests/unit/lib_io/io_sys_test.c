/* Unit test of lib/io/sys.c: libtally-io's system calls through libc's
 * syscall(), the form machines other than x86-64 build (IO_SYS_LIBC builds
 * it here). region.h promises that io_sys sets no errno, and the wrappers
 * of open, close, the reads and writes and the stats count through
 * records.c without saving errno: a successful write to an inherited
 * terminal or FIFO (its first write probes the descriptor: readlinkat of
 * /proc/self/fd/N, then lseek, which fails with ESPIPE) must leave the
 * application's errno as it was. So a failed call returns -errno and
 * leaves errno untouched; a successful one returns its result. */
#define IO_SYS_LIBC
#include "../../../lib/io/sys.c"

#include <fcntl.h>
#include <limits.h>
#include <sys/syscall.h>

#include "test.h"

int main(void)
{
    int p[2];
    CHECK(pipe(p) == 0);

    errno = 4242;
    CHECK_INT(io_sys(SYS_lseek, p[0], 0L, SEEK_CUR), -ESPIPE);
    CHECK_INT(errno, 4242); /* the lseek of a probed FIFO or terminal */

    char buf[PATH_MAX];
    errno = 4242;
    CHECK_INT(io_sys(SYS_readlinkat, AT_FDCWD, "/nonexistent/tally", buf, sizeof buf - 1), -ENOENT);
    CHECK_INT(errno, 4242); /* a /proc/self/fd link that cannot be read */

    errno = 4242;
    CHECK_INT(io_sys(SYS_write, p[1], "ab", 2), 2);
    CHECK_INT(errno, 4242);
    char cwd[PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    errno = 4242;
    long n = io_sys(SYS_getcwd, buf, sizeof buf);
    CHECK_INT(n, (long)strlen(cwd) + 1); /* the raw call counts the NUL */
    CHECK(n > 0 && strcmp(buf, cwd) == 0);
    CHECK_INT(io_getpid(), getpid());
    CHECK_INT(errno, 4242);
    close(p[0]);
    close(p[1]);
    return test_done();
}
