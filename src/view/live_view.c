/* The live page's server (live_view.h): a poll loop in the main thread that
 * asks the agents for the application's processes and folds them into one
 * point per host per interval, the followed bar values, and libmicrohttpd
 * (its own thread) answering / and /data?since=T from that state under a
 * mutex. Rates (I/O, network) are differences of the processes' cumulative
 * counters between two polls of the same process. Each point also holds the
 * processes' contract violation levels when 'tally contract watch' sends
 * them (proc_get_info 0x100), drawn over time with the threshold. /data
 * says whether the application runs ("state": "waiting" until a process is
 * found, "running", "finished" once a poll finds none left, with the time).
 * Over NATS an agent leaves the application's subject once its task there
 * ended, so after the end a poll of the application usually gets no answer
 * at all: the hosts the application was seen on are then asked directly
 * (their node subjects) whether they still have processes of it. */
#include "view/live_view.h"
#include "report/summary_read.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/http_server.h"

static const char live_page[] =
#include "view/web/live_page.html.inc" /* build/gen/, from src/view/web/live_page.html */
    ;

struct live_state {
    pthread_mutex_t lock;
    const struct live_view_options *options;
    json_t *points;       /* [{"t": epoch, "hosts": {HOST: {...}}}] */
    json_t *bars;         /* [{"t": epoch, "node": ..., "object": ..., "value": ...}] */
    json_t *previous;     /* "pid@host" -> {"t", "read", "written", "received", "sent"} */
    char status[512];
    bool seen_processes;  /* some poll found a process of the application */
    json_t *hosts_seen;   /* host -> true: every host a poll found it on (main thread only) */
    double finished;      /* epoch of the first poll that found none after that (0: running) */
};

struct poll_ctx {
    struct live_state *s;
    json_t *hosts;        /* being built */
    json_t *contract;     /* "process@host" -> its levels, being built */
    json_t *seen;         /* "pid@host" of this poll */
    double now;
};

/* A process's contract levels (proc_get_info 0x100) into the point:
 * {"process", "host", "overall", "threshold", "worst", "levels": {"SPACE DIMENSION": level}}. */
static void take_contract(struct poll_ctx *p, const char *node, json_t *contract)
{
    const char *process = json_string_value(json_object_get(contract, "process"));
    if (!process || !json_is_number(json_object_get(contract, "overall")))
        return;
    json_t *levels = json_object();
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(contract, "levels"), i, l) {
        char name[300];
        snprintf(name, sizeof name, "%s %s", json_string_value(json_object_get(l, "space")) ?: "?",
                 json_string_value(json_object_get(l, "dimension")) ?: "?");
        json_object_set(levels, name, json_object_get(l, "level"));
    }
    json_t *worst = json_object_get(contract, "worst");
    char key[400], worst_name[300] = "";
    snprintf(key, sizeof key, "%s@%s", process, node);
    if (worst)
        snprintf(worst_name, sizeof worst_name, "%s %s",
                 json_string_value(json_object_get(worst, "space")) ?: "?",
                 json_string_value(json_object_get(worst, "dimension")) ?: "?");
    json_t *entry = json_pack("{s:s, s:s, s:O, s:o}", "process", process, "host", node, "overall",
                              json_object_get(contract, "overall"), "levels", levels);
    if (json_is_number(json_object_get(contract, "threshold")))
        json_object_set(entry, "threshold", json_object_get(contract, "threshold"));
    if (*worst_name)
        json_object_set_new(entry, "worst", json_string(worst_name));
    if (entry)
        json_object_set_new(p->contract, key, entry);
}

