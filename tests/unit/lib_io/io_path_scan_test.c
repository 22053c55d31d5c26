/* Unit test of libtally-io's path scan as x86-64 builds it (SSE2, sixteen
 * bytes at a time) and of the records it finds: path_scan_checks.h. */
#include "../../../lib/io/records.c"

#include "path_scan_checks.h"

int main(void)
{
#if !defined(__SSE2__)
    printf("# built without SSE2: the word form is tested\n");
#endif
    return run_checks();
}
