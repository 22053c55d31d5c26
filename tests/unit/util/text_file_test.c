/* Unit tests for reading a whole file (src/util/text_file.c): contents past
 * one read's chunk, an empty file, and the errno of what cannot be read. */
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
    char path[256];
    snprintf(path, sizeof path, "%s/big", dir);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 20000; i++) /* 200,000 bytes: more than one chunk */
        fprintf(f, "line %04d\n", i % 10000);
    fclose(f);
    size_t len = 0;
    char *text = text_file_read(path, &len);
    CHECK(text != NULL);
    CHECK_INT(len, 200000);
    CHECK_INT(strlen(text), 200000);
    CHECK(text && !strncmp(text + 199990, "line 9999\n", 10));
    free(text);

    snprintf(path, sizeof path, "%s/empty", dir);
    fclose(fopen(path, "w"));
    text = text_file_read(path, NULL);
    CHECK_STR(text, "");
    free(text);
    unlink(path);

    snprintf(path, sizeof path, "%s/absent", dir);
    errno = 0;
    CHECK(text_file_read(path, &len) == NULL);
    CHECK_INT(errno, ENOENT);
    errno = 0;
    CHECK(text_file_read(dir, &len) == NULL); /* a directory opens, but does not read */
    CHECK_INT(errno, EISDIR);

    snprintf(path, sizeof path, "%s/big", dir);
    unlink(path);
    rmdir(dir);
    return test_done();
}
