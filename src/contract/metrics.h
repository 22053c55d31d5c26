/* The metrics a performance contract is made of (seed 003 §4): application
 * intrinsic metrics, which depend only on the code and its problem
 * parameters (FLOPs per job, messages per byte, I/O bytes per operation),
 * and execution metrics, rates of progress on given resources (FLOP/s,
 * bytes/s, iterations/s, CPU share). Each has a name used in files, a label
 * used in explanations, and, for execution metrics, the resource capability
 * that projects it (seed 003 §4.3: intrinsic x capability = execution). */
#ifndef TALLY_CONTRACT_METRICS_H
#define TALLY_CONTRACT_METRICS_H

enum contract_space { SPACE_INTRINSIC, SPACE_EXECUTION, CONTRACT_N_SPACES };

/* A resource capability: a projection factor per host. */
enum contract_capability { CAP_NONE = -1, CAP_FLOPS, CAP_BANDWIDTH, CONTRACT_N_CAPS };

enum contract_metric {
    METRIC_FLOPS_PER_JOB,
    METRIC_INSTRUCTIONS_PER_FLOP,
    METRIC_MESSAGES_PER_BYTE,
    METRIC_BYTES_PER_MESSAGE,
    METRIC_IO_BYTES_PER_OP,
    METRIC_FLOPS_PER_S,
    METRIC_MESSAGES_PER_S,
    METRIC_BYTES_PER_S,
    METRIC_ITERATIONS_PER_S,
    METRIC_IO_BYTES_PER_S,
    METRIC_CPU_SHARE,
    CONTRACT_N_METRICS
};

struct metric_info {
    const char *name;   /* in samples and contract files: "flops_per_s" */
    const char *label;  /* in explanations: "FLOP/s" */
    enum contract_space space;
    enum contract_capability capability; /* execution metrics: what projects them */
    double min_tolerance; /* absolute floor of a tolerance, in the metric's units (0: none) */
    /* what the process spends (CPU), not what it produces (FLOP/s, jobs/s):
     * below the projection it is judged only when the sample has no
     * production dimension (monitor.c, consumption_judged) */
    int consumption;
};

const struct metric_info *metric_info(enum contract_metric m);
/* -1 when the name is unknown. */
int metric_by_name(const char *name);

const char *space_name(enum contract_space s);
int space_by_name(const char *name);
/* "flops_per_s", "bytes_per_s" (the names of capabilities files). */
const char *capability_name(enum contract_capability c);
int capability_by_name(const char *name);

/* One axis of a contract: a named dimension of a space measured by a metric. */
struct dimension_default {
    enum contract_space space;
    const char *name;
    enum contract_metric metric;
};
/* The dimensions a contract is built with, in order, when the baseline has
 * their metric: intrinsic compute/communicate/io, execution
 * compute/communicate/progress/cpu/io. n receives the count. */
const struct dimension_default *dimension_defaults(int *n);

#endif
