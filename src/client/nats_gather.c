/* Scatter a request over NATS subjects and gather the answers (nats_gather.h). */
#include "client/nats_gather.h"

#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/rank_cover.h"
#include "util/clock.h"

/* Ended at the timeout with ranks no agent accounted for: one more done
 * line, of no node, whose error names them (the tool's final line counts it). */
static void say_missing(const struct rank_cover *cover, double timeout, const struct gather_options *o)
{
    char missing[400];
    rank_cover_missing(cover, missing, sizeof missing);
    char message[512];
    snprintf(message, sizeof message, "%s: no agent answered for them within %.3g s", missing, timeout);
    json_t *line = json_pack("{s:b, s:[{s:s}]}", "done", 1, "errors", "message", message);
    char *text = line ? json_dumps(line, JSON_COMPACT) : NULL;
    if (text && o->on_line)
        o->on_line(o->ctx, text, strlen(text));
    free(text);
    json_decref(line);
}

static void refusal(struct nats_link *link, const struct subject_route *route, struct gather_result *r)
{
    char why[256];
    nats_link_error(link, why, sizeof why);
    if (strstr(why, "Permissions Violation")) {
        r->refused = true;
        snprintf(r->error, sizeof r->error,
                 "refused by the NATS server: this user may not address %s (another user's agents)",
                 route->count ? route->subjects[0] : "these subjects");
    }
}

/* The request as agents take it: {"id", "user", "time", "request"|"message"},
 * wrapped as {"signed": that text, "sig": HMAC} when the link holds the
 * user's credentials (nats_link.h). NULL when out of memory. */
static char *envelope_text(struct nats_link *link, const char *id, const char *text,
                           const json_t *message)
{
    json_t *inner = json_pack("{s:s, s:s, s:I}", "id", id, "user", nats_link_user(link), "time",
                              (json_int_t)time(NULL));
    if (inner)
        json_object_set_new(inner, text ? "request" : "message",
                            text ? json_string(text) : json_deep_copy(message));
    char *signed_text = inner ? json_dumps(inner, JSON_COMPACT) : NULL;
    json_decref(inner);
    if (!signed_text || !nats_link_can_sign(link))
        return signed_text;
    char sig[65];
    json_t *outer = nats_link_sign(link, signed_text, strlen(signed_text), sig) == 0
                        ? json_pack("{s:s, s:s}", "signed", signed_text, "sig", sig)
                        : NULL;
    free(signed_text);
    char *payload = outer ? json_dumps(outer, JSON_COMPACT) : NULL;
    json_decref(outer);
    return payload;
}

int nats_gather(struct nats_link *link, const struct subject_route *route, const char *text,
                const struct gather_options *o, struct gather_result *r)
{
    memset(r, 0, sizeof *r);
    double quiet = o->quiet > 0 ? o->quiet : 0.05, timeout = o->timeout > 0 ? o->timeout : 5;
    if (o->inbox)
        snprintf(r->inbox, sizeof r->inbox, "%s", o->inbox);
    if ((!o->inbox && nats_link_new_inbox(link, r->inbox, sizeof r->inbox) < 0) ||
        nats_link_subscribe(link, r->inbox) < 0) {
        snprintf(r->error, sizeof r->error, "cannot make a reply inbox on the NATS connection");
        return -1;
    }
    if (!text && !o->message)
        goto gather; /* follow: only more of what was asked before */
    char id[300];
    snprintf(id, sizeof id, "%s#%u", r->inbox, o->serial);
    char *payload = envelope_text(link, id, text, o->message);
    if (!payload) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    r->sent_ms = clock_monotonic_seconds() * 1e3;
    for (size_t i = 0; i < route->count; i++)
        if (nats_link_publish(link, route->subjects[i], r->inbox, payload, strlen(payload)) < 0) {
            nats_link_error(link, r->error, sizeof r->error);
            free(payload);
            return -1;
        }
    free(payload);
gather:;
    double start = clock_monotonic_seconds(), last = start;
    struct rank_cover cover = {0};
    /* A refusal arrives as an asynchronous error; a round trip makes sure it is known. */
    nats_link_flush(link, timeout);
    refusal(link, route, r);
    if (r->refused)
        return -1;
    for (;;) {
        double now = clock_monotonic_seconds();
        if (o->follow ? (o->stop && *o->stop) : now - start >= timeout)
            break;
        if (o->enough && o->enough(o->ctx))
            break;
        /* Unknown number of agents: a quiet period after the last answer,
         * and, when the answers say which ranks their agents hold (a
         * switch), not before every rank of every launch named is
         * accounted for (the quiet period is then only for the agents of
         * another launch of the application, which none can name). */
        bool counted = !route->exact_answers && rank_cover_known(&cover);
        bool complete = !counted || rank_cover_complete(&cover);
        if (!o->follow && !o->enough && r->answers > 0 &&
            (route->exact_answers ? r->answers >= route->exact_answers : complete && now - last >= quiet))
            break;
        double wait = o->follow ? 0.25
                                : fmin(start + timeout - now,
                                       r->answers && !o->enough && !route->exact_answers && complete
                                           ? last + quiet - now
                                           : 1e9);
        struct pollfd p = {.fd = nats_link_fd(link), .events = POLLIN};
        int ms = (int)(wait * 1000) + 1;
        if (poll(&p, 1, ms < 1 ? 1 : ms) <= 0)
            continue;
        struct nats_link_msg m;
        while (nats_link_next(link, &m) == 1) {
            if (strcmp(m.subject, r->inbox)) { /* a late answer to an earlier request */
                nats_link_msg_free(&m);
                continue;
            }
            last = clock_monotonic_seconds();
            r->lines++;
            if (rank_cover_line(&cover, m.data, m.length)) {
                r->answers++;
                r->answered_ms = last * 1e3;
            }
            if (o->on_line)
                o->on_line(o->ctx, m.data, m.length);
            nats_link_msg_free(&m);
        }
    }
    if (!o->follow && !route->exact_answers && rank_cover_known(&cover) && !rank_cover_complete(&cover))
        say_missing(&cover, timeout, o);
    rank_cover_free(&cover);
    refusal(link, route, r);
    if (!o->inbox && !o->follow) /* a fresh inbox of this request only: late answers go nowhere */
        nats_link_unsubscribe(link, r->inbox);
    if (r->refused)
        return -1;
    if (r->answers == 0 && !o->follow && !(o->enough && o->enough(o->ctx))) {
        snprintf(r->error, sizeof r->error, "no agent answered on %s%s within %.3g s",
                 route->count ? route->subjects[0] : "(no subject)", route->count > 1 ? " ..." : "",
                 timeout);
        return -1;
    }
    return 0;
}
