/* Parent directories of a file, and flat scratch directories removed (see
 * directories.h). */
#include "util/directories.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int make_parent_directories(const char *path, char *why, size_t why_size)
{
    char *copy = strdup(path);
    if (!copy) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    char *slash = strrchr(copy, '/');
    if (!slash || slash == copy) {
        free(copy);
        return 0;
    }
    *slash = '\0';
    for (char *p = copy + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(copy, 0777) < 0 && errno != EEXIST) {
                snprintf(why, why_size, "cannot create directory %s: %s", copy, strerror(errno));
                free(copy);
                return -1;
            }
            *p = saved;
            if (!saved)
                break;
        }
    }
    free(copy);
    return 0;
}

void remove_flat_directory(const char *dir)
{
    /* Opened without following a symbolic link, and its files removed
     * relative to that descriptor: what is removed is in the directory
     * opened, even if its path is swapped for a link meanwhile. */
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(fd, e->d_name, 0);
    closedir(d);
    rmdir(dir);
}
