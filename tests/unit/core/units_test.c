/* Unit tests for the quantity parser (src/core/units.c). */
#include "test.h"
#include "core/units.h"

static double parse_ok(const char *text, enum unit_dimension dim)
{
    double v = -1;
    char why[128] = "";
    if (units_parse(text, dim, "procs", &v, why, sizeof why) < 0)
        printf("# unexpected error for '%s': %s\n", text, why);
    return v;
}

static const char *parse_error(const char *text, enum unit_dimension dim)
{
    static char why[128];
    double v;
    why[0] = '\0';
    if (units_parse(text, dim, NULL, &v, why, sizeof why) == 0)
        return "(accepted)";
    return why;
}

int main(void)
{
    CHECK_NEAR(parse_ok("2 GB", DIM_BYTES), 2048, 1e-9);
    CHECK_NEAR(parse_ok("2GiB", DIM_BYTES), 2048, 1e-9);
    CHECK_NEAR(parse_ok("512 MiB", DIM_BYTES), 512, 1e-9);
    CHECK_NEAR(parse_ok("200 mb", DIM_BYTES), 200, 1e-9);
    CHECK_NEAR(parse_ok("1024 KB", DIM_BYTES), 1, 1e-9);
    CHECK_NEAR(parse_ok("1048576 B", DIM_BYTES), 1, 1e-9);
    CHECK_NEAR(parse_ok("1.5T", DIM_BYTES), 1.5 * 1048576, 1e-6);
    CHECK_NEAR(parse_ok("300", DIM_BYTES), 300, 1e-9);
    CHECK_NEAR(parse_ok("  7.25  ", DIM_BYTES), 7.25, 1e-12);
    CHECK_NEAR(parse_ok("10 min", DIM_TIME), 600, 1e-9);
    CHECK_NEAR(parse_ok("1h30min", DIM_TIME), 5400, 1e-9);
    CHECK_NEAR(parse_ok("1 h 30 m 15 s", DIM_TIME), 5415, 1e-9);
    CHECK_NEAR(parse_ok("250ms", DIM_TIME), 0.25, 1e-12);
    CHECK_NEAR(parse_ok("2 days", DIM_TIME), 172800, 1e-9);
    CHECK_NEAR(parse_ok("45", DIM_TIME), 45, 1e-9);
    CHECK_NEAR(parse_ok("4 procs", DIM_COUNT), 4, 1e-9);
    CHECK_NEAR(parse_ok("4", DIM_COUNT), 4, 1e-9);

    CHECK_CONTAINS(parse_error("2 GX", DIM_BYTES), "'GX'");
    CHECK_CONTAINS(parse_error("lots", DIM_BYTES), "'lots' is not a number");
    CHECK_CONTAINS(parse_error("", DIM_TIME), "empty");
    CHECK_CONTAINS(parse_error("10 min 5", DIM_TIME), "bare number");
    CHECK_CONTAINS(parse_error("5 MB 3 MB", DIM_BYTES), "after the unit");
    CHECK_CONTAINS(parse_error("3 parsecs", DIM_TIME), "'parsecs'");
    CHECK_CONTAINS(parse_error("-5 MB", DIM_BYTES), "not a number");
    CHECK_CONTAINS(parse_error("4 cores", DIM_COUNT), "'cores'");
    /* found by tests/fuzz/limits_fuzz.c: each term finite, the sum infinite */
    CHECK_CONTAINS(parse_error("1e308m", DIM_TIME), "'1e308m' is too large");
    CHECK_CONTAINS(parse_error("1e308 TB", DIM_BYTES), "too large");
    CHECK_CONTAINS(parse_error("1e308 h 1e308 h", DIM_TIME), "too large");
    CHECK_NEAR(parse_ok("1e300 TB", DIM_BYTES), 1e300 * 1048576, 1e290);
    return test_done();
}
