/* Unit test of libtally-io's last-path cache as x86-64 builds it (SSE2,
 * sixteen bytes at a time): last_path_checks.h. */
#include "../../../lib/io/records.c"

#include "last_path_checks.h"

int main(void)
{
    return run_last_path_checks();
}