/* Adds one process's answer to its host's point. */
static void on_process(void *ctx, json_t *line)
{
    struct poll_ctx *p = ctx;
    if (strcmp(json_string_value(json_object_get(line, "service")) ?: "", "proc_get_info"))
        return;
    json_t *r = json_object_get(line, "result");
    const char *node = json_string_value(json_object_get(line, "node"));
    const char *object = json_string_value(json_object_get(line, "object"));
    if (!json_is_object(r) || !node || !object)
        return;
    json_t *h = json_object_get(p->hosts, node);
    if (!h) {
        h = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:i}", "cores", 0.0, "memory", 0.0, "read", 0.0,
                      "written", 0.0, "received", 0.0, "sent", 0.0, "processes", 0);
        json_object_set_new(p->hosts, node, h);
    }
    json_object_set_new(h, "cores", json_real(summary_number(h, "cores", 0) + summary_number(r, "cores", 0)));
    json_object_set_new(h, "memory", json_real(summary_number(h, "memory", 0) + summary_number(r, "memory", 0)));
    json_object_set_new(h, "processes", json_integer((json_int_t)summary_number(h, "processes", 0) + 1));
    /* rates: MB/s from this process's counters since the last poll */
    static const char *const counters[][2] = {{"read", "bytes_read"}, {"written", "bytes_written"},
                                              {"received", "bytes_received"}, {"sent", "bytes_sent"}};
    json_t *before = json_object_get(p->s->previous, object);
    json_t *now = json_pack("{s:f}", "t", p->now);
    for (size_t i = 0; i < 4; i++) {
        double v = summary_number(r, counters[i][1], 0);
        if (!strcmp(counters[i][0], "received") || !strcmp(counters[i][0], "sent"))
            v /= 1e6; /* network counters are bytes; I/O are MB */
        json_object_set_new(now, counters[i][0], json_real(v));
        if (before) {
            double dt = p->now - summary_number(before, "t", 0);
            double d = v - summary_number(before, counters[i][0], 0);
            if (dt > 0 && d > 0)
                json_object_set_new(h, counters[i][0], json_real(summary_number(h, counters[i][0], 0) + d / dt));
        }
    }
    json_object_set_new(p->seen, object, now);
    take_contract(p, node, json_object_get(r, "contract"));
}

static void trim(json_t *array, size_t keep)
{
    while (json_array_size(array) > keep)
        json_array_remove(array, 0);
}

struct host_check {
    const char *app;
    json_t *hosts_seen;
    json_t *processes;    /* host -> its processes of the application, per its answer */
};

/* One host's app_get_list answer: how many processes of the application it has. */
static void on_app_list(void *ctx, json_t *line)
{
    struct host_check *c = ctx;
    const char *node = json_string_value(json_object_get(line, "node"));
    if (strcmp(json_string_value(json_object_get(line, "service")) ?: "", "app_get_list") || !node ||
        !json_object_get(c->hosts_seen, node))
        return;
    json_int_t processes = 0;
    size_t i;
    json_t *app;
    json_array_foreach(json_object_get(json_object_get(line, "result"), "apps"), i, app)
        if (!strcmp(json_string_value(json_object_get(app, "app")) ?: "", c->app))
            processes += (json_int_t)summary_number(app, "processes", 0);
    json_object_set_new(c->processes, node, json_integer(processes));
}

/* After a poll of the application that no agent answered: asks every host it
 * was seen on (:app_get_list([n_HOST, ...]), their node subjects) whether it
 * still has processes of it. 1 when every one answered and none has any;
 * else 0 with why (a host that did not answer, or one that still has some). */
static int gone_from_every_host(struct live_state *s, struct live_client *client, char *why,
                                size_t why_size)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out) {
        snprintf(why, why_size, "out of memory");
        return 0;
    }
    fputs(":app_get_list([", out);
    const char *host;
    json_t *v;
    bool first = true;
    json_object_foreach(s->hosts_seen, host, v) {
        fprintf(out, "%sn_%s", first ? "" : ", ", host);
        first = false;
    }
    fputs("])", out);
    fclose(out);
    struct host_check c = {.app = s->options->app, .hosts_seen = s->hosts_seen,
                           .processes = json_object()};
    int rc = live_client_ask(client, text, on_app_list, &c, why, why_size);
    free(text);
    int gone = rc == 0;
    json_object_foreach(s->hosts_seen, host, v) {
        json_t *n = json_object_get(c.processes, host);
        if (!gone)
            break;
        if (!n)
            snprintf(why, why_size, "%s, where it ran, did not answer", host);
        else if (json_integer_value(n) > 0)
            snprintf(why, why_size, "%s still has %" JSON_INTEGER_FORMAT " of its processes", host,
                     json_integer_value(n));
        gone = n && json_integer_value(n) == 0;
    }
    json_decref(c.processes);
    return gone;
}

