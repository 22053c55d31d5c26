/* What the loader makes of a process's new image, read at its exec stop
 * (before the image's first instruction): whether the kernel gave it an
 * interpreter (a dynamically linked program: the loader runs, and reads
 * LD_PRELOAD), whether it runs in secure mode (setuid or setgid: the
 * loader ignores LD_PRELOAD), and the environment the exec gave it. Level
 * 3 uses it to tell the images the I/O helper will enter from those it
 * cannot (monitor/tracker.c). */
#include "platform/platform.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* True when the kernel has set pid's image's environment up: the end of
 * the environment (/proc/PID/stat's 51st field) is known. Between an exec's
 * switch to the new image and the set-up of its stack, it is 0 (and the
 * auxiliary vector empty, the environment unreadable). */
static bool environment_set_up(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf - 1)) < 0 && errno == EINTR)
        ;
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the name may hold blanks and ')' */
    if (!p)
        return false;
    unsigned long long env_end = 0;
    for (int field = 2; field < 51 && p; field++) /* p is at the end of field 'field' */
        p = strchr(p + 1, ' ');
    if (p)
        env_end = strtoull(p + 1, NULL, 10);
    return env_end != 0;
}

int proc_read_loader(pid_t pid, struct proc_loader *out)
{
    if (!environment_set_up(pid))
        return -1;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ElfW(auxv_t) v[64];
    ssize_t n;
    while ((n = read(fd, v, sizeof v)) < 0 && errno == EINTR)
        ;
    close(fd);
    if (n < (ssize_t)sizeof v[0])
        return -1;
    bool ended = false, entry = false;
    out->dynamic = out->secure = false;
    for (size_t i = 0; i < (size_t)n / sizeof v[0]; i++) {
        if (v[i].a_type == AT_NULL) {
            ended = true;
            break;
        }
        if (v[i].a_type == AT_BASE) /* where the interpreter was loaded: 0 without one */
            out->dynamic = v[i].a_un.a_val != 0;
        else if (v[i].a_type == AT_SECURE)
            out->secure = v[i].a_un.a_val != 0;
        else if (v[i].a_type == AT_ENTRY)
            entry = v[i].a_un.a_val != 0;
    }
    return ended && entry ? 0 : -1;
}

int proc_read_environ_var(pid_t pid, const char *name, char *out, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* The whole environment (at most the exec's argument limit). */
    size_t cap = 16384, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        if (len + 1 >= cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    if (!buf)
        return -1;
    buf[len] = '\0';
    size_t name_len = strlen(name);
    int found = 0;
    for (size_t at = 0; at < len; at += strlen(buf + at) + 1) {
        const char *entry = buf + at;
        if (!strncmp(entry, name, name_len) && entry[name_len] == '=') {
            snprintf(out, size, "%s", entry + name_len + 1);
            found = 1;
            break;
        }
    }
    free(buf);
    return found;
}
