/* libtally-io's bottom layer (region.h): the region of this process image,
 * claimed as a slot of the run file DIR/io.slots (the run file created by
 * the first image of the run), else as a file of its own DIR/io.PID.N;
 * the reentrancy guard (the descriptor table is fds.c's). Internal operations use
 * raw system calls, never the wrappers. The claim, made by every image at
 * its start and by every forked child, calls nothing of libc (io_sys, the
 * copy loops below) and keeps no buffer on the stack: each libc text page
 * or new stack page it touched was one more page fault per short process. */
#include "region.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

/* In .data, beside the rest a fork child writes (records.c's generation,
 * process.c's parents_region): one page copied on write, not two. */
struct tally_io_header *io_region IO_HOT;
__thread int io_busy_flag __attribute__((tls_model("initial-exec")));
/* What the claim reads, packed in one buffer so that an image's start
 * touches one page of it: DIR, DIR/io.slots (built once at the start) and
 * this image's executable (read from /proc/self/exe once; a forked child
 * copies it from here, its own memory); and the run file's first page,
 * mapped once per image and kept (a forked child claims its slot through
 * its copy). */
#define EXE_MAX sizeof(((struct tally_io_header *)0)->exe)
/* The only variable of .bss here, and region.c linked first (Makefile):
 * st opens .bss, in the page the loader already zeroes the end of behind
 * .data, so an image's start writes its paths (usually under a hundred
 * bytes each) with no page fault of its own (st further in .bss, behind
 * the descriptor table, cost every image one). */
static struct {
    struct tally_io_run *run;
    char *run_path, *exe;       /* within text */
    size_t dir_len;
    bool exe_known;
    char text[2 * PATH_MAX + 16 + EXE_MAX]; /* DIR \0 DIR/io.slots \0 EXE \0 */
} st;

size_t io_copy_str(char *dst, const char *src, size_t max)
{
    size_t n = 0;
    while (n + 1 < max && src[n]) {
        dst[n] = src[n];
        n++;
        __asm__("" ::: "memory");
    }
    dst[n] = '\0';
    return n;
}

