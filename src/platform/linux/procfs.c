/* procfs readers (see platform.h). Each read is a single open/read/close
 * into a stack buffer: these run at every process exit and sample, so they
 * avoid stdio and allocation. */
#include "platform/platform.h"
#include "platform/linux/procfs_read.h"
#include "util/pid_text.h"
#include "util/pidmap.h"
#include "util/vec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static long page_size, clock_ticks;

static void init_constants(void)
{
    if (!page_size) {
        page_size = sysconf(_SC_PAGESIZE);
        clock_ticks = sysconf(_SC_CLK_TCK);
    }
}

ssize_t procfs_read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t total = 0;
    for (;;) {
        ssize_t n = read(fd, buf + total, size - 1 - (size_t)total);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        total += n;
        /* procfs (seq_file) fills the buffer as far as it can: a short
         * read is the end, no need for one more read to see 0. */
        if ((size_t)total >= size - 1 || (size_t)n < size - 1 - (size_t)(total - n))
            break;
    }
    close(fd);
    if (total <= 0)
        return -1;
    buf[total] = '\0';
    return total;
}

uint64_t procfs_parse_u64(const char **p)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (uint64_t)(*s++ - '0');
    *p = s;
    return v;
}

void procfs_skip_fields(const char **p, int n)
{
    const char *s = *p;
    while (n-- > 0) {
        while (*s == ' ')
            s++;
        while (*s && *s != ' ')
            s++;
    }
    *p = s;
}

int proc_runnable_tasks(void)
{
    char buf[128];
    int running;
    if (procfs_read_small("/proc/loadavg", buf, sizeof buf) < 0 ||
        sscanf(buf, "%*s %*s %*s %d/", &running) != 1)
        return -1;
    return running;
}

int procfs_read_pid_file(pid_t pid, const char *name, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
    return procfs_read_small(path, buf, size);
}

int proc_read_stat(pid_t pid, struct proc_stat *out)
{
    char buf[1024];
    init_constants();
    if (procfs_read_pid_file(pid, "stat", buf, sizeof buf) < 0)
        return -1;
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
    if (!p || !p[1])
        return -1;
    p += 2;
    out->state = *p++;                          /* 3 state */
    out->ppid = (pid_t)procfs_parse_u64(&p);           /* 4 ppid */
    procfs_skip_fields(&p, 5);                         /* 5-9 */
    out->minflt = procfs_parse_u64(&p);                /* 10 minflt */
    procfs_skip_fields(&p, 1);                         /* 11 cminflt */
    out->majflt = procfs_parse_u64(&p);                /* 12 majflt */
    procfs_skip_fields(&p, 1);                         /* 13 cmajflt */
    uint64_t utime = procfs_parse_u64(&p), stime = procfs_parse_u64(&p);     /* 14, 15 */
    uint64_t cutime = procfs_parse_u64(&p), cstime = procfs_parse_u64(&p);   /* 16, 17 */
    procfs_skip_fields(&p, 4);                         /* 18-21 */
    out->starttime = procfs_parse_u64(&p);             /* 22 starttime */
    out->vm_bytes = procfs_parse_u64(&p);              /* 23 vsize */
    out->rss_bytes = procfs_parse_u64(&p) * (uint64_t)page_size; /* 24 rss (pages) */
    out->cpu_self = (double)(utime + stime) / (double)clock_ticks;
    out->cpu_children = (double)(cutime + cstime) / (double)clock_ticks;
    return 0;
}

/* Value in bytes of a "Key:   123 kB" line of a /proc status-like file. */
static uint64_t count_field(const char *buf, const char *key)
{
    const char *p = strstr(buf, key);
    if (!p)
        return 0;
    p += strlen(key);
    return procfs_parse_u64(&p);
}

static uint64_t kb_field(const char *buf, const char *key)
{
    return count_field(buf, key) * 1024;
}

int proc_read_status(pid_t pid, struct proc_status *out)
{
    char buf[4096];
    if (procfs_read_pid_file(pid, "status", buf, sizeof buf) < 0)
        return -1;
    out->vm_peak = kb_field(buf, "\nVmPeak:");
    out->vm_size = kb_field(buf, "\nVmSize:");
    out->vm_hwm = kb_field(buf, "\nVmHWM:");
    out->vm_rss = kb_field(buf, "\nVmRSS:");
    out->vm_swap = kb_field(buf, "\nVmSwap:");
    out->rss_anon = kb_field(buf, "\nRssAnon:");
    out->rss_shmem = kb_field(buf, "\nRssShmem:");
    out->context_switches = count_field(buf, "\nvoluntary_ctxt_switches:") +
                            count_field(buf, "\nnonvoluntary_ctxt_switches:");
    const char *t = strstr(buf, "\nThreads:");
    out->threads = 1;
    if (t) {
        t += 9;
        out->threads = (int)procfs_parse_u64(&t);
    }
    return 0;
}

