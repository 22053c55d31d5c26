/* Bounded admission of HTTP connections (see http_gate.h). The listening
 * socket and the daemon's epoll fd are both watched through one epoll fd of
 * the gate's own, which is what the caller's loop watches. */
#include "util/http_gate.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"

struct gate_slot {
    int fd;         /* -1: free */
    double since;   /* accepted at (monotonic seconds) */
    bool shut;      /* shut down by the gate, the daemon has yet to close it */
    bool answering; /* its whole request is in: being answered, not evicted */
    bool spoke;     /* had sent bytes when accepted (a client's request, usually) */
    bool own;       /* from the host user's own (own_peer): bounded among themselves */
};

struct http_gate {
    struct MHD_Daemon *daemon;
    int listen_fd, epoll_fd;
    unsigned max[2]; /* [own]: at most this many open of each kind */
    double deadline;
    size_t nslots;   /* 2 * (max[0] + max[1]): room for the shut ones not yet closed */
    bool (*own_peer)(void *ctx, int fd);
    struct gate_slot *slots;
    MHD_AccessHandlerCallback handler;
    void *handler_ctx;
};

static struct gate_slot *slot_of(struct http_gate *g, int fd)
{
    for (size_t i = 0; i < g->nslots; i++)
        if (g->slots[i].fd == fd)
            return &g->slots[i];
    return NULL;
}

static void shut(struct gate_slot *s)
{
    shutdown(s->fd, SHUT_RDWR); /* the daemon sees the end and closes the fd */
    s->shut = true;
}

/* The daemon closed a connection: its slot is free again. */
static void notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                   enum MHD_ConnectionNotificationCode code)
{
    (void)socket_context;
    if (code != MHD_CONNECTION_NOTIFY_CLOSED)
        return;
    const union MHD_ConnectionInfo *info =
        MHD(MHD_get_connection_info)(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct gate_slot *s = info ? slot_of(cls, info->connect_fd) : NULL;
    if (s)
        *s = (struct gate_slot){.fd = -1};
}

/* The daemon has read a connection's request line (and may have taken its
 * bytes from the socket, where the gate can no longer see them). */
static void *request_line(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)uri;
    const union MHD_ConnectionInfo *info =
        MHD(MHD_get_connection_info)(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct gate_slot *s = info ? slot_of(cls, info->connect_fd) : NULL;
    if (s)
        s->spoke = true;
    return NULL; /* the handler's initial state */
}

/* A connection whose request is complete (the daemon calls the handler
 * then) is being answered: evicting it would end a scrape, not a slow
 * client, so it is ended only by its deadline. */
static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **state)
{
    struct http_gate *g = cls;
    const union MHD_ConnectionInfo *info =
        MHD(MHD_get_connection_info)(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct gate_slot *s = info ? slot_of(g, info->connect_fd) : NULL;
    if (s)
        s->answering = true;
    return g->handler(g->handler_ctx, conn, url, method, version, upload, upload_len, state);
}

struct http_gate *http_gate_start(int listen_fd, unsigned max, unsigned own_max, double deadline,
                                  MHD_AccessHandlerCallback handler, void *ctx,
                                  bool (*own_peer)(void *ctx, int fd), char *why, size_t why_size)
{
    if (!libmhd_api_load(why, why_size)) {
        close(listen_fd);
        return NULL;
    }
    struct http_gate *g = calloc(1, sizeof *g);
    if (g)
        g->slots = calloc(2 * ((size_t)max + own_max), sizeof *g->slots);
    if (!g || !g->slots || max == 0) {
        snprintf(why, why_size, "out of memory");
        if (g)
            free(g->slots);
        free(g);
        close(listen_fd);
        return NULL;
    }
    g->listen_fd = listen_fd;
    g->handler = handler;
    g->handler_ctx = ctx;
    g->max[0] = max;
    g->max[1] = own_peer ? own_max : 0;
    g->own_peer = own_peer;
    g->deadline = deadline;
    g->nslots = 2 * ((size_t)max + own_max);
    for (size_t i = 0; i < g->nslots; i++)
        g->slots[i].fd = -1;
    unsigned timeout = deadline < 1 ? 1 : (unsigned)deadline;
    g->daemon = MHD(MHD_start_daemon)(MHD_USE_EPOLL | MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL, answer,
                                 g, MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)g->nslots,
                                 MHD_OPTION_NOTIFY_CONNECTION, notify, g,
                                 MHD_OPTION_URI_LOG_CALLBACK, request_line, g, MHD_OPTION_END);
    const union MHD_DaemonInfo *info =
        g->daemon ? MHD(MHD_get_daemon_info)(g->daemon, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
    g->epoll_fd = info ? epoll_create1(EPOLL_CLOEXEC) : -1;
    struct epoll_event ev = {.events = EPOLLIN};
    if (g->epoll_fd < 0 || epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev) < 0 ||
        epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, info->epoll_fd, &ev) < 0) {
        snprintf(why, why_size, "cannot start the HTTP server");
        http_gate_stop(g);
        return NULL;
    }
    return g;
}

