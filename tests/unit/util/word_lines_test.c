/* Unit tests for the word-line reader (src/util/word_lines.c): comments and
 * blank lines skipped, words split on blanks, a refused line named by its
 * number, and a file that cannot be read named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "util/word_lines.h"

struct seen {
    char text[256];
    int lines;
};

/* Joins each line's words with '|' and lines with ';'; refuses a line whose first word is "bad". */
static int collect(void *ctx, char **words, size_t n, char *why, size_t why_size)
{
    struct seen *s = ctx;
    if (!strcmp(words[0], "bad")) {
        snprintf(why, why_size, "host '%s' refused", words[0]);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        snprintf(s->text + strlen(s->text), sizeof s->text - strlen(s->text), "%s%s", i ? "|" : "", words[i]);
    snprintf(s->text + strlen(s->text), sizeof s->text - strlen(s->text), ";");
    s->lines++;
    return 0;
}

int main(void)
{
    char path[] = "/tmp/word_lines_testXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char *text = "# capacities\n\nn1 disk=100  network=50 # fast\n*\tdisk=5\r\n   # only a comment\n";
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    struct seen s = {"", 0};
    char why[256] = "";
    CHECK_INT(word_lines_read(path, collect, &s, why, sizeof why), 0);
    CHECK_STR(s.text, "n1|disk=100|network=50;*|disk=5;");
    CHECK_INT(s.lines, 2);

    FILE *f = fopen(path, "w");
    fputs("n1 a\n\nbad x\nn2 never\n", f);
    fclose(f);
    memset(&s, 0, sizeof s);
    CHECK_INT(word_lines_read(path, collect, &s, why, sizeof why), -1);
    CHECK_CONTAINS(why, ":3: host 'bad' refused");
    CHECK_STR(s.text, "n1|a;");

    unlink(path);
    CHECK_INT(word_lines_read(path, collect, &s, why, sizeof why), -1);
    CHECK_CONTAINS(why, "No such file or directory");
    return test_done();
}
