/* Gathering a launch's ranks from the agents (launch_gather.h). */
#include "client/launch_gather.h"

#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/agent_conf.h"
#include "client/agent_link.h"
#include "client/nats_gather.h"
#include "client/subjects.h"
#include "tally/segment.h"
#include "util/clock.h"
#include "util/hex.h"
#include "util/vec.h"

#define CLOCK_ROUND_TRIPS 5

struct host_clock {
    char name[64], site[128];
    double offset, delay;           /* ns: agent clock - ours; round trip less the agent's time */
    int ranks;
};

struct state {
    struct launch_gather *g;
    uint64_t t0;                    /* when the request went out (ns, our clock) */
    struct host_clock *hosts;
    size_t host_count, host_cap;
    bool *have;                     /* per rank */
    int ranks;
    struct tally_segment **pending; /* segments before their host's offset is final */
    char (*pending_host)[64];
    size_t pending_count, pending_cap, pending_host_cap;
    struct nats_link *nats;         /* opened at the first round that needs it */
    char user[128];
    bool no_nats;                   /* none to be had: why in nats_problem, said by every round */
    char nats_problem[1024];
};

static struct host_clock *host_of(struct state *st, const char *name, const char *site)
{
    for (size_t i = 0; i < st->host_count; i++)
        if (!strcmp(st->hosts[i].name, name))
            return &st->hosts[i];
    struct host_clock *h = VEC_PUSH(st->hosts, st->host_count, st->host_cap);
    if (!h)
        return NULL;
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->site, sizeof h->site, "%s", site ? site : "");
    h->delay = INFINITY;
    return h;
}

static void note_clock(struct host_clock *h, uint64_t t0, const json_t *line, uint64_t t3)
{
    json_int_t t1 = json_integer_value(json_object_get(line, "received"));
    json_int_t t2 = json_integer_value(json_object_get(line, "sent"));
    if (t1 <= 0 || t2 < t1)
        return;
    double delay = (double)(t3 - t0) - (double)(t2 - t1);
    if (delay < h->delay) {
        h->delay = delay;
        h->offset = (((double)t1 - (double)t0) + ((double)t2 - (double)t3)) / 2;
    }
}

static bool want_rank(struct state *st, int rank)
{
    if (rank < 0 || rank >= TALLY_SEG_MAX_RANKS)
        return false;
    if (st->ranks > 0 && rank >= st->ranks)
        return false;
    return !st->have[rank];
}

/* A launch_rank line: its segment, if it is a rank not in hand yet. */
static void take_segment(struct state *st, const json_t *line, const char *node)
{
    int rank = (int)json_integer_value(json_object_get(line, "rank"));
    const char *data = json_string_value(json_object_get(line, "data"));
    if (!data || json_integer_value(json_object_get(line, "version")) != TALLY_SEG_VERSION || !want_rank(st, rank))
        return;
    struct tally_segment *s = calloc(1, sizeof *s);
    if (!s)
        return;
    size_t head = offsetof(struct tally_seg_data, links);
    if (hex_decode(data, &s->d, head) != (long)head || s->d.rank != rank) {
        free(s);
        return;
    }
    size_t i;
    json_t *link;
    json_array_foreach(json_object_get(line, "links"), i, link) {
        json_int_t to = json_integer_value(json_array_get(link, 0));
        if (to >= 0 && to < TALLY_SEG_MAX_RANKS) {
            s->d.links[to].bytes = (uint64_t)json_integer_value(json_array_get(link, 1));
            s->d.links[to].messages = (uint64_t)json_integer_value(json_array_get(link, 2));
        }
    }
    s->control.c.magic = TALLY_SEG_MAGIC;
    s->control.c.version = TALLY_SEG_VERSION;
    s->control.c.on = (uint32_t)json_integer_value(json_object_get(line, "on"));
    s->control.c.ack_ns = (uint64_t)json_integer_value(json_object_get(line, "ack_ns"));
    s->d.host[sizeof s->d.host - 1] = s->d.library[sizeof s->d.library - 1] = s->d.exe[sizeof s->d.exe - 1] = '\0';
    for (int k = 0; k < TALLY_SEG_MAX_PROBES; k++)
        s->d.probes[k].name[TALLY_SEG_NAME - 1] = '\0';
    for (int k = 0; k < TALLY_SEG_MAX_COUNTERS; k++)
        s->d.counters[k].name[TALLY_SEG_NAME - 1] = '\0';
    if (s->d.probe_count > TALLY_SEG_MAX_PROBES)
        s->d.probe_count = TALLY_SEG_MAX_PROBES;
    if (s->d.counter_count > TALLY_SEG_MAX_COUNTERS)
        s->d.counter_count = TALLY_SEG_MAX_COUNTERS;
    if (VEC_RESERVE(st->pending, st->pending_cap, st->pending_count + 1) < 0 ||
        VEC_RESERVE(st->pending_host, st->pending_host_cap, st->pending_count + 1) < 0) {
        free(s);
        return;
    }
    st->pending[st->pending_count] = s;
    snprintf(st->pending_host[st->pending_count++], 64, "%s", node);
    st->have[rank] = true;
    if (st->ranks <= 0 && s->d.ranks > 0 && s->d.ranks <= TALLY_SEG_MAX_RANKS)
        st->ranks = s->d.ranks;
}

