/* 'tally trace from-runs PREFIX... [--hierarchy FILE] [--capacity FILE] -o
 * OUT.paje': a Paje trace of per-host, per-category CPU, memory, disk I/O and
 * network, with the hosts' capacities and the other-load category, from
 * tally run outputs. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/trace_common.h"
#include "trace/from_runs.h"
#include "trace/paje_writer.h"
#include "util/error.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: tally trace from-runs PREFIX... [--hierarchy FILE] [--capacity FILE] [--mpi]\n"
                 "       -o OUT.paje\n"
                 "PREFIX.summary and PREFIX.series come from\n"
                 "'tally run --category C --time-series -o PREFIX COMMAND'; any of a run's\n"
                 "files names the run too (host*/run* may give run1.series and run1.summary).\n"
                 "  -o, --output OUT.paje  the trace to write (atomically)\n"
                 "  --hierarchy FILE       lines 'HOST SITE' grouping the hosts\n"
                 "  --capacity FILE        lines 'HOST disk=MB/s network=MB/s' (HOST '*': all):\n"
                 "                         the disk and network bandwidths of the hosts; without\n"
                 "                         them, disk is the peak seen and network the link\n"
                 "                         speeds the runs recorded (marked inferred);\n"
                 "                         'tally trace measure-host' writes a host's line\n"
                 "  --mpi                  the links between hosts, from each run's PREFIX.mpi.paje\n"
                 "                         ('tally run --mpi --time-series'): one link per pair of\n"
                 "                         hosts, its bandwidth used by the run's category in MB/s\n"
                 "                         (capacity: the peak seen, inferred)\n");
}

/* The runs named: a PREFIX, or any of its files (a shell glob such as
 * host*\/run* gives run1.series and run1.summary), each run once, in the
 * order first named. The strings are argv's own, cut in place; returns the
 * count. */
static size_t runs_named(char **args, size_t n)
{
    static const char *const suffixes[] = {".summary", ".series", ".files.json", ".files"};
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        char *a = args[i];
        size_t len = strlen(a);
        for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
            size_t sl = strlen(suffixes[k]);
            if (len > sl && !strcmp(a + len - sl, suffixes[k])) {
                a[len - sl] = '\0';
                break;
            }
        }
        bool seen = false;
        for (size_t j = 0; j < kept && !seen; j++)
            seen = !strcmp(args[j], a);
        if (!seen)
            args[kept++] = a;
    }
    return kept;
}

int trace_cmd_from_runs(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"hierarchy", required_argument, NULL, 'H'},
        {"capacity", required_argument, NULL, 'C'},
        {"mpi", no_argument, NULL, 'M'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *output = NULL;
    struct from_runs_options opts = {0};
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': output = optarg; break;
        case 'H': opts.hierarchy_file = optarg; break;
        case 'C': opts.capacity_file = optarg; break;
        case 'M': opts.mpi = true; break;
        case 'h': usage(stdout); return TALLY_EXIT_OK;
        default: usage(stderr); return TALLY_EXIT_ERROR;
        }
    }
    if (optind >= argc || !output) {
        tally_error("trace from-runs: expected PREFIX... and -o OUT.paje");
        usage(stderr);
        return TALLY_EXIT_ERROR;
    }
    struct trace t;
    char why[1024];
    size_t runs = runs_named(argv + optind, (size_t)(argc - optind));
    if (trace_from_runs((const char *const *)argv + optind, runs, &opts, &t, why, sizeof why) < 0) {
        tally_error("trace from-runs: %s", why);
        return TALLY_EXIT_ERROR;
    }
    int rc = trace_write_paje(&t, output, why, sizeof why);
    if (rc < 0)
        tally_error("trace from-runs: %s", why);
    trace_free(&t);
    return rc < 0 ? TALLY_EXIT_ERROR : TALLY_EXIT_OK;
}
