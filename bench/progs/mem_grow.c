/* Benchmark and demo program: grows its resident memory by STEP MiB every
 * INTERVAL milliseconds up to MAX MiB, then exits (a task whose memory keeps
 * growing, for memory limits: at STEP=100, INTERVAL=100 it grows 1 GB/s).
 * Usage: mem_grow STEP_MIB INTERVAL_MS MAX_MIB */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: mem_grow STEP_MIB INTERVAL_MS MAX_MIB\n");
        return 2;
    }
    size_t step = strtoull(argv[1], NULL, 10) << 20;
    long interval_ms = atol(argv[2]);
    size_t max = strtoull(argv[3], NULL, 10) << 20;
    struct timespec pause = {interval_ms / 1000, (interval_ms % 1000) * 1000000L};
    for (size_t filled = 0; step > 0 && filled < max; filled += step) {
        unsigned char *block = mmap(NULL, step, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (block == MAP_FAILED) {
            perror("mem_grow: mmap");
            return 1;
        }
        memset(block, 0x5a, step);
        nanosleep(&pause, NULL);
    }
    return 0;
}
