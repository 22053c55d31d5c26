/* `tally view`: the visual analysis page of a categorized trace (timeline,
 * treemap, topology, grouped findings; see docs/view.md).
 *   tally view TRACE -o report.html      one self-contained offline page
 *   tally view TRACE --serve [PORT]      the page, slices computed on request
 *   tally view TRACE --svg FILE [--from T1 --to T2] [--level TYPE]   one slice as SVG
 * Options parsing and error reporting only; the work is in src/view/. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/trace_common.h"
#include "trace/aggregate.h"
#include "trace/trace.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "view/choices.h"
#include "view/html_report.h"
#include "view/server.h"
#include "view/svg_export.h"

#define VIEW_DEFAULT_PORT 8080

static const char usage[] =
    "usage: tally view TRACE -o FILE.html [--title TEXT] [--anomaly-slice S] [--coarse STEPS]\n"
    "                        [FIRST VIEW]\n"
    "       tally view TRACE --serve [PORT] [--anomaly-slice S] [FIRST VIEW]\n"
    "       tally view TRACE --svg FILE.svg [--from T1] [--to T2] [--level TYPE|root]\n"
    "                        [--kind KIND] [--categories c1,c2] [--no-idle]\n"
    "                        [--svg-view treemap|topology|both]\n"
    "       tally view --files PREFIX.files.json -o FILE.html [--title TEXT]\n"
    "                        the per-file I/O of a level-3 run: a table sortable by\n"
    "                        bytes, and the access-size histograms (tally run --level 3)\n"
    "       tally view --live APP --serve [PORT] [--nats URL]\n"
    "                        a live page of a running application's usage per host,\n"
    "                        from the agents (see 'tally view --live --help')\n"
    "  FIRST VIEW: [--from T1] [--to T2] [--level TYPE] [--kind KIND] [--categories c1,c2] [--no-idle]\n"
    "  common: [--map RULE]... [--hierarchy FILE]\n"
    "\n"
    "Draws a categorized resource-usage trace (Paje): a timeline of usage per\n"
    "category (brush it to choose a slice), a squarified treemap and a topology\n"
    "graph of the slice, and tally's findings grouped by kind and resource.\n"
    "Times read relative to the trace's start (t+12.5 s), with the UTC clock.\n"
    "  -o, --output FILE   write one self-contained HTML file (works offline)\n"
    "  --serve [PORT]      serve the page on 127.0.0.1:PORT (default 8080; 0 picks\n"
    "                      a free port) and compute slices on request; stop with ^C\n"
    "  --svg FILE          export one slice as a standalone SVG\n"
    "  --from T, --to T    the slice: t+ seconds from the trace's start (or a duration,\n"
    "                      10min), or an ISO date-time 2026-11-25T15:06:55Z (UTC) for a\n"
    "                      dated trace (from-runs); default: the whole trace; with\n"
    "                      -o/--serve, the first one shown. A slice outside the trace\n"
    "                      is an error that names the trace's span\n"
    "  --level TYPE        container type grouping the resources, or root\n"
    "  --kind KIND         resource kind (cpu, bandwidth, ...; default cpu)\n"
    "  --categories LIST   only these categories\n"
    "  --no-idle           leave idle capacity out of the treemap\n"
    "  --svg-view VIEW     treemap (default), topology or both\n"
    "  --title TEXT        caption (default: the trace file name)\n"
    "  --coarse STEPS      -o: embed each signal's averages over STEPS equal steps\n"
    "                      instead of every breakpoint (default: every breakpoint up\n"
    "                      to 500000 of them, else as many steps as keep the file\n"
    "                      small); --serve always computes at full resolution\n"
    "  --anomaly-slice S   slice width of the anomalies listed in the page\n"
    "                      (default: a twentieth of the trace, as tally trace anomalies)\n"
    "  --map RULE          variable mapping, as in tally trace (see tally-trace(1))\n"
    "  --hierarchy FILE    regroup containers (\"child parent [parent-type]\" lines)\n"
    "Exit status: 0 on success, 125 on bad usage or unreadable input.\n";

enum {
    OPT_SERVE = 2000, OPT_SVG, OPT_FROM, OPT_TO, OPT_LEVEL, OPT_KIND, OPT_CATEGORIES, OPT_NO_IDLE,
    OPT_SVG_VIEW, OPT_TITLE, OPT_ANOMALY_SLICE, OPT_COARSE,
};

struct view_args {
    const char *trace_path, *output, *svg, *level, *kind, *categories, *title, *svg_view;
    const char *from_text, *to_text; /* --from/--to, resolved once the trace is read */
    bool serve, idle;
    unsigned port;
    size_t coarse_steps;
    double anomaly_slice;
    struct trace_read_options read;
};

/* A number or a duration (trace_parse_seconds), finite. */
static int parse_time(const char *option, const char *text, double *out)
{
    if (trace_parse_seconds(option, text, out) < 0)
        return -1;
    if (!isfinite(*out)) {
        tally_error("view: %s '%s': not a finite time", option, text);
        return -1;
    }
    return 0;
}

