/* Benchmark client for the agent's Unix socket: the round trip of one
 * request at a time (median and 90th percentile, microseconds) and the
 * requests per second of several connections each keeping a window of
 * requests in flight. Plain sockets, no tally code: what any tool sees.
 * Usage: agent_rtt SOCKET REQUEST ROUND_TRIPS THROUGHPUT_SECONDS CONNECTIONS */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int connect_to(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        perror("connect");
        exit(2);
    }
    return fd;
}

/* Reads until n "done" lines have arrived; returns how many arrived. */
struct reader {
    char buf[1 << 16];
    size_t len;
};

static int read_done_lines(int fd, struct reader *r, int want, int blocking)
{
    int got = 0;
    while (got < want) {
        if (!blocking) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            if (poll(&p, 1, 0) <= 0)
                break;
        }
        ssize_t n = recv(fd, r->buf + r->len, sizeof r->buf - r->len - 1, 0);
        if (n <= 0)
            exit(3);
        r->len += (size_t)n;
        r->buf[r->len] = '\0';
        char *start = r->buf, *nl;
        while ((nl = strchr(start, '\n'))) {
            if (strstr(start, "\"done\":true") && strstr(start, "\"done\":true") < nl)
                got++;
            start = nl + 1;
        }
        r->len = (size_t)(r->buf + r->len - start);
        memmove(r->buf, start, r->len);
    }
    return got;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 6)
        return 2;
    const char *path = argv[1];
    char line[4096];
    int len = snprintf(line, sizeof line, "%s\n", argv[2]);
    int trips = atoi(argv[3]), conns = atoi(argv[5]);
    double seconds = atof(argv[4]);

    int fd = connect_to(path);
    struct reader r = {0};
    double *t = malloc((size_t)trips * sizeof *t);
    for (int i = 0; i < trips; i++) {
        double s = now();
        if (send(fd, line, (size_t)len, 0) != len)
            return 3;
        read_done_lines(fd, &r, 1, 1);
        t[i] = (now() - s) * 1e6;
    }
    qsort(t, (size_t)trips, sizeof *t, cmp);
    printf("rtt_median_us %.1f\nrtt_p90_us %.1f\n", t[trips / 2], t[trips * 9 / 10]);
    close(fd);

    /* Throughput: each connection keeps WINDOW requests in flight. */
    enum { WINDOW = 32 };
    int *fds = malloc((size_t)conns * sizeof *fds);
    int *inflight = calloc((size_t)conns, sizeof *inflight);
    struct reader *rs = calloc((size_t)conns, sizeof *rs);
    for (int c = 0; c < conns; c++)
        fds[c] = connect_to(path);
    long done = 0;
    double start = now();
    struct pollfd *p = calloc((size_t)conns, sizeof *p);
    char *burst = malloc((size_t)len * WINDOW);
    for (int k = 0; k < WINDOW; k++)
        memcpy(burst + (size_t)k * (size_t)len, line, (size_t)len);
    while (now() - start < seconds) {
        for (int c = 0; c < conns; c++) {
            if (inflight[c] == 0) { /* refill the window in one write */
                if (send(fds[c], burst, (size_t)len * WINDOW, 0) != (ssize_t)len * WINDOW)
                    return 3;
                inflight[c] = WINDOW;
            }
            p[c].fd = fds[c];
            p[c].events = POLLIN;
        }
        poll(p, (nfds_t)conns, 100);
        for (int c = 0; c < conns; c++) {
            if (!(p[c].revents & POLLIN))
                continue;
            int got = read_done_lines(fds[c], &rs[c], inflight[c], 0);
            inflight[c] -= got;
            done += got;
        }
    }
    double took = now() - start;
    for (int c = 0; c < conns; c++) {
        done += read_done_lines(fds[c], &rs[c], inflight[c], 1);
        close(fds[c]);
    }
    printf("requests_per_s %.0f\n", (double)done / (now() - start > took ? now() - start : took));
    return 0;
}
