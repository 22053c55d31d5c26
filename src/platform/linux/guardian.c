/* The guardian: a small process that outlives a tally killed with SIGKILL
 * and ends what is left of the task's tree, so that nothing is left behind.
 *
 * At level 2 the kernel does this itself (PTRACE_O_EXITKILL: every tracee,
 * setsid and double-forked ones included, gets SIGKILL when the tracer
 * dies). At level 1 nothing ties the task to tally: PR_SET_PDEATHSIG ends
 * the top process only, and orphans re-parented to tally go on to init when
 * tally dies. So tally starts the guardian before the task and tells it,
 * through a socket pair, every process it finds in the tree. The guardian is no
 * descendant of tally's task (a double fork made before tally becomes a
 * child subreaper: it is re-parented away at once, so tally never scans,
 * counts or reaps it), in a session of its own, deaf to the terminal's
 * signals, holding no file of tally's but its end of the socket pair.
 *
 * The end of file without the closing record means tally died. The
 * guardian then ends every process it was told of and what descends from
 * them (proc_tree_end, tree_end.c), and removes the run's scratch
 * directories (in /dev/shm: memory, not disk, kept until removed), which
 * a tally killed with SIGKILL could not. Known limit: at
 * level 1, a process that was orphaned (its parent gone) and not yet found
 * by tally's last scan has lost every link to the tree and is not seen. */
#include "platform/platform.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/directories.h"
#include "util/pidmap.h"

struct guardian {
    int fd; /* tally's end of the socket pair; -1 once the guardian is gone */
};

/* Records the pid's start time, to tell it from a later process that reuses it. */
static void remember(struct pidmap *known, pid_t pid)
{
    struct proc_stat st;
    if (proc_read_stat(pid, &st) < 0)
        return; /* already gone: nothing to end */
    struct proc_tree_member *k = pidmap_put(known, pid, NULL);
    if (k)
        k->starttime = st.starttime;
}

/* Its command line, a copy of tally's (the task's command included), is
 * overwritten in place (as setproctitle does): `pgrep -f` on the task's
 * command must not find the guardian. arg_start and arg_end are fields 48
 * and 49 of /proc/self/stat. */
static void rename_command_line(const char *name)
{
    char buf[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long long start = 0, end = 0;
    for (int field = 2; p && field < 49; field++) { /* p is at the end of field 'field' */
        p = strchr(p + 1, ' ');
        if (p && field + 1 == 48)
            start = strtoull(p + 1, NULL, 10);
        if (p && field + 1 == 49)
            end = strtoull(p + 1, NULL, 10);
    }
    size_t len = strlen(name) + 1;
    if (start == 0 || end <= start || end - start < len)
        return;
    char *args = (char *)(uintptr_t)start;
    memset(args, 0, end - start);
    memcpy(args, name, len);
}

static void detach_from_tally(int keep_fd)
{
    setsid();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    static const int deaf[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
                               SIGTSTP, SIGTTIN, SIGTTOU, SIGALRM, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof deaf / sizeof deaf[0]; i++)
        signal(deaf[i], SIG_IGN);
    prctl(PR_SET_NAME, "tally-guardian");
    rename_command_line("tally-guardian");
    if (chdir("/") < 0) {
        /* stays where it is: it holds no file there */
    }
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < 3 && null >= 0; fd++)
        if (fd != keep_fd)
            dup2(null, fd);
    /* Every other file of tally's closed: a pipe or a terminal it holds
     * must not stay open because of the guardian. close_range (Linux 5.9)
     * touches no memory: the guardian's pages stay shared with tally's. */
    if (keep_fd >= 3 && close_range(3, (unsigned)keep_fd - 1, 0) == 0 &&
        close_range((unsigned)keep_fd + 1, ~0U, 0) == 0)
        return;
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        int dfd = dirfd(d);
        struct dirent *e;
        while ((e = readdir(d)))
            if (e->d_name[0] >= '0' && e->d_name[0] <= '9') {
                int fd = atoi(e->d_name);
                if (fd > 2 && fd != keep_fd && fd != dfd)
                    close(fd);
            }
        closedir(d);
    }
}

static void __attribute__((noreturn)) guardian_main(int fd, const char *const *scratch_dirs, size_t n)
{
    detach_from_tally(fd);
    struct pidmap known;
    pidmap_init(&known, sizeof(struct proc_tree_member));
    /* Records are 4-byte pids; a stream may cut one in two: 'have' bytes
     * of the buffer are kept for the next read. */
    unsigned char buf[1024];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof buf - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* tally is gone without saying the task was over */
        have += (size_t)n;
        size_t used = 0;
        for (; have - used >= sizeof(int32_t); used += sizeof(int32_t)) {
            int32_t pid;
            memcpy(&pid, buf + used, sizeof pid);
            if (pid == 0)
                _exit(0); /* the task is over: nothing to do */
            remember(&known, (pid_t)pid);
        }
        memmove(buf, buf + used, have - used);
        have -= used;
    }
    proc_tree_end(&known);
    for (size_t i = 0; i < n; i++) /* the tree's processes are gone: nothing writes there */
        remove_flat_directory(scratch_dirs[i]);
    _exit(0);
}

struct guardian *guardian_start(const char *const *scratch_dirs, size_t n)
{
    /* A socket pair rather than a pipe: writes use MSG_NOSIGNAL, so that a
     * guardian killed by someone else costs tally no SIGPIPE. */
    int p[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0)
        return NULL;
    struct guardian *g = malloc(sizeof *g);
    pid_t middle = g ? fork() : -1;
    if (middle == 0) {
        /* The guardian is this process's child, orphaned at once. */
        pid_t guardian = fork();
        if (guardian == 0) {
            close(p[1]);
            guardian_main(p[0], scratch_dirs, n);
        }
        _exit(guardian < 0);
    }
    close(p[0]);
    int status = 1;
    while (middle > 0 && waitpid(middle, &status, 0) < 0 && errno == EINTR)
        ;
    if (middle < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        close(p[1]);
        free(g);
        return NULL;
    }
    g->fd = p[1];
    return g;
}

static void send_pid(struct guardian *g, int32_t pid)
{
    if (g->fd < 0)
        return;
    ssize_t n;
    while ((n = send(g->fd, &pid, sizeof pid, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    if (n < 0) { /* the guardian is gone: nothing more to tell it */
        close(g->fd);
        g->fd = -1;
    }
}

void guardian_watch(struct guardian *g, pid_t pid)
{
    if (g && pid > 0)
        send_pid(g, (int32_t)pid);
}

void guardian_stop(struct guardian *g)
{
    if (!g)
        return;
    send_pid(g, 0);
    if (g->fd >= 0)
        close(g->fd);
    free(g);
}
