/* Level 3: the pids of the helper's regions (helper_reports.h). */
#include "monitor/helper_reports.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/platform.h"
#include "tally/io_segment.h"
#include "util/pid_text.h"

void helper_reports_init(struct helper_reports *h, const char *dir)
{
    h->dir = dir;
    h->next = 0;
}

/* The pid of a region file's name "io.PID.N", or 0 for any other name. */
static pid_t region_pid(const char *name)
{
    if (strncmp(name, "io.", 3) != 0)
        return 0;
    const char *end;
    pid_t pid;
    if (pid_parse(name + 3, &end, PID_KERNEL_LIMIT, &pid) < 0 || *end != '.' || end[1] < '0' || end[1] > '9')
        return 0;
    return pid;
}

/* The regions that had files of their own (the run file full or missing). */
static void read_files(const char *dir, struct usage *u)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t pid = region_pid(e->d_name);
        if (pid)
            usage_process_reported(u, pid);
    }
    closedir(d);
}

/* The slots claimed since the last call; false when the run file is
 * missing or full (some regions are then files of their own). */
static bool read_slots(struct helper_reports *h, struct usage *u, bool final)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", h->dir, TALLY_IO_RUN_FILE) >= sizeof path)
        return false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct tally_io_run run;
    bool whole = pread(fd, &run, sizeof run, 0) == (ssize_t)sizeof run && run.magic == TALLY_IO_RUN_MAGIC &&
                 run.slots == TALLY_IO_SLOTS && run.slot_size == TALLY_IO_SLOT;
    uint64_t taken = whole ? (run.taken < TALLY_IO_SLOTS ? run.taken : TALLY_IO_SLOTS) : 0;
    for (; h->next < taken; h->next++) {
        struct {
            uint64_t magic;
            uint32_t version, record_size, capacity, image;
            int32_t pid;
        } head;
        _Static_assert(offsetof(struct tally_io_header, pid) == 24, "the pid is where head reads it");
        bool ready = pread(fd, &head, sizeof head, (off_t)tally_io_slot_offset(h->next)) == (ssize_t)sizeof head &&
                     head.magic == TALLY_IO_MAGIC && head.pid > 0;
        if (ready)
            usage_process_reported(u, head.pid);
        else if (!final)
            break; /* claimed, not yet written: next time */
    }
    close(fd);
    return whole && run.taken < TALLY_IO_SLOTS;
}

void helper_reports_read(struct helper_reports *h, struct usage *u, bool final)
{
    if (!read_slots(h, u, final))
        read_files(h->dir, u);
}

int helper_enters(pid_t pid, const char *dir)
{
    struct proc_loader loader;
    if (proc_read_loader(pid, &loader) < 0)
        return -1;
    if (!loader.dynamic || loader.secure)
        return 0;
    char io_dir[PATH_MAX], value[PATH_MAX];
    const char *names[] = {"TALLY_IO_DIR", "LD_PRELOAD"};
    int set = proc_read_environ_vars(pid, 2, names, (char *const[]){io_dir, value}, PATH_MAX);
    if (set < 0)
        return -1;
    if (set != 3 || strcmp(io_dir, dir))
        return 0;
    /* one of its names (separated by ':' or blanks) ends in /libtally-io.so */
    char *rest = NULL;
    for (char *name = strtok_r(value, ": \t", &rest); name; name = strtok_r(NULL, ": \t", &rest)) {
        const char *base = strrchr(name, '/');
        if (!strcmp(base ? base + 1 : name, TALLY_IO_LIBRARY))
            return 1;
    }
    return 0;
}
