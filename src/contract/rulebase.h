/* The fuzzy rulebase language of the performance-contracts paper (seed 003,
 * Fig. 4), parsed as the paper writes it:
 *
 *   var distance(0, 2) {
 *     set trapez LOW ( 0, .5, 0, .5 );
 *     set trapez HIGH ( 1, 2, .5, 0 ); }
 *   var violation(-1, 2) {
 *     set triangle NONE ( 0, 1, 1 );
 *     set triangle TOTAL ( 1, 1, 1 ); }
 *   if ( distance == LOW ) { violation = NONE; }
 *   if ( distance == HIGH ) { violation = TOTAL; }
 *
 * A variable has a crisp range (lo, hi) and named fuzzy sets: trapez (a, b,
 * c, d) is 1 on [a, b] and falls to 0 over c to the left and d to the right;
 * triangle (m, l, r) peaks at m and falls to 0 over l to the left and r to the
 * right. Conditions compare a variable with one of its sets and may be joined
 * with && and || (parentheses allowed); the body assigns sets to variables.
 * '#' and '//' start comments. The parser is hand written so that every error
 * names a line and a column; it allocates one block and holds no global state.
 * Evaluation (fuzzification, min/max rules, centroid) is in fuzzy.h. */
#ifndef TALLY_CONTRACT_RULEBASE_H
#define TALLY_CONTRACT_RULEBASE_H

#include <stddef.h>

#define RULEBASE_MAX_VARS 16
#define RULEBASE_MAX_SETS 16
#define RULEBASE_MAX_RULES 64
#define RULEBASE_MAX_NODES 512   /* condition nodes over all rules */
#define RULEBASE_MAX_ASSIGN 8    /* assignments in one rule body */
#define RULEBASE_NAME_MAX 32

enum fuzzy_shape { FUZZY_TRAPEZ, FUZZY_TRIANGLE };

struct fuzzy_set {
    char name[RULEBASE_NAME_MAX];
    enum fuzzy_shape shape;
    double p[4]; /* trapez: a b c d; triangle: m l r */
};

struct fuzzy_var {
    char name[RULEBASE_NAME_MAX];
    double lo, hi;
    struct fuzzy_set sets[RULEBASE_MAX_SETS];
    int n_sets;
    int is_output; /* assigned in some rule body */
};

enum cond_kind { COND_IS, COND_AND, COND_OR };

struct cond_node {
    enum cond_kind kind;
    int var, set;       /* COND_IS */
    int left, right;    /* COND_AND / COND_OR: node indices */
};

struct fuzzy_rule {
    int cond; /* root node index */
    int n_assign;
    int assign_var[RULEBASE_MAX_ASSIGN], assign_set[RULEBASE_MAX_ASSIGN];
};

struct rulebase {
    struct fuzzy_var vars[RULEBASE_MAX_VARS];
    int n_vars;
    struct cond_node nodes[RULEBASE_MAX_NODES];
    int n_nodes;
    struct fuzzy_rule rules[RULEBASE_MAX_RULES];
    int n_rules;
};

/* Parses text[0..len) (need not be NUL-terminated). Returns a rulebase to be
 * released with free(), or NULL with "LINE:COL: what is wrong" in err. */
struct rulebase *rulebase_parse(const char *text, size_t len, char *why, size_t why_size);

/* Index of the variable or of a set in it; -1 when absent. */
int rulebase_find_var(const struct rulebase *rb, const char *name);
int rulebase_find_set(const struct fuzzy_var *v, const char *name);

/* The rulebase tally uses when the contract names none: Fig. 4 with the
 * violation sets as the figure means them (NONE peaks at 0, TOTAL at 1; see
 * docs/contracts.md). The distance is in units of the dimension's tolerance:
 * no violation up to none_at tolerances, total from total_at (Fig. 4: 0.5 and
 * 1). Writes NUL-terminated text into buf; returns its length. */
size_t rulebase_default_text(double none_at, double total_at, char *buf, size_t buflen);

#endif
