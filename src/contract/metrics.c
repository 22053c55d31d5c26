/* The table of contract metrics and default dimensions (see metrics.h). */
#include "contract/metrics.h"

#include <string.h>

static const struct metric_info metrics[CONTRACT_N_METRICS] = {
    [METRIC_FLOPS_PER_JOB] = {"flops_per_job", "FLOP per job", SPACE_INTRINSIC, CAP_NONE, 0, 0},
    [METRIC_INSTRUCTIONS_PER_FLOP] = {"instructions_per_flop", "instructions per FLOP", SPACE_INTRINSIC, CAP_NONE, 0, 0},
    [METRIC_MESSAGES_PER_BYTE] = {"messages_per_byte", "messages per byte", SPACE_INTRINSIC, CAP_NONE, 0, 0},
    [METRIC_BYTES_PER_MESSAGE] = {"bytes_per_message", "bytes per message", SPACE_INTRINSIC, CAP_NONE, 0, 0},
    [METRIC_IO_BYTES_PER_OP] = {"io_bytes_per_op", "I/O bytes per operation", SPACE_INTRINSIC, CAP_NONE, 0, 0},
    [METRIC_FLOPS_PER_S] = {"flops_per_s", "FLOP/s", SPACE_EXECUTION, CAP_FLOPS, 0, 0},
    [METRIC_MESSAGES_PER_S] = {"messages_per_s", "messages/s", SPACE_EXECUTION, CAP_BANDWIDTH, 0, 0},
    [METRIC_BYTES_PER_S] = {"bytes_per_s", "bytes/s", SPACE_EXECUTION, CAP_BANDWIDTH, 0, 0},
    [METRIC_ITERATIONS_PER_S] = {"iterations_per_s", "jobs/s", SPACE_EXECUTION, CAP_FLOPS, 0, 0},
    [METRIC_IO_BYTES_PER_S] = {"io_bytes_per_s", "I/O bytes/s", SPACE_EXECUTION, CAP_NONE, 0, 0},
    /* a hundredth of a core: below that, CPU accounting on a shared machine
     * moves from run to run without the application changing */
    [METRIC_CPU_SHARE] = {"cpu_share", "CPU share", SPACE_EXECUTION, CAP_NONE, 0.01, 1},
};

const struct metric_info *metric_info(enum contract_metric m)
{
    return &metrics[m];
}

int metric_by_name(const char *name)
{
    for (int m = 0; m < CONTRACT_N_METRICS; m++)
        if (!strcmp(metrics[m].name, name))
            return m;
    return -1;
}

const char *space_name(enum contract_space s)
{
    return s == SPACE_INTRINSIC ? "intrinsic" : "execution";
}

int space_by_name(const char *name)
{
    if (!strcmp(name, "intrinsic"))
        return SPACE_INTRINSIC;
    if (!strcmp(name, "execution"))
        return SPACE_EXECUTION;
    return -1;
}

const char *capability_name(enum contract_capability c)
{
    return c == CAP_FLOPS ? "flops_per_s" : c == CAP_BANDWIDTH ? "bytes_per_s" : "none";
}

int capability_by_name(const char *name)
{
    if (!strcmp(name, "flops_per_s"))
        return CAP_FLOPS;
    if (!strcmp(name, "bytes_per_s"))
        return CAP_BANDWIDTH;
    if (!strcmp(name, "none"))
        return CAP_NONE;
    return -2;
}

static const struct dimension_default defaults[] = {
    {SPACE_INTRINSIC, "compute", METRIC_FLOPS_PER_JOB},
    {SPACE_INTRINSIC, "communicate", METRIC_MESSAGES_PER_BYTE},
    {SPACE_INTRINSIC, "io", METRIC_IO_BYTES_PER_OP},
    {SPACE_EXECUTION, "compute", METRIC_FLOPS_PER_S},
    {SPACE_EXECUTION, "communicate", METRIC_BYTES_PER_S},
    {SPACE_EXECUTION, "progress", METRIC_ITERATIONS_PER_S},
    {SPACE_EXECUTION, "cpu", METRIC_CPU_SHARE},
    {SPACE_EXECUTION, "io", METRIC_IO_BYTES_PER_S},
};

const struct dimension_default *dimension_defaults(int *n)
{
    *n = (int)(sizeof defaults / sizeof defaults[0]);
    return defaults;
}
