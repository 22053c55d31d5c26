/* OpenMetrics exposition of the agent (agent_metrics.h). One series per
 * (application, category) on this host: the sum over the application's live
 * tasks of each summary field, in Prometheus' base units (bytes, seconds).
 * Quantities that only grow (CPU time, bytes moved, processes started) are
 * counters with a _total suffix; the others are gauges. The contract
 * violation levels that tally contract watch sends come last (agent_levels.c). */
#include "live/agent_metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "live/agent_internal.h"
#include "live/agent_levels.h"
#include "util/error.h"

struct exported {
    enum summary_field_id field;
    const char *name;       /* without the tally_ prefix */
    bool counter;
    const char *help;
};

static const struct exported exported[] = {
    {FIELD_CPU_TIME, "cpu_seconds", true, "CPU time of the application's processes"},
    {FIELD_CORES, "cores", false, "cores in use over the last interval"},
    {FIELD_MEMORY, "memory_bytes", false, "resident memory"},
    {FIELD_VIRTUAL_MEMORY, "virtual_memory_bytes", false, "virtual memory"},
    {FIELD_SWAP_MEMORY, "swap_memory_bytes", false, "swapped memory"},
    {FIELD_PROPORTIONAL_MEMORY, "proportional_memory_bytes", false, "proportional set size"},
    {FIELD_BYTES_READ, "read_bytes", true, "bytes read (all read calls)"},
    {FIELD_BYTES_WRITTEN, "written_bytes", true, "bytes written (all write calls)"},
    {FIELD_STORAGE_BYTES_READ, "storage_read_bytes", true, "bytes read from storage"},
    {FIELD_STORAGE_BYTES_WRITTEN, "storage_written_bytes", true, "bytes written to storage"},
    {FIELD_BYTES_RECEIVED, "received_bytes", true, "bytes received over TCP"},
    {FIELD_BYTES_SENT, "sent_bytes", true, "bytes sent over TCP"},
    {FIELD_CONTEXT_SWITCHES, "context_switches", true, "context switches"},
    {FIELD_TOTAL_PROCESSES, "processes_started", true, "processes started"},
    {FIELD_MAX_CONCURRENT_PROCESSES, "processes_max", false, "most processes alive at once"},
    {FIELD_WALL_TIME, "wall_seconds", false, "time since the application's first task started"},
};

struct agent_metrics {
    struct MHD_Daemon *daemon;
    char user[128];
};

/* A label value with \, " and newlines escaped, as the format asks. */
void agent_metrics_label(FILE *out, const char *name, const char *value, bool last)
{
    fprintf(out, "%s=\"", name);
    for (const char *p = value ? value : ""; *p; p++) {
        if (*p == '\\' || *p == '"')
            fputc('\\', out);
        if (*p == '\n')
            fputs("\\n", out);
        else
            fputc(*p, out);
    }
    fprintf(out, "\"%s", last ? "" : ",");
}

static double in_base_units(enum summary_field_id id, double value)
{
    return summary_field_by_id(id)->dim == DIM_BYTES ? value * 1048576.0 : value;
}

static const char *category_of(const struct agent_task *t)
{
    return t->category ? t->category : "";
}