void *io_next_symbol(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

const char *io_directory(void)
{
    return st.text;
}

bool io_directory_set(const char *dir)
{
    if (!dir || !*dir)
        return false;
    size_t n = io_copy_str(st.text, dir, PATH_MAX);
    if (n + 32 >= PATH_MAX) {
        st.text[0] = '\0';
        return false;
    }
    st.dir_len = n;
    st.run_path = st.text + n + 1;
    io_copy_str(st.run_path, st.text, n + 1);
    st.run_path[n] = '/';
    size_t k = io_copy_str(st.run_path + n + 1, TALLY_IO_RUN_FILE, 16);
    st.exe = st.run_path + n + 1 + k + 1;
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
    size_t dlen = st.dir_len;
    memcpy(path, st.text, dlen);
    path[dlen] = '/';
    return stpcpy(path + dlen + 1, name);
}

/* A mapping's address, or NULL for an error (-4095..-1). */
static void *mapped(long r)
{
    return r < 0 && r >= -4095 ? NULL : (void *)r;
}

/* Creates the run file under a name of this process's, sized and with its
 * header, then links it into place: another image sees it whole or not at
 * all (EEXIST: one was there first, fine). */
static void create_run_file(pid_t pid)
{
    char tmp[PATH_MAX + 64];
    char *p = dir_path(tmp, "io.slots.tmp.");
    *put_uint(p, (unsigned long)pid) = '\0';
    int fd = (int)io_sys(SYS_openat, AT_FDCWD, tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    /* Written through a mapping: the task's write counters stay its own. */
    struct tally_io_run *r = NULL;
    if (io_sys(SYS_ftruncate, fd, (long)tally_io_slot_offset(TALLY_IO_SLOTS)) == 0)
        r = mapped(io_sys(SYS_mmap, NULL, TALLY_IO_RUN_HEADER, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    if (r) {
        r->version = TALLY_IO_VERSION;
        r->slot_size = TALLY_IO_SLOT;
        r->slots = TALLY_IO_SLOTS;
        r->anchor_ticks = io_ticks();
        r->anchor_ns = io_now();
        r->magic = TALLY_IO_RUN_MAGIC;
        io_sys(SYS_munmap, r, TALLY_IO_RUN_HEADER);
        io_sys(SYS_linkat, AT_FDCWD, tmp, AT_FDCWD, st.run_path, 0);
    }
    io_sys(SYS_close, fd);
    io_sys(SYS_unlinkat, AT_FDCWD, tmp, 0);
}

/* Slots mapped ahead by a process that forks (io_region_fork_window):
 * [first, first + count) of the run file at base. Written only while the
 * process has one thread, before a fork; a forked child finds its parent's
 * window mapped in its own memory. */
#define WINDOW_SLOTS 16
static struct {
    char *base;
    uint64_t first, count;
} win IO_HOT;

/* The next slot, when it lies in the window: claimed (the same atomic
 * increment of taken as any claim, never ahead of it) and already mapped;
 * NULL otherwise (the caller claims through the run file). */
static void *claim_in_window(void)
{
    if (!win.base || !st.run)
        return NULL;
    uint64_t t = __atomic_load_n(&st.run->taken, __ATOMIC_RELAXED);
    while (t >= win.first && t < win.first + win.count)
        if (__atomic_compare_exchange_n(&st.run->taken, &t, t + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return win.base + (t - win.first) * (uint64_t)TALLY_IO_SLOT;
    return NULL;
}

static bool in_window(const void *p)
{
    return win.base && (const char *)p >= win.base &&
           (const char *)p < win.base + win.count * (uint64_t)TALLY_IO_SLOT;
}

void io_region_fork_window(void)
{
    if (!st.run || !io_region || !__libc_single_threaded)
        return;
    uint64_t t = __atomic_load_n(&st.run->taken, __ATOMIC_RELAXED);
    if ((win.base && t >= win.first && t < win.first + win.count) || t >= TALLY_IO_SLOTS)
        return;
    uint64_t n = TALLY_IO_SLOTS - t < WINDOW_SLOTS ? TALLY_IO_SLOTS - t : WINDOW_SLOTS;
    int fd = (int)io_sys(SYS_openat, AT_FDCWD, st.run_path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return;
    char *b = mapped(io_sys(SYS_mmap, NULL, n * TALLY_IO_SLOT, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                            (long)tally_io_slot_offset(t)));
    io_sys(SYS_close, fd);
    if (!b)
        return;
    /* The old window goes, unless this process's own region is in it (a
     * forked child's, claimed in its parent's window). */
    if (win.base && !in_window(io_region))
        io_sys(SYS_munmap, win.base, win.count * TALLY_IO_SLOT);
    win.base = b;
    win.first = t;
    win.count = n;
}

/* The next slot of the run file, mapped; NULL when there is none. */
static void *claim_slot(pid_t pid)
{
    int fd = (int)io_sys(SYS_openat, AT_FDCWD, st.run_path, O_RDWR | O_CLOEXEC);
    if (fd == -ENOENT && !st.run) {
        create_run_file(pid);
        fd = (int)io_sys(SYS_openat, AT_FDCWD, st.run_path, O_RDWR | O_CLOEXEC);
    }
    if (fd < 0)
        return NULL;
    void *base = NULL;
    if (!st.run) {
        struct tally_io_run *r = mapped(io_sys(SYS_mmap, NULL, TALLY_IO_RUN_HEADER, PROT_READ | PROT_WRITE,
                                               MAP_SHARED, fd, 0));
        if (r && r->magic == TALLY_IO_RUN_MAGIC && r->version == TALLY_IO_VERSION &&
            r->slot_size == TALLY_IO_SLOT && r->slots == TALLY_IO_SLOTS)
            st.run = r;
        else if (r)
            io_sys(SYS_munmap, r, TALLY_IO_RUN_HEADER);
    }
    if (st.run) {
        uint64_t slot = __atomic_fetch_add(&st.run->taken, 1, __ATOMIC_RELAXED);
        if (slot < TALLY_IO_SLOTS)
            base = mapped(io_sys(SYS_mmap, NULL, TALLY_IO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                                 (long)tally_io_slot_offset(slot)));
    }
    io_sys(SYS_close, fd); /* nothing held: the program may close or dup2 onto any fd */
    return base;
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
        fd = (int)io_sys(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd != -EEXIST)
            break;
    }
    if (fd < 0)
        return NULL;
    void *base = NULL;
    if (io_sys(SYS_ftruncate, fd, (long)TALLY_IO_SIZE) == 0)
        base = mapped(io_sys(SYS_mmap, NULL, TALLY_IO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    io_sys(SYS_close, fd);
    if (!base)
        io_sys(SYS_unlinkat, AT_FDCWD, path, 0);
    return base;
}

/* ---- the executable's name: /proc/self/exe, or the run file's cache ---- */

static bool starts_with(const char *s, const char *prefix)
{
    while (*prefix && *s == *prefix)
        s++, prefix++;
    return !*prefix;
}

/* This image's AT_EXECFN when it may key the cache: an absolute path that
 * names the same file for every process of the run (not /proc/... or
 * /dev/fd/N, as fexecve gives), short enough; else NULL. */
static const char *exe_key(uint64_t *hash)
{
    const char *fn = (const char *)getauxval(AT_EXECFN);
    if (!fn || fn[0] != '/' || starts_with(fn, "/proc/") || starts_with(fn, "/dev/"))
        return NULL;
    uint64_t h = 0xcbf29ce484222325ull;
    size_t n = 0;
    for (; fn[n]; n++) {
        if (n + 1 >= TALLY_IO_EXE_KEY)
            return NULL;
        h = (h ^ (unsigned char)fn[n]) * 0x100000001b3ull;
    }
    *hash = h ? h : 1;
    return fn;
}

static bool same_str(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* The cached name of KEY into st.exe; false when there is none (yet). */
static bool exe_cached(struct tally_io_run *run, const char *key, uint64_t hash)
{
    for (uint32_t i = 0; i < TALLY_IO_EXE_CACHE; i++) {
        struct tally_io_exe_entry *e = tally_io_exe_entry_at(run, (uint32_t)((hash + i) % TALLY_IO_EXE_CACHE));
        uint64_t h = __atomic_load_n(&e->hash, __ATOMIC_ACQUIRE);
        if (!h)
            return false; /* entries are never removed: KEY is not further on */
        if (h == hash && __atomic_load_n(&e->ready, __ATOMIC_ACQUIRE) && same_str(e->key, key)) {
            io_copy_str(st.exe, e->exe, EXE_MAX);
            return true;
        }
    }
    return false;
}

/* Keeps st.exe as KEY's name (nothing when the cache is full, or another
 * image is adding the same key). */
static void exe_remember(struct tally_io_run *run, const char *key, uint64_t hash)
{
    for (uint32_t i = 0; i < TALLY_IO_EXE_CACHE; i++) {
        struct tally_io_exe_entry *e = tally_io_exe_entry_at(run, (uint32_t)((hash + i) % TALLY_IO_EXE_CACHE));
        uint64_t h = 0;
        if (__atomic_compare_exchange_n(&e->hash, &h, hash, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            io_copy_str(e->key, key, sizeof e->key);
            io_copy_str(e->exe, st.exe, sizeof e->exe);
            __atomic_store_n(&e->ready, 1, __ATOMIC_RELEASE);
            return;
        }
        if (h == hash && (!__atomic_load_n(&e->ready, __ATOMIC_ACQUIRE) || same_str(e->key, key)))
            return;
    }
}

/* st.exe for this image: from the run file's cache when an earlier image
 * of the run was started by the same path, else read from /proc/self/exe
 * (and cached). Once per image: a forked child has it already. */
static void find_exe(void)
{
    uint64_t hash = 0;
    const char *key = st.run ? exe_key(&hash) : NULL;
    if (key && exe_cached(st.run, key, hash)) {
        st.exe_known = true;
        return;
    }
    long n = io_sys(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", st.exe, EXE_MAX - 1);
    st.exe[n > 0 ? n : 0] = '\0';
    st.exe_known = true;
    if (key && n > 0)
        exe_remember(st.run, key, hash);
}

/* A region claimed and filled; EXEC_TARGET: a vfork child's note (below). */
static struct tally_io_header *claim(uint32_t flags, const char *exec_target)
{
    if (!st.text[0])
        return NULL;
    pid_t pid = io_getpid();
    uint32_t image = 0;
    /* A vfork child's note is unmapped at once: not in its parent's window. */
    struct tally_io_header *h = exec_target ? NULL : claim_in_window();
    if (!h)
        h = claim_slot(pid);
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
    h->ppid = (pid_t)io_sys0(SYS_getppid);
    h->flags = flags;
    h->ticks = IO_TICKS_KIND;
    h->start_ticks = io_ticks();
    if (from_slot) {
        h->anchor_ns = st.run->anchor_ns;
        h->anchor_ticks = st.run->anchor_ticks;
    } else {
        h->anchor_ticks = io_ticks();
        h->anchor_ns = io_now();
    }
    /* Once per image (a forked child runs its parent's executable,
     * already here). */
    if (!st.exe_known)
        find_exe();
    io_copy_str(h->exe, st.exe, sizeof h->exe);
    if (exec_target) {
        io_copy_str(h->exec_target, exec_target, sizeof h->exec_target);
        h->flags |= TALLY_IO_EXEC_PENDING;
    }
    /* The incomplete record is left untouched (its page is given only when a
     * file past the bound needs it); the monitor names it. */
    __atomic_store_n(&h->magic, TALLY_IO_MAGIC, __ATOMIC_RELEASE);
    return h;
}

struct tally_io_header *io_region_claim(uint32_t flags)
{
    return claim(flags, NULL);
}

void io_region_note_vfork_exec(const char *target)
{
    struct tally_io_header *h = claim(TALLY_IO_FORKED, target);
    io_region_unmap(h); /* the parent's address space: nothing of the child's stays in it */
}

void io_region_unmap(struct tally_io_header *h)
{
    if (h)
        io_sys(SYS_munmap, h, TALLY_IO_SIZE);
}
