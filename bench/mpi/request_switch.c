/* Switching all ranks on and off by request, end to end through the agent:
 * the ranks run busy.c under 'tally run --agent --mpi --window request';
 * ROUNDS times this client, on one connection to the agent's socket, sends
 * proc_record_start([app_APP], "mpi"), times the answer (every rank's store
 * done), then asks proc_get_info([app_APP], 0x80) until every one of NP
 * ranks shows ack == request (it took the switch at its next MPI call), and
 * the same for proc_record_stop. Prints medians in microseconds:
 * "answer_on_us acked_on_us answer_off_us acked_off_us".
 * usage: request_switch SOCKET APP NP ROUNDS */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct conn {
    int fd;
    char buf[1 << 18];
    size_t len;
};

/* Sends one request line; returns how many of its result lines show a rank
 * that took the last switch (ack == request), reading up to "done". */
static int ask(struct conn *c, const char *request)
{
    size_t n = strlen(request);
    if (write(c->fd, request, n) != (ssize_t)n || write(c->fd, "\n", 1) != 1)
        exit(3);
    int acked = 0;
    for (;;) {
        char *nl;
        while ((nl = memchr(c->buf, '\n', c->len))) {
            *nl = '\0';
            json_t *line = json_loads(c->buf, 0, NULL);
            int done = json_is_true(json_object_get(line, "done"));
            json_t *result = json_object_get(line, "result");
            json_t *rec = json_object_get(json_object_get(result, "probes"), "recording");
            if (!rec) /* proc_record_start/stop's own answer */
                rec = json_object_get(result, "request") ? result : NULL;
            if (rec && json_integer_value(json_object_get(rec, "ack")) ==
                           json_integer_value(json_object_get(rec, "request")))
                acked++;
            json_decref(line);
            size_t used = (size_t)(nl + 1 - c->buf);
            memmove(c->buf, nl + 1, c->len - used);
            c->len -= used;
            if (done)
                return acked;
        }
        ssize_t got = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (got <= 0)
            exit(3);
        c->len += (size_t)got;
    }
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: request_switch SOCKET APP NP ROUNDS\n");
        return 2;
    }
    int np = atoi(argv[3]), rounds = atoi(argv[4]);
    struct conn *c = calloc(1, sizeof *c);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", argv[1]);
    c->fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&a, sizeof a) < 0) {
        perror("request_switch: connect");
        return 1;
    }
    char on[256], off[256], info[256];
    snprintf(on, sizeof on, ":proc_record_start([app_%s], \"mpi\")", argv[2]);
    snprintf(off, sizeof off, ":proc_record_stop([app_%s])", argv[2]);
    snprintf(info, sizeof info, ":proc_get_info([app_%s], 0x80)", argv[2]);
    double t_wait = now_us();
    while (ask(c, info) < np) { /* registered, and not switched yet: ack == request == 0 */
        if (now_us() - t_wait > 30e6) {
            fprintf(stderr, "request_switch: fewer than %d ranks registered\n", np);
            return 1;
        }
        usleep(20000);
    }
    double *times[4];
    for (int k = 0; k < 4; k++)
        times[k] = calloc((size_t)rounds, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
            double t0 = now_us();
            ask(c, k == 0 ? on : off);
            double t1 = now_us();
            while (ask(c, info) < np)
                if (now_us() - t0 > 5e6) {
                    fprintf(stderr, "request_switch: not every rank acknowledged within 5 s\n");
                    return 1;
                }
            times[2 * k][r] = t1 - t0;
            times[2 * k + 1][r] = now_us() - t0;
        }
        usleep(2000);
    }
    printf("%.0f %.0f %.0f %.0f\n", median(times[0], rounds), median(times[1], rounds),
           median(times[2], rounds), median(times[3], rounds));
    return 0;
}
