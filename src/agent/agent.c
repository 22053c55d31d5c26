/* The agent's event loop and its connections (see agent.h): epoll over the
 * listening socket, a timerfd for the sampling tick, the caller's stop fd
 * and every client. Lines in, lines out: a line that starts with '{' is a
 * protocol message, taken through the table of operations of
 * agent_ops.c; any other line is a request text.
 * Writes never block the loop: what a slow client does not take is kept,
 * up to a bound per client and on all clients together (agent_io.c): a
 * client that never reads is dropped, so it cannot starve the others, which
 * keep their share. Each turn of the loop reads at most READ_TURN bytes from
 * a client and takes at most LINES_TURN of its lines (epoll is
 * level-triggered: the rest waits for the next turn, after every other
 * ready client had its turn), so one client that floods requests cannot
 * hold the loop; and a client that sends a few bytes without a line end
 * is not read again for 10 ms, so one sending a byte at a time costs a
 * wake-up per 10 ms, not one per byte. A client's bad line gets an
 * error line; nothing a client sends can stop the loop. */
#include "agent/agent.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "archive/store.h"
#include "agent/agent_state.h"
#include "agent/agent_eval.h"
#include "agent/agent_io.h"
#include "agent/agent_launch.h"
#include "agent/agent_probes.h"
#include "agent/agent_segments.h"
#include "agent/agent_tree.h"
#include "agent/proc_info.h"
#include "agent/agent_levels.h"
#include "agent/agent_nats.h"
#include "agent/agent_ops.h"
#include "client/agent_socket.h"
#include "agent/metrics.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/vec.h"

#define IN_MAX (1u << 20)      /* longest line a client may send */
#define READ_TURN (16u << 10)  /* bytes read from one client per turn of the loop */
#define LINES_TURN 64u         /* lines taken from one client per turn of the loop */
#define FRAGMENT 512u          /* a turn that read less, and no line end: a trickle */
#define TRICKLE_PAUSE 0.01     /* the step (seconds) at which trickling clients are read again */


void agent_options_init(struct agent_options *o)
{
    memset(o, 0, sizeof *o);
    o->interval = 1.0;
    o->series_points = 120;
    o->stop_fd = -1;
    o->ready_fd = -1;
    o->log_fd = -1;
    o->client_output = 64u << 20;
}

static void send_error(struct agent *a, struct agent_client *c, const char *message)
{
    agent_send(a, c, json_pack("{s:s}", "error", message));
}