int http_gate_fd(const struct http_gate *g)
{
    return g->epoll_fd;
}

size_t http_gate_open_connections(const struct http_gate *g)
{
    size_t n = 0;
    for (size_t i = 0; i < g->nslots; i++)
        n += g->slots[i].fd >= 0 && !g->slots[i].shut;
    return n;
}

/* Room for one more connection of its kind (own or not): when as many of
 * that kind as its bound are open, one of them is shut down: the oldest of
 * those that have sent nothing yet (connections opened and left silent, a
 * flood of them; bytes waiting unread count), else the oldest of the
 * others; never one being answered (then there may be more than the bound
 * for as long as their answers take). Another user's flood never ends the
 * host user's own connections. NULL when no slot is free. */
static bool has_spoken(int fd)
{
    char first;
    return recv(fd, &first, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

static struct gate_slot *make_room(struct http_gate *g, bool own)
{
    struct gate_slot *free_slot = NULL, *oldest[2] = {NULL, NULL}; /* [spoke] */
    size_t open = 0;
    for (size_t i = 0; i < g->nslots; i++) {
        struct gate_slot *s = &g->slots[i];
        if (s->fd < 0) {
            free_slot = free_slot ? free_slot : s;
            continue;
        }
        if (s->shut || s->own != own)
            continue;
        open++;
        if (s->answering)
            continue;
        if (!s->spoke)
            s->spoke = has_spoken(s->fd); /* its request came after it was accepted */
        struct gate_slot **o = &oldest[s->spoke];
        if (!*o || s->since < (*o)->since)
            *o = s;
    }
    struct gate_slot *victim = oldest[0] ? oldest[0] : oldest[1];
    if (victim && open >= g->max[own])
        shut(victim);
    return free_slot;
}

/* At most MAX/2 connections a round, the daemon serving between rounds: a
 * connection accepted in a round is served before the MAX newer ones that
 * would evict it can be (a flood of connections from one local user, each
 * ending the oldest, otherwise ended scrapes before they were read). The
 * rest of the backlog keeps the fd readable for the next round. */
static void accept_some(struct http_gate *g)
{
    for (unsigned round = 0; round < g->max[0] / 2 + 1;) {
        struct sockaddr_storage addr;
        socklen_t len = sizeof addr;
        int fd = accept4(g->listen_fd, (struct sockaddr *)&addr, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return; /* EAGAIN, or out of fds: the backlog waits */
        }
        bool own = g->own_peer && g->max[1] && g->own_peer(g->handler_ctx, fd);
        struct gate_slot *s = make_room(g, own);
        if (!s) {
            close(fd);
            continue;
        }
        *s = (struct gate_slot){
            .fd = fd, .since = clock_monotonic_seconds(), .spoke = has_spoken(fd), .own = own};
        if (MHD(MHD_add_connection)(g->daemon, fd, (struct sockaddr *)&addr, len) != MHD_YES)
            *s = (struct gate_slot){.fd = -1}; /* the daemon closed it */
        round++;
    }
}

void http_gate_run(struct http_gate *g)
{
    accept_some(g);
    double now = clock_monotonic_seconds();
    for (size_t i = 0; i < g->nslots; i++)
        if (g->slots[i].fd >= 0 && !g->slots[i].shut && now - g->slots[i].since > g->deadline)
            shut(&g->slots[i]);
    MHD(MHD_run)(g->daemon);
}

void http_gate_stop(struct http_gate *g)
{
    if (!g)
        return;
    if (g->daemon)
        MHD(MHD_stop_daemon)(g->daemon); /* closes its connections */
    if (g->epoll_fd >= 0)
        close(g->epoll_fd);
    close(g->listen_fd);
    free(g->slots);
    free(g);
}