static void on_line(void *ctx, const char *text, size_t length)
{
    struct state *st = ctx;
    uint64_t t3 = clock_monotonic_ns();
    json_t *line = json_loadb(text, length, 0, NULL);
    const char *node = json_string_value(json_object_get(line, "node"));
    const char *op = json_string_value(json_object_get(line, "op"));
    if (node && op) {
        struct host_clock *h = host_of(st, node, json_string_value(json_object_get(line, "site")));
        if (h) {
            note_clock(h, st->t0, line, t3);
            if (!strcmp(op, "launch_rank")) {
                h->ranks++;
                take_segment(st, line, node);
            }
        }
    }
    json_decref(line);
}

static bool all_in_hand(void *ctx)
{
    struct state *st = ctx;
    if (st->ranks <= 0)
        return false;
    for (int r = 0; r < st->ranks; r++)
        if (!st->have[r])
            return false;
    return true;
}

static void append_problem(struct launch_gather *g, const char *what)
{
    size_t n = strlen(g->problems);
    snprintf(g->problems + n, sizeof g->problems - n, "%s%s", n ? "; " : "", what);
}

/* The local agent, if one runs (none is started for this). */
static void from_socket(struct state *st, const char *launch, double timeout)
{
    struct agent_link link;
    char why[512];
    if (agent_link_open(&link, NULL, false, why, sizeof why) < 0)
        return; /* no agent here: nothing of this launch can be there */
    st->t0 = clock_monotonic_ns();
    agent_link_send(&link, json_pack("{s:s, s:s, s:b}", "op", "launch_ranks", "launch", launch, "release", 1));
    double end = clock_monotonic_seconds() + timeout;
    for (;;) {
        double left = end - clock_monotonic_seconds();
        json_t *m = left > 0 ? agent_link_read(&link, left) : NULL;
        if (!m) {
            if (left <= 0 || link.broken)
                append_problem(st->g, "the local agent did not answer");
            break;
        }
        char *text = json_dumps(m, JSON_COMPACT);
        bool done = json_is_true(json_object_get(m, "done")) || json_integer_value(json_object_get(m, "done")) == 1;
        json_decref(m);
        if (text)
            on_line(st, text, strlen(text));
        free(text);
        if (done)
            break;
    }
    agent_link_close(&link);
}

/* The user's NATS, opened once (tried once: a round does not wait for
 * a server that could not be reached); false when there is none. */
static bool nats_open(struct state *st)
{
    if (st->nats)
        return true;
    if (st->no_nats)
        return false;
    st->no_nats = true;
    struct agent_conf conf;
    char detail[4400];
    if (agent_conf_load(&conf, detail, sizeof detail) < 0) {
        snprintf(st->nats_problem, sizeof st->nats_problem, "%.1000s", detail);
        return false;
    }
    if (!conf.nats[0]) {
        char path[4096] = "agent.conf";
        agent_conf_path(path, sizeof path);
        snprintf(st->nats_problem, sizeof st->nats_problem,
                 "no NATS to reach the other hosts' agents (no 'nats =' in %.500s)", path);
        return false;
    }
    if (conf.user[0]) {
        snprintf(st->user, sizeof st->user, "%s", conf.user);
    } else {
        struct passwd *pw = getpwuid(getuid());
        snprintf(st->user, sizeof st->user, "%s", pw ? pw->pw_name : "unknown");
    }
    struct nats_link_options lo = {.url = conf.nats, .creds = conf.creds[0] ? conf.creds : NULL, .user = st->user,
                                   .name = "tally run --mpi gather"};
    char why[512];
    if (nats_link_open(&lo, &st->nats, why, sizeof why) < 0) {
        snprintf(st->nats_problem, sizeof st->nats_problem, "NATS: %.500s", why);
        return false;
    }
    st->no_nats = false;
    return true;
}

static void from_nats(struct state *st, const char *launch, double timeout)
{
    if (!nats_open(st)) {
        append_problem(st->g, st->nats_problem);
        return;
    }
    char subject[1024], detail[600];
    char *subjects[1] = {subject};
    struct subject_route route = {.subjects = subjects, .count = 1};
    subject_for(st->user, SUBJECT_ALL, NULL, subject, sizeof subject);
    json_t *message = json_pack("{s:s, s:s, s:b}", "op", "launch_ranks", "launch", launch, "release", 1);
    struct gather_options go = {.timeout = timeout, .message = message, .on_line = on_line, .ctx = st,
                                .enough = all_in_hand};
    struct gather_result r;
    st->t0 = clock_monotonic_ns();
    if (nats_gather(st->nats, &route, NULL, &go, &r) < 0 && !all_in_hand(st)) {
        snprintf(detail, sizeof detail, "NATS: %s", r.error);
        append_problem(st->g, detail);
    }
    json_decref(message);
}

