/* The Fig. 4 rulebase of seed 003, verbatim, and malformed rulebases: each
 * error must name its line and column. Also the fuzzy evaluation choices
 * (min/max, centroid) on Fig. 4's sets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contract/fuzzy.h"
#include "contract/rulebase.h"
#include "test.h"

/* Fig. 4 exactly as the seed prints it (including its NONE/TOTAL numbers). */
static const char fig4[] =
    "\n"
    "var distance(0, 2) {\n"
    "  set trapez LOW ( 0, .5, 0, .5 );\n"
    "  set trapez HIGH ( 1, 2, .5, 0 ); }\n"
    "var violation(-1, 2) {\n"
    "  set triangle NONE ( 1, 1, 1 );\n"
    "  set triangle TOTAL ( 0, 1, 1 ); }\n"
    "\n"
    "if ( distance == LOW )\n"
    "{ violation = NONE; }\n"
    "if ( distance == HIGH )\n"
    "{ violation = TOTAL; }\n"
    "\n";

static struct rulebase *parse(const char *text, char *why, size_t why_size)
{
    why[0] = 0;
    return rulebase_parse(text, strlen(text), why, why_size);
}

static void check_error(const char *text, const char *where, const char *what)
{
    char why[256];
    struct rulebase *rb = parse(text, why, sizeof why);
    CHECK(rb == NULL);
    free(rb);
    CHECK_CONTAINS(why, where);
    CHECK_CONTAINS(why, what);
}

static double level(const struct rulebase *rb, double d)
{
    return fuzzy_evaluate1(rb, rulebase_find_var(rb, "distance"), d, rulebase_find_var(rb, "violation"));
}