static void poll_agents(struct live_state *s, struct live_client *client)
{
    char text[600], why[400];
    snprintf(text, sizeof text, ":proc_get_info([app_%s], 0x11f)", s->options->app);
    struct poll_ctx p = {.s = s, .hosts = json_object(), .contract = json_object(),
                         .seen = json_object(), .now = clock_epoch_seconds()};
    int rc = live_client_ask(client, text, on_process, &p, why, sizeof why);
    if (rc < 0 && !json_object_size(p.hosts) && s->seen_processes && !live_client_refused(client)) {
        char more[300];
        if (gone_from_every_host(s, client, more, sizeof more))
            rc = 0; /* the hosts it ran on say none of its processes is left */
        else
            snprintf(why + strlen(why), sizeof why - strlen(why), "; %s", more);
    }
    const char *host;
    json_t *v;
    json_object_foreach(p.hosts, host, v)
        json_object_set_new(s->hosts_seen, host, json_true());
    pthread_mutex_lock(&s->lock);
    size_t hosts = json_object_size(p.hosts);
    if (rc == 0 && hosts) {
        s->seen_processes = true;
        s->finished = 0;
    } else if (rc == 0 && s->seen_processes && !s->finished) {
        s->finished = p.now; /* the application ended: no process left on any host */
    }
    if (rc < 0)
        snprintf(s->status, sizeof s->status, "%s", why);
    else if (s->finished)
        snprintf(s->status, sizeof s->status, "finished: no process left");
    else
        snprintf(s->status, sizeof s->status, "%zu host%s", hosts, hosts == 1 ? "" : "s");
    json_t *point = json_pack("{s:f, s:o}", "t", p.now, "hosts", p.hosts);
    if (json_object_size(p.contract))
        json_object_set(point, "contract", p.contract);
    json_decref(p.contract);
    json_array_append_new(s->points, point);
    trim(s->points, s->options->keep);
    json_decref(s->previous);
    s->previous = p.seen;
    pthread_mutex_unlock(&s->lock);
}

static void take_bars(struct live_state *s, struct live_client *client)
{
    const char *name = s->options->bars_field ? s->options->bars_field : "value";
    json_t *line;
    while ((line = live_client_next(client))) {
        json_t *r = json_object_get(line, "result");
        double value = summary_number(r, name, NAN);
        if (!isnan(value)) {
            double t = summary_number(line, "time", 0);
            pthread_mutex_lock(&s->lock);
            json_array_append_new(s->bars, json_pack("{s:f, s:s?, s:s?, s:f}", "t", t ? t : clock_epoch_seconds(),
                                                     "node", json_string_value(json_object_get(line, "node")),
                                                     "object", json_string_value(json_object_get(line, "object")),
                                                     "value", value));
            trim(s->bars, s->options->keep);
            pthread_mutex_unlock(&s->lock);
        }
        json_decref(line);
    }
}

static json_t *since(json_t *array, double t)
{
    json_t *out = json_array();
    size_t i;
    json_t *item;
    json_array_foreach(array, i, item)
        if (summary_number(item, "t", 0) > t)
            json_array_append(out, item);
    return out;
}

/* ?NAME=T: 0 when absent or a number, -1 otherwise. */
static int time_argument(struct MHD_Connection *conn, const char *name, double *out)
{
    const char *text = MHD(MHD_lookup_connection_value)(conn, MHD_GET_ARGUMENT_KIND, name);
    if (!text)
        return 0;
    char *end;
    *out = strtod(text, &end);
    return end == text || *end || !isfinite(*out) ? -1 : 0;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    struct live_state *s = cls;
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return http_respond(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "only GET\n", 9,
                       MHD_RESPMEM_PERSISTENT);
    if (!strcmp(url, "/") || !strcmp(url, "/index.html"))
        return http_respond(conn, MHD_HTTP_OK, "text/html; charset=utf-8", live_page,
                       sizeof live_page - 1, MHD_RESPMEM_PERSISTENT);
    if (strcmp(url, "/data"))
        return http_respond(conn, MHD_HTTP_NOT_FOUND, "text/plain", "not found\n", 10,
                       MHD_RESPMEM_PERSISTENT);
    double t = 0, bt = 0;
    if (time_argument(conn, "since", &t) < 0)
        return http_respond(conn, MHD_HTTP_BAD_REQUEST, "text/plain", "since: not a number\n", 20,
                       MHD_RESPMEM_PERSISTENT);
    if (time_argument(conn, "bars_since", &bt) < 0) /* named: it said 'since' */
        return http_respond(conn, MHD_HTTP_BAD_REQUEST, "text/plain", "bars_since: not a number\n", 25,
                       MHD_RESPMEM_PERSISTENT);
    pthread_mutex_lock(&s->lock);
    json_t *doc = json_pack("{s:s, s:f, s:s?, s:s, s:s, s:o, s:o}", "app", s->options->app, "interval",
                            s->options->interval, "bars_request", s->options->bars, "status",
                            s->status, "state",
                            s->finished ? "finished" : s->seen_processes ? "running" : "waiting",
                            "points", since(s->points, t), "bars", since(s->bars, bt));
    if (doc && s->finished)
        json_object_set_new(doc, "finished", json_real(s->finished));
    pthread_mutex_unlock(&s->lock);
    char *body = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(12)) : NULL;
    json_decref(doc);
    if (!body)
        return MHD_NO;
    return http_respond(conn, MHD_HTTP_OK, "application/json", body, strlen(body), MHD_RESPMEM_MUST_FREE);
}

