/* The process side of the segment: creating DIR/PID.seg at registration,
 * mapping its control page over each library's own control page (so that
 * the off path is one load of a fixed address), the window's transitions
 * (which also switch the process's counters, perf_counters.c), and the one-file notifications the monitor waits for with inotify.
 * Process-global state is the nature of a library loaded into an
 * application: one segment per process; a forked child starts unregistered. */
#include "segment_client.h"
#include "perf_counters.h"
#include "tally/segment_switch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { UNREGISTERED, REGISTERED, NO_MONITOR };

static struct tally_segment *segment;
static int state = UNREGISTERED;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *control_pages[8];
static int control_page_count;
static char directory[PATH_MAX - 64];
static int rank_hint = -1; /* the MPI rank registering (for remote.c's message) */

static int64_t env_int(const char *name, int64_t fallback)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return fallback;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    return (errno || *end || v < 0) ? fallback : v;
}

/* Replaces PAGE by a shared view of the segment's page 0 (fd still open). */
static void overlay(int fd, void *page)
{
    void *p = mmap(page, TALLY_SEG_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    (void)p; /* on failure PAGE stays the library's own zero page: recording stays off */
}

static void configure_window(struct tally_segment *s)
{
    struct tally_seg_window *w = &s->d.window;
    w->start = env_int("TALLY_WINDOW_START", -1);
    w->iterations = env_int("TALLY_WINDOW_ITERATIONS", 0);
    w->time_limit_ns = env_int("TALLY_WINDOW_TIME_NS", 0);
    w->call_limit = env_int("TALLY_WINDOW_CALLS", 0);
    int64_t driver = env_int("TALLY_WINDOW_BY_MONITOR", TALLY_WINDOW_BY_MARKER);
    w->driver = driver == TALLY_WINDOW_BY_MONITOR || driver == TALLY_WINDOW_BY_REQUEST ? (uint32_t)driver
                                                                                      : TALLY_WINDOW_BY_MARKER;
    w->mask = TALLY_ON_ANY;
    if (w->start >= 0 || w->driver != TALLY_WINDOW_BY_MARKER) {
        w->state = TALLY_WINDOW_WAITING;
        s->control.c.on = 0;
    } else { /* no window: recording from registration (MPI: from MPI_Init) to the end */
        tally_seg_period_open(w, 0, s->d.t_register);
        s->control.c.on = w->mask;
    }
}

static void on_exit_mark(void)
{
    struct tally_segment *s = segment;
    if (!s)
        return;
    uint64_t now = tally__now_ns();
    if (s->control.c.on & TALLY_ON_PENDING)
        tally__acknowledge(s);
    if (s->d.window.state == TALLY_WINDOW_OPEN) {
        s->d.window.how |= TALLY_WINDOW_CLOSED_AT_END;
        tally__window_close(s, now);
    }
    tally__perf_finish(s);
    s->d.t_exit = now;
    __atomic_or_fetch(&s->d.flags, TALLY_SEG_FINISHED, __ATOMIC_RELEASE);
}

static void forget_in_child(void)
{
    /* The child shares the parent's mapping: give it back private zero pages. */
    for (int i = 0; i < control_page_count; i++)
        mmap(control_pages[i], TALLY_SEG_PAGE, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    tally__perf_forget();
    segment = NULL;
    state = UNREGISTERED;
    pthread_mutex_init(&lock, NULL);
}

static int registered_once;

/* Called with the lock held. */
static void register_now(void)
{
    const char *dir = getenv("TALLY_PROBE_DIR");
    if (!dir || !*dir || strlen(dir) >= sizeof directory) {
        state = NO_MONITOR;
        return;
    }
    int where = tally__remote_dir(dir, rank_hint, directory, sizeof directory);
    if (where < 0) {
        directory[0] = '\0';
        state = NO_MONITOR;
        return;
    }
    if (where == 1)
        snprintf(directory, sizeof directory, "%s", dir);
    char temp[PATH_MAX], final[PATH_MAX];
    snprintf(temp, sizeof temp, "%s/.%d.new", directory, (int)getpid());
    snprintf(final, sizeof final, "%s/%d.seg", directory, (int)getpid());
    int fd = open(temp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        state = NO_MONITOR;
        return;
    }
    struct tally_segment *s = MAP_FAILED;
    if (ftruncate(fd, (off_t)TALLY_SEG_SIZE) == 0)
        s = mmap(NULL, TALLY_SEG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (s == MAP_FAILED) {
        close(fd);
        unlink(temp);
        state = NO_MONITOR;
        return;
    }
    s->control.c.version = TALLY_SEG_VERSION;
    s->d.pid = (int32_t)getpid();
    s->d.rank = -1;
    gethostname(s->d.host, sizeof s->d.host - 1);
    ssize_t n = readlink("/proc/self/exe", s->d.exe, sizeof s->d.exe - 1);
    if (n < 0)
        s->d.exe[0] = '\0';
    s->d.t_register = tally__now_ns();
    configure_window(s);
    tally__perf_open(s);
    for (int i = 0; i < control_page_count; i++)
        overlay(fd, control_pages[i]);
    close(fd);
    __atomic_store_n(&s->control.c.magic, TALLY_SEG_MAGIC, __ATOMIC_RELEASE);
    if (rename(temp, final) < 0) { /* the monitor would never see it */
        unlink(temp);
        state = NO_MONITOR;
        munmap(s, TALLY_SEG_SIZE);
        return;
    }
    __atomic_store_n(&segment, s, __ATOMIC_RELEASE);
    state = REGISTERED;
    if (!registered_once) {
        registered_once = 1;
        atexit(on_exit_mark);
        pthread_atfork(NULL, NULL, forget_in_child);
    }
}

struct tally_segment *tally__segment(void)
{
    struct tally_segment *s = __atomic_load_n(&segment, __ATOMIC_ACQUIRE);
    if (s || state == NO_MONITOR)
        return s;
    pthread_mutex_lock(&lock);
    if (state == UNREGISTERED)
        register_now();
    s = segment;
    pthread_mutex_unlock(&lock);
    return s;
}

struct tally_segment *tally__segment_register_mpi(int rank, int ranks, const char *library)
{
    rank_hint = rank;
    struct tally_segment *s = tally__segment();
    if (!s)
        return NULL;
    s->d.rank = rank;
    s->d.ranks = ranks;
    snprintf(s->d.library, sizeof s->d.library, "%s", library);
    __atomic_or_fetch(&s->d.flags, TALLY_SEG_MPI, __ATOMIC_RELEASE);
    tally__notify("mpi");
    return s;
}

void tally__segment_map_control(void *page)
{
    pthread_mutex_lock(&lock);
    if (control_page_count < (int)(sizeof control_pages / sizeof control_pages[0])) {
        control_pages[control_page_count++] = page;
        if (segment) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%d.seg", directory, (int)getpid());
            int fd = open(path, O_RDWR | O_CLOEXEC);
            if (fd >= 0) {
                overlay(fd, page);
                close(fd);
            }
        }
    }
    pthread_mutex_unlock(&lock);
}

void tally__window_open(struct tally_segment *s, uint64_t now)
{
    struct tally_seg_window *w = &s->d.window;
    tally_seg_period_open(w, s->d.marker_hits, now);
    tally__perf_window_on();
    __atomic_or_fetch(&s->control.c.on, w->mask, __ATOMIC_RELEASE);
}

void tally__window_close(struct tally_segment *s, uint64_t now)
{
    struct tally_seg_window *w = &s->d.window;
    __atomic_and_fetch(&s->control.c.on, ~w->mask, __ATOMIC_RELEASE);
    tally__perf_window_off(s);
    tally_seg_period_close(w, s->d.marker_hits, now);
    tally__notify("closed");
}

uint32_t tally__acknowledge(struct tally_segment *s)
{
    struct tally_seg_control *c = &s->control.c;
    uint32_t on = __atomic_and_fetch(&c->on, ~TALLY_ON_PENDING, __ATOMIC_ACQ_REL);
    uint64_t request = __atomic_load_n(&c->request, __ATOMIC_ACQUIRE);
    c->ack_ns = tally__now_ns();
    __atomic_store_n(&c->ack, request, __ATOMIC_RELEASE);
    if (on & TALLY_ON_ANY)
        tally__perf_window_on();
    else
        tally__perf_window_off(s);
    return on;
}

void tally__notify(const char *what)
{
    if (!directory[0])
        return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%d.%s", directory, (int)getpid(), what);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}
