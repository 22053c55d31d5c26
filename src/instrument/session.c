/* The uprobe-marker monitoring thread (session.h). It polls the uprobe
 * counters every millisecond only while some window is waiting or open;
 * otherwise it sleeps in poll() until a process registers or the run ends.
 * Everything it shares with the processes goes through their segments. */
#include "instrument/session.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "instrument/launch.h"
#include "instrument/link_series.h"
#include "instrument/segments.h"
#include "platform/platform.h"
#include "tally/segment_switch.h"
#include "util/clock.h"
#include "util/vec.h"
#include "util/pid_text.h"

struct watched {
    pid_t pid;
    struct tally_segment *seg;
    int fd;                            /* the uprobe, -1 once detached */
};

struct instrument_session {
    char dir[PATH_MAX];
    char program[PATH_MAX];
    uint64_t offset;
    struct window_spec window;
    int inotify_fd, stop_pipe[2];
    pthread_t thread;
    bool running;
    struct watched *procs;
    size_t count, cap;
    struct link_series *series;
    double series_interval;
    uint64_t next_sample;
    char problem[512];
};

static void note_problem(struct instrument_session *s, const char *why)
{
    if (!s->problem[0])
        snprintf(s->problem, sizeof s->problem, "%s", why);
}

static void watch(struct instrument_session *s, pid_t pid)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->procs[i].pid == pid)
            return;
    struct tally_segment *seg = segment_map(s->dir, pid);
    if (!seg)
        return;
    char why[256];
    int fd = -1;
    if (s->window.marker && (fd = uprobe_open(s->program, s->offset, pid, why, sizeof why)) < 0)
        note_problem(s, why); /* no marker there: its window never opens */
    struct watched *w = VEC_PUSH(s->procs, s->count, s->cap);
    if (!w) {
        if (fd >= 0)
            close(fd);
        segment_unmap(seg);
        return;
    }
    *w = (struct watched){.pid = pid, .seg = seg, .fd = fd};
}

static void detach(struct watched *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
}

/* One look at one process: hits → window transitions. Returns true while
 * it still needs watching. */
static bool step(struct instrument_session *s, struct watched *w)
{
    if (w->fd < 0)
        return false;
    struct tally_seg_data *d = &w->seg->d;
    struct tally_seg_window *win = &d->window;
    int64_t hits = uprobe_hits(w->fd);
    if (hits < 0) {
        detach(w);
        return false;
    }
    uint64_t now = clock_monotonic_ns();
    d->marker_hits = (uint64_t)hits;
    if (hits >= 1 && !d->marker_t_first)
        d->marker_t_first = now;
    if (win->state == TALLY_WINDOW_WAITING && hits >= s->window.start + 1) {
        win->how |= TALLY_WINDOW_OPENED_AT_HIT;
        tally_seg_monitor_switch(w->seg, win->mask, now);
    } else if (win->state == TALLY_WINDOW_OPEN &&
               ((s->window.iterations > 0 && (uint64_t)hits >= win->hits_on + (uint64_t)s->window.iterations) ||
                (s->window.time_limit > 0 && (double)(now - win->t_on) >= s->window.time_limit * 1e9))) {
        tally_seg_monitor_switch(w->seg, 0, now);
    }
    d->marker_t_last = now;
    if (win->state == TALLY_WINDOW_CLOSED || (d->flags & TALLY_SEG_FINISHED)) {
        detach(w); /* a detached uprobe costs the program nothing */
        return false;
    }
    return true;
}

static void read_registrations(struct instrument_session *s)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(s->inotify_fd, buf, sizeof buf);
        if (n <= 0)
            return;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *e = (struct inotify_event *)p;
            const char *end;
            pid_t pid;
            if (e->len && pid_parse(e->name, &end, PID_KERNEL_LIMIT, &pid) == 0 && !strcmp(end, ".seg"))
                watch(s, pid);
            p += sizeof *e + e->len;
        }
    }
}

static void sample_links(struct instrument_session *s, uint64_t now)
{
    for (size_t i = 0; i < s->count; i++)
        link_series_sample(s->series, (double)now * 1e-9, s->procs[i].seg);
}