int live_view_serve(const struct live_view_options *o, char *why, size_t why_size)
{
    struct live_view_options opts = *o;
    if (opts.interval <= 0)
        opts.interval = 1;
    if (!opts.keep)
        opts.keep = 3600;
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigset_t previous;
    /* blocked before any thread starts (libnats', MHD's): they inherit the mask, and the
     * signals wait for the signalfd. Started in the background ('&' in a script), we
     * inherit SIGINT ignored: an ignored signal is discarded, never queued for the
     * signalfd, and Ctrl-C or kill -INT would not stop us */
    struct sigaction dfl = {.sa_handler = SIG_DFL}, old_int, old_term;
    pthread_sigmask(SIG_BLOCK, &stop, &previous);
    sigaction(SIGINT, &dfl, &old_int);
    sigaction(SIGTERM, &dfl, &old_term);
    struct live_client *client = NULL;
    if (live_client_open(&opts.client, &client, why, why_size) < 0 ||
        (opts.bars && live_client_follow(client, opts.bars, why, why_size) < 0)) {
        if (client)
            live_client_close(client);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        pthread_sigmask(SIG_SETMASK, &previous, NULL);
        return -1;
    }
    struct live_state s = {.options = &opts, .points = json_array(), .bars = json_array(),
                           .previous = json_object(), .hosts_seen = json_object()};
    pthread_mutex_init(&s.lock, NULL);
    unsigned port = 0;
    int sfd = signalfd(-1, &stop, SFD_CLOEXEC);
    struct MHD_Daemon *d = NULL;
    if (sfd < 0)
        snprintf(why, why_size, "signalfd: %s", strerror(errno));
    else
        d = http_server_start(opts.port, &port, handle, &s, why, why_size);
    int rc = 0;
    if (!d) {
        rc = -1;
    } else {
        printf("serving http://127.0.0.1:%u/ (application %s)\n", port, opts.app);
        fflush(stdout);
        double next = clock_monotonic_seconds();
        for (bool stopping = false; !stopping;) {
            /* the signals first, every round: a poll of agents that do not answer takes
             * seconds, and the next one is then due at once */
            double now = clock_monotonic_seconds();
            struct pollfd fds[2] = {{.fd = sfd, .events = POLLIN},
                                    {.fd = live_client_stream_fd(client), .events = POLLIN}};
            int n = poll(fds, fds[1].fd >= 0 ? 2 : 1, now >= next ? 0 : (int)ceil((next - now) * 1000));
            if (n > 0 && (fds[0].revents & POLLIN))
                stopping = true;
            else if (n > 0 && fds[1].fd >= 0 && fds[1].revents)
                take_bars(&s, client);
            if (stopping || clock_monotonic_seconds() < next)
                continue;
            poll_agents(&s, client);
            take_bars(&s, client); /* lines read while asking stay buffered */
            next += opts.interval;
            now = clock_monotonic_seconds();
            if (next < now)
                next = now + opts.interval;
        }
        MHD(MHD_stop_daemon)(d);
    }
    if (sfd >= 0)
        close(sfd);
    live_client_close(client);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    json_decref(s.points);
    json_decref(s.bars);
    json_decref(s.previous);
    json_decref(s.hosts_seen);
    pthread_mutex_destroy(&s.lock);
    return rc;
}