static int parse_port(const char *text, unsigned *port)
{
    char *end;
    errno = 0;
    unsigned long p = strtoul(text, &end, 10);
    if (!*text || *end || errno || p > 65535) {
        tally_error("view: --serve '%s': not a port number (0-65535)", text);
        return -1;
    }
    *port = (unsigned)p;
    return 0;
}

static int parse_steps(const char *text, size_t *steps)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(text, &end, 10);
    if (!*text || *end || errno || n < 1 || n > 100000 || strchr(text, '-')) {
        tally_error("view: --coarse '%s': expected a number of steps from 1 to 100000", text);
        return -1;
    }
    *steps = n;
    return 0;
}

/* "--serve 8080" is accepted as well as "--serve=8080": rewrite the former. */
static char **join_serve_port(int argc, char **argv, int *out_argc, char ***to_free)
{
    char **out = calloc((size_t)argc + 1, sizeof *out);
    *to_free = calloc((size_t)argc + 1, sizeof **to_free);
    if (!out || !*to_free)
        return NULL;
    int n = 0, nf = 0;
    for (int i = 0; i < argc; i++) {
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--serve") && next && *next && strspn(next, "0123456789") == strlen(next)) {
            if (asprintf(&out[n], "--serve=%s", next) < 0)
                return NULL;
            (*to_free)[nf++] = out[n++];
            i++;
        } else {
            out[n++] = argv[i];
        }
    }
    *out_argc = n;
    return out;
}

static int parse_args(int argc, char **argv, struct view_args *a)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'}, {"serve", optional_argument, NULL, OPT_SERVE},
        {"svg", required_argument, NULL, OPT_SVG}, {"from", required_argument, NULL, OPT_FROM},
        {"to", required_argument, NULL, OPT_TO}, {"level", required_argument, NULL, OPT_LEVEL},
        {"kind", required_argument, NULL, OPT_KIND},
        {"categories", required_argument, NULL, OPT_CATEGORIES},
        {"category", required_argument, NULL, OPT_CATEGORIES},
        {"no-idle", no_argument, NULL, OPT_NO_IDLE}, {"svg-view", required_argument, NULL, OPT_SVG_VIEW},
        {"title", required_argument, NULL, OPT_TITLE}, TRACE_COMMON_LONG_OPTIONS,
        {"anomaly-slice", required_argument, NULL, OPT_ANOMALY_SLICE},
        {"coarse", required_argument, NULL, OPT_COARSE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    a->idle = true;
    a->port = VIEW_DEFAULT_PORT;
    opterr = 0;
    optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
        switch (opt) {
        case 'o': a->output = optarg; break;
        case OPT_SERVE:
            a->serve = true;
            if (optarg && parse_port(optarg, &a->port) < 0)
                return -1;
            break;
        case OPT_SVG: a->svg = optarg; break;
        case OPT_FROM: a->from_text = optarg; break; /* resolved once the trace is read */
        case OPT_TO: a->to_text = optarg; break;
        case OPT_LEVEL: a->level = optarg; break;
        case OPT_KIND: a->kind = optarg; break;
        case OPT_CATEGORIES: a->categories = optarg; break;
        case OPT_NO_IDLE: a->idle = false; break;
        case OPT_SVG_VIEW: a->svg_view = optarg; break;
        case OPT_TITLE: a->title = optarg; break;
        case OPT_ANOMALY_SLICE:
            if (parse_time("--anomaly-slice", optarg, &a->anomaly_slice) < 0)
                return -1;
            if (!(a->anomaly_slice > 0)) {
                tally_error("view: --anomaly-slice '%s': must be positive", optarg);
                return -1;
            }
            break;
        case OPT_COARSE:
            if (parse_steps(optarg, &a->coarse_steps) < 0)
                return -1;
            break;
        case TRACE_OPT_MAP:
        case TRACE_OPT_HIERARCHY:
            if (trace_common_option(&a->read, opt, optarg) < 0)
                return -1;
            break;
        case 'h': fputs(usage, stdout); return 1;
        default:
            tally_error("view: %s: unknown option or missing value (see 'tally view --help')",
                        argv[optind - 1]);
            return -1;
        }
    }
    if (optind >= argc) {
        tally_error("view: missing TRACE (see 'tally view --help')");
        return -1;
    }
    a->trace_path = argv[optind++];
    if (optind < argc) {
        tally_error("view: %s: unexpected argument (one TRACE only)", argv[optind]);
        return -1;
    }
    int modes = (a->output != NULL) + a->serve + (a->svg != NULL);
    if (modes != 1) {
        tally_error("view: %s", modes ? "choose one of -o, --serve and --svg"
                                       : "nothing to do: give -o FILE, --serve or --svg FILE");
        return -1;
    }
    return 0;
}

static int parse_svg_view(const char *text, int *views)
{
    if (!text || !strcmp(text, "treemap"))
        *views = SVG_TREEMAP;
    else if (!strcmp(text, "topology"))
        *views = SVG_TOPOLOGY;
    else if (!strcmp(text, "both"))
        *views = SVG_TREEMAP | SVG_TOPOLOGY;
    else {
        tally_error("view: --svg-view '%s': expected treemap, topology or both", text);
        return -1;
    }
    return 0;
}