int proc_owner(pid_t pid, uid_t *uid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d", (int)pid);
    struct stat st;
    if (pid <= 0 || stat(path, &st) < 0)
        return -1;
    *uid = st.st_uid;
    return 0;
}

int proc_read_comm(pid_t pid, char *out, size_t size)
{
    out[0] = '\0';
    if (size < 2 || procfs_read_pid_file(pid, "comm", out, size) < 0)
        return -1;
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

int proc_read_statm(pid_t pid, struct proc_statm *out)
{
    char buf[256];
    init_constants();
    if (procfs_read_pid_file(pid, "statm", buf, sizeof buf) < 0)
        return -1;
    const char *p = buf;
    out->size = procfs_parse_u64(&p) * (uint64_t)page_size;
    out->resident = procfs_parse_u64(&p) * (uint64_t)page_size;
    out->shared = procfs_parse_u64(&p) * (uint64_t)page_size;
    return 0;
}

static int parse_io(const char *buf, struct proc_io *out)
{
    const char *p;
    memset(out, 0, sizeof *out);
    if ((p = strstr(buf, "rchar:")))
        p += 6, out->rchar = procfs_parse_u64(&p);
    if ((p = strstr(buf, "wchar:")))
        p += 6, out->wchar = procfs_parse_u64(&p);
    if ((p = strstr(buf, "\nread_bytes:")))
        p += 12, out->read_bytes = procfs_parse_u64(&p);
    if ((p = strstr(buf, "\nwrite_bytes:")))
        p += 13, out->write_bytes = procfs_parse_u64(&p);
    return 0;
}

int proc_read_io(pid_t pid, struct proc_io *out)
{
    char buf[512];
    if (procfs_read_pid_file(pid, "io", buf, sizeof buf) < 0)
        return -1;
    return parse_io(buf, out);
}

long long proc_pid_max(void)
{
    char buf[32];
    long long max = 0;
    if (procfs_read_small("/proc/sys/kernel/pid_max", buf, sizeof buf) > 0)
        max = strtoll(buf, NULL, 10);
    return max > 0 && max <= PID_KERNEL_LIMIT ? max : PID_KERNEL_LIMIT;
}

bool proc_pid_in_range(long long value)
{
    return pid_in_range(value, proc_pid_max());
}

int proc_pid_parse(const char *text, pid_t *out)
{
    return pid_parse(text, NULL, proc_pid_max(), out);
}

int proc_read_pss(pid_t pid, uint64_t *pss_bytes)
{
    char buf[2048];
    if (procfs_read_pid_file(pid, "smaps_rollup", buf, sizeof buf) < 0)
        return -1;
    *pss_bytes = kb_field(buf, "\nPss:");
    return 0;
}

int proc_read_cpu_ns(pid_t pid, uint64_t *ns)
{
    char path[96], buf[128];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    uint64_t total = 0;
    int threads = 0;
    struct dirent *de;
    while ((de = readdir(dir))) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, atoi(de->d_name));
        if (procfs_read_small(path, buf, sizeof buf) < 0)
            continue; /* a thread that just ended */
        total += strtoull(buf, NULL, 10);
        threads++;
    }
    closedir(dir);
    if (threads == 0)
        return -1;
    *ns = total;
    return 0;
}

int proc_reaped_children_io(struct proc_io *out)
{
    /* /proc/self/io counts tally's own threads plus everything its reaped
     * children did; /proc/self/task/TID/io counts one thread alone. Reading
     * the calling thread's file comes after the first read returned, so that
     * read's length is counted in it and is taken back out. */
    char buf[512], path[64];
    struct proc_io whole, own = {0}, thread;
    ssize_t whole_len = procfs_read_small("/proc/self/io", buf, sizeof buf);
    if (whole_len < 0)
        return -1;
    parse_io(buf, &whole);
    pid_t self = (pid_t)syscall(SYS_gettid);
    DIR *dir = opendir("/proc/self/task");
    if (!dir)
        return -1;
    struct dirent *de;
    while ((de = readdir(dir))) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%d/io", atoi(de->d_name));
        if (procfs_read_small(path, buf, sizeof buf) < 0)
            continue;
        parse_io(buf, &thread);
        if (atoi(de->d_name) == self)
            thread.rchar -= (uint64_t)whole_len;
        own.rchar += thread.rchar;
        own.wchar += thread.wchar;
        own.read_bytes += thread.read_bytes;
        own.write_bytes += thread.write_bytes;
    }
    closedir(dir);
    out->rchar = whole.rchar > own.rchar ? whole.rchar - own.rchar : 0;
    out->wchar = whole.wchar > own.wchar ? whole.wchar - own.wchar : 0;
    out->read_bytes = whole.read_bytes > own.read_bytes ? whole.read_bytes - own.read_bytes : 0;
    out->write_bytes = whole.write_bytes > own.write_bytes ? whole.write_bytes - own.write_bytes : 0;
    return 0;
}

