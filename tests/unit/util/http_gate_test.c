/* Unit tests for the HTTP admission gate (src/util/http_gate.c), with a
 * real libmicrohttpd daemon on a loopback port, driven step by step in this
 * thread: with room for 2 connections, a third ends the one that has sent
 * nothing, not an older one that has sent part of its request; a complete
 * request is answered; a connection past its deadline is ended. */
#include <arpa/inet.h>
#include <errno.h>
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

int main(void)
{
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    CHECK(lfd >= 0 && bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(lfd, 16) == 0);
    CHECK(getsockname(lfd, (struct sockaddr *)&sa, &len) == 0);
    char why[256] = "";
    struct http_gate *g = http_gate_start(lfd, 2, 1.0, answer_ok, NULL, why, sizeof why);
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
    return test_done();
}
