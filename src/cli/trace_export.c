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

int trace_cmd_export(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        TRACE_COMMON_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    struct trace_read_options ropts = {0};
    const char *output = NULL;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        int common = trace_common_option(&ropts, opt, optarg);
        if (common < 0)
            return TALLY_EXIT_ERROR;
        if (common)
            continue;
        switch (opt) {
        case 'o': output = optarg; break;
        case 'h':
            printf("usage: tally trace export TRACE -o OUT.paje [--map RULE]... [--hierarchy FILE]\n");
            return TALLY_EXIT_OK;
        default: return TALLY_EXIT_ERROR;
        }
    }
    if (optind != argc - 1 || !output) {
        tally_error("trace export: expected TRACE and -o OUT.paje");
        return TALLY_EXIT_ERROR;
    }
    struct trace t;
    if (trace_load(argv[optind], &ropts, &t) < 0)
        return TALLY_EXIT_ERROR;
    char err[512];
    int rc = trace_write_paje(&t, output, err, sizeof err);
    if (rc < 0)
        tally_error("trace export: %s", err);
    trace_free(&t);
    return rc < 0 ? TALLY_EXIT_ERROR : TALLY_EXIT_OK;
}
