/* The agent's clients, whichever transport carries them (agent_io.h): a
 * socket client's lines are queued and written without blocking the loop,
 * within two bounds on pending output: a quarter of --client-output for one
 * client, --client-output for all together; a client dropped for passing
 * them is named in agent.log. A NATS requester's lines are published to its
 * reply inbox (agent_nats.c). */
#include "agent/agent_io.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "agent/agent_nats.h"
#include "util/vec.h"

#define FLUSH_AT (64u << 10) /* pending output written at once past this */

void agent_client_close(struct agent *a, struct agent_client *c)
{
    c->closing = true;
}

void agent_client_gone(struct agent *a, struct agent_client *c)
{
    c->peer_gone = true;
    agent_client_close(a, c);
}

/* Pending output is c->out[out_off, out_off + out_len): sent from the
 * front without moving the rest. */
int agent_client_flush(struct agent *a, struct agent_client *c)
{
    while (c->out_len > 0) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            /* The other end closed or reset: the same as reading its end
             * (a runner's guarded tree is ended), whichever the agent
             * meets first. */
            if (errno == EPIPE || errno == ECONNRESET)
                agent_client_gone(a, c);
            return -1;
        }
        c->out_off += (size_t)n;
        c->out_len -= (size_t)n;
        a->out_total -= (size_t)n;
    }
    c->out_off = 0;
    return 0;
}

/* Drops what is pending for c (it is being closed for not reading). */
void agent_client_discard(struct agent *a, struct agent_client *c)
{
    a->out_total -= c->out_len;
    c->out_len = c->out_off = 0;
}

/* Drops a client that does not read its output, saying so in agent.log
 * (the agent's stderr). */
static void drop_unread(struct agent *a, struct agent_client *c, const char *bound)
{
    fprintf(stderr,
            "tally: agent: client %u dropped: it does not read its answers (%zu bytes pending, "
            "over the bound %s; --client-output %zu bytes for all clients, a quarter of it per "
            "client)\n",
            c->id, c->out_len, bound, a->options.client_output);
    agent_client_discard(a, c);
    agent_client_close(a, c);
}

/* Room for NEED more bytes of output for c within the bounds: a quarter of
 * --client-output for c, and --client-output for all clients together:
 * while that would be passed, the client holding the most pending output
 * is dropped (c itself when it would hold the most). NULL when there is
 * room; else the bound c passes (c goes). */
static const char *output_room(struct agent *a, struct agent_client *c, size_t need)
{
    if (c->out_len + need > a->options.client_output / 4)
        return "per client";
    while (a->out_total + need > a->options.client_output) {
        struct agent_client *big = NULL;
        for (size_t i = 0; i < a->client_count; i++) {
            struct agent_client *o = a->clients[i];
            if (o != c && !o->closing && o->out_len > 0 && (!big || o->out_len > big->out_len))
                big = o;
        }
        if (!big || c->out_len + need >= big->out_len)
            return "for all clients";
        drop_unread(a, big, "for all clients");
    }
    return NULL;
}

void agent_client_interest(struct agent *a, struct agent_client *c)
{
    struct epoll_event ev = {.events = (c->read_paused ? 0 : EPOLLIN) | (c->wants_out ? EPOLLOUT : 0),
                             .data.ptr = c};
    epoll_ctl(a->epoll_fd, EPOLL_CTL_MOD, c->fd, &ev);
}

void agent_send(struct agent *a, struct agent_client *c, json_t *line)
{
    if (!line)
        return;
    if (!c || c->closing) {
        json_decref(line);
        return;
    }
    char *text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(line);
    if (!text)
        return;
    size_t len = strlen(text);
    if (c->reply_subject) { /* a NATS requester */
        agent_nats_publish(a, c, text, len);
        free(text);
        return;
    }
    const char *passed = output_room(a, c, len + 1);
    if (passed) {
        free(text);
        drop_unread(a, c, passed); /* not reading: let it go rather than grow without bound */
        return;
    }
    if (c->out_off > 0 && c->out_off + c->out_len + len + 1 > c->out_cap) {
        memmove(c->out, c->out + c->out_off, c->out_len);
        c->out_off = 0;
    }
    if (VEC_RESERVE(c->out, c->out_cap, c->out_len + len + 1) < 0) {
        free(text);
        agent_client_close(a, c);
        return;
    }
    memcpy(c->out + c->out_off + c->out_len, text, len);
    c->out[c->out_off + c->out_len + len] = '\n';
    c->out_len += len + 1;
    a->out_total += len + 1;
    free(text);
    /* Written once per loop turn (agent_flush), so that the lines of many
     * requests read together leave in one system call; early when large. */
    if (c->out_len >= FLUSH_AT && agent_client_flush(a, c) < 0)
        agent_client_close(a, c);
}

/* Writes what each client has pending; waits for EPOLLOUT where the
 * socket is full. */
void agent_flush(struct agent *a)
{
    for (size_t i = 0; i < a->client_count; i++) {
        struct agent_client *c = a->clients[i];
        if (c->closing || c->out_len == 0) {
            if (c->wants_out && !c->closing) {
                c->wants_out = false;
                agent_client_interest(a, c);
            }
            continue;
        }
        if (agent_client_flush(a, c) < 0) {
            agent_client_close(a, c);
            continue;
        }
        bool wants = c->out_len > 0;
        if (wants != c->wants_out) {
            c->wants_out = wants;
            agent_client_interest(a, c);
        }
    }
}
