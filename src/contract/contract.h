/* A performance contract (seed 003 §3, §4.4): for each space (intrinsic,
 * execution) its dimensions, the equivalence classes of the baseline's
 * signature points (centroid, spread and tolerance per dimension), the
 * projection factor of each host (a resource capability: given, or the
 * baseline's observed mean), which clusters each baseline process visited,
 * and the fuzzy rulebase(s) turning a distance into a violation level.
 *
 * Execution points are projected (§4.3): a process's execution metric is
 * divided by its host's factor for the metric's capability, giving the
 * application's share of that capability (e.g. FLOP/s / host FLOP/s), which
 * is intrinsic to the application; clusters and tolerances of the execution
 * space are in these units, and the expected value on a host is the
 * centroid times that host's factor. Building: contract_build.c; the text
 * file: contract_file.c; checking: monitor.h. */
#ifndef TALLY_CONTRACT_CONTRACT_H
#define TALLY_CONTRACT_CONTRACT_H

#include <stddef.h>

#include "contract/metrics.h"
#include "contract/rulebase.h"
#include "contract/samples.h"

#define CONTRACT_MAX_DIMS 8        /* per space */
#define CONTRACT_MAX_VISITS 8      /* clusters per process and space */

struct contract_dim {
    char name[32];               /* "compute", "communicate", ... */
    enum contract_metric metric;
    double scale;                /* mean |coordinate| in the baseline; values below
                                    1e-6 of it count as that much on the log scale */
};

struct contract_cluster {
    size_t points;
    double centroid[CONTRACT_MAX_DIMS];
    double stddev[CONTRACT_MAX_DIMS];
    double tolerance[CONTRACT_MAX_DIMS]; /* distance from the centroid that is a total violation */
    double tolerance_live[CONTRACT_MAX_DIMS]; /* the same without the projection factor's spread,
                                                 which live factors replace (0: as tolerance) */
};

struct contract_space_model {
    int n_dims;
    struct contract_dim dims[CONTRACT_MAX_DIMS];
    size_t n_clusters, clusters_cap;
    struct contract_cluster *clusters;
};

struct contract_factor {
    char host[SAMPLE_NAME_MAX];
    enum contract_capability capability;
    double value;  /* capability units: FLOP/s, bytes/s */
    double cv;     /* spread of the observed factor over periods (stddev / mean) */
    int given;     /* from --capabilities rather than observed */
};

struct contract_process {
    char process[SAMPLE_NAME_MAX], host[SAMPLE_NAME_MAX];
    int n_visits[CONTRACT_N_SPACES];
    int visits[CONTRACT_N_SPACES][CONTRACT_MAX_VISITS];
    size_t visit_points[CONTRACT_N_SPACES][CONTRACT_MAX_VISITS]; /* 0: not recorded */
};

/* A process is compared with the clusters that hold at least this share of
 * its baseline points in a space (its regular classes); rarer visits are
 * taken as noise of the baseline, not as expected behaviour. */
#define CONTRACT_REGULAR_SHARE 0.25

/* A rulebase for one dimension name (or for all: name ""). */
struct contract_rulebase {
    char dimension[32];
    char *text;
    struct rulebase *parsed;
    int in_var, out_var;  /* "distance" and "violation" */
};

struct contract {
    char name[128];
    double max_distance;
    double threshold;          /* level from which a dimension counts as violated */
    struct contract_space_model space[CONTRACT_N_SPACES];
    struct contract_factor *factors;  /* growable arrays (util/vec.h) */
    size_t n_factors, factors_cap;
    struct contract_process *processes;
    size_t n_processes, processes_cap;
    struct contract_rulebase *rulebases;  /* [0] is the default (dimension "") */
    size_t n_rulebases, rulebases_cap;
};

struct build_options {
    const char *name;
    double max_distance;       /* on the log scale (default 0.5) */
    double confidence;         /* tolerance = half-width of this prediction interval (default 0.999)... */
    double min_tolerance[CONTRACT_N_SPACES]; /* ...this fraction of the centroid (0.05, 0.5) */
    double threshold;          /* default 0.5 */
    const struct contract_factor *capabilities; /* given factors, or NULL */
    size_t n_capabilities;
};

void build_options_defaults(struct build_options *o);

/* Builds a contract from baseline samples. Returns -1 with a reason. */
int contract_build(const struct sample_set *baseline, const struct build_options *o, struct contract *out,
                   char *why, size_t why_size);
void contract_free(struct contract *c);

/* Capabilities file: lines "HOST flops_per_s VALUE bytes_per_s VALUE" (either
 * may be left out; values accept k/M/G/T suffixes); '#' comments. Appends
 * to *factors (realloc'd). Returns -1 with "FILE:LINE: why". */
int capabilities_read(const char *path, struct contract_factor **factors, size_t *n, char *why, size_t why_size);

/* The factor of a host for a capability: from extra (e.g. a check run's
 * --capabilities) first, then the contract; an unknown host gets the mean of
 * the contract's factors for the capability (*known = 0). 1 when the
 * capability is CAP_NONE. */
double contract_factor_for(const struct contract *c, const struct contract_factor *extra, size_t n_extra,
                           const char *host, enum contract_capability cap, int *known);

/* Projected coordinate of a sample in a dimension of a space (execution:
 * divided by the host's factor). NAN when the sample lacks the metric. */
double contract_coordinate(const struct contract *c, enum contract_space s, int dim,
                           const struct contract_sample *sample, double factor);

/* The coordinate on the logarithmic scale clusters are formed on:
 * ln(max(|x|, 1e-6 scale)). Distances between points are Euclidean over
 * these, so one max distance serves metrics of any unit and magnitude (0.5:
 * about a factor 1.65 in one dimension). */
double contract_log_coordinate(double x, double scale);

/* The rulebase for a dimension name (its override, else the default). */
const struct contract_rulebase *contract_rulebase_for(const struct contract *c, const char *dimension);
/* Parses a rulebase text and checks it has "distance" (input) and
 * "violation" (output); takes ownership of text. Returns -1 with a reason. */
int contract_add_rulebase(struct contract *c, const char *dimension, char *text, char *why, size_t why_size);

/* The text file (contract_file.c). Written atomically. */
int contract_write(const struct contract *c, const char *path, char *why, size_t why_size);
int contract_parse(const char *text, size_t len, const char *name, struct contract *out, char *why, size_t why_size);
int contract_read(const char *path, struct contract *out, char *why, size_t why_size);

#endif
