/* 'tally contract': performance contracts (seed 003). Thin: options and
 * output; the work is in src/contract/ (samples, build, contract file,
 * monitor).
 *   build BASELINE... -o APP.contract   signatures, clusters, tolerances
 *   check APP.contract RUN...           levels per process, dimension, period
 *   samples RUN...                      the samples a run yields (JSON lines)
 *   watch APP.contract --app NAME       online, through the agent (contract_watch.c) */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/contract_output.h"
#include "contract/contract.h"
#include "contract/monitor.h"
#include "contract/samples.h"
#include "util/error.h"
#include "util/text_file.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tally contract build BASELINE... -o APP.contract [--name NAME] [--max-distance D]\n"
            "                            [--confidence P] [--min-tolerance SPACE=FRACTION]... [--threshold L]\n"
            "                            [--capabilities FILE] [--rulebase FILE]\n"
            "       tally contract check APP.contract RUN... [--threshold L] [--capabilities FILE]\n"
            "                            [--format json|text] [--on-violation CMD] [--live-factors]\n"
            "       tally contract samples RUN...\n"
            "       tally contract watch [APP.contract] --app NAME [--agent SOCKET | --nats URL [--creds FILE]\n"
            "                            [--user NAME]] [--period TIME] [--threshold L] [--on-violation CMD]\n"
            "                            [--request REQUEST] [--live-factors] [--record FILE] [--format json|text]\n"
            "\n"
            "BASELINE and RUN are contract samples: JSON-lines files (per process and period,\n"
            "metrics or cumulative counters), or 'tally run --time-series -o PREFIX' outputs\n"
            "(PREFIX or PREFIX.summary). 'check' prints one JSON line per process, space,\n"
            "dimension and period (level 0..1, the cluster compared to, the distance) and\n"
            "exits 1 when some level reached the threshold. 'watch' does the same online: every\n"
            "period it reads the application's probe counters through the agent, until SIGINT\n"
            "or SIGTERM. See man tally-contract.\n");
}

static int load_all(char **paths, int n, struct sample_set *set)
{
    char why[512];
    for (int i = 0; i < n; i++) {
        size_t before = set->n;
        if (samples_load(paths[i], set, why, sizeof why) < 0) {
            tally_error("contract: %s", why);
            return -1;
        }
        if (set->n == before) {
            tally_error("contract: %s: no sample (empty, or no process with two snapshots)",
                        strcmp(paths[i], "-") ? paths[i] : "(stdin)");
            return -1;
        }
    }
    sample_set_sort(set);
    return 0;
}

