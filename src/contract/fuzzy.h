/* Evaluating a rulebase (rulebase.h): the choices the paper leaves implicit,
 * written down in docs/contracts.md.
 *   fuzzification   a crisp input is clamped to its variable's range and
 *                   mapped to each set's membership (trapez / triangle);
 *   rules           AND = min, OR = max; a rule's strength clips (min) the
 *                   sets it assigns (Mamdani implication); several rules
 *                   assigning one variable combine with max;
 *   defuzzification centroid of the combined output over the variable's
 *                   range. With Fig. 4's violation sets (triangles at 0 and
 *                   1, range -1..2) a pure NONE gives exactly 0 and a pure
 *                   TOTAL exactly 1; the figure's range only makes sense so.
 * Stateless and allocation-free: one call per crisp input. */
#ifndef TALLY_CONTRACT_FUZZY_H
#define TALLY_CONTRACT_FUZZY_H

#include "contract/rulebase.h"

/* Membership of x in a set (0..1). */
double fuzzy_membership(const struct fuzzy_set *s, double x);

/* Evaluates every rule with inputs[v] the crisp value of variable v (NAN:
 * unknown, all memberships 0) and writes the defuzzified value of each
 * output variable into outputs[v] (NAN when no rule assigning it fired).
 * Both arrays have rb->n_vars entries. */
void fuzzy_evaluate(const struct rulebase *rb, const double *inputs, double *outputs);

/* The common case: one input variable and one output variable by index.
 * Returns the output, NAN when no rule fired. */
double fuzzy_evaluate1(const struct rulebase *rb, int in_var, double x, int out_var);

#endif
