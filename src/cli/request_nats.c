/* tally request over NATS: each request is parsed here (a request that does
 * not parse is an error of its final line, and the next is sent), sent with
 * live_client on one connection and one reply inbox, and the agents' JSON
 * lines are printed as they come. The agents' own "done" lines are folded
 * into one final line per request:
 * {"request": ..., "done": true, "nodes": [...], "errors": [...], "sent_ms",
 * "answered_ms"} where each error names its node (a switch's ranks that no
 * agent answered for come as an error of no node: nats_gather.h), and the
 * times are when the request was published and its last answer came. With --follow, the conditional requests each agent
 * defined are enabled on that agent, their streams printed until SIGINT,
 * then deleted agent by agent (live_client's csr lifecycle). */
#include "cli/request_nats.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "request/request.h"
#include "util/clock.h"
#include "util/error.h"

struct collect {
    json_t *nodes;          /* names of the agents that answered */
    json_t *errors;         /* their errors, each with "node" */
    json_t *names;          /* the agents' request names */
    size_t error_total;     /* errors of the final lines printed */
    bool quiet_done;        /* do not print done lines (folded into one) */
    bool silent;            /* --repeat: print nothing but the timing line */
    struct live_client *lc; /* the times of the request answered */
    bool unsent;            /* the request did not parse: no times */
};

static void print_json(json_t *line)
{
    char *text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    if (text) {
        puts(text);
        fflush(stdout);
    }
    free(text);
}

static void on_line(void *ctx, json_t *line)
{
    struct collect *c = ctx;
    if (c->silent && !json_is_true(json_object_get(line, "done")))
        return;
    if (!json_is_true(json_object_get(line, "done")) || !c->quiet_done) {
        print_json(line);
        return;
    }
    const char *node = json_string_value(json_object_get(line, "node"));
    const char *name = json_string_value(json_object_get(line, "request"));
    if (node) { /* an agent's; the gathering's own (ranks nobody answered for) has none */
        json_array_append_new(c->nodes, json_string(node));
        json_array_append_new(c->names, json_string(name ? name : ""));
    }
    size_t i;
    json_t *err;
    json_array_foreach(json_object_get(line, "errors"), i, err) {
        json_t *copy = json_deep_copy(err);
        if (node)
            json_object_set_new(copy, "node", json_string(node));
        json_array_append_new(c->errors, copy);
    }
}

static void collect_init(struct collect *c, struct live_client *lc)
{
    memset(c, 0, sizeof *c);
    c->lc = lc;
    c->nodes = json_array();
    c->errors = json_array();
    c->names = json_array();
    c->quiet_done = true;
}

static void collect_reset(struct collect *c)
{
    json_array_clear(c->nodes);
    json_array_clear(c->errors);
    json_array_clear(c->names);
    c->unsent = false;
}

static void collect_free(struct collect *c)
{
    json_decref(c->nodes);
    json_decref(c->errors);
    json_decref(c->names);
}

/* The final line of one request; its errors are counted. */
static void print_final(void *ctx)
{
    struct collect *c = ctx;
    json_t *name = json_array_size(c->names) == 1 ? json_incref(json_array_get(c->names, 0))
                                                  : json_incref(c->names);
    json_t *line = json_pack("{s:o, s:b, s:O, s:O}", "request", name, "done", 1, "nodes", c->nodes,
                             "errors", c->errors);
    double sent_ms, answered_ms;
    live_client_times(c->lc, &sent_ms, &answered_ms);
    if (!c->unsent && sent_ms > 0 && answered_ms > 0) {
        json_object_set_new(line, "sent_ms", json_real(sent_ms));
        json_object_set_new(line, "answered_ms", json_real(answered_ms));
    }
    print_json(line);
    json_decref(line);
    c->error_total += json_array_size(c->errors);
    collect_reset(c);
}

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* --repeat: {"request": TEXT, "repeat": N, "agents": K, "round_trip_ms": {...}} */
static void print_round_trips(const char *text, double *ms, unsigned n, size_t agents)
{
    if (n == 0)
        return;
    qsort(ms, n, sizeof *ms, compare_doubles);
    double sum = 0;
    for (unsigned i = 0; i < n; i++)
        sum += ms[i];
    json_t *line = json_pack("{s:s, s:i, s:i, s:{s:f, s:f, s:f, s:f, s:f}}", "request", text, "repeat",
                             (int)n, "agents", (int)agents, "round_trip_ms", "min", ms[0], "median",
                             ms[n / 2], "p90", ms[(size_t)(0.9 * (n - 1))], "max", ms[n - 1], "mean",
                             sum / n);
    print_json(line);
    json_decref(line);
}

