/* OpenMetrics exposition of the agent (see metrics.h). */
#include "agent/metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/agent_state.h"
#include "agent/agent_levels.h"
#include "agent/agent_file_io.h"
#include "agent/metrics_label.h"
#include "platform/platform.h"
#include "util/http_accept.h"
#include "util/http_gate.h"
#include "core/units.h"

/* At most this many scrapes at once, each within this many seconds (a new
 * connection evicts the oldest): slow clients cannot lock scrapes out. The
 * agent's own user's connections (a loopback client of the same uid) have
 * a bound of their own: another user's flood never ends them. */
enum { METRICS_MAX_CONNECTIONS = 16, METRICS_MAX_OWN_CONNECTIONS = 64 };
#define METRICS_DEADLINE 5.0

struct metrics_server {
    struct http_gate *gate;
    struct agent *agent;
};

/* Fields that only grow: OpenMetrics counters. */
static bool is_counter(int f)
{
    switch (f) {
    case FIELD_CPU_TIME:
    case FIELD_BYTES_READ:
    case FIELD_BYTES_WRITTEN:
    case FIELD_BYTES_RECEIVED:
    case FIELD_BYTES_SENT:
    case FIELD_STORAGE_BYTES_READ:
    case FIELD_STORAGE_BYTES_WRITTEN:
    case FIELD_CONTEXT_SWITCHES:
    case FIELD_MINOR_PAGE_FAULTS:
    case FIELD_MAJOR_PAGE_FAULTS:
    case FIELD_TOTAL_PROCESSES:
        return true;
    default:
        return false;
    }
}

/* Fields that say nothing live about an application. */
static bool is_skipped(int f)
{
    return f == FIELD_START || f == FIELD_END || f == FIELD_MACHINE_CPUS ||
           f == FIELD_MACHINE_LOAD || f == FIELD_CORES_AVG;
}

/* The metric family's name and unit for a field: base units (bytes,
 * seconds); total_processes is tally_processes_started (a counter of
 * processes begun), not "tally_total_processes_total". */
static void metric_name(int f, char *name, size_t size, const char **unit, double *scale)
{
    const struct summary_field *field = summary_field_by_id(f);
    *scale = 1;
    *unit = NULL;
    if (field->dim == DIM_BYTES) {
        *unit = "bytes";
        *scale = BYTES_PER_MB;
    } else if (field->dim == DIM_TIME) {
        *unit = "seconds";
    }
    if (f == FIELD_TOTAL_PROCESSES)
        snprintf(name, size, "tally_processes_started");
    else
        snprintf(name, size, "tally_%s%s%s", field->name, *unit ? "_" : "", *unit ? *unit : "");
}

/* What each field's HELP says. */
static const char *metric_help(int f)
{
    switch (f) {
    case FIELD_TOTAL_PROCESSES:
        return "processes started by the application's live tasks";
    case FIELD_CONTEXT_SWITCHES:
        return "voluntary and involuntary context switches of the application's live processes";
    case FIELD_MINOR_PAGE_FAULTS:
        return "minor page faults of the application's live processes";
    case FIELD_MAJOR_PAGE_FAULTS:
        return "major page faults of the application's live processes";
    default:
        return NULL;
    }
}

/* The labels of one application's series: app, host, user, and category
 * when the application has one (no empty label). */
static void app_labels(FILE *out, const struct agent *a, const struct agent_task *app, const char *user)
{
    metrics_label(out, "app", app->app, false);
    metrics_label(out, "host", a->host, true);
    metrics_label(out, "user", user, true);
    if (app->category && *app->category)
        metrics_label(out, "category", app->category, true);
}

/* Counters the runner's samples do not carry: read from the processes now,
 * as proc_get_info reads them (the last scan's reading, when the process is
 * gone since), and processes started is at least those alive. */
static void add_process_counters(const struct agent_proc *p, pid_t pid, double *sum)
{
    struct proc_status status;
    struct proc_stat now;
    const struct proc_stat *st = proc_read_stat(pid, &now) == 0 ? &now : &p->last;
    sum[FIELD_TOTAL_PROCESSES] += 1;
    sum[FIELD_MINOR_PAGE_FAULTS] += (double)st->minflt;
    sum[FIELD_MAJOR_PAGE_FAULTS] += (double)st->majflt;
    if (proc_read_status(pid, &status) == 0)
        sum[FIELD_CONTEXT_SWITCHES] += (double)status.context_switches;
}