/* More round trips to each host that answered over NATS: the one least
 * delayed gives its clock (the gathering's own may wait behind the agent's
 * loop). */
static void nats_clocks(struct state *st)
{
    if (!st->nats)
        return;
    char subject[1024];
    char *subjects[1] = {subject};
    struct gather_result r;
    json_t *clock = json_pack("{s:s}", "op", "clock");
    for (size_t h = 0; h < st->host_count; h++) {
        char node[sizeof st->hosts[h].name];
        snprintf(node, sizeof node, "%s", st->hosts[h].name);
        struct subject_route one = {.subjects = subjects, .count = 1, .exact_answers = 1};
        if (subject_for(st->user, SUBJECT_NODE, node, subject, sizeof subject) < 0)
            continue;
        for (int k = 0; k < CLOCK_ROUND_TRIPS; k++) {
            struct gather_options co = {.timeout = 0.5, .message = clock, .on_line = on_line, .ctx = st};
            st->t0 = clock_monotonic_ns();
            if (nats_gather(st->nats, &one, NULL, &co, &r) < 0)
                break;
        }
    }
    json_decref(clock);
    nats_link_close(st->nats);
    st->nats = NULL;
}

/* Moves every CLOCK_MONOTONIC time of s by -offset ns (onto our clock). */
static void shift(struct tally_segment *s, int64_t offset)
{
#define MOVE(field) do { if (field) field = (uint64_t)((int64_t)(field) - offset); } while (0)
    MOVE(s->d.t_register); MOVE(s->d.t_init_end); MOVE(s->d.t_finalize); MOVE(s->d.t_exit);
    MOVE(s->d.marker_t_first); MOVE(s->d.marker_t_last);
    MOVE(s->d.window.t_on); MOVE(s->d.window.t_off); MOVE(s->d.window.t_first_on);
    MOVE(s->control.c.ack_ns);
    for (uint32_t i = 0; i < s->d.probe_count; i++) {
        MOVE(s->d.probes[i].t_first);
        MOVE(s->d.probes[i].t_last);
    }
#undef MOVE
}

void launch_gather_run(const char *launch, const bool *have, int ranks, const struct launch_gather_options *o,
                       struct launch_gather *g)
{
    memset(g, 0, sizeof *g);
    g->hosts = json_array();
    struct state st = {.g = g, .ranks = ranks, .have = calloc(TALLY_SEG_MAX_RANKS, sizeof(bool))};
    if (!st.have) {
        append_problem(g, "out of memory");
        return;
    }
    for (int r = 0; r < ranks && r < TALLY_SEG_MAX_RANKS; r++)
        st.have[r] = have[r];
    double end = clock_monotonic_seconds() + o->timeout, poll = o->poll;
    for (;;) {
        /* each round says its own problems: the last one's stand */
        g->problems[0] = '\0';
        from_socket(&st, launch, fmax(0.1, end - clock_monotonic_seconds()));
        if (!all_in_hand(&st) && !o->here_only) {
            double left = end - clock_monotonic_seconds();
            from_nats(&st, launch, fmax(0.1, poll > 0 ? fmin(left, fmax(poll, 0.25)) : left));
        }
        double left = end - clock_monotonic_seconds();
        if (all_in_hand(&st) || poll <= 0 || left <= 0)
            break;
        usleep((useconds_t)(fmin(poll, left) * 1e6));
    }
    nats_clocks(&st);
    g->items = st.pending;
    g->count = st.pending_count;
    for (size_t i = 0; i < g->count; i++)
        for (size_t h = 0; h < st.host_count; h++)
            if (!strcmp(st.hosts[h].name, st.pending_host[i]) && isfinite(st.hosts[h].delay))
                shift(g->items[i], (int64_t)llround(st.hosts[h].offset));
    for (size_t h = 0; h < st.host_count; h++) {
        struct host_clock *c = &st.hosts[h];
        json_t *o = json_pack("{s:s, s:s, s:i}", "name", c->name, "site", c->site, "ranks", c->ranks);
        if (isfinite(c->delay)) {
            json_object_set_new(o, "clock_offset", json_pack("[f, s]", round(c->offset) / 1e9, "s"));
            json_object_set_new(o, "uncertainty", json_pack("[f, s]", round(fmax(c->delay, 0) / 2) / 1e9, "s"));
        }
        json_array_append_new(g->hosts, o);
    }
    free(st.hosts);
    free(st.pending_host);
    free(st.have);
}

void launch_gather_free(struct launch_gather *g)
{
    for (size_t i = 0; i < g->count; i++)
        free(g->items[i]);
    free(g->items);
    json_decref(g->hosts);
    memset(g, 0, sizeof *g);
}