static void *session_main(void *arg)
{
    struct instrument_session *s = arg;
    for (;;) {
        bool active = false;
        for (size_t i = 0; i < s->count; i++)
            if (step(s, &s->procs[i]))
                active = true;
        int timeout = active ? 1 : -1;
        if (s->series) {
            uint64_t now = clock_monotonic_ns();
            if (now >= s->next_sample) {
                sample_links(s, now);
                s->next_sample = now + (uint64_t)(s->series_interval * 1e9);
            }
            int until = (int)((s->next_sample - now) / 1000000) + 1;
            if (timeout < 0 || until < timeout)
                timeout = until;
        }
        struct pollfd fds[2] = {{.fd = s->inotify_fd, .events = POLLIN}, {.fd = s->stop_pipe[0], .events = POLLIN}};
        int rc = poll(fds, 2, timeout);
        if (rc < 0 && errno != EINTR)
            break;
        if (fds[1].revents)
            break;
        if (fds[0].revents)
            read_registrations(s);
    }
    read_registrations(s);
    for (size_t i = 0; i < s->count; i++)
        step(s, &s->procs[i]); /* last counts */
    if (s->series)
        sample_links(s, clock_monotonic_ns()); /* the end: every rank's final volumes */
    return NULL;
}

/* The program among the command's words that defines the marker function. */
static int find_program(struct instrument_session *s, char *const *argv, char *why, size_t why_size)
{
    char path[PATH_MAX], tried[256] = "";
    for (char *const *w = argv; w && *w; w++) {
        if (command_path(*w, path, sizeof path) < 0)
            continue;
        char ignore[256];
        if (elf_symbol_offset(path, s->window.marker, &s->offset, ignore, sizeof ignore) == 0) {
            snprintf(s->program, sizeof s->program, "%s", path);
            return 0;
        }
        size_t used = strlen(tried);
        snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", *w);
    }
    snprintf(why, why_size, "no function '%s' in the command's programs (%s)", s->window.marker,
             tried[0] ? tried : "none found");
    return -1;
}

struct instrument_session *instrument_session_start(const struct session_options *o, char *why, size_t why_size)
{
    struct instrument_session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    snprintf(s->dir, sizeof s->dir, "%s", o->dir);
    s->window = *o->window;
    s->inotify_fd = -1;
    s->stop_pipe[0] = s->stop_pipe[1] = -1;
    s->series = o->series;
    s->series_interval = o->series_interval > 0 ? o->series_interval : 1;
    if (s->series)
        link_series_begin(s->series, (double)clock_monotonic_ns() * 1e-9);
    if (s->window.marker && find_program(s, o->argv, why, why_size) < 0) {
        free(s);
        return NULL;
    }
    s->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (s->inotify_fd < 0 || inotify_add_watch(s->inotify_fd, s->dir, IN_MOVED_TO) < 0 ||
        pipe2(s->stop_pipe, O_CLOEXEC) < 0) {
        snprintf(why, why_size, "cannot watch %s: %s", s->dir, strerror(errno));
        instrument_session_free(s);
        return NULL;
    }
    if (pthread_create(&s->thread, NULL, session_main, s) != 0) {
        snprintf(why, why_size, "cannot start the monitoring thread");
        instrument_session_free(s);
        return NULL;
    }
    s->running = true;
    return s;
}

const char *instrument_session_finish(struct instrument_session *s)
{
    if (s->running) {
        ssize_t n = write(s->stop_pipe[1], "x", 1);
        (void)n;
        pthread_join(s->thread, NULL);
        s->running = false;
    }
    return s->problem[0] ? s->problem : NULL;
}

void instrument_session_free(struct instrument_session *s)
{
    if (!s)
        return;
    instrument_session_finish(s);
    for (size_t i = 0; i < s->count; i++) {
        detach(&s->procs[i]);
        segment_unmap(s->procs[i].seg);
    }
    free(s->procs);
    if (s->inotify_fd >= 0)
        close(s->inotify_fd);
    if (s->stop_pipe[0] >= 0) {
        close(s->stop_pipe[0]);
        close(s->stop_pipe[1]);
    }
    free(s);
}
