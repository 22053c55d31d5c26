/* 'tally contract watch': the contract monitor online (seed 003 §5, issue
 * 10 item 4). Every period, one request through live_client (the local
 * agent's socket or NATS):
 *     :proc_get_info([app_NAME], 0x83)     state, CPU, probe segment
 * gives each instrumented process's cumulative counters: the libtally-probe
 * counters named like the contract's (flops, jobs or iterations, messages,
 * bytes, io_bytes, io_ops, instructions), messages and bytes sent from its
 * libtally-mpi segment when no probe counter gives them, and cpu_seconds
 * from its threads' exact CPU time (probes.cpu_seconds, from schedstat: a
 * process busy 0.5 % of the time is 0 or 1 tick of /proc's 10 ms in a 1 s
 * period, noise as large as the contract's tolerance). Those snapshots become the period's samples exactly as
 * a "counters" file would (counter_history → samples_derive), go through
 * contract_monitor_feed, and every level is printed by the function 'check'
 * uses. Levels are also sent to the agents ({"op":"levels"}, with each
 * process's pid): the local agent over the socket; over NATS the agent of
 * every host the levels name (each keeps its own processes'), which export
 * them to Prometheus and answer them to the live tools (proc_get_info 0x100:
 * tally top, tally view --live).
 *
 * Process names (they must be the contract's): the MPI rank ("3") when the
 * process has one, else the value of its probe counter "rank" (a program
 * without MPI numbers its processes itself), else "pid" and its pid.
 *
 * --record FILE appends the samples (metrics form) so that clean runs can be
 * the baseline of 'tally contract build'; then APP.contract is optional. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/contract_output.h"
#include "cli/live_options.h"
#include "contract/contract.h"
#include "contract/samples.h"
#include "platform/platform.h"
#include "client/live_client.h"
#include "report/summary_read.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/vec.h"

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static const char usage_text[] =
    "usage: tally contract watch [APP.contract] --app NAME [--agent SOCKET | --nats URL [--creds FILE]\n"
    "                            [--user NAME]] [--period TIME] [--threshold L] [--on-violation CMD]\n"
    "                            [--request REQUEST] [--live-factors] [--capabilities FILE]\n"
    "                            [--record FILE] [--format json|text]\n"
    "\n"
    "Checks a running application (tally run --agent --app NAME --probes|--mpi) against its\n"
    "contract: every period (default 1 s) the agent reads each process's probe counters; one\n"
    "JSON line per process, space, dimension and period, as 'tally contract check' prints.\n"
    "The levels also go to the agents (the local one, or over NATS each process's host's),\n"
    "which show them in /metrics, proc_get_info 0x100, 'tally top' and 'tally view --live'.\n"
    "Until SIGINT or SIGTERM. Exit status: 0 no level reached the threshold, 1 some did,\n"
    "125 an error (options, contract, agent unreachable or lost, a failed action).\n"
    "  --request REQUEST   sent to the agent at a violation's onset (%p: the process, p_PID@HOST)\n"
    "  --record FILE       append the samples (for 'tally contract build'); APP.contract optional\n";

/* The process a snapshot belongs to this period (for --request's %p). */
struct seen_process {
    char name[SAMPLE_NAME_MAX], token[128];
    long long pid;
};

struct watch {
    struct check_output out;
    struct live_client *client;
    const char *app, *request;
    long violations;
    json_t *levels;                 /* of this period, for the agents */
    double levels_time;             /* the period's end (epoch s) */
    json_t *hosts;                  /* every host levels were sent for (object used as a set) */
    struct seen_process *seen;
    size_t seen_n, seen_cap;
    struct sample_set batch;
    struct counter_history *history;
    int failed;                     /* an answer could not be used */
    int told_duplicate;
    char why[512];
};

/* The contract's name of a process (see the top of the file). */
static void process_name(json_t *probes, json_t *result, char *out, size_t size)
{
    json_t *rank = json_object_get(probes, "rank");
    json_t *counter = json_object_get(json_object_get(probes, "counters"), "rank");
    if (json_is_integer(rank) && json_integer_value(rank) >= 0)
        snprintf(out, size, "%lld", (long long)json_integer_value(rank));
    else if (json_is_integer(counter))
        snprintf(out, size, "%lld", (long long)json_integer_value(counter));
    else
        snprintf(out, size, "pid%lld", (long long)json_integer_value(json_object_get(result, "pid")));
}

static void remember(struct watch *w, const char *name, const char *token, long long pid)
{
    struct seen_process *s = VEC_PUSH(w->seen, w->seen_n, w->seen_cap);
    if (!s)
        return;
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->token, sizeof s->token, "%s", token ? token : "");
    s->pid = pid;
}