/* Level 3 (tally run --agent --level 3): bytes and operations through
 * libtally-io per application, module and direction, from its tasks'
 * regions; nothing when no application runs at level 3. Each family's
 * samples together, as OpenMetrics wants them. */
struct io_series {
    const char *module, *label;
    int counter;
};
static const struct io_series io_bytes[] = {
    {"posix", "read", POSIX_BYTES_READ}, {"posix", "write", POSIX_BYTES_WRITTEN},
    {"stdio", "read", STDIO_BYTES_READ}, {"stdio", "write", STDIO_BYTES_WRITTEN}};
static const struct io_series io_ops[] = {
    {"posix", "open", POSIX_OPENS}, {"posix", "read", POSIX_READS}, {"posix", "write", POSIX_WRITES},
    {"stdio", "open", STDIO_OPENS}, {"stdio", "read", STDIO_READS}, {"stdio", "write", STDIO_WRITES}};

static void write_io_family(FILE *out, const struct agent *a, const struct agent_task **apps, size_t n,
                            const char *user, int64_t (*c)[TALLY_IO_COUNTER_COUNT], const bool *has,
                            const char *name, const char *label, const struct io_series *series, size_t count)
{
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; has[k] && i < count; i++) {
            fprintf(out, "%s_total{", name);
            app_labels(out, a, apps[k], user);
            fprintf(out, ",module=\"%s\",%s=\"%s\"} %lld\n", series[i].module, label, series[i].label,
                    (long long)c[k][series[i].counter]);
        }
}

static void write_file_io(FILE *out, const struct agent *a, const struct agent_task **apps, size_t n,
                          const char *user, bool openmetrics)
{
    int64_t(*c)[TALLY_IO_COUNTER_COUNT] = calloc(n + 1, sizeof *c);
    bool *has = calloc(n + 1, sizeof *has), any = false;
    for (size_t k = 0; c && has && k < n; k++) {
        for (size_t i = 0; i < a->task_count; i++) {
            const struct agent_task *t = a->tasks[i];
            if (!t->ended && !strcmp(t->app, apps[k]->app))
                has[k] |= agent_file_io_totals(t, c[k]) == 0;
        }
        any |= has[k];
    }
    /* OpenMetrics names the family (no _total) and has UNIT; the Prometheus
     * text format names the series itself */
    const char *t = openmetrics ? "" : "_total";
    if (any) {
        fprintf(out, "# TYPE tally_io_bytes%s counter\n", t);
        if (openmetrics)
            fputs("# UNIT tally_io_bytes bytes\n", out);
        fprintf(out, "# HELP tally_io_bytes%s bytes read and written through libtally-io at level 3, per "
                     "module (POSIX, STDIO) and direction\n", t);
        write_io_family(out, a, apps, n, user, c, has, "tally_io_bytes", "direction", io_bytes,
                        sizeof io_bytes / sizeof io_bytes[0]);
        fprintf(out, "# TYPE tally_io_operations%s counter\n"
                     "# HELP tally_io_operations%s opens, reads and writes through libtally-io at level 3, "
                     "per module (POSIX, STDIO)\n", t, t);
        write_io_family(out, a, apps, n, user, c, has, "tally_io_operations", "operation", io_ops,
                        sizeof io_ops / sizeof io_ops[0]);
    }
    free(c);
    free(has);
}

