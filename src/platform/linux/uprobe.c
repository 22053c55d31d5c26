/* uprobes through perf_event_open on the "uprobe" PMU: a counting event on
 * one instruction of one executable in one process, attached to a running
 * process with no tracefs, no ptrace and no change to the binary; closing
 * the descriptor detaches it, so a detached marker costs nothing.
 * Privilege: perf_event_open of a uprobe needs CAP_PERFMON or CAP_SYS_ADMIN
 * (root here); without it the kernel answers EACCES/EPERM, reported as one
 * line (tally then goes on without the marker). */
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int uprobe_pmu_type(void)
{
    int fd = open("/sys/bus/event_source/devices/uprobe/type", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char text[32];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    return atoi(text);
}

int uprobe_open(const char *path, uint64_t offset, pid_t pid, char *why, size_t why_size)
{
    int type = uprobe_pmu_type();
    if (type < 0) {
        snprintf(why, why_size, "this kernel has no uprobe PMU (/sys/bus/event_source/devices/uprobe)");
        return -1;
    }
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = (uint32_t)type;
    attr.config1 = (uint64_t)(uintptr_t)path; /* uprobe_path */
    attr.config2 = offset;                    /* probe_offset */
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == EACCES || e == EPERM)
            snprintf(why, why_size, "uprobes need CAP_PERFMON or root (perf_event_open: %s)", strerror(e));
        else if (e == ESRCH)
            snprintf(why, why_size, "process %d is gone", (int)pid);
        else
            snprintf(why, why_size, "perf_event_open(uprobe %s+0x%llx): %s", path,
                     (unsigned long long)offset, strerror(e));
        return -1;
    }
    return fd;
}

int64_t uprobe_hits(int fd)
{
    uint64_t count;
    if (read(fd, &count, sizeof count) != (ssize_t)sizeof count)
        return -1;
    return (int64_t)count;
}
