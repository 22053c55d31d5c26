/* Unit tests for text built in memory (src/util/text_builder.c): pieces in
 * order, an empty text is "" (not a failure), a text of megabytes comes back
 * whole, and the stream is gone after finish. */
#include "util/text_builder.h"

#include <stdlib.h>

#include "test.h"

int main(void)
{
    char why[64] = "";
    struct text_builder b;
    CHECK(text_builder_open(&b, why, sizeof why) == 0);
    fputs("SELECT id", b.out);
    for (int i = 0; i < 3; i++)
        fprintf(b.out, ", \"f%d\"", i);
    fputs(" FROM t", b.out);
    char *text = text_builder_finish(&b, why, sizeof why);
    CHECK_STR(text, "SELECT id, \"f0\", \"f1\", \"f2\" FROM t");
    CHECK(b.out == NULL);
    CHECK_STR(why, "");
    free(text);

    CHECK(text_builder_open(&b, why, sizeof why) == 0);
    text = text_builder_finish(&b, why, sizeof why);
    CHECK(text != NULL);
    CHECK_STR(text ? text : "(null)", "");
    free(text);

    CHECK(text_builder_open(&b, why, sizeof why) == 0);
    for (int i = 0; i < 200000; i++)
        fputs(", ?", b.out);
    text = text_builder_finish(&b, why, sizeof why);
    CHECK(text && strlen(text) == 600000);
    CHECK(text && text[599997] == ',' && text[599999] == '?');
    free(text);
    return test_done();
}
