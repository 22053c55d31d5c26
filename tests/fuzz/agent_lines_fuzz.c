/* Fuzzes what a client may send the agent (src/agent/agent.c's line
 * handling: JSON messages with any "op" and any fields, and request texts
 * evaluated by agent_eval.c) on an agent state built here. The agent's
 * user is set to one that owns no process (nobody), so that no input can
 * attach, register, stop or kill anything on the machine running the
 * fuzzer: every process service must be refused. Beyond "no crash, no leak,
 * no UB": every non-blank line gets output (an answer or an error). Each
 * input is split into lines. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/agent_io.h"
#include "agent/agent_ops.h"
#include "agent/agent_state.h"
#include "agent/agent_tree.h"
#include "agent/proc_info.h"

static struct agent agent;
static struct agent_client client;
static struct agent_client *clients[1] = {&client};
static int peer = -1;

static void setup(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        abort();
    peer = sv[1];
    client.fd = sv[0];
    agent_options_init(&agent.options);
    agent_ops_connect(&agent); /* the calls back up, as agent_open sets them */
    strcpy(agent.host, "n1");
    strcpy(agent.site, "s1");
    agent.uid = 65534; /* nobody: owns no process here */
    agent.epoll_fd = -1;
    agent.boot_epoch = proc_boot_epoch();
    agent.clock_ticks = 100;
    agent.clients = clients;
    agent.client_count = agent.client_cap = 1;
    pidmap_init(&agent.procs, sizeof(struct agent_proc));
    proc_scan_init(&agent.scan);
    agent.registry = csr_registry_new();
}

/* Reads and drops what the client was sent; returns how many bytes. */
static size_t drain(void)
{
    agent_flush(&agent);
    size_t total = 0;
    char buf[65536];
    ssize_t n;
    while ((n = recv(peer, buf, sizeof buf, MSG_DONTWAIT)) > 0)
        total += (size_t)n;
    return total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (peer < 0)
        setup();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        bool blank = strspn(line, " \t") == strlen(line);
        agent_handle_line(&agent, &client, line);
        if (!blank && drain() == 0 && !agent.stop_requested)
            abort(); /* every line is answered */
        agent.stop_requested = false;
        client.closing = false;
    }
    free(text);
    /* Nothing kept from one input to the next: tasks attached by the input
     * are let go (their processes are not touched), csrs and counters dropped. */
    for (size_t i = 0; i < agent.task_count; i++)
        agent_task_free(agent.tasks[i]);
    agent.task_count = 0;
    csr_registry_free(agent.registry);
    agent.registry = csr_registry_new();
    agent.owner_count = 0;
    for (size_t i = 0; i < agent.procs.capacity; i++)
        if (agent.procs.keys[i])
            free(((struct agent_proc *)pidmap_at(&agent.procs, i))->ring);
    pidmap_free(&agent.procs);
    pidmap_init(&agent.procs, sizeof(struct agent_proc));
    return 0;
}
