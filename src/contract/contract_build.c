/* Building a contract from baseline samples (see contract.h): projection
 * factors per host, dimensions, clustering per space, tolerances, the
 * clusters each process visited and the default rulebase. */
#include "contract/contract.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract/cluster.h"
#include "util/vec.h"
#include "util/word_lines.h"

/* A dimension is kept when its metric is in this share of the samples that
 * have any metric of the space (a worker's period without a finished job has
 * no FLOPs per job; that must not drop the dimension). */
#define DIMENSION_PRESENCE 0.9
/* Tolerance never below this fraction of the dimension's scale, so that a
 * cluster at 0 with no spread still tolerates rounding. */
#define TOLERANCE_FLOOR 1e-3

void build_options_defaults(struct build_options *o)
{
    memset(o, 0, sizeof *o);
    o->name = "app";
    o->max_distance = 0.5;
    o->confidence = 0.999;
    o->min_tolerance[SPACE_INTRINSIC] = 0.05;
    o->min_tolerance[SPACE_EXECUTION] = 0.5;
    o->threshold = 0.5;
}

static enum contract_metric capability_metric(enum contract_capability cap)
{
    return cap == CAP_FLOPS ? METRIC_FLOPS_PER_S : METRIC_BYTES_PER_S;
}

void contract_free(struct contract *c)
{
    for (int s = 0; s < CONTRACT_N_SPACES; s++)
        free(c->space[s].clusters);
    free(c->factors);
    free(c->processes);
    for (size_t i = 0; i < c->n_rulebases; i++) {
        free(c->rulebases[i].text);
        free(c->rulebases[i].parsed);
    }
    free(c->rulebases);
    memset(c, 0, sizeof *c);
}

double contract_factor_for(const struct contract *c, const struct contract_factor *extra, size_t n_extra,
                           const char *host, enum contract_capability cap, int *known)
{
    *known = 1;
    if (cap == CAP_NONE)
        return 1;
    for (size_t i = 0; i < n_extra; i++)
        if (extra[i].capability == cap && !strcmp(extra[i].host, host))
            return extra[i].value;
    double sum = 0;
    int n = 0;
    for (size_t i = 0; i < c->n_factors; i++) {
        if (c->factors[i].capability != cap)
            continue;
        if (!strcmp(c->factors[i].host, host))
            return c->factors[i].value;
        sum += c->factors[i].value;
        n++;
    }
    *known = 0;
    return n ? sum / n : 1;
}

double contract_log_coordinate(double x, double scale)
{
    return log(fmax(fabs(x), 1e-6 * scale));
}

double contract_coordinate(const struct contract *c, enum contract_space s, int dim,
                           const struct contract_sample *sample, double factor)
{
    const struct contract_dim *d = &c->space[s].dims[dim];
    double v = sample->value[d->metric];
    if (isnan(v))
        return NAN;
    if (s == SPACE_EXECUTION)
        return factor > 0 ? v / factor : NAN;
    return v;
}

const struct contract_rulebase *contract_rulebase_for(const struct contract *c, const char *dimension)
{
    for (size_t i = 0; i < c->n_rulebases; i++)
        if (!strcmp(c->rulebases[i].dimension, dimension))
            return &c->rulebases[i];
    for (size_t i = 0; i < c->n_rulebases; i++)
        if (!c->rulebases[i].dimension[0])
            return &c->rulebases[i];
    return NULL;
}

int contract_add_rulebase(struct contract *c, const char *dimension, char *text, char *why, size_t why_size)
{
    char detail[256];
    struct rulebase *rb = rulebase_parse(text, strlen(text), detail, sizeof detail);
    if (!rb) {
        snprintf(why, why_size, "rulebase %s: %s", dimension[0] ? dimension : "(default)", detail);
        free(text);
        return -1;
    }
    int in = rulebase_find_var(rb, "distance"), out = rulebase_find_var(rb, "violation");
    if (in < 0 || out < 0 || rb->vars[in].is_output || !rb->vars[out].is_output) {
        snprintf(why, why_size, "rulebase %s: needs an input variable 'distance' and an output 'violation'",
                 dimension[0] ? dimension : "(default)");
        free(rb);
        free(text);
        return -1;
    }
    for (size_t i = 0; i < c->n_rulebases; i++)
        if (!strcmp(c->rulebases[i].dimension, dimension)) {
            snprintf(why, why_size, "rulebase %s given twice", dimension[0] ? dimension : "(default)");
            free(rb);
            free(text);
            return -1;
        }
    struct contract_rulebase *r = VEC_PUSH(c->rulebases, c->n_rulebases, c->rulebases_cap);
    if (!r) {
        snprintf(why, why_size, "out of memory");
        free(rb);
        free(text);
        return -1;
    }
    snprintf(r->dimension, sizeof r->dimension, "%s", dimension);
    r->text = text;
    r->parsed = rb;
    r->in_var = in;
    r->out_var = out;
    return 0;
}

