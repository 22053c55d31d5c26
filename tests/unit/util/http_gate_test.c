/* Unit tests for the HTTP admission gate (src/util/http_gate.c), with a
 * real libmicrohttpd daemon on a loopback port, driven step by step in this
 * thread: with room for 2 connections, a third ends the one that has sent
 * nothing, not an older one that has sent part of its request; a complete
 * request is answered; a connection past its deadline is ended. With a
 * bound of its own for the connections own_peer names (the host user's),
 * a flood of others' silent connections never ends them, and their own
 * bound ends the oldest silent one of them. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test.h"
#include "util/http_gate.h"

static enum MHD_Result answer_ok(void *cls, struct MHD_Connection *conn, const char *url,
                                 const char *method, const char *version, const char *upload,
                                 size_t *upload_len, void **state)
{
    (void)cls, (void)url, (void)method, (void)version, (void)upload, (void)upload_len, (void)state;
    static char body[] = "ok\n";
    struct MHD_Response *r =
        MHD(MHD_create_response_from_buffer)(strlen(body), body, MHD_RESPMEM_PERSISTENT);
    MHD(MHD_add_response_header)(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ret = MHD(MHD_queue_response)(conn, MHD_HTTP_OK, r);
    MHD(MHD_destroy_response)(r);
    return ret;
}

static int connect_to(const struct sockaddr_in *sa)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof *sa) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Several turns of the gate, as the agent's loop would give it. */
static void turns(struct http_gate *g, int n)
{
    for (int i = 0; i < n; i++) {
        http_gate_run(g);
        usleep(20000);
    }
}

/* 1: the peer ended the connection (EOF or reset); 0: still open, nothing
 * to read; 2: data to read. */
static int state_of(int fd)
{
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
        return 1;
    return n > 0 ? 2 : 0;
}

/* The client ports of the connections to count as the host user's own. */
static unsigned short own_ports[8];
static size_t own_count;

static bool own_peer(void *ctx, int fd)
{
    (void)ctx;
    struct sockaddr_in peer;
    socklen_t len = sizeof peer;
    if (getpeername(fd, (struct sockaddr *)&peer, &len) < 0)
        return false;
    for (size_t i = 0; i < own_count; i++)
        if (own_ports[i] == peer.sin_port)
            return true;
    return false;
}

static int connect_own(const struct sockaddr_in *sa)
{
    int fd = connect_to(sa);
    struct sockaddr_in me;
    socklen_t len = sizeof me;
    if (fd >= 0 && getsockname(fd, (struct sockaddr *)&me, &len) == 0 && own_count < 8)
        own_ports[own_count++] = me.sin_port;
    return fd;
}

/* Others' silent connections (2 allowed) and the own ones (2 allowed). */
static void own_bound(void)
{
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    CHECK(lfd >= 0 && bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(lfd, 16) == 0);
    CHECK(getsockname(lfd, (struct sockaddr *)&sa, &len) == 0);
    char why[256] = "";
    struct http_gate *g = http_gate_start(lfd, 2, 2, 5.0, answer_ok, NULL, own_peer, why, sizeof why);
    CHECK(g != NULL);
    if (!g)
        return;
    int a = connect_own(&sa), b = connect_own(&sa);
    turns(g, 3);
    int others[6];
    for (int i = 0; i < 6; i++) {
        others[i] = connect_to(&sa);
        turns(g, 2);
    }
    /* the own two are still open, silent as they are; of the others only
     * the newest two are */
    CHECK_INT(state_of(a), 0);
    CHECK_INT(state_of(b), 0);
    for (int i = 0; i < 4; i++)
        CHECK_INT(state_of(others[i]), 1);
    CHECK_INT(state_of(others[4]), 0);
    CHECK_INT(state_of(others[5]), 0);
    CHECK_INT(http_gate_open_connections(g), 4);
    /* an own third: the oldest own silent one (a) makes room, not others' */
    int c = connect_own(&sa);
    turns(g, 3);
    CHECK_INT(state_of(a), 1);
    CHECK_INT(state_of(b), 0);
    CHECK_INT(state_of(c), 0);
    CHECK_INT(state_of(others[5]), 0);
    /* and a late own request is answered */
    const char *req = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK(send(b, req, strlen(req), 0) == (ssize_t)strlen(req));
    turns(g, 5);
    char reply[256] = "";
    ssize_t got = recv(b, reply, sizeof reply - 1, MSG_DONTWAIT);
    reply[got > 0 ? got : 0] = '\0';
    CHECK_CONTAINS(reply, "HTTP/1.1 200");
    close(a);
    close(b);
    close(c);
    for (int i = 0; i < 6; i++)
        close(others[i]);
    http_gate_stop(g);
}

int main(void)
{
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    CHECK(lfd >= 0 && bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(lfd, 16) == 0);
    CHECK(getsockname(lfd, (struct sockaddr *)&sa, &len) == 0);
    char why[256] = "";
    struct http_gate *g = http_gate_start(lfd, 2, 0, 1.0, answer_ok, NULL, NULL, why, sizeof why);
    CHECK(g != NULL);
    if (!g) {
        fprintf(stderr, "# %s\n", why);
        return test_done();
    }

    /* S sends part of a request and stops; Q connects and says nothing. */
    int s = connect_to(&sa);
    CHECK(s >= 0 && send(s, "GET /metrics HTTP/1.1\r\n", 23, 0) == 23);
    turns(g, 3);
    int q = connect_to(&sa);
    turns(g, 3);
    CHECK_INT(http_gate_open_connections(g), 2);
    /* N, a third, with a whole request: room is made by ending Q (silent),
     * not S (older, but it has spoken), and N is answered. */
    int n = connect_to(&sa);
    const char *req = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK(n >= 0 && send(n, req, strlen(req), 0) == (ssize_t)strlen(req));
    turns(g, 5);
    CHECK_INT(state_of(q), 1);
    CHECK_INT(state_of(s), 0);
    char reply[256] = "";
    ssize_t got = recv(n, reply, sizeof reply - 1, MSG_DONTWAIT);
    reply[got > 0 ? got : 0] = '\0';
    CHECK_CONTAINS(reply, "HTTP/1.1 200");
    CHECK_CONTAINS(reply, "ok");

    /* S is past the 1 s deadline: ended, though it has spoken. */
    usleep(1100000);
    turns(g, 3);
    CHECK_INT(state_of(s), 1);
    CHECK_INT(http_gate_open_connections(g), 0);

    close(s);
    close(q);
    close(n);
    http_gate_stop(g);
    own_bound();
    return test_done();
}
