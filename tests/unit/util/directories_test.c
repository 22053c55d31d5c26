/* Unit tests for src/util/directories.c: make_parent_directories makes the
 * missing parents; remove_flat_directory removes a directory of files,
 * and nothing through a symbolic link given in its place (the link's
 * target keeps its files). */
#include "util/directories.h"
#include "test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void touch(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0)
        close(fd);
}

static int exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s%s%s", dir, name ? "/" : "", name ? name : "");
    return lstat(path, &st) == 0;
}

int main(void)
{
    char base[] = "/tmp/tally-directories-test-XXXXXX";
    CHECK(mkdtemp(base) != NULL);
    char why[256], file[512], dir[512], target[512], link[512];

    snprintf(file, sizeof file, "%s/a/b/c.json", base);
    CHECK(make_parent_directories(file, why, sizeof why) == 0);
    snprintf(dir, sizeof dir, "%s/a/b", base);
    CHECK(exists(dir, NULL));

    snprintf(dir, sizeof dir, "%s/scratch", base);
    CHECK(mkdir(dir, 0700) == 0);
    touch(dir, "segment.1");
    touch(dir, "io.2");
    remove_flat_directory(dir);
    CHECK(!exists(dir, NULL));

    /* a link in the directory's place: neither it nor its target's files go */
    snprintf(target, sizeof target, "%s/target", base);
    snprintf(link, sizeof link, "%s/link", base);
    CHECK(mkdir(target, 0700) == 0);
    touch(target, "kept");
    CHECK(symlink(target, link) == 0);
    remove_flat_directory(link);
    CHECK(exists(target, "kept"));
    CHECK(exists(link, NULL));

    remove_flat_directory("/nonexistent/tally-directories-test"); /* nothing to do, no crash */

    unlink(link);
    remove_flat_directory(target);
    CHECK(!exists(target, NULL));
    snprintf(dir, sizeof dir, "%s/a/b", base);
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/a", base);
    rmdir(dir);
    CHECK(rmdir(base) == 0);
    return test_done();
}
