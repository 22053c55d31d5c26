/* libtally-io's process side: the region of this process image (created at
 * load, mapped, its descriptor closed at once), a forked child's own region
 * (pthread_atfork), the process's start and end (exit, _exit, destructors,
 * fatal signals caught), the reentrancy guard and the descriptor table.
 * Internal operations use raw system calls, never the wrappers. */
#include "io.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

struct tally_io_header *io_region;
int io_fd_high = -1;
static struct io_fd fds[IO_MAX_FDS];
static __thread int busy __attribute__((tls_model("initial-exec")));
static char directory[PATH_MAX];

void *io_next_symbol(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

struct io_fd *io_fd_slot(int fd)
{
    if (fd < 0 || fd >= IO_MAX_FDS)
        return NULL;
    if (fd > io_fd_high)
        io_fd_high = fd;
    return &fds[fd];
}

bool io_enter(void)
{
    if (!io_region)
        return false;
    if (busy) {
        __atomic_fetch_add(&io_region->unseen_calls, 1, __ATOMIC_RELAXED);
        return false;
    }
    busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return true;
}

void io_leave(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    busy = 0;
}

/* A decimal into P, returning the end. */
static char *put_uint(char *p, unsigned long v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* DIR/io.PID.N, the first N free (a pid's later images take the next). */
static struct tally_io_header *create_region(uint32_t flags)
{
    char path[PATH_MAX + 64];
    pid_t pid = (pid_t)syscall(SYS_getpid);
    size_t dlen = strlen(directory);
    if (dlen + 48 > sizeof path)
        return NULL;
    int fd = -1;
    uint32_t image = 0;
    for (; image < 1000; image++) {
        char *p = path;
        memcpy(p, directory, dlen);
        p += dlen;
        memcpy(p, "/io.", 4);
        p = put_uint(p + 4, (unsigned long)pid);
        *p++ = '.';
        p = put_uint(p, image);
        *p = '\0';
        fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            break;
    }
    if (fd < 0)
        return NULL;
    void *base = MAP_FAILED;
    if (syscall(SYS_ftruncate, fd, (long)TALLY_IO_SIZE) == 0)
        base = (void *)syscall(SYS_mmap, NULL, (size_t)TALLY_IO_SIZE, PROT_READ | PROT_WRITE,
                               MAP_SHARED, fd, 0);
    syscall(SYS_close, fd); /* nothing held: the program may close or dup2 onto any fd */
    if (base == MAP_FAILED) {
        syscall(SYS_unlinkat, AT_FDCWD, path, 0);
        return NULL;
    }
    struct tally_io_header *h = base;
    h->version = TALLY_IO_VERSION;
    h->record_size = TALLY_IO_RECORD;
    h->capacity = TALLY_IO_CAPACITY;
    h->image = image;
    h->pid = pid;
    h->ppid = (pid_t)syscall(SYS_getppid);
    h->flags = flags;
    h->start_ns = io_now();
    ssize_t n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", h->exe, sizeof h->exe - 1);
    h->exe[n > 0 ? n : 0] = '\0';
    struct tally_io_record *inc = tally_io_record_at(h, TALLY_IO_CAPACITY);
    memcpy(inc->path, TALLY_IO_INCOMPLETE_NAME, sizeof TALLY_IO_INCOMPLETE_NAME);
    inc->last_read_end = inc->last_write_end = -1;
    inc->ready = 1;
    __atomic_store_n(&h->magic, TALLY_IO_MAGIC, __ATOMIC_RELEASE);
    return h;
}

void io_process_end(uint32_t flags)
{
    struct tally_io_header *h = io_region;
    if (!h || h->pid != (pid_t)syscall(SYS_getpid)) /* a vfork child shares the parent's */
        return;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        h->utime_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u;
        h->stime_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u;
        h->maxrss_kb = (uint64_t)ru.ru_maxrss;
    }
    h->end_ns = io_now();
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
    if (io_region && io_region->pid == (pid_t)syscall(SYS_getpid)) {
        io_region->signal = sig;
        io_process_end(TALLY_IO_SIGNALED);
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
 * over (by path) from the parent's region, which it then unmaps. */
static void after_fork_child(void)
{
    struct tally_io_header *old = io_region;
    if (!old)
        return;
    busy = 1;
    io_region = create_region(TALLY_IO_FORKED);
    io_records_reset();
    for (int fd = 0; fd <= io_fd_high; fd++) {
        struct io_fd *s = &fds[fd];
        if (s->rec)
            s->rec = io_region ? io_record_for_abs(tally_io_record_at(old, (uint32_t)(s->rec - 1))->path) : 0;
        if (s->srec)
            s->srec = io_region ? io_record_for_abs(tally_io_record_at(old, (uint32_t)(s->srec - 1))->path) : 0;
    }
    syscall(SYS_munmap, old, (size_t)TALLY_IO_SIZE);
    busy = 0;
}

__attribute__((constructor)) static void io_start(void)
{
    const char *dir = getenv("TALLY_IO_DIR");
    if (!dir || !*dir || strlen(dir) >= sizeof directory)
        return;
    memcpy(directory, dir, strlen(dir) + 1);
    busy = 1;
    io_region = create_region(0);
    busy = 0;
    if (!io_region)
        return;
    pthread_atfork(NULL, NULL, after_fork_child);
    install_fatal_handlers();
    io_exec_prepare();
}

__attribute__((destructor)) static void io_stop(void)
{
    io_process_end(0);
}

const char *io_directory(void)
{
    return directory;
}

IO_EXPORT void exit(int status)
{
    if (io_region && io_region->pid == (pid_t)syscall(SYS_getpid)) {
        io_region->exit_code = status & 0xff;
        __atomic_fetch_or(&io_region->flags, TALLY_IO_EXIT_CODE, __ATOMIC_RELAXED);
    }
    void (*next)(int) = (void (*)(int))io_next_symbol("exit");
    next(status);
    __builtin_unreachable();
}

static void end_at_underscore_exit(int status)
{
    if (io_region && io_region->pid == (pid_t)syscall(SYS_getpid)) {
        io_region->exit_code = status & 0xff;
        io_process_end(TALLY_IO_UNDERSCORE_EXIT | TALLY_IO_EXIT_CODE);
    }
}

IO_EXPORT void _exit(int status)
{
    end_at_underscore_exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

IO_EXPORT void _Exit(int status)
{
    end_at_underscore_exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}
