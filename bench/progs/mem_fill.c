/* Benchmark program (Table 3b/4b of seed 002): allocates ALLOC MiB and fills
 * the first FILL MiB of it with data, then exits at once, so that the peak
 * resident size (the truth: FILL MiB) is reached just before the process ends,
 * where a polling monitor misses it.  Usage: mem_fill ALLOC_MIB FILL_MIB */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mem_fill ALLOC_MIB FILL_MIB\n");
        return 2;
    }
    size_t alloc = strtoull(argv[1], NULL, 10) << 20;
    size_t fill = strtoull(argv[2], NULL, 10) << 20;
    if (fill > alloc) {
        fprintf(stderr, "mem_fill: FILL larger than ALLOC\n");
        return 2;
    }
    /* MAP_NORESERVE: only the filled part needs to be backed by memory. */
    unsigned char *block = mmap(NULL, alloc, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (block == MAP_FAILED) {
        perror("mem_fill: mmap");
        return 1;
    }
    memset(block, 0x5a, fill);
    return block[fill ? fill - 1 : 0] == 0x5a || fill == 0 ? 0 : 1;
}
