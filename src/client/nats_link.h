/* A connection of one user's agent or tool to its site's nats-server, the
 * transport of requests across hosts and sites (the seed's service manager
 * role is played by nats-server itself; sites are joined by leaf nodes).
 *
 * libnats delivers messages on its own thread; nats_link queues them and
 * makes an eventfd readable, so that a single-threaded event loop (the
 * agent's epoll loop, or a tool's poll) takes them in its own time:
 *
 *     nats_link_open(&opts, &link, err, sizeof err);
 *     nats_link_subscribe(link, "tally.alice.req.node.n1");
 *     ... poll(nats_link_fd(link)) ... while (nats_link_next(link, &m) == 1) { ...; nats_link_msg_free(&m); }
 *
 * Subscriptions survive a restart of the server: libnats reconnects (for
 * ever, every reconnect_wait) and subscribes again. A refusal by the server
 * (a permissions violation: a user addressing another user's subjects) is
 * kept as the link's last error, in words, for the caller to report. */
#ifndef TALLY_CLIENT_NATS_LINK_H
#define TALLY_CLIENT_NATS_LINK_H

#include <stdbool.h>
#include <stddef.h>

struct nats_link_options {
    const char *url;          /* nats://host:port[,nats://...] */
    const char *creds;        /* NULL, a NATS .creds file, or a file "user:password" / "user password" */
    const char *user;         /* the Unix user: names the inbox prefix _INBOX.<user> */
    const char *name;         /* connection name shown by the server (e.g. "tally-agent n1") */
    double reconnect_wait;    /* seconds between reconnection attempts (0: 0.25 s) */
    bool retry_first_connect; /* keep trying when the server is not up yet (agents) */
};

struct nats_link_msg {
    char *subject;
    char *reply;              /* NULL when the sender expects no reply */
    char *data;               /* NUL-terminated copy of the payload */
    size_t length;
};

struct nats_link;

/* Returns 0, or -1 with a one-line reason in err. */
int nats_link_open(const struct nats_link_options *options, struct nats_link **out, char *why,
                   size_t why_size);
void nats_link_close(struct nats_link *link);

/* Whether the server at url lets a client in with no credentials (a probe
 * connection without the URL's user:password and without a creds file):
 * 1 yes, 0 no (it requires authentication), -1 when it cannot tell (no
 * server answers; err says so). An agent joins only a server that answers 0:
 * on one that admits anyone, any local user could command it. */
int nats_link_admits_anonymous(const char *url, double timeout, char *why, size_t why_size);

/* Subscribes; messages go to the queue. Returns 0 or -1 (reason: nats_link_error). */
int nats_link_subscribe(struct nats_link *link, const char *subject);
int nats_link_unsubscribe(struct nats_link *link, const char *subject);

/* Requests over NATS are signed (HMAC-SHA256) with the user's credentials:
 * the --creds file's content, or the URL's user:password. Tools sign; an
 * agent holding the same credentials checks, so a request it obeys comes
 * from someone who holds them, whatever the server's permissions. */
bool nats_link_can_sign(const struct nats_link *link);
/* 64 hex digits into hex (at least 65 bytes); -1 without credentials. */
int nats_link_sign(const struct nats_link *link, const char *text, size_t len, char *hex);
bool nats_link_signed_by_user(const struct nats_link *link, const char *text, size_t len,
                              const char *sig);

/* The user the link speaks for (options.user): tools put it in their
 * requests, agents check it against their own. */
const char *nats_link_user(const struct nats_link *link);

/* Readable when messages are queued (level-triggered until drained). */
int nats_link_fd(const struct nats_link *link);
/* Takes the oldest queued message: 1 with *msg filled, 0 when none. */
int nats_link_next(struct nats_link *link, struct nats_link_msg *msg);
void nats_link_msg_free(struct nats_link_msg *msg);

/* Publishes data (with a reply subject, or NULL). 0 or -1. */
int nats_link_publish(struct nats_link *link, const char *subject, const char *reply,
                      const char *data, size_t length);
/* Waits until the server has processed everything published so far, at most
 * timeout seconds: afterwards a permissions violation is known. 0 or -1. */
int nats_link_flush(struct nats_link *link, double timeout);
/* A new unique inbox subject under _INBOX.<user>. */
int nats_link_new_inbox(struct nats_link *link, char *out, size_t size);

/* Copies the last asynchronous error (a refusal by the server, a lost
 * connection), in words, into out; "" when none. */
void nats_link_error(struct nats_link *link, char *out, size_t size);
/* Times the link reconnected since it was opened. */
unsigned nats_link_reconnects(struct nats_link *link);
bool nats_link_connected(struct nats_link *link);

#endif
