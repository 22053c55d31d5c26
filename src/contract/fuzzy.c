/* Fuzzification, min/max rule evaluation and centroid defuzzification (see
 * fuzzy.h for the choices and docs/contracts.md for why). */
#include "contract/fuzzy.h"

#include <math.h>

/* Intervals of the numeric centroid integral. The membership functions are
 * piecewise linear, so the trapezoid rule is exact between breakpoints that
 * fall on the grid; 600 intervals keep the error far below what a violation
 * level needs (and give exactly 0 and 1 for Fig. 4's pure sets). */
#define CENTROID_STEPS 600

static double rise(double x, double from, double to)
{
    return (x - from) / (to - from);
}

double fuzzy_membership(const struct fuzzy_set *s, double x)
{
    if (isnan(x))
        return 0;
    if (s->shape == FUZZY_TRAPEZ) {
        double a = s->p[0], b = s->p[1], c = s->p[2], d = s->p[3];
        if (x >= a && x <= b)
            return 1;
        if (x < a)
            return (c > 0 && x > a - c) ? rise(x, a - c, a) : 0;
        return (d > 0 && x < b + d) ? rise(x, b + d, b) : 0;
    }
    double m = s->p[0], l = s->p[1], r = s->p[2];
    if (x == m)
        return 1;
    if (x < m)
        return (l > 0 && x > m - l) ? rise(x, m - l, m) : 0;
    return (r > 0 && x < m + r) ? rise(x, m + r, m) : 0;
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

static double condition_truth(const struct rulebase *rb, int n, const double *inputs)
{
    const struct cond_node *c = &rb->nodes[n];
    if (c->kind == COND_IS) {
        const struct fuzzy_var *v = &rb->vars[c->var];
        double x = inputs[c->var];
        if (isnan(x))
            return 0;
        return fuzzy_membership(&v->sets[c->set], clamp(x, v->lo, v->hi));
    }
    double a = condition_truth(rb, c->left, inputs), b = condition_truth(rb, c->right, inputs);
    return c->kind == COND_AND ? fmin(a, b) : fmax(a, b);
}

void fuzzy_evaluate(const struct rulebase *rb, const double *inputs, double *outputs)
{
    /* strength[v][s]: how strongly set s of output v is asserted (max over rules) */
    double strength[RULEBASE_MAX_VARS][RULEBASE_MAX_SETS] = {{0}};
    for (int r = 0; r < rb->n_rules; r++) {
        const struct fuzzy_rule *rule = &rb->rules[r];
        double truth = condition_truth(rb, rule->cond, inputs);
        for (int a = 0; a < rule->n_assign; a++) {
            double *st = &strength[rule->assign_var[a]][rule->assign_set[a]];
            *st = fmax(*st, truth);
        }
    }
    for (int v = 0; v < rb->n_vars; v++) {
        const struct fuzzy_var *var = &rb->vars[v];
        outputs[v] = NAN;
        if (!var->is_output)
            continue;
        int any = 0;
        for (int s = 0; s < var->n_sets; s++)
            any |= strength[v][s] > 0;
        if (!any)
            continue;
        double step = (var->hi - var->lo) / CENTROID_STEPS, area = 0, moment = 0;
        for (int i = 0; i <= CENTROID_STEPS; i++) {
            double y = var->lo + step * i, mu = 0;
            for (int s = 0; s < var->n_sets; s++)
                if (strength[v][s] > 0)
                    mu = fmax(mu, fmin(strength[v][s], fuzzy_membership(&var->sets[s], y)));
            double w = (i == 0 || i == CENTROID_STEPS) ? 0.5 : 1;
            area += w * mu;
            moment += w * mu * y;
        }
        if (area > 0)
            outputs[v] = moment / area;
    }
}

double fuzzy_evaluate1(const struct rulebase *rb, int in_var, double x, int out_var)
{
    double inputs[RULEBASE_MAX_VARS], outputs[RULEBASE_MAX_VARS];
    for (int v = 0; v < RULEBASE_MAX_VARS; v++)
        inputs[v] = NAN;
    inputs[in_var] = x;
    fuzzy_evaluate(rb, inputs, outputs);
    return outputs[out_var];
}
