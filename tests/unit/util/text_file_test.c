/* Unit tests for the bounded readers (src/util/text_file.c): contents past
 * one read's chunk, an empty file, the bound reached exactly and passed,
 * /dev/zero, a FIFO nobody writes to, reasons for what cannot be read, and
 * the line reader's bounds (total, line length, NUL bytes). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "util/text_file.h"

int main(void)
{
    char dir[] = "/tmp/text_file_test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], why[160];
    snprintf(path, sizeof path, "%s/big", dir);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 20000; i++) /* 200,000 bytes: more than one chunk */
        fprintf(f, "line %04d\n", i % 10000);
    fclose(f);
    size_t len = 0;
    char *text = text_file_read(path, 200000, &len, why, sizeof why);
    CHECK(text != NULL);
    CHECK_INT(len, 200000);
    CHECK_INT(strlen(text), 200000);
    CHECK(text && !strncmp(text + 199990, "line 9999\n", 10));
    free(text);
    /* one byte over the bound: refused, saying the bound */
    CHECK(text_file_read(path, 199999, &len, why, sizeof why) == NULL);
    CHECK_STR(why, "larger than 199999 bytes (the most read from such a file)");

    /* lines: every line back, numbered; bounds on the total and on a line */
    struct text_lines in;
    char *line;
    CHECK_INT(text_lines_open(&in, path, 200000, 9, why, sizeof why), 0);
    int lines = 0, got;
    while ((got = text_lines_next(&in, &line, &len)) > 0)
        lines += len == 9 && !strncmp(line, "line ", 5);
    CHECK_INT(got, 0);
    CHECK_INT(lines, 20000);
    CHECK_INT(in.number, 20000);
    text_lines_close(&in);
    CHECK_INT(text_lines_open(&in, path, 200000, 8, why, sizeof why), 0);
    CHECK_INT(text_lines_next(&in, &line, &len), -1);
    CHECK_STR(in.why, "line 1 is longer than 8 bytes");
    text_lines_close(&in);
    CHECK_INT(text_lines_open(&in, path, 1024, 100, why, sizeof why), 0);
    while ((got = text_lines_next(&in, &line, &len)) > 0)
        ;
    CHECK_INT(got, -1);
    CHECK_STR(in.why, "larger than 1 KB (the most read from such a file)");
    CHECK_INT(in.number, 102); /* 102 whole lines are 1020 bytes */
    text_lines_close(&in);

    /* /dev/zero: stops at the bound, or at its first byte for lines */
    CHECK(text_file_read("/dev/zero", TEXT_FILE_SMALL, &len, why, sizeof why) == NULL);
    CHECK_STR(why, "larger than 1 MB (the most read from such a file)");
    CHECK_INT(text_lines_open(&in, "/dev/zero", TEXT_FILE_LARGE, TEXT_LINE_MAX, why, sizeof why), 0);
    CHECK_INT(text_lines_next(&in, &line, &len), -1);
    CHECK_STR(in.why, "a NUL byte on line 1: not a text file");
    text_lines_close(&in);

    /* a last line without a newline is a line */
    snprintf(path, sizeof path, "%s/last", dir);
    f = fopen(path, "w");
    fputs("a\nb", f);
    fclose(f);
    CHECK_INT(text_lines_open(&in, path, 100, 100, why, sizeof why), 0);
    CHECK_INT(text_lines_next(&in, &line, &len), 1);
    CHECK_STR(line, "a");
    CHECK_INT(text_lines_next(&in, &line, &len), 1);
    CHECK_STR(line, "b");
    CHECK_INT(text_lines_next(&in, &line, &len), 0);
    text_lines_close(&in);
    unlink(path);

    snprintf(path, sizeof path, "%s/empty", dir);
    fclose(fopen(path, "w"));
    text = text_file_read(path, 10, NULL, why, sizeof why);
    CHECK_STR(text, "");
    free(text);
    unlink(path);

    /* a FIFO nobody writes to: not waited for */
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK_INT(mkfifo(path, 0600), 0);
    text = text_file_read(path, 10, &len, why, sizeof why);
    CHECK_STR(text, "");
    free(text);
    CHECK_INT(text_file_open(path, true, why, sizeof why), -1);
    CHECK_STR(why, "is a FIFO, not a regular file");
    unlink(path);

    snprintf(path, sizeof path, "%s/absent", dir);
    CHECK(text_file_read(path, 10, &len, why, sizeof why) == NULL);
    CHECK_STR(why, strerror(ENOENT));
    CHECK(text_file_read(dir, 10, &len, why, sizeof why) == NULL);
    CHECK_STR(why, strerror(EISDIR));

    snprintf(path, sizeof path, "%s/big", dir);
    unlink(path);
    rmdir(dir);
    return test_done();
}