static int write_svg(const struct view_args *a, const struct trace *t, const char *title)
{
    struct svg_export_options o = {.idle = a->idle, .level = a->level, .kind = a->kind, .title = title};
    char why[512];
    if (parse_svg_view(a->svg_view, &o.views) < 0 ||
        trace_resolve_slice(t, "view", a->from_text, a->to_text, &o.from, &o.to) < 0)
        return -1;
    bool *selection = NULL;
    if (a->categories && !(selection = trace_category_selection(t, a->categories, why, sizeof why))) {
        tally_error("view: --categories: %s", why);
        return -1;
    }
    o.categories = selection;
    struct atomic_file af;
    if (atomic_file_open(&af, a->svg) < 0) {
        tally_error_errno("view: %s", a->svg);
        free(selection);
        return -1;
    }
    int rc = svg_export(t, &o, af.fp, why, sizeof why);
    free(selection);
    if (rc < 0) {
        atomic_file_abort(&af);
        tally_error("view: %s", why);
        return -1;
    }
    if (atomic_file_commit(&af) < 0) {
        tally_error_errno("view: %s", a->svg);
        return -1;
    }
    return 0;
}

/* The page's first view from --from/--to/--level/--kind/--categories/--no-idle,
 * each checked against the trace. */
static int page_options(const struct view_args *a, const struct trace *t, const char *title,
                        struct view_page_options *page)
{
    *page = (struct view_page_options){.title = title, .anomaly_slice = a->anomaly_slice,
                                       .level = a->level, .kind = a->kind,
                                       .categories = a->categories, .no_idle = !a->idle,
                                       .coarse_steps = a->coarse_steps};
    if ((a->from_text || a->to_text) &&
        trace_resolve_slice(t, "view", a->from_text, a->to_text, &page->from, &page->to) < 0)
        return -1;
    if (a->kind && !view_has_kind(t, a->kind)) {
        tally_error("view: --kind '%s': no resource of that kind in the trace", a->kind);
        return -1;
    }
    char why[512];
    if (a->categories) {
        bool *selection = trace_category_selection(t, a->categories, why, sizeof why);
        if (!selection) {
            tally_error("view: --categories: %s", why);
            return -1;
        }
        free(selection);
    }
    if (a->level) { /* the aggregation says whether the level exists, as tally trace does */
        struct trace_aggregation check;
        struct trace_aggregate_options ao = {.level = a->level, .kind = a->kind};
        if (trace_aggregate(t, &ao, &check, why, sizeof why) < 0) {
            tally_error("view: --level: %s", why);
            return -1;
        }
        trace_aggregation_free(&check);
    }
    return 0;
}

struct page {
    const struct trace *t;
    const struct view_page_options *options;
};

static int write_page(void *ctx, FILE *out)
{
    const struct page *p = ctx;
    return html_report_write(p->t, p->options, out);
}

static int write_html(const struct view_args *a, const struct trace *t,
                      const struct view_page_options *options)
{
    struct page page = {t, options};
    if (atomic_write_with(a->output, write_page, &page) < 0) {
        tally_error_errno("view: %s", a->output);
        return -1;
    }
    return 0;
}

static void free_joined(char **args, char **to_free)
{
    for (size_t i = 0; to_free && to_free[i]; i++)
        free(to_free[i]);
    free(to_free);
    free(args);
}

int cmd_view(int argc, char **argv)
{
    if (view_live_requested(argc, argv))
        return cmd_view_live(argc, argv);
    if (view_files_requested(argc, argv))
        return cmd_view_files(argc, argv);
    char **to_free = NULL;
    int n_args = 0;
    char **args = join_serve_port(argc, argv, &n_args, &to_free);
    if (!args) {
        tally_error("view: out of memory");
        free_joined(args, to_free);
        return TALLY_EXIT_ERROR;
    }
    struct view_args a = {0};
    int rc = parse_args(n_args, args, &a);
    if (rc != 0) {
        free_joined(args, to_free);
        return rc > 0 ? TALLY_EXIT_OK : TALLY_EXIT_ERROR;
    }
    struct trace t;
    char why[1024];
    if (trace_load(a.trace_path, &a.read, &t) < 0) {
        free_joined(args, to_free);
        return TALLY_EXIT_ERROR;
    }
    const char *title = a.title;
    if (!title) {
        const char *slash = strrchr(a.trace_path, '/');
        title = slash ? slash + 1 : a.trace_path;
    }
    struct view_page_options page;
    if (!a.svg && page_options(&a, &t, title, &page) < 0)
        rc = -1;
    else if (a.output)
        rc = write_html(&a, &t, &page);
    else if (a.svg)
        rc = write_svg(&a, &t, title);
    else if (view_server_run(&t, &page, a.port, why, sizeof why) < 0) {
        tally_error("view: --serve: %s", why);
        rc = -1;
    }
    trace_free(&t);
    free_joined(args, to_free);
    return rc < 0 ? TALLY_EXIT_ERROR : TALLY_EXIT_OK;
}
