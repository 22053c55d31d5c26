/* Unit test of libtally-io's last-path cache as machines other than x86-64
 * build it (eight bytes at a time, in a word): last_path_checks.h.
 * __SSE2__ is undefined before records.c is read, the system headers it
 * needs read first. */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>
#undef __SSE2__
#include "../../../lib/io/records.c"

#include "last_path_checks.h"

int main(void)
{
    return run_last_path_checks();
}
