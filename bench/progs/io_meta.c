/* Bench program (bench/io.bench.sh): N rounds of stat, open and close over
 * 100 files of DIR (created first, removed after). Usage: io_meta DIR N */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    long n = atol(argv[2]);
    char path[100][4096];
    for (int i = 0; i < 100; i++) {
        snprintf(path[i], sizeof path[i], "%s/m%d", argv[1], i);
        int fd = open(path[i], O_WRONLY | O_CREAT, 0644);
        if (fd < 0)
            return 1;
        close(fd);
    }
    struct stat st;
    for (long i = 0; i < n; i++) {
        const char *p = path[i % 100];
        if (stat(p, &st) < 0)
            return 1;
        int fd = open(p, O_RDONLY);
        if (fd < 0)
            return 1;
        close(fd);
    }
    for (int i = 0; i < 100; i++)
        unlink(path[i]);
    return 0;
}
