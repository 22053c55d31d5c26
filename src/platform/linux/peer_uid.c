/* Who is at the other end of a TCP connection when it is a socket of this
 * host: the kernel's own record of the socket's owner (the uid it was
 * created with), asked through NETLINK_SOCK_DIAG for the one socket whose
 * addresses are the connection's reversed, as ss(8) does. Loopback TCP
 * carries no credentials (SO_PEERCRED is for Unix sockets); this is what
 * tells a user's own scrapes of the agent's /metrics from another user's. */
#include "platform/platform.h"
#include "platform/linux/sock_diag_request.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int tcp_peer_uid(int fd, uid_t *uid)
{
    struct sockaddr_in here, there;
    socklen_t here_len = sizeof here, there_len = sizeof there;
    if (getsockname(fd, (struct sockaddr *)&here, &here_len) < 0 ||
        getpeername(fd, (struct sockaddr *)&there, &there_len) < 0 || here.sin_family != AF_INET ||
        there.sin_family != AF_INET)
        return -1;
    struct sock_diag_tcp_request request; /* one socket, found by its addresses */
    sock_diag_tcp_request_init(&request, AF_INET, NLM_F_REQUEST);
    /* the other end: its source is the peer, its destination us */
    request.req.id.idiag_sport = there.sin_port;
    request.req.id.idiag_dport = here.sin_port;
    request.req.id.idiag_src[0] = there.sin_addr.s_addr;
    request.req.id.idiag_dst[0] = here.sin_addr.s_addr;
    request.req.id.idiag_cookie[0] = request.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        return -1;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    int rc = -1;
    union {
        struct nlmsghdr h;
        char bytes[1024];
    } reply;
    ssize_t len = -1;
    if (sendto(nl, &request, sizeof request, 0, (struct sockaddr *)&kernel, sizeof kernel) >= 0)
        do
            len = recv(nl, &reply, sizeof reply, 0);
        while (len < 0 && errno == EINTR);
    struct nlmsghdr *h = &reply.h;
    if (len > 0 && NLMSG_OK(h, (size_t)len) && h->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
        h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
        const struct inet_diag_msg *msg = NLMSG_DATA(h);
        /* Only a socket some process still holds (an inode), the one asked
         * for: a client that closed its end before the question leaves a
         * time-wait record (FIN_WAIT2, TIME_WAIT) whose uid is 0 whoever
         * opened it, which an agent run by root took for its own. */
        if (msg->idiag_inode != 0 && msg->idiag_state != TCP_LISTEN &&
            msg->id.idiag_sport == there.sin_port && msg->id.idiag_dport == here.sin_port) {
            *uid = (uid_t)msg->idiag_uid;
            rc = 0;
        }
    }
    close(nl);
    return rc;
}
