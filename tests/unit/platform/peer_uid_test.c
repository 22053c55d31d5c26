/* Unit tests for tcp_peer_uid (src/platform/linux/peer_uid.c) on real
 * loopback connections: the owner of a live client's socket is its user;
 * a client whose socket is already closed when asked (the kernel keeps a
 * FIN_WAIT2/TIME_WAIT record of it, with uid 0 and no inode) has no owner
 * to report: it must not be taken for root's. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "platform/platform.h"
#include "test.h"

/* A listener on 127.0.0.1 (port in *sa). */
static int listener(struct sockaddr_in *sa)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    *sa = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof *sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof *sa) < 0 || listen(fd, 8) < 0 ||
        getsockname(fd, (struct sockaddr *)sa, &len) < 0)
        return -1;
    return fd;
}

static int client(const struct sockaddr_in *sa)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr *)sa, sizeof *sa) < 0)
        return -1;
    return fd;
}

int main(void)
{
    struct sockaddr_in sa;
    int lfd = listener(&sa);
    CHECK(lfd >= 0);

    /* A live client of this user. */
    int c = client(&sa);
    int s = accept(lfd, NULL, NULL);
    CHECK(c >= 0 && s >= 0);
    uid_t uid = (uid_t)-2;
    CHECK_INT(tcp_peer_uid(s, &uid), 0);
    CHECK_INT(uid, getuid());

    /* Its socket closed before the question: the kernel's record of the
     * other end is a time-wait one (FIN_WAIT2 once our ACK is in), with
     * uid 0 whoever opened it. */
    close(c);
    usleep(50000);
    uid = (uid_t)-2;
    CHECK_INT(tcp_peer_uid(s, &uid), -1);
    close(s);

    /* Not a TCP socket of this host's IPv4: unknown. */
    int u = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK_INT(tcp_peer_uid(u, &uid), -1);
    close(u);
    close(lfd);
    return test_done();
}
