/* Fuzzes the Slurm accounting reader (src/archive/sacct.c: sacct --parsable2
 * output → summaries; sacct_seconds, sacct_megabytes). Beyond "no crash, no
 * leak, no UB": sacct_check_header refuses exactly what sacct_parse
 * refuses, with the same words; every summary given is a JSON object with a name and a
 * taskid, its numbers finite and not negative, its text the bytes
 * json_dumps writes of it; every bad line is reported
 * with its line number; a time or size that parses is finite and >= 0. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "archive/sacct.h"
#include "fuzz_input.h"

static void check_number(json_t *v)
{
    if (json_is_array(v))
        v = json_array_get(v, 0);
    if (json_is_number(v) && !(isfinite(json_number_value(v)) && json_number_value(v) >= 0))
        abort();
}

static int take(void *ctx, const char *text, size_t len, size_t line)
{
    (void)ctx;
    json_t *s = json_loadb(text, len, 0, NULL);
    /* the bytes json_dumps writes of it: what the archive reads without a tree */
    char *again = s ? json_dumps(s, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    if (!again || strlen(again) != len || memcmp(again, text, len))
        abort();
    free(again);
    if (!json_is_object(s) || !json_is_string(json_object_get(s, "name")) ||
        !json_is_string(json_object_get(s, "taskid")) || line < 2)
        abort();
    static const char *const numbers[] = {"wall_time", "cpu_time", "memory", "cores", "start",
                                          "end", "exit_status"};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        check_number(json_object_get(s, numbers[i]));
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(s, "requested"), key, v) check_number(v);
    json_decref(s);
    return 0;
}

static void bad(void *ctx, const char *why)
{
    (void)ctx;
    if (strncmp(why, "line ", 5))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[256] = "", header_why[256] = "";
    int header = sacct_check_header((const char *)data, size, header_why, sizeof header_why);
    long n = sacct_parse((const char *)data, size, take, bad, NULL, why, sizeof why);
    if (n < 0 && !why[0])
        abort();
    /* the check made before an archive is opened says what the parse would */
    if ((header < 0) != (n < 0) || (header < 0 && (!header_why[0] || strcmp(header_why, why))))
        abort();
    char *text = fuzz_string(data, size);
    double s = sacct_seconds(text), mb = sacct_megabytes(text, 1);
    if ((s != -1 && !(isfinite(s) && s >= 0)) || (mb != -1 && !(mb >= 0)))
        abort();
    free(text);
    return 0;
}