/* "1.2G", "100M", "3e9": a number with an optional k/M/G/T (powers of 1000). */
static int parse_quantity(const char *w, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(w, &end);
    if (end == w || errno)
        return -1;
    double mult = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mult = 1e3; break;
        case 'M': mult = 1e6; break;
        case 'G': mult = 1e9; break;
        case 'T': mult = 1e12; break;
        default: return -1;
        }
        end++;
    }
    if (*end || !isfinite(v) || v <= 0)
        return -1;
    *out = v * mult;
    return 0;
}

struct capabilities_ctx {
    struct contract_factor **factors;
    size_t *n;
    size_t cap;  /* of *factors: at least *n on entry */
};

/* One line "HOST flops_per_s 1.2G bytes_per_s 5G" of --capabilities. */
static int capabilities_line(void *ctx, char **words, size_t n, char *why, size_t why_size)
{
    struct capabilities_ctx *c = ctx;
    const char *host = words[0];
    int pairs = 0;
    for (size_t i = 1; i < n; i += 2) {
        const char *key = words[i], *val = i + 1 < n ? words[i + 1] : NULL;
        int cap = capability_by_name(key);
        double v;
        if (cap < 0) {
            snprintf(why, why_size, "'%s': expected flops_per_s or bytes_per_s", key);
            return -1;
        }
        if (!val || parse_quantity(val, &v) < 0) {
            snprintf(why, why_size, "%s needs a positive number (k, M, G, T allowed)", key);
            return -1;
        }
        struct contract_factor *fa = VEC_PUSH(*c->factors, *c->n, c->cap);
        if (!fa) {
            snprintf(why, why_size, "out of memory");
            return -1;
        }
        snprintf(fa->host, sizeof fa->host, "%s", host);
        fa->capability = cap;
        fa->value = v;
        fa->given = 1;
        pairs++;
    }
    if (pairs == 0) {
        snprintf(why, why_size, "host '%s' without a capability", host);
        return -1;
    }
    return 0;
}

int capabilities_read(const char *path, struct contract_factor **factors, size_t *n, char *why, size_t why_size)
{
    struct capabilities_ctx c = {factors, n, *n};
    return word_lines_read(path, capabilities_line, &c, why, why_size);
}

/* Observed factors: per host and capability, the mean of the capability's
 * metric over the host's samples; cv: root mean square of the processes'
 * own coefficients of variation (how much the service a process got varied
 * from period to period). Given capabilities replace the value, keep cv. */
static int build_factors(const struct sample_set *b, const struct build_options *o, struct contract *c)
{
    for (size_t i = 0; i < b->n; i++) {
        for (int cap = 0; cap < CONTRACT_N_CAPS; cap++) {
            int found = 0;
            for (size_t f = 0; f < c->n_factors; f++)
                found |= c->factors[f].capability == cap && !strcmp(c->factors[f].host, b->v[i].host);
            if (found || isnan(b->v[i].value[capability_metric(cap)]))
                continue;
            enum contract_metric m = capability_metric(cap);
            double sum = 0;
            size_t n = 0;
            for (size_t j = 0; j < b->n; j++)
                if (!strcmp(b->v[j].host, b->v[i].host) && !isnan(b->v[j].value[m])) {
                    sum += b->v[j].value[m];
                    n++;
                }
            /* per process coefficients of variation */
            double cv2 = 0;
            int nproc = 0;
            for (size_t j = 0; j < b->n; j++) {
                if (strcmp(b->v[j].host, b->v[i].host) || isnan(b->v[j].value[m]))
                    continue;
                int first = 1;
                for (size_t k = 0; k < j && first; k++)
                    if (!strcmp(b->v[k].process, b->v[j].process) && !strcmp(b->v[k].host, b->v[j].host) &&
                        !isnan(b->v[k].value[m]))
                        first = 0;
                if (!first)
                    continue;
                double s1 = 0, s2 = 0;
                size_t np = 0;
                for (size_t k = j; k < b->n; k++)
                    if (!strcmp(b->v[k].process, b->v[j].process) && !strcmp(b->v[k].host, b->v[j].host) &&
                        !isnan(b->v[k].value[m])) {
                        s1 += b->v[k].value[m];
                        s2 += b->v[k].value[m] * b->v[k].value[m];
                        np++;
                    }
                double mean = s1 / np, var = s2 / np - mean * mean;
                if (mean > 0) {
                    cv2 += (var > 0 ? var : 0) / (mean * mean);
                    nproc++;
                }
            }
            struct contract_factor *fa = VEC_PUSH(c->factors, c->n_factors, c->factors_cap);
            if (!fa)
                return -1;
            snprintf(fa->host, sizeof fa->host, "%s", b->v[i].host);
            fa->capability = cap;
            fa->value = sum / (double)n;
            fa->cv = nproc ? sqrt(cv2 / nproc) : 0;
            if (!(fa->value > 0))
                fa->value = 1; /* nothing observed: the share is the metric itself */
            for (size_t g = 0; g < o->n_capabilities; g++)
                if (o->capabilities[g].capability == cap && !strcmp(o->capabilities[g].host, fa->host)) {
                    fa->value = o->capabilities[g].value;
                    fa->given = 1;
                }
        }
    }
    return 0;
}

