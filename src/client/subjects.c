/* Subject names and request routing for the NATS transport (subjects.h). */
#include "client/subjects.h"
#include "util/vec.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int subject_escape(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        bool plain = *p > ' ' && *p < 0x7f && *p != '.' && *p != '*' && *p != '>' && *p != '%';
        size_t need = plain ? 1 : 3;
        if (n + need >= size)
            return -1;
        if (plain)
            out[n++] = (char)*p;
        else
            n += (size_t)snprintf(out + n, size - n, "%%%02X", *p);
    }
    if (n == 0) { /* an empty token is not a valid subject token */
        if (size < 4)
            return -1;
        memcpy(out, "%00", 4);
        return 0;
    }
    out[n] = '\0';
    return 0;
}

int subject_for(const char *user, enum subject_scope scope, const char *name, char *out, size_t size)
{
    static const char *const scopes[] = {"all", "site", "node", "app"};
    char u[128], token[512];
    if (subject_escape(user, u, sizeof u) < 0)
        return -1;
    int n;
    if (scope == SUBJECT_ALL) {
        n = snprintf(out, size, "tally.%s.req.all", u);
    } else {
        if (subject_escape(name, token, sizeof token) < 0)
            return -1;
        n = snprintf(out, size, "tally.%s.req.%s.%s", u, scopes[scope], token);
    }
    return n > 0 && (size_t)n < size ? 0 : -1;
}

static int add_subject(struct subject_route *r, const char *subject)
{
    for (size_t i = 0; i < r->count; i++)
        if (!strcmp(r->subjects[i], subject))
            return 0;
    char *copy = strdup(subject);
    char **slot = copy ? VEC_PUSH(r->subjects, r->count, r->capacity) : NULL;
    if (!slot) {
        free(copy);
        return -1;
    }
    *slot = copy;
    return 0;
}

struct route_state {
    struct subject_route *route;
    const char *user, *local_host;
    bool only_nodes;   /* every subject so far names a node */
    int failed;
};

static void route_object(struct route_state *s, const struct object_token *t)
{
    char subject[1024];
    enum subject_scope scope;
    const char *name;
    switch (t->kind) {
    case OBJECT_SITE: scope = SUBJECT_SITE; name = t->name; break;
    case OBJECT_NODE: scope = SUBJECT_NODE; name = t->name; break;
    case OBJECT_APP: scope = SUBJECT_APP; name = t->name; break;
    case OBJECT_PROC: scope = SUBJECT_NODE; name = t->name ? t->name : s->local_host; break;
    default: return; /* counters and csrs live where they were made */
    }
    if (scope != SUBJECT_NODE)
        s->only_nodes = false;
    if (subject_for(s->user, scope, name ? name : "", subject, sizeof subject) < 0 ||
        add_subject(s->route, subject) < 0)
        s->failed = 1;
}

static void route_call(struct route_state *s, const struct request_call *call)
{
    for (size_t a = 0; a < call->arg_count; a++)
        if (call->args[a].kind == ARG_OBJECTS)
            for (size_t o = 0; o < call->args[a].object_count; o++)
                route_object(s, &call->args[a].objects[o]);
}

int subject_route(const struct request *request, const char *user, const char *local_host,
                  const char *default_node, struct subject_route *out)
{
    memset(out, 0, sizeof *out);
    struct route_state s = {.route = out, .user = user, .local_host = local_host, .only_nodes = true};
    if (request->conditional)
        route_call(&s, &request->event);
    for (size_t i = 0; i < request->action_count; i++)
        route_call(&s, &request->actions[i]);
    if (!s.failed && out->count == 0) {
        char subject[1024];
        if (default_node)
            s.failed = subject_for(user, SUBJECT_NODE, default_node, subject, sizeof subject) < 0 ||
                       add_subject(out, subject) < 0;
        else {
            s.only_nodes = false;
            s.failed = subject_for(user, SUBJECT_ALL, NULL, subject, sizeof subject) < 0 ||
                       add_subject(out, subject) < 0;
        }
    }
    if (s.failed) {
        subject_route_free(out);
        return -1;
    }
    out->exact_answers = s.only_nodes ? out->count : 0;
    return 0;
}

void subject_route_free(struct subject_route *route)
{
    for (size_t i = 0; i < route->count; i++)
        free(route->subjects[i]);
    free(route->subjects);
    memset(route, 0, sizeof *route);
}
