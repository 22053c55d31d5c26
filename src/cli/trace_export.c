/* 'tally trace export': reads a trace (any producer, --map, --hierarchy) and
 * writes it back as Paje in tally's own variable names, e.g. to give a
 * SimGrid trace a site hierarchy once and for all. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/trace_common.h"
#include "trace/paje_writer.h"
#include "util/error.h"

static const char expected_operands[] = "trace export: expected TRACE and -o OUT.paje";

static void usage(FILE *out)
{
    fprintf(out, "usage: tally trace export TRACE -o OUT.paje [--map RULE]... [--hierarchy FILE]\n"
                 "  -o, --output OUT.paje  the trace to write (atomically), in tally's variable names\n");
}

/* A bad option gets getopt_long's message only (no usage). */
static int export_option(void *ctx, int opt, const char *arg)
{
    const char **output = ctx;
    if (opt != 'o')
        return TALLY_EXIT_ERROR;
    *output = arg;
    return TRACE_OPTIONS_CONTINUE;
}

int trace_cmd_export(int argc, char **argv)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    struct trace_read_options ropts = {0};
    const char *output = NULL;
    int status = trace_parse_options(argc, argv, "ho:", options, usage, &ropts, export_option,
                                     &output);
    if (status != TRACE_OPTIONS_CONTINUE)
        return status;
    if (!output) {
        tally_error("%s", expected_operands);
        return TALLY_EXIT_ERROR;
    }
    struct trace t;
    if (trace_load_operand(argc, argv, &ropts, expected_operands, NULL, &t) < 0)
        return TALLY_EXIT_ERROR;
    char why[512];
    int rc = trace_write_paje(&t, output, why, sizeof why);
    if (rc < 0)
        tally_error("trace export: %s", why);
    trace_free(&t);
    return rc < 0 ? TALLY_EXIT_ERROR : TALLY_EXIT_OK;
}
