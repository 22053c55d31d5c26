/* What the 'tally trace' subcommands share (declared in trace_common.h): the
 * common --map/--hierarchy options, the getopt loop around each subcommand's
 * own options, reading the TRACE operand, and parsing times. */
#include <getopt.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/trace_common.h"
#include "util/error.h"
#include "core/units.h"

int trace_common_option(struct trace_read_options *opts, int opt, const char *arg)
{
    char why[512];
    switch (opt) {
    case TRACE_OPT_MAP:
        if (trace_map_parse(opts, arg, why, sizeof why) < 0) {
            tally_error("trace: %s", why);
            return -1;
        }
        return 1;
    case TRACE_OPT_HIERARCHY:
        opts->hierarchy_file = arg;
        return 1;
    }
    return 0;
}

int trace_load(const char *path, const struct trace_read_options *opts, struct trace *t)
{
    char why[1024];
    if (trace_read_file(path, opts, t, why, sizeof why) < 0) {
        tally_error("%s", why);
        return -1;
    }
    return 0;
}

int trace_parse_seconds(const char *option, const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end != text && *end == '\0') {
        *out = v;
        return 0;
    }
    char why[256];
    if (units_parse(text, DIM_TIME, NULL, out, why, sizeof why) < 0) {
        tally_error("trace: %s '%s': %s", option, text, why);
        return -1;
    }
    return 0;
}

void trace_format_t(const struct trace *t, double time, char *buf, size_t len)
{
    double d = time - t->start;
    snprintf(buf, len, d < 0 ? "t%.6g" : "t+%.6g", d); /* before the start: t-12 */
}

void trace_format_origin(const struct trace *t, char *buf, size_t len)
{
    trace_format_date(t->start, buf, len);
}

/* An ISO date-time in UTC as epoch seconds; -1 when text is not one. */
static int parse_iso(const char *text, double *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *rest = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest)
        rest = strptime(text, "%Y-%m-%d %H:%M:%S", &tm);
    if (!rest)
        return -1;
    double frac = 0;
    if (*rest == '.') {
        char *end;
        frac = strtod(rest, &end);
        rest = end;
    }
    if (*rest == 'Z')
        rest++;
    if (*rest)
        return -1;
    *out = (double)timegm(&tm) + frac;
    return 0;
}

int trace_resolve_time(const struct trace *t, const char *option, const char *text, double *out)
{
    if (parse_iso(text, out) == 0)
        return 0;
    double v;
    if (trace_parse_seconds(option, text, &v) < 0)
        return -1;
    *out = t->start + v;
    return 0;
}

int trace_check_slice(const struct trace *t, const char *cmd, double from, double to)
{
    if (to > t->start && from < t->end)
        return 0;
    char origin[64], a[40], b[40];
    trace_format_origin(t, origin, sizeof origin);
    trace_format_t(t, from, a, sizeof a);
    trace_format_t(t, to, b, sizeof b);
    tally_error("%s: the slice %s..%s s is outside the trace, which spans t+0..t+%g s%s%s", cmd, a,
                b, t->end - t->start, origin[0] ? " from " : "", origin);
    return -1;
}

int trace_resolve_slice(const struct trace *t, const char *cmd, const char *from_text,
                        const char *to_text, double *from, double *to)
{
    *from = t->start;
    *to = t->end;
    if ((from_text && trace_resolve_time(t, "--from", from_text, from) < 0) ||
        (to_text && trace_resolve_time(t, "--to", to_text, to) < 0))
        return -1;
    if (!isfinite(*from) || !isfinite(*to)) {
        tally_error("%s: --%s '%s': not a finite time", cmd, isfinite(*from) ? "to" : "from",
                    isfinite(*from) ? to_text : from_text);
        return -1;
    }
    if (!(*from < *to)) {
        char a[40], b[40];
        trace_format_t(t, *from, a, sizeof a);
        trace_format_t(t, *to, b, sizeof b);
        tally_error("%s: --from %s s is not before --to %s s", cmd, a, b);
        return -1;
    }
    return trace_check_slice(t, cmd, *from, *to);
}

/* own_options, then --help and the common options, then the terminator;
 * NULL when out of memory. */
static struct option *with_common_options(const struct option *own_options)
{
    static const struct option added[] = {
        {"help", no_argument, NULL, 'h'},
        TRACE_COMMON_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    size_t n_own = 0;
    while (own_options[n_own].name)
        n_own++;
    size_t n_added = sizeof added / sizeof added[0];
    struct option *all = malloc((n_own + n_added) * sizeof *all);
    if (!all)
        return NULL;
    memcpy(all, own_options, n_own * sizeof *all);
    memcpy(all + n_own, added, sizeof added);
    return all;
}

int trace_parse_options(int argc, char **argv, const char *shortopts,
                        const struct option *own_options, void (*usage)(FILE *out),
                        struct trace_read_options *ropts, trace_option_handler handle, void *ctx)
{
    struct option *longopts = with_common_options(own_options);
    if (!longopts) {
        tally_error("trace: out of memory");
        return TALLY_EXIT_ERROR;
    }
    int status = TRACE_OPTIONS_CONTINUE;
    int opt;
    optind = 1;
    while (status == TRACE_OPTIONS_CONTINUE &&
           (opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            status = TALLY_EXIT_OK;
            continue;
        }
        int common = trace_common_option(ropts, opt, optarg);
        if (common < 0)
            status = TALLY_EXIT_ERROR;
        else if (!common)
            status = handle(ctx, opt, optarg);
    }
    free(longopts);
    return status;
}

int trace_load_operand(int argc, char **argv, const struct trace_read_options *ropts,
                       const char *expected, void (*usage)(FILE *out), struct trace *t)
{
    if (optind != argc - 1) {
        tally_error("%s", expected);
        if (usage)
            usage(stderr);
        return -1;
    }
    return trace_load(argv[optind], ropts, t);
}
