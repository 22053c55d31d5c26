/* libtally-io's per-descriptor table (region.h: struct io_fd), in .bss:
 * 64 Ki entries, a page given only to the part a process's descriptors
 * reach. Apart from region.c so that region.c's start buffer, linked
 * first, opens .bss (region.c). */
#include "region.h"

int io_fd_high = -1;
static struct io_fd fds[IO_MAX_FDS];

struct io_fd *io_fd_slot(int fd)
{
    if (fd < 0 || fd >= IO_MAX_FDS)
        return NULL;
    if (fd > io_fd_high)
        io_fd_high = fd;
    return &fds[fd];
}