/* The two-sided normal quantile z with P(|Z| <= z) = confidence (bisection
 * on erfc: precise enough for a tolerance, and no table to get wrong). */
static double normal_quantile(double confidence)
{
    double lo = 0, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (erfc(mid / M_SQRT2) > 1 - confidence)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Half-width, in standard deviations, of the prediction interval of one
 * new observation from a cluster of n points: Student's t with n - 1
 * degrees of freedom (Cornish-Fisher expansion from z) times sqrt(1 + 1/n).
 * Few baseline points give wide tolerances, as they should. */
static double prediction_sigmas(double confidence, size_t n)
{
    double z = normal_quantile(confidence);
    if (n < 2)
        return 2 * z; /* one point: no spread known; the relative floor decides */
    double v = (double)(n - 1), z3 = z * z * z, z5 = z3 * z * z;
    double t = z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v);
    return t * sqrt(1 + 1 / (double)n);
}

static double mean_cv(const struct contract *c, enum contract_capability cap)
{
    double s = 0;
    int n = 0;
    for (size_t i = 0; i < c->n_factors; i++)
        if (c->factors[i].capability == cap) {
            s += c->factors[i].cv;
            n++;
        }
    return n ? s / n : 0;
}

static struct contract_process *process_entry(struct contract *c, const struct contract_sample *s)
{
    for (size_t i = 0; i < c->n_processes; i++)
        if (!strcmp(c->processes[i].process, s->process) && !strcmp(c->processes[i].host, s->host))
            return &c->processes[i];
    struct contract_process *p = VEC_PUSH(c->processes, c->n_processes, c->processes_cap);
    if (!p)
        return NULL;
    snprintf(p->process, sizeof p->process, "%s", s->process);
    snprintf(p->host, sizeof p->host, "%s", s->host);
    return p;
}

