/* The agent's client side (see agent_link.h). */
#include "client/agent_link.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/agent_socket.h"
#include "platform/platform.h"
#include "core/fields.h"
#include "util/clock.h"
#include "util/vec.h"

/* Starts 'tally agent --socket path' (it detaches itself and exits once it
 * listens) and waits for that. 0, or -1 with why: what the agent said on
 * stderr, kept for the caller (another agent winning the race to start is
 * no error of the task's, so nothing is printed here). */
static int start_agent(const char *path, char *why, size_t why_size)
{
    char exe[4096];
    if (proc_self_exe(exe, sizeof exe) < 0) {
        snprintf(why, why_size, "cannot find tally's own executable to start an agent");
        return -1;
    }
    int err[2];
    if (pipe2(err, O_CLOEXEC) < 0) {
        snprintf(why, why_size, "cannot start an agent: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, why_size, "cannot start an agent: %s", strerror(errno));
        close(err[0]);
        close(err[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(err[1], STDERR_FILENO);
        closefrom(3); /* the daemon keeps none of its starter's descriptors */
        execl(exe, "tally", "agent", "--socket", path, (char *)NULL);
        _exit(127);
    }
    close(err[1]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    char said[512] = "";
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    ssize_t got = read(err[0], said, sizeof said - 1);
    close(err[0]);
    said[got > 0 ? got : 0] = '\0';
    said[strcspn(said, "\n")] = '\0';
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (said[0])
            snprintf(why, why_size, "the agent it started failed: %s", said);
        else
            snprintf(why, why_size, "the agent it started at %s failed without saying why", path);
        return -1;
    }
    return 0;
}

int agent_link_open(struct agent_link *link, const char *path, bool start, char *why,
                    size_t why_size)
{
    memset(link, 0, sizeof *link);
    link->fd = -1;
    char def[4096];
    if (!path) {
        if (agent_socket_default_path(def, sizeof def) < 0) {
            snprintf(why, why_size, "the default socket path is too long");
            return -1;
        }
        path = def;
    }
    bool start_failed = false;
    char start_why[sizeof def + 128] = ""; /* room for the path */
    link->fd = agent_socket_connect(path, why, why_size);
    if (link->fd == -2)
        goto refused;
    if (link->fd < 0 && start && (errno == ENOENT || errno == ECONNREFUSED)) {
        /* Tasks started together (srun -n 4) race to start the agent: the
         * lock lets one win and the others' agents exit with an error, so a
         * failed start is only final when nothing answers afterwards. */
        start_failed = start_agent(path, start_why, sizeof start_why) < 0;
        for (int i = 0; i < 100 && link->fd < 0; i++) {
            link->fd = agent_socket_connect(path, why, why_size);
            if (link->fd == -2)
                goto refused;
            if (link->fd < 0) {
                struct timespec ts = {0, 10000000};
                nanosleep(&ts, NULL);
            }
        }
    }
    if (link->fd < 0 && start_failed) {
        snprintf(why, why_size, "%s", start_why); /* why the agent did not start */
        return -1;
    }
    if (link->fd < 0) {
        snprintf(why, why_size, "cannot connect to the agent at %s: %s%s", path, strerror(errno),
                 errno == ENOENT || errno == ECONNREFUSED ? " (is 'tally agent' running?)" : "");
        return -1;
    }
    return 0;
refused:
    link->fd = -1;
    return -1;
}

void agent_link_close(struct agent_link *link)
{
    if (link->fd >= 0)
        close(link->fd);
    link->fd = -1;
    free(link->in);
    link->in = NULL;
    link->in_len = link->in_cap = 0;
}

static int send_all(struct agent_link *link, const char *text, size_t len)
{
    if (link->fd < 0 || link->broken)
        return -1;
    while (len > 0) {
        ssize_t n = send(link->fd, text, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            link->broken = true;
            return -1;
        }
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

int agent_link_send_text(struct agent_link *link, const char *text)
{
    size_t len = strlen(text);
    char *line = malloc(len + 2);
    if (!line)
        return -1;
    memcpy(line, text, len);
    /* One request per line: a newline inside would split it. */
    for (size_t i = 0; i < len; i++)
        if (line[i] == '\n' || line[i] == '\r')
            line[i] = ' ';
    line[len] = '\n';
    int rc = send_all(link, line, len + 1);
    free(line);
    return rc;
}

int agent_link_send(struct agent_link *link, json_t *message)
{
    char *text = json_dumps(message, JSON_COMPACT | JSON_REAL_PRECISION(16));
    json_decref(message);
    if (!text)
        return -1;
    int rc = agent_link_send_text(link, text);
    free(text);
    return rc;
}

/* A whole line from the buffer, as JSON, or NULL. */
static json_t *take_line(struct agent_link *link)
{
    for (;;) {
        char *nl = link->in ? memchr(link->in, '\n', link->in_len) : NULL;
        if (!nl)
            return NULL;
        *nl = '\0';
        json_t *msg = json_loads(link->in, 0, NULL);
        size_t used = (size_t)(nl - link->in) + 1;
        memmove(link->in, link->in + used, link->in_len - used);
        link->in_len -= used;
        if (json_is_object(msg))
            return msg;
        json_decref(msg);
    }
}

json_t *agent_link_read(struct agent_link *link, double timeout)
{
    double deadline = timeout >= 0 ? clock_monotonic_seconds() + timeout : INFINITY;
    for (;;) {
        json_t *msg = take_line(link);
        if (msg)
            return msg;
        if (link->fd < 0) /* (a broken write still leaves what was sent to us) */
            return NULL;
        double left = deadline - clock_monotonic_seconds();
        if (left < 0)
            left = 0;
        struct pollfd p = {.fd = link->fd, .events = POLLIN};
        int wait_ms = isfinite(deadline) ? (int)ceil(left * 1000) : -1;
        int r = poll(&p, 1, wait_ms);
        if (r < 0 && errno == EINTR)
            return NULL; /* the caller's signal: let it look */
        if (r <= 0)
            return NULL;
        if (VEC_RESERVE(link->in, link->in_cap, link->in_len + 4096) < 0)
            return NULL;
        ssize_t n = recv(link->fd, link->in + link->in_len, link->in_cap - link->in_len, 0);
        if (n < 0 && errno == EINTR)
            return NULL;
        if (n <= 0) {
            link->broken = true;
            return NULL;
        }
        link->in_len += (size_t)n;
    }
}

int agent_link_register(struct agent_link *link, const char *app, const char *category,
                        const char *command, char *why, size_t why_size)
{
    json_t *msg = json_pack("{s:s, s:s, s:s, s:i}", "op", "register", "app", app, "command",
                            command ? command : "", "runner", (int)getpid());
    if (category)
        json_object_set_new(msg, "category", json_string(category));
    if (agent_link_send(link, msg) < 0) {
        snprintf(why, why_size, "the agent closed the connection");
        return -1;
    }
    json_t *reply = agent_link_read(link, 5.0);
    if (!reply) {
        snprintf(why, why_size, "the agent did not answer the registration");
        return -1;
    }
    const char *error = json_string_value(json_object_get(reply, "error"));
    if (error) {
        snprintf(why, why_size, "%s", error);
        json_decref(reply);
        return -1;
    }
    link->task = (unsigned)json_integer_value(json_object_get(reply, "task"));
    json_decref(reply);
    return 0;
}

void agent_link_sample(struct agent_link *link, const struct task_sample *sample)
{
    if (link->fd < 0 || link->broken)
        return;
    json_t *values = json_object();
    for (int f = 0; f < FIELD_COUNT; f++)
        json_object_set_new(values, summary_field_by_id(f)->name, json_real(sample->value[f]));
    json_object_set_new(values, "current_processes", json_real(sample->current_processes));
    agent_link_send(link, json_pack("{s:s, s:f, s:o}", "op", "sample", "time", sample->wall_clock,
                                    "values", values));
}
