/* Unit tests for the summary reader (src/report/summary_read.c): numbers
 * bare or in [value, "unit"] pairs, fallbacks, unit conversion of a field,
 * the PREFIX-or-PATH rule, and loading with the file named in the error. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/summary_read.h"
#include "test.h"

int main(void)
{
    json_t *o = json_loads("{\"start\": [1700000000.5, \"s\"], \"wall_time\": 12, \"host\": \"n1\","
                           " \"bad\": [\"x\", \"s\"], \"memory\": [2, \"GB\"], \"disk\": [3, \"s\"]}",
                           0, NULL);
    CHECK(o != NULL);
    CHECK_NEAR(summary_number(o, "start", -1), 1700000000.5, 1e-6);
    CHECK_NEAR(summary_number(o, "wall_time", -1), 12, 0);
    CHECK_NEAR(summary_number(o, "absent", -7), -7, 0);
    CHECK_NEAR(summary_number(o, "host", -7), -7, 0);
    CHECK_NEAR(summary_number(o, "bad", -7), -7, 0);
    CHECK(isnan(summary_number(NULL, "start", NAN)));

    double v = 0;
    char detail[160] = "";
    CHECK_INT(summary_field_value(summary_field_find("memory"), json_object_get(o, "memory"), &v, detail, sizeof detail), 0);
    CHECK_NEAR(v, 2048, 1e-9); /* GB → MB */
    CHECK_INT(summary_field_value(summary_field_find("disk"), json_object_get(o, "disk"), &v, detail, sizeof detail), -1);
    CHECK_CONTAINS(detail, "field 'disk': unit \"s\" is not a unit of bytes");
    CHECK_INT(summary_field_value(summary_field_find("start"), json_object_get(o, "bad"), &v, detail, sizeof detail), -1);
    CHECK_CONTAINS(detail, "field 'start': want [number, \"unit\"]");
    json_decref(o);

    char path[64];
    CHECK_INT(summary_path("runs/a", path, sizeof path), 0);
    CHECK_STR(path, "runs/a.summary");
    CHECK_INT(summary_path("runs/a.summary", path, sizeof path), 0);
    CHECK_STR(path, "runs/a.summary");
    CHECK_INT(summary_path("a-very-long-prefix-that-does-not-fit", path, 16), -1);

    char file[] = "/tmp/summary_read_testXXXXXX";
    int fd = mkstemp(file);
    CHECK(fd >= 0);
    CHECK(write(fd, "{\"end\": [5, \"s\"]}", 17) == 17);
    close(fd);
    char why[256] = "";
    json_t *s = summary_load(file, why, sizeof why);
    CHECK(s != NULL);
    CHECK_NEAR(summary_number(s, "end", -1), 5, 0);
    json_decref(s);
    unlink(file);
    CHECK(summary_load(file, why, sizeof why) == NULL);
    CHECK_CONTAINS(why, file);
    CHECK_CONTAINS(why, "No such file or directory");
    return test_done();
}
