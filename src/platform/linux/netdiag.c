/* Bytes through the task's TCP sockets, without privileges: the sockets a
 * process holds are found in /proc/PID/fd ("socket:[INODE]"), and the
 * kernel's per-connection counters (tcp_info: bytes_received, bytes_acked)
 * are dumped through NETLINK_SOCK_DIAG, as ss(8) does, matched by inode. */
#include "platform/platform.h"
#include "platform/linux/sock_diag_request.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct socket_visit {
    void (*visit)(void *ctx, uint64_t inode);
    void *ctx;
};

static void visit_if_socket(void *ctx, const char *target)
{
    struct socket_visit *v = ctx;
    if (!strncmp(target, "socket:[", 8))
        v->visit(v->ctx, strtoull(target + 8, NULL, 10));
}

int proc_visit_sockets(pid_t pid, void (*visit)(void *ctx, uint64_t inode), void *ctx)
{
    struct socket_visit v = {visit, ctx};
    return proc_visit_fd_targets(pid, visit_if_socket, &v);
}

static int dump_family(int fd, int family,
                       void (*visit)(void *ctx, uint64_t inode, uint64_t received, uint64_t sent),
                       void *ctx)
{
    struct sock_diag_tcp_request request;
    sock_diag_tcp_request_init(&request, family, NLM_F_REQUEST | NLM_F_DUMP);
    request.req.idiag_ext = 1 << (INET_DIAG_INFO - 1);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(fd, &request, sizeof request, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0)
        return -1;
    _Alignas(struct nlmsghdr) char buf[32768]; /* the call's own: no state shared between callers */
    for (;;) {
        ssize_t len = recv(fd, buf, sizeof buf, 0);
        if (len < 0 && errno == EINTR)
            continue;
        if (len <= 0)
            return -1;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
             h = NLMSG_NEXT(h, len)) {
            if (h->nlmsg_type == NLMSG_DONE)
                return 0;
            if (h->nlmsg_type == NLMSG_ERROR)
                return -1;
            struct inet_diag_msg *msg = NLMSG_DATA(h);
            uint64_t received = 0, sent = 0;
            int attr_len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *msg));
            for (struct rtattr *a = (struct rtattr *)(msg + 1); RTA_OK(a, attr_len);
                 a = RTA_NEXT(a, attr_len)) {
                if (a->rta_type != INET_DIAG_INFO)
                    continue;
                struct tcp_info info;
                memset(&info, 0, sizeof info);
                size_t payload = (size_t)RTA_PAYLOAD(a), n = payload < sizeof info ? payload : sizeof info;
                memcpy(&info, RTA_DATA(a), n);
                received = info.tcpi_bytes_received;
                sent = info.tcpi_bytes_acked;
            }
            if (msg->idiag_inode)
                visit(ctx, msg->idiag_inode, received, sent);
        }
    }
}

int net_visit_tcp(void (*visit)(void *ctx, uint64_t inode, uint64_t received, uint64_t sent),
                  void *ctx)
{
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0)
        return -1;
    int rc = dump_family(fd, AF_INET, visit, ctx);
    if (dump_family(fd, AF_INET6, visit, ctx) < 0)
        rc = -1;
    close(fd);
    return rc;
}
