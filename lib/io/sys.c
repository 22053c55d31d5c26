/* libtally-io's system calls through libc's syscall(), on machines for
 * which region.h has no inline form of io_sys6 (all but x86-64; defining
 * IO_SYS_LIBC builds this form on x86-64 too: its unit test,
 * tests/unit/lib_io/io_sys_test.c). */
#include "region.h"

#if !defined(__x86_64__) || defined(IO_SYS_LIBC)
#include <errno.h>
#include <unistd.h>

long io_sys6(long n, long a, long b, long c, long d, long e, long f)
{
    long r = syscall(n, a, b, c, d, e, f);
    return r == -1 ? -errno : r;
}
#endif
