/* Benchmark program (issue 2's process-tree cases): forks NCHILD children that
 * each fill CHILD MiB of their own memory while the parent fills PARENT MiB
 * (after the forks, so no page is shared copy-on-write).  When every child is
 * full, all of them hold their memory together for HOLD milliseconds, then the
 * children exit and the parent last.  Truth: memory = NCHILD*CHILD + PARENT
 * MiB at one moment, total_processes = NCHILD + 1, max concurrency NCHILD + 1.
 * fork_fill_static.c builds the same program linked statically.
 * Usage: fork_fill NCHILD CHILD_MIB PARENT_MIB HOLD_MS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void fill_mib(size_t mib)
{
    if (mib == 0)
        return;
    unsigned char *block = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) {
        perror("fork_fill: mmap");
        _exit(1);
    }
    memset(block, 0x5a, mib << 20);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: fork_fill NCHILD CHILD_MIB PARENT_MIB HOLD_MS\n");
        return 2;
    }
    int children = atoi(argv[1]);
    size_t child_mib = strtoull(argv[2], NULL, 10);
    size_t parent_mib = strtoull(argv[3], NULL, 10);
    long hold_ms = atol(argv[4]);
    int ready[2], go[2];
    if (pipe(ready) || pipe(go)) {
        perror("fork_fill: pipe");
        return 1;
    }
    for (int i = 0; i < children; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork_fill: fork");
            return 1;
        }
        if (pid == 0) {
            close(go[1]);
            fill_mib(child_mib);
            char byte = 'r';
            if (write(ready[1], &byte, 1) != 1)
                _exit(1);
            /* Blocks until the parent closes its end: the end of the hold. */
            while (read(go[0], &byte, 1) > 0)
                ;
            _exit(0);
        }
    }
    close(go[0]);
    fill_mib(parent_mib);
    for (int got = 0; got < children;) {
        char byte;
        if (read(ready[0], &byte, 1) == 1)
            got++;
    }
    struct timespec hold = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
    nanosleep(&hold, NULL);
    close(go[1]);
    int failed = 0, status;
    while (wait(&status) > 0)
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    return failed;
}