char *metrics_render(const struct agent *a, bool openmetrics, size_t *len)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return NULL;
    struct passwd *pw = getpwuid(a->uid);
    char user[64];
    snprintf(user, sizeof user, "%s", pw ? pw->pw_name : "");
    if (!pw)
        snprintf(user, sizeof user, "%u", (unsigned)a->uid);
    /* Distinct applications (first task of each), with their sums. */
    size_t n = 0;
    const struct agent_task **apps = calloc(a->task_count + 1, sizeof *apps);
    double(*sums)[FIELD_COUNT] = calloc(a->task_count + 1, sizeof *sums);
    double(*from_procs)[FIELD_COUNT] = calloc(a->task_count + 1, sizeof *from_procs);
    double *procs = calloc(a->task_count + 1, sizeof *procs);
    for (size_t i = 0; apps && sums && from_procs && procs && i < a->task_count; i++) {
        const struct agent_task *t = a->tasks[i];
        if (t->ended)
            continue;
        size_t k = 0;
        while (k < n && strcmp(apps[k]->app, t->app))
            k++;
        if (k == n)
            apps[n++] = t;
        for (int f = 0; f < FIELD_COUNT; f++)
            sums[k][f] += t->current[f];
        for (size_t p = 0; p < a->procs.capacity; p++) {
            const struct agent_proc *proc = pidmap_at(&a->procs, p);
            if (a->procs.keys[p] && proc->task == t->id) {
                procs[k] += 1;
                add_process_counters(proc, a->procs.keys[p], from_procs[k]);
            }
        }
    }
    static const int per_process[] = {FIELD_CONTEXT_SWITCHES, FIELD_MINOR_PAGE_FAULTS,
                                      FIELD_MAJOR_PAGE_FAULTS, FIELD_TOTAL_PROCESSES};
    for (size_t k = 0; from_procs && k < n; k++)
        for (size_t i = 0; i < sizeof per_process / sizeof per_process[0]; i++)
            if (from_procs[k][per_process[i]] > sums[k][per_process[i]])
                sums[k][per_process[i]] = from_procs[k][per_process[i]];
    for (int f = 0; apps && sums && from_procs && procs && f < FIELD_COUNT; f++) {
        if (is_skipped(f))
            continue;
        char family[96], name[104];
        const char *unit;
        double scale;
        metric_name(f, family, sizeof family, &unit, &scale);
        bool counter = is_counter(f);
        snprintf(name, sizeof name, "%s%s", family, counter ? "_total" : "");
        /* OpenMetrics names the family (no _total) and has UNIT; the
         * Prometheus text format names the series itself */
        const char *described = openmetrics ? family : name;
        fprintf(out, "# TYPE %s %s\n", described, counter ? "counter" : "gauge");
        if (unit && openmetrics)
            fprintf(out, "# UNIT %s %s\n", family, unit);
        if (metric_help(f))
            fprintf(out, "# HELP %s %s\n", described, metric_help(f));
        else
            fprintf(out, "# HELP %s tally summary field %s, live, summed over the application's tasks\n",
                    described, summary_field_by_id(f)->name);
        for (size_t k = 0; k < n; k++) {
            fprintf(out, "%s{", name);
            app_labels(out, a, apps[k], user);
            fprintf(out, "} %.17g\n", sums[k][f] * scale);
        }
    }
    fprintf(out, "# TYPE tally_processes gauge\n# HELP tally_processes live processes of the application\n");
    for (size_t k = 0; apps && procs && k < n; k++) {
        fputs("tally_processes{", out);
        app_labels(out, a, apps[k], user);
        fprintf(out, "} %.0f\n", procs[k]);
    }
    write_file_io(out, a, apps, n, user, openmetrics);
    agent_levels_write(a->levels, user, out); /* tally contract watch's levels */
    if (openmetrics)
        fputs("# EOF\n", out);
    free(apps);
    free(sums);
    free(from_procs);
    free(procs);
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    *len = size;
    return text;
}

/* OpenMetrics 1.0.0 when the client's Accept wants it more than the text
 * format 0.0.4 (Prometheus 2.42 does: q=1 against 0.5), else the text
 * format (curl's any type, promtool's no Accept, a Prometheus that asks
 * for OpenMetrics 0.0.1 only). */
