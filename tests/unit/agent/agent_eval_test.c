/* Unit tests for the agent's request evaluation (agent_eval.c) on an agent
 * state built in the test (no socket, no loop): the reply lines a client
 * gets for counters, conditional requests and their lifecycle, refusals
 * with positions, and a registered tree of this very process's child. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent_eval.h"
#include "agent/agent_io.h"
#include "agent/agent_ops.h"
#include "agent/agent_state.h"
#include "agent/agent_tree.h"
#include "agent/proc_info.h"
#include "test.h"

static struct agent agent;
static struct agent_client client;
static int peer; /* the test's end of the client's socket */

/* Everything the client was sent since the last call, as JSON lines. */
static json_t *lines(void)
{
    agent_flush(&agent);
    json_t *all = json_array();
    char buf[65536];
    ssize_t n = recv(peer, buf, sizeof buf - 1, MSG_DONTWAIT);
    if (n <= 0)
        return all;
    buf[n] = '\0';
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        json_array_append_new(all, json_loads(line, 0, NULL));
    return all;
}

static json_t *ask(const char *text)
{
    agent_request(&agent, &client, text);
    return lines();
}

static const char *str(json_t *line, const char *path1, const char *path2)
{
    json_t *v = json_object_get(line, path1);
    if (path2)
        v = json_object_get(v, path2);
    return json_string_value(v);
}

