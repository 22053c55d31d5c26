/* Unit tests for report/json_text.c: the text written for a value is byte
 * for byte json_dumps's, pretty (JSON_INDENT(2)) and compact, for nested
 * and empty containers, escaped strings, integers at their limits and reals
 * of every shape "%.16g" and "%.17g" give (exponents, integral values, the
 * smallest and largest), 21,000 reals as the reports hold them (real_g.c's
 * digits); and the same text written piece by piece. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "report/json_text.h"
#include "test.h"

/* Our text of V, or NULL. */
static char *ours(const json_t *v, int indent, int precision)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int rc = json_text_write(f, v, indent, precision);
    fclose(f);
    if (rc < 0) {
        free(text);
        return NULL;
    }
    return text;
}

static void same_as_jansson(const json_t *v, const char *what)
{
    static const struct {
        int indent, precision;
        size_t flags;
    } layouts[] = {
        {2, 16, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(16)},
        {0, 16, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(16)},
        {4, 0, JSON_INDENT(4) | JSON_PRESERVE_ORDER},
    };
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        char *want = json_dumps(v, layouts[i].flags);
        char *got = ours(v, layouts[i].indent, layouts[i].precision);
        char m[128];
        snprintf(m, sizeof m, "%s, layout %zu: as json_dumps", what, i);
        test_report(want && got && !strcmp(want, got), __FILE__, __LINE__, m);
        if (want && got && strcmp(want, got))
            printf("# want %s\n# got  %s\n", want, got);
        free(want);
        free(got);
    }
}

int main(void)
{
    json_t *reals = json_array();
    const double values[] = {0.0, -0.0, 1.0, -1.0, 0.1, 1.5, 100.0, 1e15, 1e16, 1e17, 1.2345678901234567e20,
                             1e-5, 1e-7, 3.0e-300, 1.7976931348623157e308, DBL_MIN, 4.9e-324, 123456.789,
                             1764153600.123456, 0.001494407653808594, 2.5e-10, 9007199254740993.0};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        json_array_append_new(reals, json_real(values[i]));
    same_as_jansson(reals, "reals");

    /* 20,000 reals of the kinds the reports hold (times after a start,
     * fractions of a second, sizes in MB, ratios), half of them negative,
     * and 1,000 halves and quarters (ties at low precision): as jansson
     * writes them at each layout's precision (real_g's digits) */
    json_t *many = json_array();
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v = i % 4 == 0   ? (double)(x % 100000000000ull) / 1e9
                   : i % 4 == 1 ? (double)(x % 1000000000000ull) / 1048576.0
                   : i % 4 == 2 ? (double)(x % 10000000) / (double)(1 + (x >> 40) % 999)
                                : (double)(x % 1000000000000000000ull) / 1e9 - 1795720000.0;
        json_array_append_new(many, json_real(i & 1 ? -v : v));
    }
    for (int i = 1; i <= 1000; i++)
        json_array_append_new(many, json_real(i / (i % 2 ? 2.0 : 4.0)));
    same_as_jansson(many, "20,000 reports' reals");
    json_decref(many);

    json_t *ints = json_pack("[I, I, I, I, I, I]", (json_int_t)0, (json_int_t)-1, (json_int_t)42,
                             (json_int_t)INT64_MAX, (json_int_t)INT64_MIN, (json_int_t)-1234567890123LL);
    same_as_jansson(ints, "integers");

    json_t *strings = json_pack("[s, s, s, s, s, s]", "", "plain /path/to/file", "quote \" and backslash \\",
                                "controls \b\f\n\r\t\x01\x1f end", "utf-8 caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                                "del \x7f and slash /");
    same_as_jansson(strings, "strings");

    json_t *doc = json_pack("{s:s, s:{s:i, s:i}, s:n, s:[], s:{}, s:[{s:i, s:b, s:b, s:f, s:[[], {}, [i]]}], s:o, s:o}",
                            "format", "tally-files-1", "bound", "files_per_process", 1024, "bytes_per_process",
                            1053696, "incomplete", "empty_list", "empty_object", "processes", "pid", 7, "forked",
                            1, "ended", 0, "start", 0.25, "nest", 3, "reals", reals, "strings", strings);
    json_object_set_new(doc, "key \"quoted\"\n", ints);
    same_as_jansson(doc, "nested document");
    same_as_jansson(json_object_get(doc, "empty_list"), "empty array alone");

    CHECK(ours(NULL, 2, 16) == NULL);

    /* Piece by piece: the text json_dumps gives for the value so described. */
    for (int indent = 0; indent <= 2; indent += 2) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        struct json_text *t = json_text_open(f, indent, 16);
        json_text_open_object(t);
        json_text_key(t, "pid");
        json_text_integer(t, -42);
        json_text_key(t, "list");
        json_text_open_array(t);
        json_text_real(t, 0.001494407653808594);
        json_text_string(t, "a \"b\"\n");
        json_text_open_object(t);
        json_text_close_object(t);
        json_text_open_array(t);
        json_text_close_array(t);
        json_text_open_array(t);
        json_text_bool(t, false);
        json_text_close_array(t);
        json_text_value(t, json_object_get(doc, "processes"));
        json_text_close_array(t);
        json_text_key(t, "empty");
        json_text_open_object(t);
        json_text_close_object(t);
        json_text_key(t, "ok");
        json_text_bool(t, true);
        json_text_close_object(t);
        CHECK(json_text_close(t) == 0);
        fclose(f);
        json_t *same = json_pack("{s:i, s:[f, s, {}, [], [b], O], s:{}, s:b}", "pid", -42, "list", 0.001494407653808594,
                                 "a \"b\"\n", 0, json_object_get(doc, "processes"), "empty", "ok", 1);
        char *want = json_dumps(same, (indent ? JSON_INDENT(indent) : JSON_COMPACT) | JSON_REAL_PRECISION(16));
        char m[64];
        snprintf(m, sizeof m, "piece by piece, indent %d: as json_dumps", indent);
        test_report(want && text && !strcmp(want, text), __FILE__, __LINE__, m);
        if (want && text && strcmp(want, text))
            printf("# want %s\n# got  %s\n", want, text);
        free(want);
        free(text);
        json_decref(same);
    }
    {
        FILE *f = fopen("/dev/null", "w");
        struct json_text *t = json_text_open(f, 2, 16);
        json_text_open_array(t);
        CHECK(json_text_close(t) == -1); /* a container left open */
        fclose(f);
    }
    { /* JSON has no NaN or infinity: the text fails, as json_dumps refuses them, instead of "nan.0" */
        const double bad[] = {NAN, INFINITY, -INFINITY};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            FILE *f = fopen("/dev/null", "w");
            struct json_text *t = json_text_open(f, 2, 16);
            json_text_open_array(t);
            json_text_real(t, bad[i]);
            json_text_close_array(t);
            CHECK(json_text_close(t) == -1);
            fclose(f);
        }
    }
    json_decref(doc);
    return test_done();
}