static const struct seen_process *seen_by_name(const struct watch *w, const char *name)
{
    for (size_t i = 0; i < w->seen_n; i++)
        if (!strcmp(w->seen[i].name, name))
            return &w->seen[i];
    return NULL;
}

/* One answer line of proc_get_info: an instrumented process's snapshot. */
static void take_answer(void *ctx, json_t *line)
{
    struct watch *w = ctx;
    json_t *result = json_object_get(line, "result");
    json_t *probes = json_object_get(result, "probes");
    if (!json_is_object(probes))
        return; /* done lines, errors, processes without a segment */
    double counter[SAMPLE_N_COUNTERS];
    for (int c = 0; c < SAMPLE_N_COUNTERS; c++)
        counter[c] = NAN;
    const char *key;
    json_t *value;
    json_object_foreach(json_object_get(probes, "counters"), key, value) {
        int c = sample_counter_by_name(key);
        if (c >= 0 && c != COUNTER_CPU_SECONDS && json_is_integer(value))
            counter[c] = (double)json_integer_value(value);
    }
    json_t *mpi = json_object_get(probes, "mpi");
    if (json_is_object(mpi) && isnan(counter[COUNTER_MESSAGES]) && isnan(counter[COUNTER_BYTES])) {
        counter[COUNTER_MESSAGES] = (double)json_integer_value(json_object_get(mpi, "messages"));
        counter[COUNTER_BYTES] = (double)json_integer_value(json_object_get(mpi, "bytes"));
    }
    /* exact CPU time of its threads (schedstat); /proc's ticks otherwise */
    json_t *cpu = json_object_get(probes, "cpu_seconds");
    counter[COUNTER_CPU_SECONDS] = json_is_number(cpu) ? json_number_value(cpu) : summary_number(result, "cpu_time", NAN);
    /* when the agent read the process: its start plus its age then */
    double t = summary_number(result, "start", NAN) + summary_number(result, "wall_time", NAN);
    const char *host = json_string_value(json_object_get(result, "host"));
    if (!isfinite(t) || !host) {
        snprintf(w->why, sizeof w->why, "the agent's answer lacks a process's host or times");
        w->failed = 1;
        return;
    }
    char name[SAMPLE_NAME_MAX];
    process_name(probes, result, name, sizeof name);
    const struct seen_process *twin = seen_by_name(w, name);
    if (twin) { /* e.g. two tasks' rank 0: one is kept */
        if (!w->told_duplicate)
            fprintf(stderr, "tally: contract watch: %s and %s are both process %s; the second is "
                            "left out (name processes uniquely: docs/contracts.md)\n",
                    twin->token, json_string_value(json_object_get(line, "object")), name);
        w->told_duplicate = 1;
        return;
    }
    remember(w, name, json_string_value(json_object_get(line, "object")),
             (long long)json_integer_value(json_object_get(result, "pid")));
    if (counter_history_add(w->history, name, host, t, counter, &w->batch, w->why, sizeof w->why) < 0)
        w->failed = 1;
}

/* --request at an onset: %p becomes the process's token. */
static void send_request(struct watch *w, const struct contract_level *l)
{
    const struct seen_process *p = seen_by_name(w, l->process);
    const char *token = p ? p->token : "";
    char text[4096];
    size_t n = 0;
    for (const char *p = w->request; *p && n + 1 < sizeof text; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            n += (size_t)snprintf(text + n, sizeof text - n, "%s", token);
            p++;
        } else {
            text[n++] = *p;
        }
        if (n >= sizeof text)
            n = sizeof text - 1;
    }
    text[n] = '\0';
    char why[512];
    if (live_client_ask(w->client, text, NULL, NULL, why, sizeof why) < 0) {
        tally_error("contract watch: --request '%s': %s", text, why);
        w->out.actions_failed++;
    }
}

static void take_level(void *ctx, const struct contract_level *l)
{
    struct watch *w = ctx;
    contract_print_level(&w->out, l);
    if (l->overall && l->level >= w->out.threshold)
        w->violations++;
    if (l->overall && l->onset && w->request)
        send_request(w, l);
    json_t *entry = json_pack("{s:s, s:s, s:s, s:s, s:f}", "process", l->process, "host", l->host,
                              "space", space_name(l->space), "dimension", l->dimension, "level",
                              l->level);
    const struct seen_process *p = seen_by_name(w, l->process);
    if (p && p->pid > 0) /* the live tools find a process's levels by pid */
        json_object_set_new(entry, "pid", json_integer(p->pid));
    json_array_append_new(w->levels, entry);
    json_object_set_new(w->hosts, l->host, json_true());
    if (!(l->time <= w->levels_time))
        w->levels_time = l->time;
}

