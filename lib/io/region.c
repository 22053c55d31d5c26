/* libtally-io's bottom layer (region.h): the region of this process image,
 * claimed as a slot of the run file DIR/io.slots (the run file created by
 * the first image of the run), else as a file of its own DIR/io.PID.N;
 * the reentrancy guard and the descriptor table. Internal operations use
 * raw system calls, never the wrappers. */
#include "region.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct tally_io_header *io_region;
int io_fd_high = -1;
static struct io_fd fds[IO_MAX_FDS];
static __thread int busy __attribute__((tls_model("initial-exec")));
static char directory[PATH_MAX];
/* The run file's first page, mapped once per image and kept (a forked
 * child claims its slot through its copy). */
static struct tally_io_run *run;

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

void io_busy(int on)
{
    busy = on;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

const char *io_directory(void)
{
    return directory;
}

bool io_directory_set(const char *dir)
{
    if (!dir || !*dir || strlen(dir) + 32 >= sizeof directory)
        return false;
    memcpy(directory, dir, strlen(dir) + 1);
    return true;
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

/* DIR/NAME into PATH (room for PATH_MAX + 64). */
static char *dir_path(char *path, const char *name)
{
    size_t dlen = strlen(directory);
    memcpy(path, directory, dlen);
    path[dlen] = '/';
    return stpcpy(path + dlen + 1, name);
}

/* Creates the run file under a name of this process's, sized and with its
 * header, then links it into place: another image sees it whole or not at
 * all (EEXIST: one was there first, fine). */
static void create_run_file(pid_t pid)
{
    char tmp[PATH_MAX + 64], path[PATH_MAX + 64];
    char *p = dir_path(tmp, "io.slots.tmp.");
    *put_uint(p, (unsigned long)pid) = '\0';
    dir_path(path, TALLY_IO_RUN_FILE);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    /* Written through a mapping: the task's write counters stay its own. */
    struct tally_io_run *head = MAP_FAILED;
    if (syscall(SYS_ftruncate, fd, (long)tally_io_slot_offset(TALLY_IO_SLOTS)) == 0)
        head = (void *)syscall(SYS_mmap, NULL, (size_t)TALLY_IO_RUN_HEADER, PROT_READ | PROT_WRITE, MAP_SHARED,
                               fd, 0L);
    if (head != MAP_FAILED) {
        head->version = TALLY_IO_VERSION;
        head->slot_size = TALLY_IO_SLOT;
        head->slots = TALLY_IO_SLOTS;
        head->anchor_ticks = io_ticks();
        head->anchor_ns = io_now();
        head->magic = TALLY_IO_RUN_MAGIC;
        syscall(SYS_munmap, head, (size_t)TALLY_IO_RUN_HEADER);
        syscall(SYS_linkat, AT_FDCWD, tmp, AT_FDCWD, path, 0);
    }
    syscall(SYS_close, fd);
    syscall(SYS_unlinkat, AT_FDCWD, tmp, 0);
}

/* The next slot of the run file, mapped; NULL when there is none. */
static void *claim_slot(pid_t pid)
{
    char path[PATH_MAX + 64];
    dir_path(path, TALLY_IO_RUN_FILE);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && !run) {
        create_run_file(pid);
        fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
    }
    if (fd < 0)
        return NULL;
    void *base = MAP_FAILED;
    if (!run) {
        void *head = (void *)syscall(SYS_mmap, NULL, (size_t)TALLY_IO_RUN_HEADER, PROT_READ | PROT_WRITE,
                                     MAP_SHARED, fd, 0L);
        if (head != MAP_FAILED) {
            struct tally_io_run *r = head;
            if (r->magic == TALLY_IO_RUN_MAGIC && r->version == TALLY_IO_VERSION &&
                r->slot_size == TALLY_IO_SLOT && r->slots == TALLY_IO_SLOTS)
                run = r;
            else
                syscall(SYS_munmap, head, (size_t)TALLY_IO_RUN_HEADER);
        }
    }
    if (run) {
        uint64_t slot = __atomic_fetch_add(&run->taken, 1, __ATOMIC_RELAXED);
        if (slot < TALLY_IO_SLOTS)
            base = (void *)syscall(SYS_mmap, NULL, (size_t)TALLY_IO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
                                   fd, (long)tally_io_slot_offset(slot));
    }
    syscall(SYS_close, fd); /* nothing held: the program may close or dup2 onto any fd */
    return base == MAP_FAILED ? NULL : base;
}

/* A file of its own, DIR/io.PID.N, the first N free (a pid's later images
 * take the next); *image set. */
static void *create_file(pid_t pid, uint32_t *image)
{
    char path[PATH_MAX + 64];
    int fd = -1;
    for (*image = 0; *image < 1000; (*image)++) {
        char *p = dir_path(path, "io.");
        p = put_uint(p, (unsigned long)pid);
        *p++ = '.';
        *put_uint(p, *image) = '\0';
        fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            break;
    }
    if (fd < 0)
        return NULL;
    void *base = MAP_FAILED;
    if (syscall(SYS_ftruncate, fd, (long)TALLY_IO_SIZE) == 0)
        base = (void *)syscall(SYS_mmap, NULL, (size_t)TALLY_IO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0L);
    syscall(SYS_close, fd);
    if (base == MAP_FAILED) {
        syscall(SYS_unlinkat, AT_FDCWD, path, 0);
        return NULL;
    }
    return base;
}

/* A region claimed and filled; EXEC_TARGET: a vfork child's note (below). */
static struct tally_io_header *claim(uint32_t flags, const struct tally_io_header *parent, const char *exec_target)
{
    if (!directory[0])
        return NULL;
    pid_t pid = (pid_t)syscall(SYS_getpid);
    uint32_t image = 0;
    struct tally_io_header *h = claim_slot(pid);
    bool from_slot = h != NULL;
    if (!h)
        h = create_file(pid, &image);
    if (!h)
        return NULL;
    h->version = TALLY_IO_VERSION;
    h->record_size = TALLY_IO_RECORD;
    h->capacity = TALLY_IO_CAPACITY;
    h->image = image;
    h->pid = pid;
    h->ppid = (pid_t)syscall(SYS_getppid);
    h->flags = flags;
    h->ticks = IO_TICKS_KIND;
    h->start_ticks = io_ticks();
    if (from_slot) {
        h->anchor_ns = run->anchor_ns;
        h->anchor_ticks = run->anchor_ticks;
    } else {
        h->anchor_ticks = io_ticks();
        h->anchor_ns = io_now();
    }
    if (parent) { /* a forked child runs its parent's executable */
        memcpy(h->exe, parent->exe, sizeof h->exe);
    } else {
        ssize_t n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", h->exe, sizeof h->exe - 1);
        h->exe[n > 0 ? n : 0] = '\0';
    }
    if (exec_target) {
        size_t n = strlen(exec_target);
        if (n > sizeof h->exec_target - 1)
            n = sizeof h->exec_target - 1;
        memcpy(h->exec_target, exec_target, n);
        h->exec_target[n] = '\0';
        h->flags |= TALLY_IO_EXEC_PENDING;
    }
    /* The incomplete record is left untouched (its page is given only when a
     * file past the bound needs it); the monitor names it. */
    __atomic_store_n(&h->magic, TALLY_IO_MAGIC, __ATOMIC_RELEASE);
    return h;
}

struct tally_io_header *io_region_claim(uint32_t flags, const struct tally_io_header *parent)
{
    return claim(flags, parent, NULL);
}

void io_region_note_vfork_exec(const struct tally_io_header *parent, const char *target)
{
    struct tally_io_header *h = claim(TALLY_IO_FORKED, parent, target);
    io_region_unmap(h); /* the parent's address space: nothing of the child's stays in it */
}

void io_region_unmap(struct tally_io_header *h)
{
    if (h)
        syscall(SYS_munmap, h, (size_t)TALLY_IO_SIZE);
}
