/* The request both users of NETLINK_SOCK_DIAG send (netdiag.c's dump of a
 * family's TCP sockets, peer_uid.c's question about one socket): the
 * netlink header and an inet_diag_req_v2 for TCP sockets in every state. */
#ifndef TALLY_PLATFORM_LINUX_SOCK_DIAG_REQUEST_H
#define TALLY_PLATFORM_LINUX_SOCK_DIAG_REQUEST_H

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>

struct sock_diag_tcp_request {
    struct nlmsghdr nlh;
    struct inet_diag_req_v2 req;
};

/* FLAGS: NLM_F_REQUEST, with NLM_F_DUMP for every socket of FAMILY. */
static inline void sock_diag_tcp_request_init(struct sock_diag_tcp_request *r, int family,
                                              unsigned short flags)
{
    memset(r, 0, sizeof *r);
    r->nlh.nlmsg_len = sizeof *r;
    r->nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    r->nlh.nlmsg_flags = flags;
    r->req.sdiag_family = (unsigned char)family;
    r->req.sdiag_protocol = IPPROTO_TCP;
    r->req.idiag_states = ~0u;
}

#endif
