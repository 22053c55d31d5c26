/* A uprobe on this program's own function marker(): time to attach
 * (perf_event_open on the uprobe PMU), cost per hit (N calls with and
 * without it), time to detach (close), and the hit count (must be N).
 * Uses tally's platform code (elf.c, uprobe.c). Prints
 * "attach_us detach_us bare_ns probed_ns hits". usage: uprobe_cost N */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "platform/platform.h"

__attribute__((noinline)) void marker(long i)
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
    long n = argc > 1 ? atol(argv[1]) : 100000;
    char exe[4096], why[256];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return 1;
    exe[len] = '\0';
    uint64_t off;
    if (elf_symbol_offset(exe, "marker", &off, why, sizeof why) < 0) {
        fprintf(stderr, "uprobe_cost: %s\n", why);
        return 1;
    }
    double t0 = now();
    for (long i = 0; i < n; i++)
        marker(i);
    double bare = (now() - t0) / n;
    double a0 = now();
    int fd = uprobe_open(exe, off, getpid(), why, sizeof why);
    double attach = now() - a0;
    if (fd < 0) {
        fprintf(stderr, "uprobe_cost: %s\n", why);
        return 1;
    }
    t0 = now();
    for (long i = 0; i < n; i++)
        marker(i);
    double probed = (now() - t0) / n;
    int64_t hits = uprobe_hits(fd);
    double d0 = now();
    close(fd);
    double detach = now() - d0;
    printf("%.1f %.1f %.2f %.1f %lld\n", attach * 1e6, detach * 1e6, bare * 1e9, probed * 1e9, (long long)hits);
    return 0;
}
