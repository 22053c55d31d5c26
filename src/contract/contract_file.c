/* The contract file: plain text a person can read and edit (see
 * docs/contracts.md for the grammar). One statement per line:
 *   contract 1
 *   name NAME
 *   max-distance D            threshold L
 *   factor HOST flops_per_s|bytes_per_s VALUE [cv CV] [given|observed]
 *   space intrinsic|execution
 *     dimension NAME METRIC scale S
 *     cluster ID points N
 *       DIMENSION centroid C tolerance T [live-tolerance T2] [stddev S]
 *   process NAME host HOST [intrinsic ID[:POINTS],...] [execution ID[:POINTS],...]
 *   rulebase [DIMENSION]
 *     ...Fig. 4 language...
 *   end
 * '#' starts a comment (outside rulebases, where the rulebase language has
 * its own). Errors name the file line. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract/contract.h"
#include "util/atomic_file.h"
#include "util/text_file.h"
#include "util/vec.h"

static void write_contract(FILE *f, const struct contract *c)
{
    fprintf(f, "# tally performance contract (Vraalsen, Aydt, Mendes and Reed, Performance Contracts): expected behaviour of '%s'.\n", c->name);
    fprintf(f, "# Plain text: edit tolerances, factors or rulebases freely; see man tally-contract.\n");
    fprintf(f, "contract 1\nname %s\nmax-distance %.9g\nthreshold %.9g\n\n", c->name, c->max_distance, c->threshold);
    fprintf(f, "# projection factors: capability of each host (given, or the baseline's observed mean)\n"
               "# and cv, how much the service observed varied from period to period\n");
    for (size_t i = 0; i < c->n_factors; i++) {
        const struct contract_factor *fa = &c->factors[i];
        fprintf(f, "factor %s %s %.9g cv %.6g %s\n", fa->host, capability_name(fa->capability), fa->value, fa->cv,
                fa->given ? "given" : "observed");
    }
    for (int s = 0; s < CONTRACT_N_SPACES; s++) {
        const struct contract_space_model *sm = &c->space[s];
        if (sm->n_dims == 0)
            continue;
        fprintf(f, "\nspace %s\n", space_name(s));
        if (s == SPACE_EXECUTION)
            fprintf(f, "# execution coordinates are projected: metric / host factor (share of the capability)\n");
        for (int d = 0; d < sm->n_dims; d++)
            fprintf(f, "  dimension %s %s scale %.9g\n", sm->dims[d].name, metric_info(sm->dims[d].metric)->name,
                    sm->dims[d].scale);
        for (size_t k = 0; k < sm->n_clusters; k++) {
            const struct contract_cluster *cc = &sm->clusters[k];
            fprintf(f, "  cluster %zu points %zu\n", k, cc->points);
            for (int d = 0; d < sm->n_dims; d++) {
                fprintf(f, "    %s centroid %.9g tolerance %.9g", sm->dims[d].name, cc->centroid[d], cc->tolerance[d]);
                if (cc->tolerance_live[d] > 0 && cc->tolerance_live[d] != cc->tolerance[d])
                    fprintf(f, " live-tolerance %.9g", cc->tolerance_live[d]);
                fprintf(f, " stddev %.9g\n", cc->stddev[d]);
            }
        }
    }
    fprintf(f, "\n# baseline processes and the clusters they visited\n");
    for (size_t i = 0; i < c->n_processes; i++) {
        const struct contract_process *p = &c->processes[i];
        fprintf(f, "process %s host %s", p->process, p->host);
        for (int s = 0; s < CONTRACT_N_SPACES; s++) {
            if (!p->n_visits[s])
                continue;
            fprintf(f, " %s ", space_name(s));
            for (int v = 0; v < p->n_visits[s]; v++) {
                fprintf(f, "%s%d", v ? "," : "", p->visits[s][v]);
                if (p->visit_points[s][v])
                    fprintf(f, ":%zu", p->visit_points[s][v]);
            }
        }
        fputc('\n', f);
    }
    fprintf(f, "\n# distance: |value - centroid| / tolerance per dimension; violation: 0 none .. 1 total\n");
    for (size_t i = 0; i < c->n_rulebases; i++) {
        const struct contract_rulebase *r = &c->rulebases[i];
        fprintf(f, "rulebase%s%s\n%s", r->dimension[0] ? " " : "", r->dimension, r->text);
        if (r->text[0] && r->text[strlen(r->text) - 1] != '\n')
            fputc('\n', f);
        fprintf(f, "end\n");
    }
}

int contract_write(const struct contract *c, const char *path, char *why, size_t why_size)
{
    struct atomic_file af;
    if (atomic_file_open(&af, path) < 0) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    write_contract(af.fp, c);
    if (atomic_file_commit(&af) < 0) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- reading ---- */