static bool wants_openmetrics(struct MHD_Connection *conn)
{
    const char *accept = MHD(MHD_lookup_connection_value)(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    if (!accept || !*accept)
        return false;
    double openmetrics = http_accept_quality(accept, "application/openmetrics-text", "1.0.0");
    return openmetrics > 0 && openmetrics > http_accept_quality(accept, "text/plain", "0.0.4");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **state)
{
    struct metrics_server *s = cls;
    (void)version, (void)upload, (void)upload_len, (void)state;
    bool openmetrics = wants_openmetrics(conn);
    const char *type = openmetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                   : "text/plain; version=0.0.4; charset=utf-8";
    char *body;
    size_t len = 0;
    unsigned status = MHD_HTTP_OK;
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
        body = strdup("only GET\n");
        status = MHD_HTTP_METHOD_NOT_ALLOWED;
        type = "text/plain; charset=utf-8";
    } else if (strcmp(url, "/metrics") && strcmp(url, "/")) {
        body = strdup("not found: the metrics are at /metrics\n");
        status = MHD_HTTP_NOT_FOUND;
        type = "text/plain; charset=utf-8";
    } else {
        body = metrics_render(s->agent, openmetrics, &len);
    }
    if (!body)
        return MHD_NO;
    if (status != MHD_HTTP_OK)
        len = strlen(body);
    struct MHD_Response *r = MHD(MHD_create_response_from_buffer)(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD(MHD_add_response_header)(r, "Content-Type", type);
    MHD(MHD_add_response_header)(r, MHD_HTTP_HEADER_CONNECTION, "close"); /* one request each */
    enum MHD_Result ret = MHD(MHD_queue_response)(conn, status, r);
    MHD(MHD_destroy_response)(r);
    return ret;
}

int metrics_parse_address(const char *address, struct sockaddr_in *sa, char *why, size_t why_size)
{
    char host[256] = "127.0.0.1";
    const char *colon = strrchr(address, ':');
    const char *port_text = colon ? colon + 1 : address;
    if (colon && colon != address) {
        size_t n = (size_t)(colon - address);
        if (n >= sizeof host)
            n = sizeof host - 1;
        memcpy(host, address, n);
        host[n] = '\0';
    }
    char *end;
    long port = strtol(port_text, &end, 10);
    if (!*port_text || *end || port < 1 || port > 65535) {
        snprintf(why, why_size, "'%s' is not [ADDR]:PORT (a port from 1 to 65535)", address);
        return -1;
    }
    *sa = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, strcmp(host, "localhost") ? host : "127.0.0.1", &sa->sin_addr) != 1) {
        snprintf(why, why_size, "'%s' is not an IPv4 address", host);
        return -1;
    }
    return 0;
}

void metrics_describe(const struct sockaddr_in *sa, char *text, size_t size)
{
    char addr[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &sa->sin_addr, addr, sizeof addr);
    bool loopback = (ntohl(sa->sin_addr.s_addr) >> 24) == 127;
    snprintf(text, size, "metrics at http://%s:%u/metrics, readable by %s", addr,
             (unsigned)ntohs(sa->sin_port),
             loopback ? "any user of this host"
                      : "anyone who can reach this address (every user of this host included)");
}

/* A bound, listening TCP socket on ADDRESS (see metrics_parse_address). */
static int listen_on(const char *address, struct sockaddr_in *sa, char *why, size_t why_size)
{
    if (metrics_parse_address(address, sa, why, why_size) < 0)
        return -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof *sa) < 0 || listen(fd, 64) < 0) {
        snprintf(why, why_size, "cannot listen on %s: %s", address, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* A connection from a process of the agent's own user on this host. */
static bool own_peer(void *ctx, int fd)
{
    uid_t uid;
    return tcp_peer_uid(fd, &uid) == 0 && uid == ((struct metrics_server *)ctx)->agent->uid;
}

struct metrics_server *metrics_server_start(struct agent *agent, const char *address,
                                            char *where, size_t where_len, char *why,
                                            size_t why_size)
{
    struct sockaddr_in sa;
    int fd = listen_on(address, &sa, why, why_size);
    if (fd < 0)
        return NULL;
    struct metrics_server *s = calloc(1, sizeof *s);
    if (!s) {
        close(fd);
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    s->agent = agent;
    char detail[128];
    s->gate = http_gate_start(fd, METRICS_MAX_CONNECTIONS, METRICS_MAX_OWN_CONNECTIONS,
                              METRICS_DEADLINE, handle, s, own_peer, detail, sizeof detail);
    if (!s->gate) {
        snprintf(why, why_size, "%s: %s", address, detail);
        free(s);
        return NULL;
    }
    metrics_describe(&sa, where, where_len);
    return s;
}

int metrics_server_fd(const struct metrics_server *s)
{
    return http_gate_fd(s->gate);
}

void metrics_server_run(struct metrics_server *s)
{
    http_gate_run(s->gate);
}

void metrics_server_stop(struct metrics_server *s)
{
    if (!s)
        return;
    http_gate_stop(s->gate);
    free(s);
}
