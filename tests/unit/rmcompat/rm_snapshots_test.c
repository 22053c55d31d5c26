/* rm_snapshots: parsing --snapshot-events and the events a poll sees
 * (create, complete appended lines against patterns, count, truncate,
 * delete, delete-if-found), in a temporary directory. */
#include "rmcompat/rm_snapshots.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static void append(const char *path, const char *text)
{
    FILE *f = fopen(path, "a");
    fputs(text, f);
    fclose(f);
}

int main(void)
{
    char dir[] = "/tmp/tally-snapshots-test.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) < 0)
        return 1;
    char why[256], labels[256];
    struct rm_snapshots *s = rm_snapshots_parse(
        "{\"log\": {\"events\": [{\"label\": \"made\", \"on-create\": true},"
        " {\"label\": \"step\", \"on-pattern\": \"^STEP [0-9]+$\", \"count\": 3},"
        " {\"label\": \"cut\", \"on-truncate\": true}, {\"label\": \"gone\", \"on-delete\": true}]},"
        " \"flag\": {\"delete-if-found\": true, \"events\": [{\"label\": \"flag\", \"on-create\": true}]}}",
        why, sizeof why);
    CHECK(s != NULL);
    CHECK_INT(rm_snapshots_poll(s, labels, sizeof labels), 0);
    append("log", "STEP 1\n");
    CHECK_INT(rm_snapshots_poll(s, labels, sizeof labels), 2);
    CHECK_STR(labels, "made(1),step(1)"); /* a new file is read from its start */
    append("log", "STEP 2\nnot a step\nSTEP 3\nSTEP");
    CHECK_INT(rm_snapshots_poll(s, labels, sizeof labels), 1);
    CHECK_STR(labels, "step(2)"); /* the unfinished last line waits */
    append("log", " 4\n");
    CHECK_INT(rm_snapshots_poll(s, labels, sizeof labels), 0); /* count 3 reached */
    FILE *f = fopen("log", "w");
    fclose(f);
    CHECK_INT(rm_snapshots_poll(s, labels, sizeof labels), 1);
    CHECK_STR(labels, "cut(1)");
    unlink("log");
    append("flag", "");
    CHECK_INT(rm_snapshots_poll(s, labels, sizeof labels), 2);
    CHECK_STR(labels, "gone(1),flag(1)");
    CHECK(access("flag", F_OK) != 0); /* delete-if-found */
    append("flag", "");
    CHECK_INT(rm_snapshots_poll(s, labels, sizeof labels), 1);
    rm_snapshots_free(s);

    CHECK(rm_snapshots_parse("[1]", why, sizeof why) == NULL);
    CHECK_CONTAINS(why, "not an object");
    CHECK(rm_snapshots_parse("{\"f\": {\"events\": [{\"label\": \"a b\", \"on-create\": true}]}}", why, sizeof why) == NULL);
    CHECK_CONTAINS(why, "label");
    CHECK(rm_snapshots_parse("{\"f\": {\"events\": [{\"label\": \"a\", \"on-create\": true, \"on-delete\": true}]}}", why, sizeof why) == NULL);
    CHECK_CONTAINS(why, "exactly one");
    CHECK(rm_snapshots_parse("{\"f\": {\"events\": [{\"label\": \"a\", \"on-pattern\": \"(\"}]}}", why, sizeof why) == NULL);
    CHECK_CONTAINS(why, "on-pattern");
    CHECK(rm_snapshots_parse("{\"f\": {\"events\": []}}", why, sizeof why) == NULL);
    CHECK_CONTAINS(why, "'f'");
    CHECK(rm_snapshots_parse("{", why, sizeof why) == NULL);
    CHECK_CONTAINS(why, "line 1");
    if (chdir("/") == 0)
        rmdir(dir);
    return test_done();
}
