/* Unit tests for the archive query grammar (src/archive/query.c): the SQL it
 * produces, the values it binds (converted to the fields' units), and errors
 * that name the position of the bad token. */
#include "archive/query.h"
#include "test.h"

static struct compiled_query q;
static char why[256];

static const char *compile(const char *expr)
{
    compiled_query_free(&q);
    why[0] = '\0';
    if (query_compile(expr, &q, why, sizeof why) < 0)
        return NULL;
    return q.where;
}

static const char *error_of(const char *expr)
{
    compiled_query_free(&q);
    if (query_compile(expr, &q, why, sizeof why) == 0)
        return "(accepted)";
    return why;
}

int main(void)
{
    CHECK_STR(compile("category = rmapper and memory > 500 MB and wall_time < 1 h"),
              "\"category\" = ? AND \"memory\" > ? AND \"wall_time\" < ?");
    CHECK_INT(q.nparams, 3);
    CHECK_STR(q.params[0].text, "rmapper");
    CHECK_NEAR(q.params[1].real, 500, 0);
    CHECK_NEAR(q.params[2].real, 3600, 0);

    CHECK_STR(compile("memory >= 2GB or not (host == 'c7' and set != \"run 1\")"),
              "\"memory\" >= ? OR NOT ((\"host\" = ? AND \"set_id\" != ?))");
    CHECK_NEAR(q.params[0].real, 2048, 0);
    CHECK_STR(q.params[1].text, "c7");
    CHECK_STR(q.params[2].text, "run 1");

    CHECK_STR(compile("wall_time <= 1 h 30 min AND exit_status <> 0"),
              "\"wall_time\" <= ? AND \"exit_status\" != ?");
    CHECK_NEAR(q.params[0].real, 5400, 0);
    CHECK_INT(q.params[1].integer, 0);

    CHECK_STR(compile("start > 2026-11-01 and end < 2026-11-02T12:00:00"),
              "\"start\" > ? AND \"end\" < ?");
    CHECK_NEAR(q.params[0].real, 1793491200, 0); /* date -u -d 2026-11-01 +%s */
    CHECK_NEAR(q.params[1].real, 1793620800, 0);

    /* values never reach the SQL text */
    CHECK_STR(compile("name = \"x'; DROP TABLE summaries; --\""), "\"name\" = ?");
    CHECK_STR(q.params[0].text, "x'; DROP TABLE summaries; --");
    CHECK_STR(compile(""), "1 = 1");

    /* nesting is bounded: 100,000 '(' overflowed the stack (found while
     * writing tests/fuzz/query_fuzz.c, whose inputs stop at 4 KB) */
    {
        static char deep[200001];
        memset(deep, '(', 100000);
        strcpy(deep + 100000, "id = 1");
        CHECK_STR(error_of(deep), "position 101: more than 100 nested '(' or 'not'");
        char *nots = deep;
        for (int i = 0; i < 150; i++)
            memcpy(nots + 4 * i, "not ", 4);
        strcpy(nots + 600, "id = 1");
        CHECK_STR(error_of(nots), "position 401: more than 100 nested '(' or 'not'");
        char nested[512] = "";
        for (int i = 0; i < 100; i++)
            strcat(nested, "(");
        strcat(nested, "id = 1");
        for (int i = 0; i < 100; i++)
            strcat(nested, ")");
        CHECK(compile(nested) != NULL); /* 100 levels are fine */
    }
    CHECK_STR(error_of("category = rmapper and memry > 500 MB"),
              "position 24: unknown field 'memry'");
    CHECK_STR(error_of("memory > 5 parsecs"),
              "position 10: memory: unknown unit 'parsecs' (expected B, KB, MB, GB, TB (or KiB, "
              "MiB, GiB, TiB))");
    CHECK_STR(error_of("(memory > 5"), "position 12: expected ')' to close the '(' at position 1");
    CHECK_STR(error_of("memory 5"), "position 8: expected a comparison (= != < <= > >=) after 'memory'");
    CHECK_STR(error_of("memory >"), "position 9: missing value at the end");
    CHECK_STR(error_of("memory > 5 host = a"), "position 10: memory: unknown unit 'host' "
                                                 "(expected B, KB, MB, GB, TB (or KiB, MiB, GiB, TiB))");
    CHECK_STR(error_of("name = 'open"), "position 8: unterminated string");
    CHECK_STR(error_of("name = a )"), "position 10: unexpected ')' (expected and, or, or the end)");
    CHECK_STR(error_of("exit_status = zero"), "position 15: exit_status: 'zero' is not an integer");
    CHECK_STR(error_of("memory > 5 and"), "position 15: expected a condition at the end");
    compiled_query_free(&q);
    return test_done();
}