int main(void)
{
    char why[256];
    struct rulebase *rb = parse(fig4, why, sizeof why);
    CHECK(rb != NULL);
    if (!rb) {
        printf("# %s\n", why);
        return test_done();
    }
    CHECK_INT(rb->n_vars, 2);
    CHECK_INT(rb->n_rules, 2);
    CHECK_STR(rb->vars[0].name, "distance");
    CHECK_NEAR(rb->vars[0].lo, 0, 0);
    CHECK_NEAR(rb->vars[0].hi, 2, 0);
    CHECK_STR(rb->vars[0].sets[0].name, "LOW");
    CHECK_INT(rb->vars[0].sets[0].shape, FUZZY_TRAPEZ);
    CHECK_NEAR(rb->vars[0].sets[0].p[1], 0.5, 0);
    CHECK_NEAR(rb->vars[0].sets[1].p[2], 0.5, 0);
    CHECK_NEAR(rb->vars[1].lo, -1, 0);
    CHECK_STR(rb->vars[1].sets[1].name, "TOTAL");
    CHECK_INT(rb->vars[1].sets[1].shape, FUZZY_TRIANGLE);
    CHECK_NEAR(rb->vars[1].sets[0].p[0], 1, 0);
    CHECK_NEAR(rb->vars[1].sets[1].p[0], 0, 0);
    CHECK(!rb->vars[0].is_output);
    CHECK(rb->vars[1].is_output);
    /* memberships of the distance sets: LOW full to .5, gone at 1; HIGH from .5 to full at 1 */
    CHECK_NEAR(fuzzy_membership(&rb->vars[0].sets[0], 0.25), 1, 1e-12);
    CHECK_NEAR(fuzzy_membership(&rb->vars[0].sets[0], 0.75), 0.5, 1e-12);
    CHECK_NEAR(fuzzy_membership(&rb->vars[0].sets[0], 1.0), 0, 1e-12);
    CHECK_NEAR(fuzzy_membership(&rb->vars[0].sets[1], 0.6), 0.2, 1e-12);
    CHECK_NEAR(fuzzy_membership(&rb->vars[0].sets[1], 1.5), 1, 1e-12);
    /* Read literally, the transcription's NONE peaks at 1 and TOTAL at 0, so a
     * distance of 0 gives violation 1 (docs/contracts.md: the labels are swapped) */
    CHECK_NEAR(level(rb, 0), 1, 1e-9);
    CHECK_NEAR(level(rb, 2), 0, 1e-9);
    free(rb);

    /* tally's default: Fig. 4 with NONE at 0 and TOTAL at 1 */
    char text[1024];
    rulebase_default_text(0.5, 1, text, sizeof text);
    rb = parse(text, why, sizeof why);
    CHECK(rb != NULL);
    if (rb) {
        CHECK_NEAR(level(rb, 0), 0, 1e-9);
        CHECK_NEAR(level(rb, 0.5), 0, 1e-9);
        CHECK_NEAR(level(rb, 0.75), 0.5, 1e-9);  /* symmetric: both sets at 0.5 */
        CHECK_NEAR(level(rb, 1), 1, 1e-9);
        CHECK_NEAR(level(rb, 5), 1, 1e-9);       /* clamped into the range */
        double a = level(rb, 0.6), b = level(rb, 0.7), c = level(rb, 0.9);
        CHECK(a > 0 && a < b && b < 0.5 && c > 0.5 && c < 1);
        CHECK(isnan(fuzzy_evaluate1(rb, 0, NAN, 1)));
        CHECK_NEAR(rb->vars[0].hi, 2, 0);
        free(rb);
    }
    rulebase_default_text(1, 3, text, sizeof text);
    rb = parse(text, why, sizeof why);
    CHECK(rb != NULL);
    if (rb) {
        CHECK_NEAR(level(rb, 1), 0, 1e-9);
        CHECK_NEAR(level(rb, 2), 0.5, 1e-9);
        CHECK_NEAR(level(rb, 3), 1, 1e-9);
        free(rb);
    }

    /* && and || with parentheses, comments, several assignments */
    rb = parse("# two inputs\nvar a(0,1){set trapez L(0,0,0,1);set trapez H(1,1,1,0);}\n"
               "var b(0,1){set trapez L(0,0,0,1);set trapez H(1,1,1,0);}\n"
               "var v(-1,2){set triangle N(0,1,1);set triangle T(1,1,1);}\n"
               "if ((a == H && b == H) || a == L) { v = T; } // both high\n"
               "if (a == L && b == L) { v = N; }\n",
               why, sizeof why);
    CHECK(rb != NULL);
    if (rb) {
        double in[RULEBASE_MAX_VARS] = {0.8, 0.6, NAN}, out[RULEBASE_MAX_VARS];
        fuzzy_evaluate(rb, in, out);
        CHECK(out[2] > 0.5);
        CHECK(isnan(out[0]));
        CHECK_INT(rb->n_nodes, 8);
        free(rb);
    }

    /* malformed rulebases: line and column of the bad part */
    check_error("var distance(0, 2) {\n  set trapez LOW ( 0, .5, 0 );\n}", "2:29:", "expected ','");
    check_error("var distance(0, 2) {\n  set circle LOW (0);\n}", "2:7:", "'trapez' or 'triangle'");
    check_error("var d(2, 0) { set trapez L (0,1,0,0); }", "1:7:", "range of 'd' is empty");
    check_error("var d(0, 2) { set trapez L (0,1,-1,0); }", "1:33:", "width cannot be negative");
    check_error("var d(0, 2) { set trapez L (0,1,0,0); }\nvar d(0,1) { set trapez L (0,1,0,0); }", "2:5:",
                "defined twice");
    check_error("var d(0, 2) { set trapez L (0,1,0,0); set trapez L (0,1,0,0); }", "1:50:", "set 'L' defined twice");
    check_error("var d(0, 2) { set trapez L (0,1,0,0); }\nvar v(0,1) { set triangle N (0,1,1); }\n"
                "if ( d == LOW ) { v = N; }",
                "3:11:", "'LOW' is not a set of 'd'");
    check_error("var d(0, 2) { set trapez L (0,1,0,0); }\nvar v(0,1) { set triangle N (0,1,1); }\n"
                "if ( x == L ) { v = N; }",
                "3:6:", "unknown variable 'x'");
    check_error("var d(0, 2) { set trapez L (0,1,0,0); }\nvar v(0,1) { set triangle N (0,1,1); }\n"
                "if ( d = L ) { v = N; }",
                "3:8:", "expected '=='");
    check_error("var d(0, 2) { set trapez L (0,1,0,0); }\nvar v(0,1) { set triangle N (0,1,1); }\n"
                "if ( d == L ) { v = N }",
                "3:23:", "expected ';' after an assignment");
    check_error("var d(0, 2) { set trapez L (0,1,0,0); }\nvar v(0,1) { set triangle N (0,1,1); }\n"
                "if ( d == L ) { v = N; ",
                "3:24:", "end of input");
    check_error("var d(0, 2) { set trapez L (0,1,0,0); }\n", "2:1:", "no rule");
    check_error("var d(0, 2) { }", "1:5:", "has no set");
    check_error("bogus", "1:1:", "expected 'var' or 'if'");
    check_error("var d(0, 2) { set trapez L (0,1,0,0); }\nvar v(0,1) { set triangle N (0,1,1); }\n"
                "if ( d == L ) { d = L; }",
                ":", "both tested and assigned");
    check_error("var d(0, 2) { set trapez L (0, 1, 0, 0); } @", "1:44:", "found '@'");
    check_error("var d(0, x) {}", "1:10:", "expected a number");
    check_error("var d(0, 2) { set trapez L (0,1,0,0); }\nvar v(0,1) { set triangle N (0,1,1); }\n"
                "if ( d == L ) { }",
                "3:17:", "assigns nothing");
    {
        /* deep nesting is refused, not a stack overflow */
        char deep[400] = "var d(0,2){set trapez L(0,1,0,0);}\nvar v(0,1){set triangle N(0,1,1);}\nif (";
        for (int i = 0; i < 40; i++)
            strcat(deep, "(");
        strcat(deep, "d == L");
        check_error(deep, "3:", "nested too deeply");
    }
    return test_done();
}