static int parse_double(const char *opt, const char *arg, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v >= lo && v <= hi)) {
        tally_error("contract: %s '%s': expected a number in [%g, %g]", opt, arg, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int cmd_build(int argc, char **argv)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'}, {"name", required_argument, NULL, 'n'},
        {"max-distance", required_argument, NULL, 'd'}, {"confidence", required_argument, NULL, 'k'},
        {"min-tolerance", required_argument, NULL, 'm'}, {"threshold", required_argument, NULL, 't'},
        {"capabilities", required_argument, NULL, 'c'}, {"rulebase", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    struct build_options o;
    build_options_defaults(&o);
    const char *output = NULL, *rulebase_file = NULL;
    struct contract_factor *caps = NULL;
    size_t n_caps = 0;
    char why[512];
    int opt, status = TALLY_EXIT_ERROR;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
        switch (opt) {
        case 'o': output = optarg; break;
        case 'n': o.name = optarg; break;
        case 'd': if (parse_double("--max-distance", optarg, 1e-9, 1e9, &o.max_distance) < 0) goto out; break;
        case 'k': if (parse_double("--confidence", optarg, 0.5, 0.999999, &o.confidence) < 0) goto out; break;
        case 't': if (parse_double("--threshold", optarg, 0, 1, &o.threshold) < 0) goto out; break;
        case 'm': {
            const char *eq = strchr(optarg, '=');
            int s = -1;
            if (eq) {
                char name[32];
                snprintf(name, sizeof name, "%.*s", (int)(eq - optarg), optarg);
                s = space_by_name(name);
            }
            if (s < 0) {
                tally_error("contract build: --min-tolerance '%s': expected intrinsic=F or execution=F", optarg);
                goto out;
            }
            if (parse_double("--min-tolerance", eq + 1, 0, 1e6, &o.min_tolerance[s]) < 0)
                goto out;
            break;
        }
        case 'c':
            if (capabilities_read(optarg, &caps, &n_caps, why, sizeof why) < 0) {
                tally_error("contract build: --capabilities %s", why);
                goto out;
            }
            break;
        case 'r': rulebase_file = optarg; break;
        case 'h': usage(stdout); status = TALLY_EXIT_OK; goto out;
        default: usage(stderr); goto out;
        }
    }
    if (!output || optind >= argc) {
        tally_error("contract build: expected BASELINE... and -o APP.contract");
        goto out;
    }
    o.capabilities = caps;
    o.n_capabilities = n_caps;
    struct sample_set base = {0};
    if (load_all(argv + optind, argc - optind, &base) < 0) {
        sample_set_free(&base);
        goto out;
    }
    struct contract c;
    if (contract_build(&base, &o, &c, why, sizeof why) < 0) {
        tally_error("contract build: %s", why);
        sample_set_free(&base);
        goto out;
    }
    if (rulebase_file) { /* replaces the generated default */
        char *text = text_file_read(rulebase_file, TEXT_FILE_SMALL, NULL, why, sizeof why);
        if (!text) {
            tally_error("contract build: --rulebase %s: %s", rulebase_file, why);
            goto free_contract;
        }
        free(c.rulebases[0].text);
        free(c.rulebases[0].parsed);
        c.n_rulebases = 0;
        if (contract_add_rulebase(&c, "", text, why, sizeof why) < 0) {
            tally_error("contract build: %s: %s", rulebase_file, why);
            goto free_contract;
        }
    }
    if (contract_write(&c, output, why, sizeof why) < 0) {
        tally_error("contract build: %s", why);
        goto free_contract;
    }
    fprintf(stderr, "tally: contract build: %s: %zu samples of %zu processes; intrinsic %d dimensions, %zu clusters; "
                    "execution %d dimensions, %zu clusters\n",
            output, base.n, c.n_processes, c.space[SPACE_INTRINSIC].n_dims, c.space[SPACE_INTRINSIC].n_clusters,
            c.space[SPACE_EXECUTION].n_dims, c.space[SPACE_EXECUTION].n_clusters);
    status = TALLY_EXIT_OK;
free_contract:
    contract_free(&c);
    sample_set_free(&base);
out:
    free(caps);
    return status;
}

static int cmd_check(int argc, char **argv)
{
    static const struct option options[] = {
        {"threshold", required_argument, NULL, 't'}, {"capabilities", required_argument, NULL, 'c'},
        {"format", required_argument, NULL, 'f'}, {"on-violation", required_argument, NULL, 'a'},
        {"live-factors", no_argument, NULL, 'L'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    struct check_output out = {.command = "contract check", .json = 1, .threshold = NAN};
    int live = 0;
    struct contract_factor *caps = NULL;
    size_t n_caps = 0;
    char why[512];
    int opt, status = TALLY_EXIT_ERROR;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (opt) {
        case 't': if (parse_double("--threshold", optarg, 0, 1, &out.threshold) < 0) goto out; break;
        case 'c':
            if (capabilities_read(optarg, &caps, &n_caps, why, sizeof why) < 0) {
                tally_error("contract check: --capabilities %s", why);
                goto out;
            }
            break;
        case 'f':
            if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
                tally_error("contract check: --format '%s': expected json or text", optarg);
                goto out;
            }
            out.json = !strcmp(optarg, "json");
            break;
        case 'a': out.on_violation = optarg; break;
        case 'L': live = 1; break;
        case 'h': usage(stdout); status = TALLY_EXIT_OK; goto out;
        default: usage(stderr); goto out;
        }
    }
    if (argc - optind < 2) {
        tally_error("contract check: expected APP.contract RUN...");
        goto out;
    }
    struct contract c;
    if (contract_read(argv[optind], &c, why, sizeof why) < 0) {
        tally_error("contract check: %s", why);
        goto out;
    }
    if (isnan(out.threshold))
        out.threshold = c.threshold;
    struct sample_set run = {0};
    struct contract_monitor *m = NULL;
    if (load_all(argv + optind + 1, argc - optind - 1, &run) < 0)
        goto done;
    m = contract_monitor_new(&c, out.threshold, caps, n_caps);
    if (!m) {
        tally_error("contract check: out of memory");
        goto done;
    }
    contract_monitor_set_live_factors(m, live);
    /* one period at a time, as the live monitor receives them */
    long violations = 0;
    for (size_t i = 0; i < run.n;) {
        size_t j = i + 1;
        while (j < run.n && run.v[j].time < run.v[i].time + 0.5 * run.v[i].period)
            j++;
        long v = contract_monitor_feed(m, run.v + i, j - i, contract_print_level, &out);
        if (v < 0) {
            tally_error("contract check: out of memory");
            goto done;
        }
        violations += v;
        i = j;
    }
    fflush(stdout);
    status = violations ? TALLY_EXIT_FAILURE : TALLY_EXIT_OK;
    if (out.actions_failed)
        status = TALLY_EXIT_ERROR;
done:
    contract_monitor_free(m);
    sample_set_free(&run);
    contract_free(&c);
out:
    free(caps);
    return status;
}

static int cmd_samples(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? TALLY_EXIT_ERROR : TALLY_EXIT_OK;
    }
    struct sample_set set = {0};
    int rc = load_all(argv + 1, argc - 1, &set);
    for (size_t i = 0; rc == 0 && i < set.n; i++)
        samples_write_jsonl(stdout, &set.v[i]);
    sample_set_free(&set);
    return rc ? TALLY_EXIT_ERROR : TALLY_EXIT_OK;
}

int cmd_contract(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return TALLY_EXIT_ERROR;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
        usage(stdout);
        return TALLY_EXIT_OK;
    }
    if (!strcmp(sub, "build"))
        return cmd_build(argc - 1, argv + 1);
    if (!strcmp(sub, "check"))
        return cmd_check(argc - 1, argv + 1);
    if (!strcmp(sub, "samples"))
        return cmd_samples(argc - 1, argv + 1);
    if (!strcmp(sub, "watch"))
        return cmd_contract_watch(argc - 1, argv + 1);
    tally_error("contract: unknown subcommand '%s' (see 'tally contract --help')", sub);
    return TALLY_EXIT_ERROR;
}