/* The period's levels to the agents: the local one over the socket; over
 * NATS every host's agent named so far (one whose processes are gone gets
 * none, and forgets them). A failure is said once; the watch goes on. */
static void export_levels(struct watch *w, json_t *levels, bool *told)
{
    char why[512];
    const char **hosts = calloc(json_object_size(w->hosts) + 1, sizeof *hosts);
    size_t n = 0;
    const char *host;
    json_t *value;
    json_object_foreach(w->hosts, host, value)
        if (hosts)
            hosts[n++] = host;
    json_t *message = json_pack("{s:s, s:s, s:f, s:O}", "op", "levels", "app", w->app, "threshold",
                                w->out.threshold, "levels", levels);
    if (isfinite(w->levels_time))
        json_object_set_new(message, "time", json_real(w->levels_time));
    int rc = hosts ? live_client_tell(w->client, message, hosts, n, why, sizeof why)
                   : (json_decref(message), snprintf(why, sizeof why, "out of memory"), -1);
    if (rc < 0 && !*told) {
        fprintf(stderr, "tally: contract watch: levels not exported to the agents: %s\n", why);
        *told = true;
    }
    free(hosts);
}

static int parse_level(const char *opt, const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v >= 0 && v <= 1)) {
        tally_error("contract watch: %s '%s': expected a number in [0, 1]", opt, arg);
        return -1;
    }
    *out = v;
    return 0;
}

enum { OPT_APP = 1000, OPT_PERIOD, OPT_THRESHOLD,
       OPT_ACTION, OPT_REQUEST, OPT_LIVE, OPT_CAPS, OPT_RECORD, OPT_FORMAT };

