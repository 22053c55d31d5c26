/* Bench program (bench/io.bench.sh): N writes of SIZE bytes to FILE, then
 * unlinks it. Usage: io_writes FILE N SIZE */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    long n = atol(argv[2]);
    size_t size = (size_t)atol(argv[3]);
    char *buf = malloc(size);
    if (!buf)
        return 1;
    memset(buf, 'w', size);
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    for (long i = 0; i < n; i++)
        if (write(fd, buf, size) != (ssize_t)size)
            return 1;
    close(fd);
    unlink(argv[1]);
    return 0;
}
