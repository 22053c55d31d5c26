/* libtally-io's process side, the top of the helper: the start of this
 * process image (its region claimed at load), a forked child's own region
 * (the fork, daemon and forkpty wrappers, its descriptors' records carried
 * over), and the end (exit and its status through on_exit, _exit, _Exit,
 * fatal signals caught), with getrusage's CPU times and peak memory. The
 * monitor counts every process from its region, without a ptrace stop
 * (docs/io.md). */
#include "exec.h"
#include "records.h"

#include <errno.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* In a forked child, its parent's region: left mapped (unmapping costs the
 * short child more than keeping it) until the child forks in turn. */
static struct tally_io_header *parents_region IO_HOT;

/* The region H of this process ended: end time, rusage and FLAGS
 * (async-signal-safe). */
static void end_region(struct tally_io_header *h, uint32_t flags)
{
    struct rusage ru;
    if (io_sys(SYS_getrusage, RUSAGE_SELF, &ru) == 0) {
        h->utime_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u;
        h->stime_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u;
        h->maxrss_kb = (uint64_t)ru.ru_maxrss;
    }
    h->end_ticks = io_ticks();
    __atomic_fetch_or(&h->flags, flags | TALLY_IO_ENDED, __ATOMIC_RELEASE);
}

/* This process's region, or NULL (none, or a vfork child's: its parent's). */
static struct tally_io_header *own_region(void)
{
    struct tally_io_header *h = io_region;
    return h && h->pid == io_getpid() ? h : NULL;
}

/* Fatal signals whose default action ends the process: recorded, then the
 * default action (the disposition is reset on entry, SA_RESETHAND). Only
 * these synchronous faults: catching SIGINT or SIGTERM would change what a
 * program sees of its own dispositions (Python installs its SIGINT handler
 * only over SIG_DFL). */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

static void on_fatal(int sig)
{
    int saved = errno;
    struct tally_io_header *h = own_region();
    if (h) {
        h->signal = sig;
        end_region(h, TALLY_IO_SIGNALED);
    }
    errno = saved;
    raise(sig); /* SA_NODEFER|SA_RESETHAND: delivered now, with the default action */
}

static void install_fatal_handlers(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        /* One system call each: installed, and put back at once when the
         * program's own disposition (inherited SIG_IGN) was there. */
        if (sigaction(fatal_signals[i], &sa, &old) == 0 &&
            (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)))
            sigaction(fatal_signals[i], &old, NULL);
    }
}

/* A forked child: its own region, and its descriptors' records carried
 * over (by path) from the parent's region. Nothing here touches errno or
 * calls libc (a fork child pays a page fault for each page it touches). */
static void after_fork_child(void)
{
    struct tally_io_header *old = io_region;
    if (!old)
        return;
    io_busy(1);
    io_region_unmap(parents_region); /* the grandparent's, inherited */
    parents_region = old;
    io_region = io_region_claim(TALLY_IO_FORKED);
    io_records_reset();
    for (int fd = 0; fd <= io_fd_high; fd++) {
        struct io_fd *s = io_fd_slot(fd);
        if (s->rec)
            s->rec = io_region ? io_record_for_abs(tally_io_record_at(old, (uint32_t)(s->rec - 1))->path) : 0;
        if (s->srec)
            s->srec = io_region ? io_record_for_abs(tally_io_record_at(old, (uint32_t)(s->srec - 1))->path) : 0;
    }
    io_busy(0);
}

/* fork, and the two functions of glibc that fork inside (daemon, forkpty):
 * wrapped rather than a pthread_atfork child handler, whose registration
 * cost every image two page faults in libc's data. glibc's own internal
 * forks elsewhere (wordexp's command substitution) are not seen: such a
 * child writes nothing through the helper before its exec, and its new
 * image claims a region of its own. _Fork runs no fork handlers either. */
DECLARE_REAL(fork);
DECLARE_REAL(daemon);
DECLARE_REAL(forkpty);

/* In the parent, before a fork: what the child will need, looked up or
 * mapped once here rather than in every child. */
static void before_fork(void)
{
    if (io_region) {
        io_exec_prepare();
        io_region_fork_window();
    }
}

IO_EXPORT pid_t fork(void)
{
    before_fork();
    pid_t pid = REAL(fork)();
    if (pid == 0)
        after_fork_child();
    return pid;
}

IO_EXPORT int daemon(int nochdir, int noclose)
{
    before_fork();
    int rc = REAL(daemon)(nochdir, noclose);
    /* Only the daemon returns (its parent _exits inside): a new pid. */
    if (rc == 0 && io_region && io_region->pid != io_getpid())
        after_fork_child();
    return rc;
}

IO_EXPORT pid_t forkpty(int *amaster, char *name, const struct termios *termp, const struct winsize *winp)
{
    before_fork();
    pid_t pid = REAL(forkpty)(amaster, name, termp, winp);
    if (pid == 0)
        after_fork_child();
    return pid;
}

extern char **environ;

/* $NAME's value, or NULL: a scan of environ (getenv would cost a page of
 * libc's text to every short process). */
static const char *env_value(const char *name)
{
    for (char **e = environ; e && *e; e++) {
        const char *p = *e, *n = name;
        while (*n && *p == *n)
            p++, n++;
        if (!*n && *p == '=')
            return p + 1;
    }
    return NULL;
}

/* The end through exit (an explicit exit or main's return), with its
 * status: registered at the start, before the program's own exit handlers
 * and the loader's (a preloaded library's constructor runs before
 * __libc_start_main registers _dl_fini), so it runs last, after the
 * destructors. exit is not wrapped (that cost every image a dlsym at its
 * end and missed main's return: glibc calls its own exit), and there is no
 * destructor (which ran before this and ended the region twice). */
static void on_exit_status(int status, void *arg)
{
    (void)arg;
    struct tally_io_header *h = own_region();
    if (h) {
        h->exit_code = status & 0xff;
        end_region(h, TALLY_IO_EXIT_CODE);
    }
}

/* True when this image runs under valgrind's memcheck, which preloads its
 * vgpreload_memcheck-ARCH.so (callgrind, which measures the helper, keeps
 * the block scan). */
static bool under_memcheck(void)
{
    static const char mark[] = "/vgpreload_memcheck-";
    for (const char *p = env_value("LD_PRELOAD"); p && *p; p++) {
        size_t i = 0;
        while (mark[i] && p[i] == mark[i])
            i++;
        if (!mark[i])
            return true;
    }
    return false;
}

__attribute__((constructor)) static void io_start(void)
{
    if (!io_directory_set(env_value("TALLY_IO_DIR")))
        return;
    if (under_memcheck())
        io_scan_exact();
    int saved = errno;
    io_busy(1);
    io_region = io_region_claim(0);
    io_busy(0);
    if (io_region) {
        on_exit(on_exit_status, NULL);
        install_fatal_handlers();
    }
    errno = saved;
}



static void end_at_underscore_exit(int status)
{
    struct tally_io_header *h = own_region();
    if (h) {
        h->exit_code = status & 0xff;
        end_region(h, TALLY_IO_UNDERSCORE_EXIT | TALLY_IO_EXIT_CODE);
    }
}

IO_EXPORT void _exit(int status)
{
    end_at_underscore_exit(status);
    io_sys(SYS_exit_group, status);
    __builtin_unreachable();
}

IO_EXPORT void _Exit(int status)
{
    end_at_underscore_exit(status);
    io_sys(SYS_exit_group, status);
    __builtin_unreachable();
}
