/* Cost of a libtally-probe call: N calls of tally_probe_hit, tally_counter_add
 * (inline paths of tally/probe.h: a call into the library only when on)
 * and tally_mark, timed with CLOCK_MONOTONIC, against an empty noinline
 * function. Whether probes are on is decided by the environment the bench
 * script gives (no TALLY_PROBE_DIR: off; a directory and no window: on).
 * Prints "probe_ns counter_ns mark_ns empty_ns". usage: probe_cost N */
#include <stdio.h>
#include <stdlib.h>
#include <tally/probe.h>
#include <time.h>

__attribute__((noinline)) void empty_call(int i)
{
    __asm__ volatile("" : : "r"(i) : "memory");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    int p = tally_probe_id("bench"), c = tally_counter_id("bench");
    if (p < 0) /* off: ids are -1; the calls still take the off path */
        p = c = 0;
    double t0 = now();
    for (long i = 0; i < n; i++)
        tally_probe_hit(p);
    double t1 = now();
    for (long i = 0; i < n; i++)
        tally_counter_add(c, i);
    double t2 = now();
    for (long i = 0; i < n; i++)
        tally_mark();
    double t3 = now();
    for (long i = 0; i < n; i++)
        empty_call((int)i);
    double t4 = now();
    printf("%.2f %.2f %.2f %.2f\n", (t1 - t0) / n * 1e9, (t2 - t1) / n * 1e9, (t3 - t2) / n * 1e9,
           (t4 - t3) / n * 1e9);
    return 0;
}