#define MAX_WORDS 24

struct reader {
    const char *name;
    size_t line;
    char *why;
    size_t why_size;
    struct contract *c;
    int space;           /* current 'space', -1 before */
    long cluster;        /* current cluster in it, -1 before */
    int cluster_dims_seen;
};

static int fail(struct reader *r, const char *fmt, const char *a, const char *b)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, a, b);
    snprintf(r->why, r->why_size, "%s:%zu: %s", r->name, r->line, msg);
    return -1;
}

static int number(struct reader *r, const char *w, const char *what, double *out)
{
    char *end;
    if (!w)
        return fail(r, "%s: missing number%s", what, "");
    errno = 0;
    *out = strtod(w, &end);
    if (end == w || *end || errno || !isfinite(*out))
        return fail(r, "%s: '%s' is not a number", what, w);
    return 0;
}

static int check_name(struct reader *r, const char *w, size_t max, const char *what)
{
    if (!w)
        return fail(r, "%s: missing%s", what, "");
    if (strlen(w) >= max)
        return fail(r, "%s: '%s' is too long", what, w);
    return 0;
}

/* Ends the current cluster: every dimension must have been given. */
static int close_cluster(struct reader *r)
{
    if (r->space < 0 || r->cluster < 0)
        return 0;
    int dims = r->c->space[r->space].n_dims;
    if (r->cluster_dims_seen != (1 << dims) - 1)
        return fail(r, "cluster %s lacks a line for some dimension of its space%s", "before this line", "");
    r->cluster = -1;
    return 0;
}

