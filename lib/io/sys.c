/* libtally-io's system calls through libc's syscall(), on machines for
 * which region.h has no inline form of io_sys6 (all but x86-64; defining
 * IO_SYS_LIBC builds this form on x86-64 too: its unit test,
 * tests/unit/lib_io/io_sys_test.c). As region.h promises, errno is left as
 * it was: the wrappers of open, close, the reads and writes and the stats
 * count through records.c without saving it, and a probe's lseek of an
 * inherited terminal (ESPIPE) must not show through a successful write. */
#include "region.h"

#if !defined(__x86_64__) || defined(IO_SYS_LIBC)
#include <errno.h>
#include <unistd.h>

long io_sys6(long n, long a, long b, long c, long d, long e, long f)
{
    int saved = errno;
    long r = syscall(n, a, b, c, d, e, f);
    if (r == -1) {
        r = -errno;
        errno = saved;
    }
    return r;
}
#endif
