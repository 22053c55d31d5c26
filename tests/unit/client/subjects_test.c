/* Subject names and the routing of requests to agents over NATS. */
#include "client/subjects.h"

#include "test.h"

static struct object_token proc(pid_t pid, char *host)
{
    return (struct object_token){.kind = OBJECT_PROC, .pid = pid, .name = host};
}

static struct object_token named(enum object_kind kind, char *name)
{
    return (struct object_token){.kind = kind, .name = name};
}

/* ":service(objects)" with one object list */
static struct request one_call(struct request_call *call, struct request_arg *arg,
                               struct object_token *objects, size_t count)
{
    *arg = (struct request_arg){.kind = ARG_OBJECTS, .objects = objects, .object_count = count};
    *call = (struct request_call){.service = "proc_get_info", .args = arg, .arg_count = 1};
    return (struct request){.actions = call, .action_count = 1};
}

int main(void)
{
    char s[256];
    CHECK_INT(subject_escape("n1.example.org", s, sizeof s), 0);
    CHECK_STR(s, "n1%2Eexample%2Eorg");
    CHECK_INT(subject_escape("a*b>c d%", s, sizeof s), 0);
    CHECK_STR(s, "a%2Ab%3Ec%20d%25");
    CHECK_INT(subject_escape("", s, sizeof s), 0);
    CHECK_STR(s, "%00");
    CHECK_INT(subject_escape("abcdef", s, 4), -1);

    CHECK_INT(subject_for("alice", SUBJECT_NODE, "n1", s, sizeof s), 0);
    CHECK_STR(s, "tally.alice.req.node.n1");
    CHECK_INT(subject_for("alice", SUBJECT_ALL, NULL, s, sizeof s), 0);
    CHECK_STR(s, "tally.alice.req.all");
    CHECK_INT(subject_for("bob", SUBJECT_APP, "sim.v2", s, sizeof s), 0);
    CHECK_STR(s, "tally.bob.req.app.sim%2Ev2");

    struct request_call call;
    struct request_arg arg;
    struct subject_route r;

    /* two processes on two hosts and one local: three nodes, answers known */
    struct object_token procs[] = {proc(10, "n1"), proc(11, "n2"), proc(12, NULL), proc(13, "n1")};
    struct request req = one_call(&call, &arg, procs, 4);
    CHECK_INT(subject_route(&req, "alice", "here", NULL, &r), 0);
    CHECK_INT(r.count, 3);
    CHECK_STR(r.subjects[0], "tally.alice.req.node.n1");
    CHECK_STR(r.subjects[1], "tally.alice.req.node.n2");
    CHECK_STR(r.subjects[2], "tally.alice.req.node.here");
    CHECK_INT(r.exact_answers, 3);
    subject_route_free(&r);

    /* an application: an unknown number of agents */
    struct object_token apps[] = {named(OBJECT_APP, "sim"), proc(5, "n3")};
    req = one_call(&call, &arg, apps, 2);
    CHECK_INT(subject_route(&req, "alice", "here", NULL, &r), 0);
    CHECK_INT(r.count, 2);
    CHECK_STR(r.subjects[0], "tally.alice.req.app.sim");
    CHECK_INT(r.exact_answers, 0);
    subject_route_free(&r);

    /* a site */
    struct object_token sites[] = {named(OBJECT_SITE, "cyfronet")};
    req = one_call(&call, &arg, sites, 1);
    CHECK_INT(subject_route(&req, "alice", "here", NULL, &r), 0);
    CHECK_STR(r.subjects[0], "tally.alice.req.site.cyfronet");
    CHECK_INT(r.exact_answers, 0);
    subject_route_free(&r);

    /* no location at all: every agent, or the one named by default */
    struct object_token counters[] = {{.kind = OBJECT_COUNTER, .number = 1}};
    req = one_call(&call, &arg, counters, 1);
    CHECK_INT(subject_route(&req, "alice", "here", NULL, &r), 0);
    CHECK_INT(r.count, 1);
    CHECK_STR(r.subjects[0], "tally.alice.req.all");
    CHECK_INT(r.exact_answers, 0);
    subject_route_free(&r);
    CHECK_INT(subject_route(&req, "alice", "here", "n7", &r), 0);
    CHECK_STR(r.subjects[0], "tally.alice.req.node.n7");
    CHECK_INT(r.exact_answers, 1);
    subject_route_free(&r);

    /* the event part routes too */
    struct request_call event = call;
    struct request_arg earg = {.kind = ARG_OBJECTS, .objects = &procs[1], .object_count = 1};
    event.args = &earg;
    struct request_call action = {.service = "pa_counter_read", .args = &arg, .arg_count = 1};
    arg = (struct request_arg){.kind = ARG_OBJECTS, .objects = counters, .object_count = 1};
    req = (struct request){.conditional = true, .event = event, .actions = &action, .action_count = 1};
    CHECK_INT(subject_route(&req, "alice", "here", NULL, &r), 0);
    CHECK_INT(r.count, 1);
    CHECK_STR(r.subjects[0], "tally.alice.req.node.n2");
    subject_route_free(&r);
    return test_done();
}