void agent_metrics_write(const struct agent *a, FILE *out)
{
    const char *user = a->metrics ? a->metrics->user : "";
    fprintf(out, "# TYPE tally_agent info\n# HELP tally_agent the agent serving these metrics\n");
    fprintf(out, "tally_agent_info{");
    agent_metrics_label(out, "host", a->host, false);
    agent_metrics_label(out, "site", a->site, false);
    agent_metrics_label(out, "user", user, true);
    fprintf(out, "} 1\n");
    size_t live = 0;
    for (size_t i = 0; i < a->task_count; i++)
        live += !a->tasks[i]->ended;
    fprintf(out, "# TYPE tally_agent_tasks gauge\n# HELP tally_agent_tasks tasks followed now\n");
    fprintf(out, "tally_agent_tasks{");
    agent_metrics_label(out, "host", a->host, false);
    agent_metrics_label(out, "user", user, true);
    fprintf(out, "} %zu\n", live);
    for (size_t e = 0; e < sizeof exported / sizeof exported[0]; e++) {
        const struct exported *x = &exported[e];
        fprintf(out, "# TYPE tally_%s %s\n# HELP tally_%s %s\n", x->name,
                x->counter ? "counter" : "gauge", x->name, x->help);
        if (summary_field_by_id(x->field)->dim != DIM_COUNT || x->field == FIELD_WALL_TIME ||
            x->field == FIELD_CPU_TIME)
            fprintf(out, "# UNIT tally_%s %s\n", x->name,
                    summary_field_by_id(x->field)->dim == DIM_BYTES ? "bytes" : "seconds");
        /* one line per (app, category): the first task of each pair sums them all */
        for (size_t i = 0; i < a->task_count; i++) {
            const struct agent_task *t = a->tasks[i];
            if (t->ended || !t->has_current)
                continue;
            bool first = true;
            for (size_t k = 0; k < i && first; k++) {
                const struct agent_task *u = a->tasks[k];
                first = u->ended || !u->has_current || strcmp(u->app, t->app) ||
                        strcmp(category_of(u), category_of(t));
            }
            if (!first)
                continue;
            double sum = 0;
            for (size_t k = i; k < a->task_count; k++) {
                const struct agent_task *u = a->tasks[k];
                if (!u->ended && u->has_current && !strcmp(u->app, t->app) &&
                    !strcmp(category_of(u), category_of(t)))
                    sum += u->current[x->field];
            }
            fprintf(out, "tally_%s%s{", x->name, x->counter ? "_total" : "");
            agent_metrics_label(out, "app", t->app, false);
            agent_metrics_label(out, "category", category_of(t), false);
            agent_metrics_label(out, "host", a->host, false);
            agent_metrics_label(out, "site", a->site, false);
            agent_metrics_label(out, "user", user, true);
            fprintf(out, "} %.17g\n", in_base_units(x->field, sum));
        }
    }
    agent_levels_write(a->levels, user, out);
    fprintf(out, "# EOF\n");
}

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status, const char *type,
                               char *body, size_t len)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    const struct agent *a = cls;
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return respond(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", strdup("only GET\n"), 9);
    if (strcmp(url, "/metrics"))
        return respond(conn, MHD_HTTP_NOT_FOUND, "text/plain", strdup("see /metrics\n"), 13);
    char *body = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&body, &len);
    if (!out)
        return MHD_NO;
    agent_metrics_write(a, out);
    fclose(out);
    return respond(conn, MHD_HTTP_OK, "application/openmetrics-text; version=1.0.0; charset=utf-8",
                   body, len);
}

/* "ADDR:PORT", ":PORT" or "PORT" (then 127.0.0.1): a listening socket. */
static int listen_at(const char *text, char *why, size_t why_len)
{
    char addr[64] = "127.0.0.1";
    const char *colon = strrchr(text, ':');
    const char *port_text = colon ? colon + 1 : text;
    if (colon && colon > text) {
        size_t n = (size_t)(colon - text);
        if (n >= sizeof addr) {
            snprintf(why, why_len, "--metrics '%s': address too long", text);
            return -1;
        }
        memcpy(addr, text, n);
        addr[n] = '\0';
    }
    char *end;
    long port = strtol(port_text, &end, 10);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (*end || end == port_text || port < 1 || port > 65535 ||
        inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
        snprintf(why, why_len, "--metrics '%s': expected ADDRESS:PORT (an IPv4 address, a port 1-65535)",
                 text);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 64) < 0) {
        snprintf(why, why_len, "--metrics %s: %s", text, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

int agent_metrics_open(struct agent *a)
{
    char why[300];
    int fd = listen_at(a->options.metrics_address, why, sizeof why);
    if (fd < 0) {
        tally_error("agent: %s", why);
        return -1;
    }
    struct agent_metrics *m = calloc(1, sizeof *m);
    if (!m) {
        close(fd);
        return -1;
    }
    a->metrics = m;
    if (a->nats_user_name[0]) {
        snprintf(m->user, sizeof m->user, "%s", a->nats_user_name);
    } else {
        struct passwd *pw = getpwuid(a->uid);
        snprintf(m->user, sizeof m->user, "%s", pw ? pw->pw_name : "unknown");
    }
    m->daemon = MHD_start_daemon(MHD_USE_EPOLL, 0, NULL, NULL, handle, a, MHD_OPTION_LISTEN_SOCKET,
                                 fd, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
    if (!m->daemon) {
        close(fd);
        tally_error("agent: --metrics %s: cannot start the HTTP server", a->options.metrics_address);
        return -1;
    }
    return 0;
}

void agent_metrics_close(struct agent *a)
{
    if (!a->metrics)
        return;
    MHD_stop_daemon(a->metrics->daemon);
    free(a->metrics);
    a->metrics = NULL;
}

int agent_metrics_fd(const struct agent *a)
{
    if (!a->metrics)
        return -1;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(a->metrics->daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

void agent_metrics_run(struct agent *a)
{
    if (a->metrics)
        MHD_run(a->metrics->daemon);
}