int cmd_contract_watch(int argc, char **argv)
{
    static const struct option options[] = {
        {"app", required_argument, 0, OPT_APP}, LIVE_CLIENT_LONG_OPTIONS, {"period", required_argument, 0, OPT_PERIOD},
        {"threshold", required_argument, 0, OPT_THRESHOLD}, {"on-violation", required_argument, 0, OPT_ACTION},
        {"request", required_argument, 0, OPT_REQUEST}, {"live-factors", no_argument, 0, OPT_LIVE},
        {"capabilities", required_argument, 0, OPT_CAPS}, {"record", required_argument, 0, OPT_RECORD},
        {"format", required_argument, 0, OPT_FORMAT}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    struct live_client_options co = {0};
    struct watch w = {.out = {.command = "contract watch", .json = 1, .threshold = NAN}};
    const char *record_path = NULL;
    double period = 1;
    int live = 0, status = TALLY_EXIT_ERROR;
    struct contract_factor *caps = NULL;
    size_t n_caps = 0;
    char why[512];
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (opt) {
        case 'h': fputs(usage_text, stdout); return TALLY_EXIT_OK;
        case OPT_APP: w.app = optarg; break;
        case OPT_PERIOD:
            if (live_period_option("contract watch", "--period", optarg, &period) < 0)
                goto out;
            break;
        case OPT_THRESHOLD: if (parse_level("--threshold", optarg, &w.out.threshold) < 0) goto out; break;
        case OPT_ACTION: w.out.on_violation = optarg; break;
        case OPT_REQUEST: w.request = optarg; break;
        case OPT_LIVE: live = 1; break;
        case OPT_CAPS:
            if (capabilities_read(optarg, &caps, &n_caps, why, sizeof why) < 0) {
                tally_error("contract watch: --capabilities %s", why);
                goto out;
            }
            break;
        case OPT_RECORD: record_path = optarg; break;
        case OPT_FORMAT:
            if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
                tally_error("contract watch: --format '%s': expected json or text", optarg);
                goto out;
            }
            w.out.json = !strcmp(optarg, "json");
            break;
        default:
            if (live_client_option(opt, optarg, &co) == 0)
                break;
            tally_error("contract watch: unknown or incomplete option '%s' (see 'tally contract watch --help')",
                        argv[optind - 1]);
            goto out;
        }
    }
    const char *contract_path = optind < argc ? argv[optind++] : NULL;
    if (optind < argc || !w.app || (!contract_path && !record_path)) {
        tally_error("contract watch: expected APP.contract (or --record FILE) and --app NAME");
        goto out;
    }
    if (strlen(w.app) > 200 || strpbrk(w.app, " ,[]()\"")) {
        tally_error("contract watch: --app '%s': not an application name", w.app);
        goto out;
    }
    struct contract c;
    bool have_contract = false;
    struct contract_monitor *m = NULL;
    FILE *record = NULL;
    if (contract_path) {
        if (contract_read(contract_path, &c, why, sizeof why) < 0) {
            tally_error("contract watch: %s", why);
            goto out;
        }
        have_contract = true;
        if (isnan(w.out.threshold))
            w.out.threshold = c.threshold;
        if (!(m = contract_monitor_new(&c, w.out.threshold, caps, n_caps))) {
            tally_error("contract watch: out of memory");
            goto done;
        }
        contract_monitor_set_live_factors(m, live);
    }
    if (record_path && !(record = fopen(record_path, "a"))) {
        tally_error_errno("contract watch: --record %s", record_path);
        goto done;
    }
    if (!(w.history = counter_history_new()) || !(w.hosts = json_object())) {
        tally_error("contract watch: out of memory");
        goto done;
    }
    /* A period's request waits at most a period (within 0.5..5 s): over NATS,
     * before the application starts, no agent answers, and a longer wait
     * would miss the first periods of a run. */
    co.timeout = fmin(5, fmax(0.5, period));
    if (live_client_open(&co, &w.client, why, sizeof why) < 0) {
        tally_error("contract watch: %s", why);
        goto done;
    }
    struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: the wait ends at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    char request[300];
    snprintf(request, sizeof request, ":proc_get_info([app_%s], 0x83)", w.app);
    bool told = false, exported = false, told_waiting = false;
    status = TALLY_EXIT_OK;
    /* this host's runnable tasks per core, read every 0.1 s while waiting
     * out a period (the watch itself left out), for its processes' samples */
    char local[SAMPLE_NAME_MAX] = "";
    gethostname(local, sizeof local - 1);
    int cores = machine_cpu_count();
    double runnable_sum = 0;
    int runnable_reads = 0;
    for (double next = clock_monotonic_seconds(); !stop_requested;) {
        w.batch.n = 0;
        w.seen_n = 0;
        if (live_client_ask(w.client, request, take_answer, &w, why, sizeof why) < 0) {
            if (stop_requested)
                break;
            if (!co.nats_url) { /* the local agent is gone */
                tally_error("contract watch: %s", why);
                status = TALLY_EXIT_ERROR;
                break;
            }
            /* over NATS only agents that have the application answer: none
             * yet (not started) or any more (ended) is not an error */
            if (!told_waiting)
                fprintf(stderr, "tally: contract watch: %s; waiting for app_%s\n", why, w.app);
            told_waiting = true;
        }
        if (w.failed) {
            tally_error("contract watch: %s", w.why);
            status = TALLY_EXIT_ERROR;
            break;
        }
        if (runnable_reads > 0 && cores > 0)
            for (size_t i = 0; i < w.batch.n; i++)
                if (!strcmp(w.batch.v[i].host, local))
                    w.batch.v[i].runnable_per_core = fmax(0, runnable_sum / runnable_reads - 1) / cores;
        runnable_sum = 0;
        runnable_reads = 0;
        for (size_t i = 0; record && i < w.batch.n; i++)
            samples_write_jsonl(record, &w.batch.v[i]);
        if (record)
            fflush(record);
        if (m && w.batch.n) {
            sample_set_sort(&w.batch);
            w.levels = json_array();
            w.levels_time = NAN;
            if (contract_monitor_feed(m, w.batch.v, w.batch.n, take_level, &w) < 0) {
                json_decref(w.levels);
                tally_error("contract watch: out of memory");
                status = TALLY_EXIT_ERROR;
                break;
            }
            fflush(stdout);
            export_levels(&w, w.levels, &told);
            exported = true;
            json_decref(w.levels);
        }
        next += period;
        for (double left; !stop_requested && (left = next - clock_monotonic_seconds()) > 0;) {
            int running = proc_runnable_tasks();
            if (running > 0) {
                runnable_sum += running;
                runnable_reads++;
            }
            poll(NULL, 0, (int)ceil(fmin(left, 0.1) * 1000));
        }
        if (next < clock_monotonic_seconds())
            next = clock_monotonic_seconds(); /* a late answer: no burst to catch up */
    }
    if (exported) { /* the agent forgets this watch's levels */
        json_t *empty = json_array();
        export_levels(&w, empty, &told);
        json_decref(empty);
    }
    if (status == TALLY_EXIT_OK)
        status = w.out.actions_failed ? TALLY_EXIT_ERROR : w.violations ? TALLY_EXIT_FAILURE : TALLY_EXIT_OK;
done:
    live_client_close(w.client);
    counter_history_free(w.history);
    sample_set_free(&w.batch);
    free(w.seen);
    json_decref(w.hosts);
    if (record && fclose(record) != 0) {
        tally_error_errno("contract watch: --record %s", record_path);
        status = TALLY_EXIT_ERROR;
    }
    contract_monitor_free(m);
    if (have_contract)
        contract_free(&c);
out:
    free(caps);
    return status;
}