int main(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    peer = sv[1];
    client.fd = sv[0];
    struct agent_client *clients[1] = {&client};
    agent.clients = clients;
    agent.client_count = agent.client_cap = 1;
    agent_options_init(&agent.options);
    agent_ops_connect(&agent); /* the calls back up, as agent_open sets them */
    strcpy(agent.host, "n1");
    strcpy(agent.site, "s1");
    agent.uid = getuid();
    agent.epoll_fd = -1;
    agent.boot_epoch = proc_boot_epoch();
    agent.clock_ticks = 100;
    pidmap_init(&agent.procs, sizeof(struct agent_proc));
    proc_scan_init(&agent.scan);
    agent.registry = csr_registry_new();

    /* counters */
    json_t *r = ask(":pa_counter_create()");
    CHECK_INT(json_array_size(r), 2);
    CHECK_STR(str(json_array_get(r, 0), "result", "counter"), "c_1");
    CHECK_STR(str(json_array_get(r, 0), "node", NULL), "n1");
    CHECK_STR(str(json_array_get(r, 0), "site", NULL), "s1");
    CHECK(json_is_true(json_object_get(json_array_get(r, 1), "done")));
    json_decref(r);
    r = ask(":pa_counter_increment([c_1], 5), pa_counter_increment(c_1), pa_counter_read([c_1], 1), "
            "pa_counter_read([c_1])");
    CHECK_INT(json_array_size(r), 5);
    CHECK_NEAR(json_number_value(json_object_get(json_object_get(json_array_get(r, 2), "result"), "value")), 6, 0);
    CHECK_NEAR(json_number_value(json_object_get(json_object_get(json_array_get(r, 3), "result"), "value")), 0, 0);
    json_decref(r);
    r = ask(":pa_counter_read([c_9])");
    json_t *errors = json_object_get(json_array_get(r, 0), "errors");
    CHECK_INT(json_array_size(errors), 1);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(errors, 0), "pos")), 19);
    CHECK_STR(str(json_array_get(errors, 0), "message", NULL), "c_9: no such counter");
    json_decref(r);

    /* a conditional request: csr_1, disabled until enabled; timer fires */
    r = ask("timer(10ms): pa_counter_increment([c_1], 2), pa_counter_read([c_1])");
    CHECK_STR(str(json_array_get(r, 0), "request", NULL), "csr_1");
    CHECK_STR(str(json_array_get(r, 0), "result", "state"), "disabled");
    json_decref(r);
    CHECK(isinf(agent_fire_timers(&agent, 1e12))); /* disabled: nothing fires */
    json_decref(lines());
    r = ask(":csr_enable([csr_1])");
    CHECK_STR(str(json_array_get(r, 0), "result", "state"), "enabled");
    json_decref(r);
    double due;
    CHECK(csr_next_timer(agent.registry, &due));
    agent_fire_timers(&agent, due + 0.001);
    r = lines();
    CHECK_INT(json_array_size(r), 1); /* the increment is silent, the read replies */
    CHECK_STR(str(json_array_get(r, 0), "request", NULL), "csr_1");
    CHECK_STR(str(json_array_get(r, 0), "event", "service"), "timer");
    CHECK_NEAR(json_number_value(json_object_get(json_object_get(json_array_get(r, 0), "result"), "value")), 2, 0);
    json_decref(r);
    r = ask(":csr_delete([csr_1]), csr_delete([csr_1])");
    CHECK_STR(str(json_array_get(r, 0), "result", "state"), "deleted");
    CHECK_INT(json_array_size(json_object_get(json_array_get(r, 1), "errors")), 1);
    json_decref(r);
    CHECK_INT(csr_count(agent.registry), 0);

    /* probe events are accepted, with a note that nothing matches */
    r = ask("thread_executes_probe([p_1], \"nextstep\"): pa_counter_read([c_1])");
    errors = json_object_get(json_array_get(r, 1), "errors");
    CHECK_CONTAINS(str(json_array_get(errors, 0), "message", NULL), "no instrumented process matches");
    json_decref(r);

    /* refusals */
    r = ask(":proc_get_info([p_1])");
    errors = json_object_get(json_array_get(r, 0), "errors");
    CHECK_CONTAINS(str(json_array_get(errors, 0), "message", NULL),
                   "process 1 is not part of any registered application");
    json_decref(r);
    r = ask(":proc_get_info([p_1@elsewhere])");
    errors = json_object_get(json_array_get(r, 0), "errors");
    CHECK_CONTAINS(str(json_array_get(errors, 0), "message", NULL), "not reachable from this agent");
    json_decref(r);
    r = ask(":proc_get_inf([p_1])");
    errors = json_object_get(json_array_get(r, 0), "errors");
    CHECK_INT(json_integer_value(json_object_get(json_array_get(errors, 0), "pos")), 2);
    json_decref(r);

    /* a registered tree: this process's child, found by one scan */
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    struct agent_task *t = agent_task_add(&agent, "unit", "pause", getpid(), false);
    CHECK(t != NULL);
    agent_tick(&agent);
    CHECK(agent_task_of(&agent, child) == t);
    CHECK(agent_task_of(&agent, getpid()) == NULL); /* the runner itself is not the task's */
    r = ask(":app_get_proclist([app_unit])");
    char token[64];
    snprintf(token, sizeof token, "p_%d@n1", (int)child);
    json_t *procs = json_object_get(json_object_get(json_array_get(r, 0), "result"), "processes");
    CHECK_INT(json_array_size(procs), 1);
    CHECK_STR(json_string_value(json_array_get(procs, 0)), token);
    json_decref(r);
    snprintf(token, sizeof token, ":proc_kill([p_%d], 9)", (int)child);
    r = ask(token);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(json_array_get(r, 0), "result"), "signal")), 9);
    json_decref(r);
    int status;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    agent_tick(&agent);
    CHECK(agent_task_of(&agent, child) == NULL);

    csr_registry_free(agent.registry);
    free(agent.owners);
    for (size_t i = 0; i < agent.task_count; i++)
        agent_task_free(agent.tasks[i]);
    free(agent.tasks);
    for (size_t i = 0; i < agent.procs.capacity; i++)
        if (agent.procs.keys[i])
            free(((struct agent_proc *)pidmap_at(&agent.procs, i))->ring);
    pidmap_free(&agent.procs);
    proc_scan_free(&agent.scan);
    free(client.out);
    close(sv[0]);
    close(sv[1]);
    return test_done();
}