static int statement(struct reader *r, char **w, int n)
{
    struct contract *c = r->c;
    const char *k = w[0];
    if (!strcmp(k, "contract")) {
        if (n != 2 || strcmp(w[1], "1"))
            return fail(r, "unsupported contract version '%s'%s", n > 1 ? w[1] : "", "");
        return 0;
    }
    if (!strcmp(k, "name")) {
        if (check_name(r, n > 1 ? w[1] : NULL, sizeof c->name, "name") < 0)
            return -1;
        snprintf(c->name, sizeof c->name, "%s", w[1]);
        return 0;
    }
    if (!strcmp(k, "max-distance"))
        return number(r, n > 1 ? w[1] : NULL, "max-distance", &c->max_distance);
    if (!strcmp(k, "threshold")) {
        if (number(r, n > 1 ? w[1] : NULL, "threshold", &c->threshold) < 0)
            return -1;
        if (c->threshold < 0 || c->threshold > 1)
            return fail(r, "threshold: '%s' is not in [0, 1]%s", w[1], "");
        return 0;
    }
    if (!strcmp(k, "factor")) {
        if (close_cluster(r) < 0)
            return -1;
        if (n < 4)
            return fail(r, "factor: expected 'factor HOST CAPABILITY VALUE [cv CV] [given|observed]'%s%s", "", "");
        struct contract_factor fa = {0};
        if (check_name(r, w[1], sizeof fa.host, "factor host") < 0)
            return -1;
        snprintf(fa.host, sizeof fa.host, "%s", w[1]);
        int cap = capability_by_name(w[2]);
        if (cap < 0)
            return fail(r, "factor: '%s' is not flops_per_s or bytes_per_s%s", w[2], "");
        fa.capability = cap;
        if (number(r, w[3], "factor value", &fa.value) < 0)
            return -1;
        if (!(fa.value > 0))
            return fail(r, "factor value '%s' must be positive%s", w[3], "");
        for (int i = 4; i < n; i++) {
            if (!strcmp(w[i], "cv") && i + 1 < n) {
                if (number(r, w[++i], "cv", &fa.cv) < 0)
                    return -1;
                if (fa.cv < 0)
                    return fail(r, "cv '%s' cannot be negative%s", w[i], "");
            } else if (!strcmp(w[i], "given")) {
                fa.given = 1;
            } else if (strcmp(w[i], "observed")) {
                return fail(r, "factor: unexpected '%s'%s", w[i], "");
            }
        }
        for (size_t i = 0; i < c->n_factors; i++)
            if (c->factors[i].capability == fa.capability && !strcmp(c->factors[i].host, fa.host))
                return fail(r, "factor for host '%s' and %s given twice", fa.host, w[2]);
        struct contract_factor *v = VEC_PUSH(c->factors, c->n_factors, c->factors_cap);
        if (!v)
            return fail(r, "out of memory%s%s", "", "");
        *v = fa;
        return 0;
    }
    if (!strcmp(k, "space")) {
        if (close_cluster(r) < 0)
            return -1;
        int s = n == 2 ? space_by_name(w[1]) : -1;
        if (s < 0)
            return fail(r, "space: expected 'intrinsic' or 'execution'%s%s", "", "");
        if (c->space[s].n_dims)
            return fail(r, "space %s given twice%s", w[1], "");
        r->space = s;
        r->cluster = -1;
        return 0;
    }
    if (!strcmp(k, "dimension")) {
        if (r->space < 0)
            return fail(r, "dimension outside a 'space'%s%s", "", "");
        struct contract_space_model *sm = &c->space[r->space];
        if (sm->n_clusters)
            return fail(r, "dimension after the space's clusters%s%s", "", "");
        if (n != 5 || strcmp(w[3], "scale"))
            return fail(r, "dimension: expected 'dimension NAME METRIC scale S'%s%s", "", "");
        if (sm->n_dims == CONTRACT_MAX_DIMS)
            return fail(r, "too many dimensions in one space%s%s", "", "");
        struct contract_dim *d = &sm->dims[sm->n_dims];
        if (check_name(r, w[1], sizeof d->name, "dimension name") < 0)
            return -1;
        int m = metric_by_name(w[2]);
        if (m < 0)
            return fail(r, "unknown metric '%s'%s", w[2], "");
        if ((int)metric_info(m)->space != r->space)
            return fail(r, "metric '%s' is not a %s metric", w[2], space_name(r->space));
        for (int i = 0; i < sm->n_dims; i++)
            if (!strcmp(sm->dims[i].name, w[1]))
                return fail(r, "dimension '%s' given twice%s", w[1], "");
        snprintf(d->name, sizeof d->name, "%s", w[1]);
        d->metric = m;
        if (number(r, w[4], "scale", &d->scale) < 0)
            return -1;
        if (!(d->scale > 0))
            return fail(r, "scale '%s' must be positive%s", w[4], "");
        sm->n_dims++;
        return 0;
    }
    if (!strcmp(k, "cluster")) {
        if (r->space < 0)
            return fail(r, "cluster outside a 'space'%s%s", "", "");
        if (close_cluster(r) < 0)
            return -1;
        struct contract_space_model *sm = &c->space[r->space];
        if (sm->n_dims == 0)
            return fail(r, "cluster before any dimension%s%s", "", "");
        double id, pts = 0;
        if (n < 2 || number(r, w[1], "cluster id", &id) < 0)
            return n < 2 ? fail(r, "cluster: missing id%s%s", "", "") : -1;
        if (id != (double)sm->n_clusters)
            return fail(r, "cluster ids must count up from 0 (this is '%s')%s", w[1], "");
        if (n == 4 && !strcmp(w[2], "points")) {
            if (number(r, w[3], "points", &pts) < 0)
                return -1;
            if (pts < 0 || pts > 1e15)
                return fail(r, "points: '%s' out of range%s", w[3], "");
        } else if (n != 2) {
            return fail(r, "cluster: expected 'cluster ID points N'%s%s", "", "");
        }
        if (sm->n_clusters >= 100000)
            return fail(r, "too many clusters%s%s", "", "");
        struct contract_cluster *v = VEC_PUSH(sm->clusters, sm->n_clusters, sm->clusters_cap);
        if (!v)
            return fail(r, "out of memory%s%s", "", "");
        v->points = (size_t)pts;
        r->cluster = (long)sm->n_clusters - 1;
        r->cluster_dims_seen = 0;
        return 0;
    }
    if (!strcmp(k, "process")) {
        if (close_cluster(r) < 0)
            return -1;
        if (n < 4 || strcmp(w[2], "host"))
            return fail(r, "process: expected 'process NAME host HOST [SPACE IDS]...'%s%s", "", "");
        struct contract_process p = {0};
        if (check_name(r, w[1], sizeof p.process, "process") < 0 || check_name(r, w[3], sizeof p.host, "host") < 0)
            return -1;
        snprintf(p.process, sizeof p.process, "%s", w[1]);
        snprintf(p.host, sizeof p.host, "%s", w[3]);
        for (int i = 4; i < n; i += 2) {
            int s = space_by_name(w[i]);
            if (s < 0 || i + 1 >= n)
                return fail(r, "process: expected 'intrinsic IDS' or 'execution IDS', found '%s'%s", w[i], "");
            char *save = NULL;
            for (char *id = strtok_r(w[i + 1], ",", &save); id; id = strtok_r(NULL, ",", &save)) {
                char *end;
                long v = strtol(id, &end, 10);
                long pts = 0;
                if (*end == ':') { /* ID:POINTS */
                    char *e2;
                    pts = strtol(end + 1, &e2, 10);
                    if (e2 == end + 1 || pts < 1)
                        pts = -1;
                    end = e2;
                }
                if (*end || end == id || v < 0 || pts < 0 || (size_t)v >= c->space[s].n_clusters)
                    return fail(r, "process: '%s' is not a cluster (ID or ID:POINTS) of the %s space", id, w[i]);
                if (p.n_visits[s] == CONTRACT_MAX_VISITS)
                    return fail(r, "process: more than 8 clusters in one space%s%s", "", "");
                p.visit_points[s][p.n_visits[s]] = (size_t)pts;
                p.visits[s][p.n_visits[s]++] = (int)v;
            }
        }
        struct contract_process *v = VEC_PUSH(c->processes, c->n_processes, c->processes_cap);
        if (!v)
            return fail(r, "out of memory%s%s", "", "");
        *v = p;
        return 0;
    }
    /* a dimension line of the current cluster */
    if (r->space >= 0 && r->cluster >= 0) {
        struct contract_space_model *sm = &c->space[r->space];
        int d = -1;
        for (int i = 0; i < sm->n_dims; i++)
            if (!strcmp(sm->dims[i].name, k))
                d = i;
        if (d < 0)
            return fail(r, "'%s' is not a dimension of the %s space", k, space_name(r->space));
        if (r->cluster_dims_seen & (1 << d))
            return fail(r, "dimension '%s' given twice in this cluster%s", k, "");
        struct contract_cluster *cc = &sm->clusters[r->cluster];
        int have_c = 0, have_t = 0;
        for (int i = 1; i < n; i += 2) {
            if (i + 1 >= n)
                return fail(r, "'%s' without a value%s", w[i], "");
            double v;
            if (number(r, w[i + 1], w[i], &v) < 0)
                return -1;
            if (!strcmp(w[i], "centroid")) {
                cc->centroid[d] = v;
                have_c = 1;
            } else if (!strcmp(w[i], "tolerance")) {
                if (!(v > 0))
                    return fail(r, "tolerance '%s' must be positive%s", w[i + 1], "");
                cc->tolerance[d] = v;
                have_t = 1;
            } else if (!strcmp(w[i], "live-tolerance")) {
                if (!(v > 0))
                    return fail(r, "live-tolerance '%s' must be positive%s", w[i + 1], "");
                cc->tolerance_live[d] = v;
            } else if (!strcmp(w[i], "stddev")) {
                cc->stddev[d] = v;
            } else {
                return fail(r, "unexpected '%s' (centroid, tolerance, live-tolerance or stddev)%s", w[i], "");
            }
        }
        if (!have_c || !have_t)
            return fail(r, "dimension '%s' needs a centroid and a tolerance%s", k, "");
        r->cluster_dims_seen |= 1 << d;
        return 0;
    }
    return fail(r, "unknown statement '%s'%s", k, "");
}