int proc_read_exe(pid_t pid, char *out, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    ssize_t n = len > 0 ? readlink(path, out, len - 1) : -1;
    if (n <= 0)
        return -1;
    out[n] = '\0';
    return 0;
}

int proc_visit_fd_targets(pid_t pid, void (*visit)(void *ctx, const char *target), void *ctx)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    DIR *dir = fdopendir(dfd);
    if (!dir) {
        close(dfd);
        return -1;
    }
    struct dirent *de;
    char target[PATH_MAX];
    while ((de = readdir(dir))) {
        if (de->d_name[0] == '.')
            continue;
        ssize_t n = readlinkat(dfd, de->d_name, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        visit(ctx, target);
    }
    closedir(dir);
    return 0;
}

struct file_visit {
    void (*visit)(void *ctx, const char *path);
    void *ctx;
};

static void visit_if_file(void *ctx, const char *target)
{
    struct file_visit *v = ctx;
    if (target[0] == '/') /* not pipe:[..], socket:[..], anon_inode:.. */
        v->visit(v->ctx, target);
}

int proc_visit_open_files(pid_t pid, void (*visit)(void *ctx, const char *path), void *ctx)
{
    struct file_visit v = {visit, ctx};
    return proc_visit_fd_targets(pid, visit_if_file, &v);
}

int proc_visit_all(void (*visit)(void *ctx, pid_t pid, const struct proc_stat *stat), void *ctx)
{
    DIR *dir = opendir("/proc");
    if (!dir)
        return -1;
    struct dirent *de;
    while ((de = readdir(dir))) {
        pid_t pid;
        if (pid_parse(de->d_name, NULL, PID_KERNEL_LIMIT, &pid) < 0)
            continue;
        struct proc_stat st;
        if (proc_read_stat(pid, &st) == 0)
            visit(ctx, pid, &st);
    }
    closedir(dir);
    return 0;
}

static int visit_numbered(const char *path, void (*visit)(void *ctx, pid_t pid), void *ctx)
{
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    struct dirent *de;
    pid_t pid;
    while ((de = readdir(dir)))
        if (pid_parse(de->d_name, NULL, PID_KERNEL_LIMIT, &pid) == 0)
            visit(ctx, pid);
    closedir(dir);
    return 0;
}

int proc_visit_pids(void (*visit)(void *ctx, pid_t pid), void *ctx)
{
    return visit_numbered("/proc", visit, ctx);
}

int proc_visit_threads(pid_t pid, void (*visit)(void *ctx, pid_t tid), void *ctx)
{
    char path[48];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    return visit_numbered(path, visit, ctx);
}

int proc_self_exe(char *out, size_t size)
{
    if (size < 2)
        return -1;
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return -1;
    out[n] = '\0';
    return 0;
}

/* Appends the pids listed in /proc/PID/task/TID/children for every thread
 * TID of pid to *queue. -1 when pid's own thread has no children file (a
 * kernel without CONFIG_PROC_CHILDREN), 0 otherwise (pid gone included). */
static int add_children(pid_t pid, pid_t **queue, size_t *len, size_t *cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *dir = opendir(path);
    if (!dir)
        return 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(dir))) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        char file[300], buf[4096];
        snprintf(file, sizeof file, "/proc/%d/task/%s/children", (int)pid, de->d_name);
        ssize_t n = procfs_read_small(file, buf, sizeof buf);
        if (n < 0) {
            if (errno == ENOENT && atoi(de->d_name) == pid && access(path, F_OK) == 0)
                rc = -1;
            continue;
        }
        for (char *p = buf, *end; *p; p = end) {
            long child = strtol(p, &end, 10);
            if (end == p)
                break;
            if (child <= 0)
                continue;
            pid_t *q = VEC_PUSH(*queue, *len, *cap);
            if (!q)
                break;
            *q = (pid_t)child;
        }
    }
    closedir(dir);
    return rc;
}

int proc_visit_tree(pid_t root, void (*visit)(void *ctx, pid_t pid, const struct proc_stat *stat),
                    void *ctx)
{
    size_t len = 0, cap = 64;
    pid_t *queue = malloc(cap * sizeof *queue);
    if (!queue)
        return -1;
    queue[len++] = root; /* the root first, then breadth first below it */
    struct pidmap seen;  /* a pid met twice (reused during the walk) is visited once */
    pidmap_init(&seen, 1);
    int rc = 0;
    for (size_t i = 0; i < len; i++) {
        pid_t pid = queue[i];
        int created = 0;
        if (!pidmap_put(&seen, pid, &created) || !created)
            continue;
        struct proc_stat st;
        if (proc_read_stat(pid, &st) < 0)
            continue;
        visit(ctx, pid, &st);
        if (st.state == 'Z')
            continue; /* its children, if any, were re-parented */
        if (add_children(pid, &queue, &len, &cap) < 0 && pid == root) {
            errno = ENOSYS;
            rc = -1;
            break;
        }
    }
    free(queue);
    pidmap_free(&seen);
    return rc;
}
