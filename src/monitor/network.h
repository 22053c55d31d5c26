/* Network use of a task: the TCP sockets its processes were seen holding
 * (at samples, and at the exit of a process known to hold some), with the
 * last byte counters read for each. Sockets opened and closed between two
 * such readings are missed; bytes moved after a socket's last reading too. */
#ifndef TALLY_MONITOR_NETWORK_H
#define TALLY_MONITOR_NETWORK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct net_socket {
    uint64_t inode, received, sent;
};

struct net_usage {
    struct net_socket *sockets; /* sorted by inode */
    size_t count, capacity;
};

/* Adds the sockets pid holds; returns how many it holds. */
int net_usage_add_process(struct net_usage *net, pid_t pid);
/* Reads the counters of the known sockets that are still open. */
void net_usage_refresh(struct net_usage *net);
/* Totals in MB. */
void net_usage_totals(const struct net_usage *net, double *received_mb, double *sent_mb);
void net_usage_free(struct net_usage *net);

#endif