/* One request text to its route; 0, or -1 when nobody could be asked (a
 * refusal sets *refused). A request that does not parse is only an error of
 * its final line. */
static int send_one(struct live_client *lc, const char *text, struct collect *c, bool *refused)
{
    struct request req;
    struct request_error err;
    memset(&req, 0, sizeof req);
    collect_reset(c);
    if (request_parse(text, &req, &err) < 0 || request_check(&req, &err) < 0) {
        request_free(&req);
        c->unsent = true;
        json_array_append_new(c->errors, json_pack("{s:i, s:s}", "pos", err.pos, "message", err.message));
        return 0;
    }
    request_free(&req);
    char why[512];
    struct live_answers answers = {.line = on_line, .ctx = c};
    if (live_client_request(lc, text, &answers, why, sizeof why) < 0) {
        tally_error("request: %s", why);
        *refused = live_client_refused(lc);
        return -1;
    }
    return 0;
}

int request_over_nats(struct live_client *lc, const struct request_nats_options *o, char *const texts[],
                      int count)
{
    struct collect c;
    collect_init(&c, lc);
    int status = TALLY_EXIT_OK;
    size_t errors = 0;
    bool refused = false;
    for (int i = 0; o->repeat > 1 && i < count && !*o->interrupted; i++) {
        /* Round trips of one request, over one connection: printed as one line. */
        double *rtt = calloc(o->repeat, sizeof *rtt);
        unsigned done = 0;
        c.silent = true;
        while (rtt && done < o->repeat && !*o->interrupted) {
            double t0 = clock_monotonic_seconds();
            if (send_one(lc, texts[i], &c, &refused) < 0)
                break;
            rtt[done++] = (clock_monotonic_seconds() - t0) * 1e3;
            errors += json_array_size(c.errors);
        }
        c.silent = false;
        print_round_trips(texts[i], rtt, done, json_array_size(c.nodes));
        free(rtt);
        if (done < o->repeat) {
            status = refused ? TALLY_EXIT_FAILURE : TALLY_EXIT_ERROR;
            break;
        }
    }
    for (int i = 0; o->repeat <= 1 && i < count && !*o->interrupted; i++) {
        if (send_one(lc, texts[i], &c, &refused) < 0) {
            status = refused ? TALLY_EXIT_FAILURE : TALLY_EXIT_ERROR;
            break;
        }
        print_final(&c);
    }
    if (o->follow && live_client_defined(lc) && status == TALLY_EXIT_OK) {
        char why[512];
        struct live_answers folded = {.line = on_line, .end = print_final, .ctx = &c};
        collect_reset(&c);
        live_client_enable(lc, &folded, why, sizeof why); /* a failed enable prints nothing */
        struct live_answers streamed = {.line = on_line, .ctx = &c};
        c.quiet_done = false;
        live_client_stream(lc, (volatile int *)o->interrupted, &streamed, why, sizeof why);
        c.quiet_done = true;
        *o->interrupted = 0;
        size_t counted = c.error_total; /* what the deletes answer is printed, not counted */
        live_client_delete(lc, &folded);
        c.error_total = counted;
    }
    errors += c.error_total;
    collect_free(&c);
    if (status == TALLY_EXIT_OK && errors)
        status = TALLY_EXIT_FAILURE;
    return status;
}