/* The rulebase's own "L:C: why" turned into a file line. */
static int rulebase_error(struct reader *r, size_t first_line, const char *why)
{
    int l, col, used = 0;
    if (sscanf(why, "%d:%d: %n", &l, &col, &used) == 2 && used > 0)
        snprintf(r->why, r->why_size, "%s:%zu:%d: rulebase: %s", r->name, first_line + (size_t)l - 1, col, why + used);
    else
        snprintf(r->why, r->why_size, "%s:%zu: %s", r->name, first_line, why);
    return -1;
}

int contract_parse(const char *text, size_t len, const char *name, struct contract *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    out->threshold = 0.5;
    out->max_distance = 0.5;
    struct reader r = {.name = name, .why = why, .why_size = why_size, .c = out, .space = -1, .cluster = -1};
    const char *p = text, *end = text + len;
    int seen_version = 0, rc = 0;
    char line[4096];
    while (p < end && rc == 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
        r.line++;
        const char *line_start = p;
        p = nl ? nl + 1 : end;
        if (ll >= sizeof line) {
            rc = fail(&r, "line longer than %s characters%s", "4095", "");
            break;
        }
        memcpy(line, line_start, ll);
        line[ll] = 0;
        if (memchr(line, 0, ll)) {
            rc = fail(&r, "NUL byte in the file%s%s", "", "");
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *w[MAX_WORDS], *save = NULL;
        int n = 0;
        for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
            if (n == MAX_WORDS) {
                rc = fail(&r, "too many words on one line%s%s", "", "");
                break;
            }
            w[n++] = t;
        }
        if (rc || n == 0)
            continue;
        if (!seen_version && strcmp(w[0], "contract")) {
            rc = fail(&r, "not a tally contract (the first statement must be 'contract 1')%s%s", "", "");
            break;
        }
        seen_version = 1;
        if (!strcmp(w[0], "rulebase")) {
            if ((rc = close_cluster(&r)) < 0)
                break;
            if (n > 2) {
                rc = fail(&r, "rulebase: expected 'rulebase [DIMENSION]'%s%s", "", "");
                break;
            }
            char dim[32] = "";
            if (n == 2) {
                if ((rc = check_name(&r, w[1], sizeof dim, "rulebase dimension")) < 0)
                    break;
                snprintf(dim, sizeof dim, "%s", w[1]);
            }
            size_t first = r.line + 1, start_line = r.line;
            const char *body = p, *body_end = NULL;
            while (p < end) { /* up to a line holding only 'end' */
                const char *n2 = memchr(p, '\n', (size_t)(end - p));
                const char *le = n2 ? n2 : end;
                r.line++;
                const char *a = p, *b = le;
                while (a < b && isspace((unsigned char)*a))
                    a++;
                while (b > a && isspace((unsigned char)b[-1]))
                    b--;
                if (b - a == 3 && !memcmp(a, "end", 3)) {
                    body_end = p;
                    p = n2 ? n2 + 1 : end;
                    break;
                }
                p = n2 ? n2 + 1 : end;
            }
            if (!body_end) {
                r.line = start_line;
                rc = fail(&r, "rulebase without its closing 'end' line%s%s", "", "");
                break;
            }
            char *copy = strndup(body, (size_t)(body_end - body));
            char detail[512];
            if (!copy) {
                rc = fail(&r, "out of memory%s%s", "", "");
                break;
            }
            if (memchr(body, 0, (size_t)(body_end - body))) {
                free(copy);
                r.line = first;
                rc = fail(&r, "NUL byte in a rulebase%s%s", "", "");
                break;
            }
            if (contract_add_rulebase(out, dim, copy, detail, sizeof detail) < 0) {
                rc = rulebase_error(&r, first, strchr(detail, ':') && isdigit((unsigned char)detail[strcspn(detail, ":") + 2]) ? detail + strcspn(detail, ":") + 2 : detail);
                break;
            }
            continue;
        }
        rc = statement(&r, w, n);
    }
    if (rc == 0)
        rc = close_cluster(&r);
    if (rc == 0 && !seen_version) {
        r.line = 1;
        rc = fail(&r, "empty: not a tally contract%s%s", "", "");
    }
    if (rc == 0 && out->space[SPACE_INTRINSIC].n_dims == 0 && out->space[SPACE_EXECUTION].n_dims == 0)
        rc = fail(&r, "the contract has no dimension%s%s", "", "");
    for (int s = 0; rc == 0 && s < CONTRACT_N_SPACES; s++)
        if (out->space[s].n_dims && out->space[s].n_clusters == 0)
            rc = fail(&r, "space %s has no cluster%s", space_name(s), "");
    if (rc == 0 && !contract_rulebase_for(out, "")) { /* no rulebase: the default */
        char t[1024];
        rulebase_default_text(0.5, 1, t, sizeof t);
        char *copy = strdup(t);
        if (!copy || contract_add_rulebase(out, "", copy, why, why_size) < 0)
            rc = -1;
    }
    if (rc < 0)
        contract_free(out);
    return rc;
}

int contract_read(const char *path, struct contract *out, char *why, size_t why_size)
{
    size_t len;
    char detail[160];
    char *buf = text_file_read(path, TEXT_FILE_LARGE, &len, detail, sizeof detail);
    if (!buf) {
        snprintf(why, why_size, "%s: %s", path, detail);
        return -1;
    }
    int rc = contract_parse(buf, len, path, out, why, why_size);
    free(buf);
    return rc;
}
