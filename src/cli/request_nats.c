/* tally request over NATS: each request is parsed here to know its route
 * (which nodes, applications, sites it names), published once per subject
 * with one reply inbox, and the agents' JSON lines are printed as they come.
 * The agents' own "done" lines are folded into one final line per request:
 * {"request": ..., "done": true, "nodes": [...], "errors": [...]} where each
 * error names its node. With --follow, the conditional requests each agent
 * defined are enabled on that agent, their streams printed until SIGINT,
 * then deleted agent by agent (from the same inbox, so each agent finds
 * them again). */
#include "cli/request_nats.h"

#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "client/nats_gather.h"
#include "request/request.h"
#include "util/clock.h"
#include "util/error.h"

struct defined_csr {
    char *node;
    char *csr;
};

struct collect {
    json_t *nodes;          /* names of the agents that answered */
    json_t *errors;         /* their errors, each with "node" */
    json_t *names;          /* the agents' request names */
    struct defined_csr *csrs;
    size_t csr_count;
    bool quiet_done;        /* do not print done lines (folded into one) */
    bool silent;            /* --repeat: print nothing but the timing line */
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

static void on_line(void *ctx, const char *data, size_t length)
{
    struct collect *c = ctx;
    json_t *line = json_loadb(data, length, 0, NULL);
    if (c->silent && line && !json_is_true(json_object_get(line, "done"))) {
        json_decref(line);
        return;
    }
    if (!line) {
        fwrite(data, 1, length, stdout);
        putchar('\n');
        return;
    }
    if (!json_is_true(json_object_get(line, "done")) || !c->quiet_done) {
        print_json(line);
        json_decref(line);
        return;
    }
    const char *node = json_string_value(json_object_get(line, "node"));
    const char *name = json_string_value(json_object_get(line, "request"));
    json_array_append_new(c->nodes, json_string(node ? node : "?"));
    json_array_append_new(c->names, json_string(name ? name : ""));
    size_t i;
    json_t *err;
    json_array_foreach(json_object_get(line, "errors"), i, err) {
        json_t *copy = json_deep_copy(err);
        json_object_set_new(copy, "node", json_string(node ? node : "?"));
        json_array_append_new(c->errors, copy);
    }
    if (name && !strncmp(name, "csr_", 4) && node) {
        struct defined_csr *grown = realloc(c->csrs, (c->csr_count + 1) * sizeof *grown);
        if (grown) {
            c->csrs = grown;
            c->csrs[c->csr_count++] = (struct defined_csr){strdup(node), strdup(name)};
        }
    }
    json_decref(line);
}

static void collect_init(struct collect *c)
{
    memset(c, 0, sizeof *c);
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
}

static void collect_free(struct collect *c)
{
    json_decref(c->nodes);
    json_decref(c->errors);
    json_decref(c->names);
    for (size_t i = 0; i < c->csr_count; i++) {
        free(c->csrs[i].node);
        free(c->csrs[i].csr);
    }
    free(c->csrs);
}

/* The final line of one request; returns how many errors it carried. */
static size_t print_final(struct collect *c)
{
    json_t *name = json_array_size(c->names) == 1 ? json_incref(json_array_get(c->names, 0))
                                                  : json_incref(c->names);
    json_t *line = json_pack("{s:o, s:b, s:O, s:O}", "request", name, "done", 1, "nodes", c->nodes,
                             "errors", c->errors);
    print_json(line);
    json_decref(line);
    return json_array_size(c->errors);
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

/* One request text to its route; 0, or -1 when nobody could be asked. */
static int send_one(struct nats_link *link, const struct request_nats_options *o, const char *user,
                    const char *host, const char *text, const char *node, const char *inbox,
                    unsigned serial, struct collect *c, char *inbox_out, size_t inbox_size,
                    bool *refused)
{
    struct request req;
    struct request_error err;
    memset(&req, 0, sizeof req);
    if (request_parse(text, &req, &err) < 0 || request_check(&req, &err) < 0) {
        request_free(&req);
        json_array_append_new(c->errors, json_pack("{s:i, s:s}", "pos", err.pos, "message", err.message));
        return 0;
    }
    struct subject_route route;
    int rc = subject_route(&req, user, host, node, &route);
    request_free(&req);
    if (rc < 0) {
        tally_error("request: a name in the request is too long for a NATS subject");
        return -1;
    }
    if (o->expect && !node)
        route.exact_answers = o->expect;
    struct gather_options g = {.quiet = o->quiet, .timeout = o->timeout, .on_line = on_line, .ctx = c,
                               .inbox = inbox, .serial = serial};
    struct gather_result r;
    rc = nats_gather(link, &route, text, &g, &r);
    subject_route_free(&route);
    if (inbox_out)
        snprintf(inbox_out, inbox_size, "%s", r.inbox);
    if (rc < 0) {
        tally_error("request: %s", r.error);
        *refused = r.refused;
        return -1;
    }
    return 0;
}

int request_over_nats(const struct request_nats_options *o, char *const texts[], int count)
{
    char user[128], host[256], err[512];
    if (o->user) {
        snprintf(user, sizeof user, "%s", o->user);
    } else {
        struct passwd *pw = getpwuid(getuid());
        snprintf(user, sizeof user, "%s", pw ? pw->pw_name : "unknown");
    }
    if (gethostname(host, sizeof host - 1) < 0)
        strcpy(host, "localhost");
    struct nats_link *link;
    struct nats_link_options lo = {.url = o->url, .creds = o->creds, .user = user, .name = "tally request"};
    if (nats_link_open(&lo, &link, err, sizeof err) < 0) {
        tally_error("request: %s", err);
        return TALLY_EXIT_ERROR;
    }
    struct collect c;
    collect_init(&c);
    int status = TALLY_EXIT_OK;
    size_t errors = 0;
    bool refused = false;
    char inbox[256] = "";
    unsigned serial = 0;
    for (int i = 0; o->repeat > 1 && i < count && !*o->interrupted; i++) {
        /* Round trips of one request, over one connection: printed as one line. */
        double *rtt = calloc(o->repeat, sizeof *rtt);
        unsigned done = 0;
        c.silent = true;
        while (rtt && done < o->repeat && !*o->interrupted) {
            collect_reset(&c);
            double t0 = clock_monotonic_seconds();
            if (send_one(link, o, user, host, texts[i], o->node, *inbox ? inbox : NULL, ++serial, &c,
                         inbox, sizeof inbox, &refused) < 0)
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
        collect_reset(&c);
        if (send_one(link, o, user, host, texts[i], o->node, *inbox ? inbox : NULL, ++serial, &c,
                     inbox, sizeof inbox, &refused) < 0) {
            status = refused ? TALLY_EXIT_FAILURE : TALLY_EXIT_ERROR;
            break;
        }
        errors += print_final(&c);
    }
    if (o->follow && c.csr_count && status == TALLY_EXIT_OK) {
        /* A csr starts disabled (as in the seed): enable each where it lives. */
        for (size_t k = 0; k < c.csr_count; k++) {
            char text[64];
            snprintf(text, sizeof text, ":csr_enable([%s])", c.csrs[k].csr);
            collect_reset(&c);
            if (send_one(link, o, user, host, text, c.csrs[k].node, inbox, ++serial, &c, NULL, 0,
                         &refused) == 0)
                errors += print_final(&c);
        }
        struct subject_route none = {0};
        struct gather_options g = {.follow = true, .stop = (volatile int *)o->interrupted,
                                   .on_line = on_line, .ctx = &c, .inbox = inbox};
        struct gather_result r;
        c.quiet_done = false;
        nats_gather(link, &none, NULL, &g, &r);
        c.quiet_done = true;
        *o->interrupted = 0;
        for (size_t k = 0; k < c.csr_count; k++) {
            char text[64];
            snprintf(text, sizeof text, ":csr_delete([%s])", c.csrs[k].csr);
            collect_reset(&c);
            if (send_one(link, o, user, host, text, c.csrs[k].node, inbox, ++serial, &c, NULL, 0,
                         &refused) == 0)
                print_final(&c);
        }
    }
    collect_free(&c);
    nats_link_close(link);
    if (status == TALLY_EXIT_OK && errors)
        status = TALLY_EXIT_FAILURE;
    return status;
}
