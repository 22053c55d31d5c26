/* libtally-io's per-descriptor table (region.h: struct io_fd, io_fd_slot),
 * in .bss: 64 Ki entries, a page given only to the part a process's
 * descriptors reach. Apart from region.c so that region.c's start buffer,
 * linked first, opens .bss (region.c). */
#include "region.h"

int io_fd_high = -1;
struct io_fd io_fds[IO_MAX_FDS];
