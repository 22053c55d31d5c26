/* disk_measure: the blocks and files under the task's directories, a
 * hard-linked file once when all its links are inside, a subdirectory's
 * files counted, symbolic links not followed, and two walks at once in two
 * threads (no state shared between them) each give their own tree's figures. */
#include "monitor/disk.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/units.h"
#include "test.h"

static void write_file(const char *path, size_t bytes)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char block[4096];
    memset(block, 'x', sizeof block);
    for (size_t done = 0; fd >= 0 && done < bytes; done += sizeof block)
        if (write(fd, block, sizeof block) < 0)
            break;
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

static double blocks_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? (double)st.st_blocks * 512.0 : -1;
}

struct walk_job {
    const char *dir;
    struct disk_usage got;
};

static void *walk_many(void *arg)
{
    struct walk_job *j = arg;
    const char *dirs[] = {j->dir};
    for (int i = 0; i < 200; i++)
        disk_measure(dirs, 1, &j->got);
    return NULL;
}

int main(void)
{
    char root[] = "/tmp/disk_test.XXXXXX", other[] = "/tmp/disk_test.XXXXXX";
    CHECK(mkdtemp(root) && mkdtemp(other));
    char a[256], b[256], sub[256], c[256], link_path[256], outside[256];
    snprintf(a, sizeof a, "%s/a", root);
    snprintf(b, sizeof b, "%s/b_hardlink_of_a", root);
    snprintf(sub, sizeof sub, "%s/sub", root);
    snprintf(c, sizeof c, "%s/sub/c", root);
    snprintf(link_path, sizeof link_path, "%s/to_outside", root);
    snprintf(outside, sizeof outside, "%s/big", other);
    write_file(a, 65536);
    CHECK(link(a, b) == 0);
    CHECK(mkdir(sub, 0700) == 0);
    write_file(c, 8192);
    write_file(outside, 1 << 20);
    CHECK(symlink(other, link_path) == 0); /* not followed: its 1 MiB is not the task's */
    double want = blocks_of(a) + blocks_of(c) + blocks_of(link_path);

    struct disk_usage d;
    const char *dirs[] = {root};
    disk_measure(dirs, 1, &d);
    CHECK_NEAR(d.megabytes, want / BYTES_PER_MB, 1e-9);
    CHECK_NEAR(d.files, 4, 0); /* a, its link (half each), c, the symbolic link */

    /* two directories: both counted */
    const char *both[] = {root, other};
    disk_measure(both, 2, &d);
    CHECK_NEAR(d.megabytes, (want + blocks_of(outside)) / BYTES_PER_MB, 1e-9);
    CHECK_NEAR(d.files, 5, 0);

    /* two threads walking two trees at once */
    struct walk_job j1 = {.dir = root}, j2 = {.dir = other};
    pthread_t t1, t2;
    CHECK(pthread_create(&t1, NULL, walk_many, &j1) == 0);
    CHECK(pthread_create(&t2, NULL, walk_many, &j2) == 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    CHECK_NEAR(j1.got.megabytes, want / BYTES_PER_MB, 1e-9);
    CHECK_NEAR(j2.got.megabytes, blocks_of(outside) / BYTES_PER_MB, 1e-9);
    CHECK_NEAR(j2.got.files, 1, 0);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, other);
    CHECK(system(cmd) == 0);
    return test_done();
}