static void accept_clients(struct agent *a)
{
    for (;;) {
        int fd = accept4(a->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        char why[256];
        if (agent_socket_check_peer(fd, why, sizeof why) < 0) {
            char line[400];
            int n = snprintf(line, sizeof line, "{\"error\": \"refused: %s\"}\n", why);
            if (n > 0)
                (void)!send(fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
            close(fd);
            continue;
        }
        struct agent_client *c = calloc(1, sizeof *c);
        struct agent_client **slot = c ? VEC_PUSH(a->clients, a->client_count, a->client_cap) : NULL;
        if (!slot) {
            free(c);
            close(fd);
            continue;
        }
        c->fd = fd;
        c->id = ++a->next_client_id;
        *slot = c;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(a->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    }
}

static void handle_message(struct agent *a, struct agent_client *c, const char *line)
{
    json_error_t jerr;
    json_t *msg = json_loads(line, 0, &jerr);
    if (!json_is_object(msg)) {
        char why[300];
        snprintf(why, sizeof why, "bad JSON at column %d: %s", jerr.column, jerr.text);
        send_error(a, c, why);
        json_decref(msg);
        return;
    }
    agent_ops_take(&(struct agent_peer){.agent = a, .client = c, .received = clock_monotonic_ns()}, msg);
    json_decref(msg);
}

void agent_handle_line(struct agent *a, struct agent_client *c, const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (!*line)
        return;
    if (*line == '{')
        handle_message(a, c, line);
    else
        agent_request(a, c, line);
}

/* Takes at most LINES_TURN complete lines from c's input; sets c->backlog
 * when complete lines are left for the next turn. The bytes before
 * in_scanned hold no newline (scanned at an earlier turn): a line trickled
 * a byte at a time is scanned once, not once per recv. */
static void take_lines(struct agent *a, struct agent_client *c)
{
    size_t start = 0;
    unsigned lines = 0;
    char *nl = NULL;
    while (!c->closing && lines < LINES_TURN &&
           (nl = memchr(c->in + c->in_scanned, '\n', c->in_len - c->in_scanned))) {
        size_t i = (size_t)(nl - c->in);
        c->in[i] = '\0';
        char *line = c->in + start;
        size_t len = i - start;
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        start = c->in_scanned = i + 1;
        lines++;
        c->lines_taken++;
        agent_handle_line(a, c, line);
    }
    c->backlog = !c->closing && lines == LINES_TURN &&
                 memchr(c->in + c->in_scanned, '\n', c->in_len - c->in_scanned);
    if (!c->closing && !c->backlog)
        c->in_scanned = c->in_len;
    memmove(c->in, c->in + start, c->in_len - start);
    c->in_len -= start;
    c->in_scanned -= start; /* start <= in_scanned */
    if (c->in_len > IN_MAX && !c->backlog) {
        send_error(a, c, "line too long (over 1 MiB)");
        agent_client_close(a, c);
    }
}

/* One turn of client c: what it sent (at most READ_TURN bytes, at most
 * LINES_TURN lines taken). A client with lines left from an earlier turn
 * is not read: take_backlogs gives it its turn, and it is read once those
 * are taken (its end too, after its last lines). */
static void read_client(struct agent *a, struct agent_client *c)
{
    if (c->backlog)
        return;
    size_t turn = 0;
    size_t lines_before = c->lines_taken;
    while (turn < READ_TURN && !c->closing && !c->backlog) {
        if (VEC_RESERVE(c->in, c->in_cap, c->in_len + 4096) < 0) {
            agent_client_close(a, c);
            return;
        }
        size_t room = c->in_cap - c->in_len - 1;
        if (room > READ_TURN - turn)
            room = READ_TURN - turn;
        ssize_t n = recv(c->fd, c->in + c->in_len, room, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            agent_client_gone(a, c);
            break;
        }
        c->in_len += (size_t)n;
        turn += (size_t)n;
        take_lines(a, c);
    }
    /* A few bytes and no line end: a client sending a byte at a time would
     * cost a wake-up and a read per byte; it is read again at the next
     * 10 ms step of the agent's clock, all it sent meanwhile at once. One
     * step for all of them: every trickling client is resumed by the same
     * wake-up (each pause ending at its own time cost a wake-up each). */
    if (turn > 0 && turn < FRAGMENT && c->lines_taken == lines_before && !c->closing &&
        !c->read_paused) {
        c->read_paused = true;
        c->read_after = (floor(clock_monotonic_seconds() / TRICKLE_PAUSE) + 1) * TRICKLE_PAUSE;
        a->read_paused++;
        agent_client_interest(a, c);
    }
}

/* Reads again the paused clients whose pause is over; the earliest end of
 * a pause still running (INFINITY: none). */
static double resume_reads(struct agent *a)
{
    double now = clock_monotonic_seconds(), next = INFINITY;
    for (size_t i = 0; a->read_paused && i < a->client_count; i++) {
        struct agent_client *c = a->clients[i];
        if (!c->read_paused)
            continue;
        if (c->read_after <= now || c->closing) {
            c->read_paused = false;
            a->read_paused--;
            if (!c->closing)
                agent_client_interest(a, c);
        } else if (c->read_after < next) {
            next = c->read_after;
        }
    }
    return next;
}

/* The turn of every client with lines left (after the loop's events). */
static bool take_backlogs(struct agent *a)
{
    bool more = false;
    for (size_t i = 0; i < a->client_count; i++) {
        struct agent_client *c = a->clients[i];
        if (c->backlog && !c->closing) {
            take_lines(a, c);
            more |= c->backlog;
        }
    }
    return more;
}

/* Frees clients marked closing; a runner that went away leaves its task
 * to be followed until its processes are gone. */
static void reap_clients(struct agent *a)
{
    struct agent_task **lost = NULL;
    size_t lost_count = 0, lost_cap = 0;
    size_t k = 0;
    for (size_t i = 0; i < a->client_count; i++) {
        struct agent_client *c = a->clients[i];
        if (!c->closing) {
            a->clients[k++] = c;
            continue;
        }
        if (c->read_paused)
            a->read_paused--;
        agent_client_flush(a, c); /* what was answered before it went (best effort) */
        agent_client_discard(a, c);
        for (size_t t = 0; t < a->task_count; t++)
            if (a->tasks[t]->runner == c) {
                struct agent_task **slot;
                if (c->peer_gone && (slot = VEC_PUSH(lost, lost_count, lost_cap)))
                    *slot = a->tasks[t];
                a->tasks[t]->runner = NULL;
            }
        agent_forget_client(a, c);
        if (c->fd >= 0) {
            epoll_ctl(a->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
            close(c->fd);
        }
        free(c->reply_subject);
        free(c->in);
        free(c->out);
        free(c);
    }
    a->client_count = k;
    if (lost_count) /* the trees of every runner that died in this turn, together */
        agent_tasks_runners_lost(a, lost, lost_count);
    free(lost);
}

static int arm_tick(struct agent *a)
{
    struct itimerspec it;
    double s = a->options.interval;
    it.it_value.tv_sec = (time_t)s;
    it.it_value.tv_nsec = (long)((s - floor(s)) * 1e9);
    if (!it.it_value.tv_sec && !it.it_value.tv_nsec)
        it.it_value.tv_nsec = 1000000;
    it.it_interval = it.it_value;
    return timerfd_settime(a->tick_fd, 0, &it, NULL);
}

static int agent_open(struct agent *a, const struct agent_options *o)
{
    memset(a, 0, sizeof *a);
    agent_ops_connect(a);
    a->options = *o;
    if (a->options.interval <= 0)
        a->options.interval = 1;
    a->uid = getuid();
    a->epoll_fd = a->listen_fd = a->lock_fd = a->tick_fd = -1;
    a->started = clock_epoch_seconds();
    a->boot_epoch = proc_boot_epoch();
    a->clock_ticks = (double)sysconf(_SC_CLK_TCK);
    pidmap_init(&a->procs, sizeof(struct agent_proc));
    proc_scan_init(&a->scan);
    a->registry = csr_registry_new();
    if (!a->registry) {
        tally_error("agent: out of memory");
        return -1;
    }
    if (o->socket_path)
        snprintf(a->socket_path, sizeof a->socket_path, "%s", o->socket_path);
    else if (agent_socket_default_path(a->socket_path, sizeof a->socket_path) < 0) {
        tally_error("agent: the default socket path is too long");
        return -1;
    }
    if (o->host)
        snprintf(a->host, sizeof a->host, "%s", o->host);
    else if (gethostname(a->host, sizeof a->host - 1) < 0)
        strcpy(a->host, "localhost");
    snprintf(a->site, sizeof a->site, "%s", o->site ? o->site : "local");
    char why[512];
    a->listen_fd = agent_socket_listen(a->socket_path, &a->lock_fd, why, sizeof why);
    if (a->listen_fd < 0) {
        tally_error("agent: %s", why);
        return -1;
    }
    agent_archive_spool(a); /* summaries kept while no agent ran (run_agent.c) */
    a->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    a->tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (a->epoll_fd < 0 || a->tick_fd < 0 || arm_tick(a) < 0) {
        tally_error_errno("agent: epoll/timerfd");
        return -1;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &a->tag_listen};
    epoll_ctl(a->epoll_fd, EPOLL_CTL_ADD, a->listen_fd, &ev);
    ev.data.ptr = &a->tag_tick;
    epoll_ctl(a->epoll_fd, EPOLL_CTL_ADD, a->tick_fd, &ev);
    if (o->stop_fd >= 0) {
        ev.data.ptr = &a->tag_stop;
        epoll_ctl(a->epoll_fd, EPOLL_CTL_ADD, o->stop_fd, &ev);
    }
    if (o->nats_url) {
        if (agent_nats_open(a) < 0)
            return -1;
        ev.data.ptr = &a->tag_nats;
        if (agent_nats_fd(a) >= 0)
            epoll_ctl(a->epoll_fd, EPOLL_CTL_ADD, agent_nats_fd(a), &ev);
    }
    if (o->metrics) {
        char where[256];
        a->metrics = metrics_server_start(a, o->metrics, where, sizeof where, why, sizeof why);
        if (!a->metrics) {
            tally_error("agent: --metrics %s", why);
            return -1;
        }
        fprintf(stderr, "tally: agent: %s\n", where);
        ev.data.ptr = &a->tag_metrics;
        epoll_ctl(a->epoll_fd, EPOLL_CTL_ADD, metrics_server_fd(a->metrics), &ev);
    }
    return 0;
}

static void agent_close(struct agent *a)
{
    /* Trees still followed: their summaries so far go to the archive, but
     * for those of a tally run still connected: it measures the rest of
     * the task itself once the agent is gone and keeps its whole summary
     * in the spool for the next agent (run_agent.c); archiving the part
     * seen here too would leave the task twice in the archive. */
    for (size_t i = 0; i < a->task_count; i++)
        if (a->tasks[i]->follower && !a->tasks[i]->ended && !a->tasks[i]->runner)
            agent_task_end(a, a->tasks[i], NULL);
    for (size_t i = 0; i < a->client_count; i++)
        a->clients[i]->closing = true;
    reap_clients(a);
    agent_nats_close(a);
    agent_probes_free(a);
    agent_segments_free(a);
    agent_launches_free(a);
    agent_levels_free(a->levels);
    a->levels = NULL;
    free(a->clients);
    for (size_t i = 0; i < a->task_count; i++)
        agent_task_free(a->tasks[i]);
    free(a->tasks);
    csr_registry_free(a->registry);
    free(a->owners);
    for (size_t i = 0; i < a->procs.capacity; i++)
        if (a->procs.keys[i])
            free(((struct agent_proc *)pidmap_at(&a->procs, i))->ring);
    pidmap_free(&a->procs);
    proc_scan_free(&a->scan);
    if (a->archive)
        store_close(a->archive);
    metrics_server_stop(a->metrics);
    if (a->listen_fd >= 0) {
        unlink(a->socket_path);
        close(a->listen_fd);
    }
    if (a->lock_fd >= 0)
        close(a->lock_fd); /* releases the lock */
    if (a->tick_fd >= 0)
        close(a->tick_fd);
    if (a->epoll_fd >= 0)
        close(a->epoll_fd);
}

int agent_run(const struct agent_options *o)
{
    struct agent *a = calloc(1, sizeof *a);
    if (!a) {
        tally_error("agent: out of memory");
        return -1;
    }
    if (agent_open(a, o) < 0) {
        agent_close(a);
        free(a);
        return -1;
    }
    if (o->log_fd >= 0) { /* until now stderr went to whoever started the agent */
        dup2(o->log_fd, 2);
        close(o->log_fd);
        agent_nats_warn_insecure(o); /* the log keeps it too */
    }
    if (o->ready_fd >= 0) {
        (void)!write(o->ready_fd, "1", 1);
        close(o->ready_fd);
    }
    bool stop = false, backlog = false;
    while (!stop && !a->stop_requested) {
        double now = clock_monotonic_seconds();
        double next_timer = fmin(agent_fire_timers(a, now), resume_reads(a));
        int timeout = -1;
        if (backlog)
            timeout = 0; /* clients have lines waiting for their next turn */
        else if (isfinite(next_timer))
            timeout = (int)ceil(fmax(0, next_timer - clock_monotonic_seconds()) * 1000);
        struct epoll_event events[64];
        int n = epoll_wait(a->epoll_fd, events, 64, timeout);
        if (n < 0 && errno != EINTR) {
            tally_error_errno("agent: epoll_wait");
            break;
        }
        for (int i = 0; i < n; i++) {
            void *tag = events[i].data.ptr;
            if (tag == &a->tag_listen) {
                accept_clients(a);
            } else if (tag == &a->tag_tick) {
                uint64_t expirations;
                (void)!read(a->tick_fd, &expirations, sizeof expirations);
                agent_tick(a);
                if (agent_nats_tick(a)) {
                    struct epoll_event nev = {.events = EPOLLIN, .data.ptr = &a->tag_nats};
                    epoll_ctl(a->epoll_fd, EPOLL_CTL_ADD, agent_nats_fd(a), &nev);
                }
                agent_nats_sync_apps(a);
                if (a->metrics)
                    metrics_server_run(a->metrics); /* its connection timeouts */
            } else if (tag == &a->tag_metrics) {
                metrics_server_run(a->metrics);
            } else if (tag == &a->tag_stop) {
                stop = true;
            } else if (tag == &a->tag_nats) {
                agent_nats_drain(a);
            } else {
                struct agent_client *c = tag;
                if (c->closing)
                    continue;
                if ((events[i].events & EPOLLOUT) && agent_client_flush(a, c) < 0)
                    agent_client_close(a, c);
                if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                    read_client(a, c);
            }
        }
        backlog = take_backlogs(a);
        agent_flush(a);
        reap_clients(a);
    }
    agent_close(a);
    free(a);
    return 0;
}
