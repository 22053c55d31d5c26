/* libtally-io's process side, the top of the helper: the start of this
 * process image (its region claimed at load), a forked child's own region
 * (pthread_atfork, its descriptors' records carried over), and the end
 * (exit, _exit, destructors, fatal signals caught), with getrusage's CPU
 * times and peak memory. The monitor counts every process from its
 * region, without a ptrace stop (docs/io.md). */
#include "exec.h"
#include "records.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* In a forked child, its parent's region: left mapped (unmapping costs the
 * short child more than keeping it) until the child forks in turn. */
static struct tally_io_header *parents_region IO_HOT;

/* Process end: end time, rusage and FLAGS (async-signal-safe). */
static void process_end(uint32_t flags)
{
    struct tally_io_header *h = io_region;
    if (!h || h->pid != io_getpid()) /* a vfork child shares the parent's */
        return;
    struct rusage ru;
    if (io_sys(SYS_getrusage, RUSAGE_SELF, &ru) == 0) {
        h->utime_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u;
        h->stime_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u;
        h->maxrss_kb = (uint64_t)ru.ru_maxrss;
    }
    h->end_ticks = io_ticks();
    __atomic_fetch_or(&h->flags, flags | TALLY_IO_ENDED, __ATOMIC_RELEASE);
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
    if (io_region && io_region->pid == io_getpid()) {
        io_region->signal = sig;
        process_end(TALLY_IO_SIGNALED);
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

__attribute__((constructor)) static void io_start(void)
{
    if (!io_directory_set(env_value("TALLY_IO_DIR")))
        return;
    int saved = errno;
    io_busy(1);
    io_region = io_region_claim(0);
    io_busy(0);
    if (io_region) {
        pthread_atfork(NULL, NULL, after_fork_child);
        install_fatal_handlers();
        io_exec_prepare();
    }
    errno = saved;
}

__attribute__((destructor)) static void io_stop(void)
{
    process_end(0);
}

IO_EXPORT void exit(int status)
{
    static void (*next)(int);
    if (io_region && io_region->pid == io_getpid()) {
        io_region->exit_code = status & 0xff;
        __atomic_fetch_or(&io_region->flags, TALLY_IO_EXIT_CODE, __ATOMIC_RELAXED);
    }
    if (!next)
        next = (void (*)(int))io_next_symbol("exit");
    next(status);
    __builtin_unreachable();
}

static void end_at_underscore_exit(int status)
{
    if (io_region && io_region->pid == io_getpid()) {
        io_region->exit_code = status & 0xff;
        process_end(TALLY_IO_UNDERSCORE_EXIT | TALLY_IO_EXIT_CODE);
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
