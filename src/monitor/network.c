/* Network use of a task (see network.h). */
#include "monitor/network.h"

#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "core/units.h"
#include "util/vec.h"

static struct net_socket *find(const struct net_usage *net, uint64_t inode, size_t *at)
{
    size_t lo = 0, hi = net->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (net->sockets[mid].inode < inode)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (at)
        *at = lo;
    return lo < net->count && net->sockets[lo].inode == inode ? &net->sockets[lo] : NULL;
}

struct add_ctx {
    struct net_usage *net;
    int held;
};

static void add_socket(void *ctx, uint64_t inode)
{
    struct add_ctx *a = ctx;
    struct net_usage *net = a->net;
    size_t at;
    a->held++;
    if (find(net, inode, &at))
        return;
    struct net_socket *s = VEC_INSERT(net->sockets, net->count, net->capacity, at);
    if (s)
        *s = (struct net_socket){inode, 0, 0};
}

int net_usage_add_process(struct net_usage *net, pid_t pid)
{
    struct add_ctx a = {net, 0};
    proc_visit_sockets(pid, add_socket, &a);
    return a.held;
}

static void update_socket(void *ctx, uint64_t inode, uint64_t received, uint64_t sent)
{
    struct net_socket *s = find(ctx, inode, NULL);
    if (s) {
        if (received > s->received)
            s->received = received;
        if (sent > s->sent)
            s->sent = sent;
    }
}

void net_usage_refresh(struct net_usage *net)
{
    if (net->count)
        net_visit_tcp(update_socket, net);
}

void net_usage_totals(const struct net_usage *net, double *received_mb, double *sent_mb)
{
    double received = 0, sent = 0;
    for (size_t i = 0; i < net->count; i++) {
        received += (double)net->sockets[i].received;
        sent += (double)net->sockets[i].sent;
    }
    *received_mb = received / BYTES_PER_MB;
    *sent_mb = sent / BYTES_PER_MB;
}

void net_usage_free(struct net_usage *net)
{
    free(net->sockets);
    memset(net, 0, sizeof *net);
}