static int build_space(const struct sample_set *b, const struct build_options *o, struct contract *c,
                       enum contract_space space, char *why, size_t why_size)
{
    struct contract_space_model *sm = &c->space[space];
    int n_defaults;
    const struct dimension_default *defs = dimension_defaults(&n_defaults);
    size_t with_any = 0;
    for (size_t i = 0; i < b->n; i++) {
        int any = 0;
        for (int d = 0; d < n_defaults; d++)
            any |= defs[d].space == space && !isnan(b->v[i].value[defs[d].metric]);
        with_any += any;
    }
    for (int d = 0; d < n_defaults && with_any; d++) {
        if (defs[d].space != space)
            continue;
        size_t have = 0;
        for (size_t i = 0; i < b->n; i++)
            have += !isnan(b->v[i].value[defs[d].metric]);
        if ((double)have < DIMENSION_PRESENCE * (double)with_any || sm->n_dims == CONTRACT_MAX_DIMS)
            continue;
        struct contract_dim *dim = &sm->dims[sm->n_dims++];
        snprintf(dim->name, sizeof dim->name, "%s", defs[d].name);
        dim->metric = defs[d].metric;
    }
    if (sm->n_dims == 0)
        return 0;
    int dims = sm->n_dims;
    double *points = malloc((b->n + 1) * (size_t)dims * sizeof *points);
    size_t *which = malloc((b->n + 1) * sizeof *which);
    if (!points || !which) {
        free(points);
        free(which);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++) {
        int complete = 1;
        for (int d = 0; d < dims && complete; d++) {
            int known;
            enum contract_capability cap = metric_info(sm->dims[d].metric)->capability;
            double f = contract_factor_for(c, NULL, 0, b->v[i].host, space == SPACE_EXECUTION ? cap : CAP_NONE, &known);
            double x = contract_coordinate(c, space, d, &b->v[i], f);
            points[n * dims + d] = x;
            complete = !isnan(x);
        }
        if (complete)
            which[n++] = i;
    }
    for (int d = 0; d < dims; d++) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += fabs(points[i * dims + d]);
        sm->dims[d].scale = (n && s > 0) ? s / (double)n : 1;
    }
    double scale[CONTRACT_MAX_DIMS], unit[CONTRACT_MAX_DIMS];
    for (int d = 0; d < dims; d++) {
        scale[d] = sm->dims[d].scale;
        unit[d] = 1;
    }
    /* clusters are formed on the log scale; centroids and spreads are then
     * taken in the metrics' own units from the members */
    double *logp = malloc((n + 1) * (size_t)dims * sizeof *logp);
    struct clustering cl = {0};
    if (logp)
        for (size_t i = 0; i < n * (size_t)dims; i++)
            logp[i] = contract_log_coordinate(points[i], scale[i % (size_t)dims]);
    if (!logp || cluster_points(logp, n, dims, unit, o->max_distance, &cl) < 0 ||
        !(sm->clusters = calloc(cl.n_clusters + 1, sizeof *sm->clusters))) {
        if (cl.assign)
            clustering_free(&cl);
        free(logp);
        free(points);
        free(which);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    free(logp);
    /* linear centroids and spreads of the members */
    for (size_t i = 0; i < n; i++) {
        struct contract_cluster *cc = &sm->clusters[cl.assign[i]];
        cc->points++;
        for (int d = 0; d < dims; d++)
            cc->centroid[d] += points[i * dims + d];
    }
    for (size_t k = 0; k < cl.n_clusters; k++)
        for (int d = 0; d < dims; d++)
            sm->clusters[k].centroid[d] /= (double)sm->clusters[k].points;
    for (size_t i = 0; i < n; i++) {
        struct contract_cluster *cc = &sm->clusters[cl.assign[i]];
        for (int d = 0; d < dims; d++) {
            double x = points[i * dims + d] - cc->centroid[d];
            cc->stddev[d] += x * x;
        }
    }
    for (size_t k = 0; k < cl.n_clusters; k++)
        for (int d = 0; d < dims; d++)
            sm->clusters[k].stddev[d] = sqrt(sm->clusters[k].stddev[d] / (double)sm->clusters[k].points);
    sm->n_clusters = cl.n_clusters;
    for (size_t k = 0; k < cl.n_clusters; k++) {
        struct contract_cluster *cc = &sm->clusters[k];
        for (int d = 0; d < dims; d++) {
            double cen = cc->centroid[d], sd = cc->stddev[d];
            double width = prediction_sigmas(o->confidence, cl.count[k]);
            double tol = fmax(width * sd, o->min_tolerance[space] * fabs(cen));
            double floor = fmax(TOLERANCE_FLOOR * scale[d], metric_info(sm->dims[d].metric)->min_tolerance);
            cc->tolerance_live[d] = fmax(tol, floor);
            if (space == SPACE_EXECUTION) {
                enum contract_capability cap = metric_info(sm->dims[d].metric)->capability;
                if (cap != CAP_NONE) /* the spread of the projection factor */
                    tol = fmax(tol, normal_quantile(o->confidence) * mean_cv(c, cap) * fabs(cen));
            }
            cc->tolerance[d] = fmax(fmax(tol, TOLERANCE_FLOOR * scale[d]), metric_info(sm->dims[d].metric)->min_tolerance);
        }
    }
    for (size_t i = 0; i < n; i++) {
        struct contract_process *p = process_entry(c, &b->v[which[i]]);
        if (!p)
            break;
        int k = cl.assign[i], seen = 0;
        for (int v = 0; v < p->n_visits[space]; v++)
            if (p->visits[space][v] == k) {
                p->visit_points[space][v]++;
                seen = 1;
            }
        if (!seen && p->n_visits[space] < CONTRACT_MAX_VISITS) {
            p->visit_points[space][p->n_visits[space]] = 1;
            p->visits[space][p->n_visits[space]++] = k;
        }
    }
    clustering_free(&cl);
    free(points);
    free(which);
    return 0;
}

int contract_build(const struct sample_set *baseline, const struct build_options *o, struct contract *out,
                   char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    if (baseline->n == 0) {
        snprintf(why, why_size, "the baseline has no sample");
        return -1;
    }
    snprintf(out->name, sizeof out->name, "%s", o->name ? o->name : "app");
    out->max_distance = o->max_distance;
    out->threshold = o->threshold;
    if (build_factors(baseline, o, out) < 0) {
        snprintf(why, why_size, "out of memory");
        contract_free(out);
        return -1;
    }
    for (int s = 0; s < CONTRACT_N_SPACES; s++)
        if (build_space(baseline, o, out, s, why, why_size) < 0) {
            contract_free(out);
            return -1;
        }
    if (out->space[SPACE_INTRINSIC].n_dims == 0 && out->space[SPACE_EXECUTION].n_dims == 0) {
        snprintf(why, why_size, "the baseline samples hold no contract metric");
        contract_free(out);
        return -1;
    }
    char text[1024];
    rulebase_default_text(0.5, 1, text, sizeof text);
    char *copy = strdup(text);
    if (!copy || contract_add_rulebase(out, "", copy, why, why_size) < 0) {
        if (!copy)
            snprintf(why, why_size, "out of memory");
        contract_free(out);
        return -1;
    }
    return 0;
}
