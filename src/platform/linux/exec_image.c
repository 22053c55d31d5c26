/* What the loader makes of a process's new image, read at its exec stop
 * (before the image's first instruction): whether the kernel gave it an
 * interpreter (a dynamically linked program: the loader runs, and reads
 * LD_PRELOAD), whether it runs in secure mode (setuid or setgid: the
 * loader ignores LD_PRELOAD), and the environment the exec gave it. Level
 * 3 uses it to tell the images the I/O helper will enter from those it
 * cannot (monitor/tracker.c). */
#include "platform/platform.h"
#include "platform/linux/procfs_read.h"

#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text_file.h"

/* True when the kernel has set pid's image's environment up: the end of
 * the environment (/proc/PID/stat's 51st field) is known. Between an exec's
 * switch to the new image and the set-up of its stack, it is 0 (and the
 * auxiliary vector empty, the environment unreadable). */
static bool environment_set_up(pid_t pid)
{
    char buf[1024];
    if (procfs_read_pid_file(pid, "stat", buf, sizeof buf) < 0)
        return false;
    const char *p = strrchr(buf, ')'); /* the name may hold blanks and ')' */
    if (!p)
        return false;
    p++;
    procfs_skip_fields(&p, 48); /* 3 state .. 50 env_start */
    return procfs_parse_u64(&p) != 0; /* 51 env_end */
}

int proc_read_loader(pid_t pid, struct proc_loader *out)
{
    if (!environment_set_up(pid))
        return -1;
    union {
        ElfW(auxv_t) v[64];
        char bytes[64 * sizeof(ElfW(auxv_t)) + 1]; /* procfs_read_small's NUL */
    } aux;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
    ssize_t n = procfs_read_small(path, aux.bytes, sizeof aux.bytes);
    if (n < (ssize_t)sizeof aux.v[0])
        return -1;
    bool ended = false, entry = false;
    out->dynamic = out->secure = false;
    for (size_t i = 0; i < (size_t)n / sizeof aux.v[0]; i++) {
        const ElfW(auxv_t) *v = &aux.v[i];
        if (v->a_type == AT_NULL) {
            ended = true;
            break;
        }
        if (v->a_type == AT_BASE) /* where the interpreter was loaded: 0 without one */
            out->dynamic = v->a_un.a_val != 0;
        else if (v->a_type == AT_SECURE)
            out->secure = v->a_un.a_val != 0;
        else if (v->a_type == AT_ENTRY)
            entry = v->a_un.a_val != 0;
    }
    return ended && entry ? 0 : -1;
}

/* The environment is at most the exec's argument limit (a quarter of the stack limit). */
#define ENVIRON_MAX ((size_t)16 << 20)

int proc_read_environ_vars(pid_t pid, size_t count, const char *const names[], char *const values[],
                           size_t size)
{
    char path[64], why[128];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    size_t len;
    char *env = text_file_read(path, ENVIRON_MAX, &len, why, sizeof why);
    if (!env)
        return -1;
    int found = 0;
    for (size_t at = 0; at < len; at += strlen(env + at) + 1)
        for (size_t i = 0; i < count && i < 31; i++) {
            size_t name_len = strlen(names[i]);
            if (!(found & (1 << i)) && !strncmp(env + at, names[i], name_len) && env[at + name_len] == '=') {
                snprintf(values[i], size, "%s", env + at + name_len + 1);
                found |= 1 << i;
            }
        }
    free(env);
    return found;
}
