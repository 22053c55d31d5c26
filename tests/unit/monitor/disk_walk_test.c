/* disk_walk against fts (disk_walk_fts, the walk tally made before): the
 * same bytes to the bit and the same count of entries, on a tree of hard
 * links, symbolic links (to a directory, dangling), a FIFO and empty
 * directories; a tree 45 levels deep (past the levels disk_walk holds open:
 * the rest handed to fts); the same tree with 16 descriptors allowed (the
 * walk runs out of them and hands subtrees to fts); a root that is a file or
 * a symbolic link (counted as one entry, as fts gives it); a root that does
 * not exist (nothing); and the repository the test runs in. */
#include "monitor/disk_walk.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

static void write_file(const char *path, size_t bytes)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char block[4096];
    memset(block, 'x', sizeof block);
    for (size_t done = 0; fd >= 0 && done < bytes; done += sizeof block)
        if (write(fd, block, bytes - done < sizeof block ? bytes - done : sizeof block) < 0)
            break;
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Both walks of root; the check names what is compared. */
static void same(const char *what, const char *root, double want_files)
{
    double b1 = 0, f1 = 0, b2 = 0, f2 = 0;
    disk_walk(root, &b1, &f1);
    disk_walk_fts(root, &b2, &f2);
    char m[300];
    snprintf(m, sizeof m, "%s: bytes %.17g (fts %.17g), files %.0f (fts %.0f)", what, b1, b2, f1, f2);
    test_report(b1 == b2 && f1 == f2 && (want_files < 0 || f1 == want_files), __FILE__, __LINE__, m);
}

int main(void)
{
    char root[] = "/tmp/disk_walk_test.XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char p[4096], q[4200];
    /* files of several sizes, one with three links (a third each) */
    for (int i = 0; i < 20; i++) {
        snprintf(p, sizeof p, "%s/f%d", root, i);
        write_file(p, (size_t)i * 1500);
    }
    snprintf(p, sizeof p, "%s/f7", root);
    snprintf(q, sizeof q, "%s/link7a", root);
    CHECK(link(p, q) == 0);
    snprintf(q, sizeof q, "%s/sub", root);
    CHECK(mkdir(q, 0700) == 0);
    snprintf(q, sizeof q, "%s/sub/link7b", root);
    CHECK(link(p, q) == 0);
    snprintf(q, sizeof q, "%s/sub/empty", root);
    CHECK(mkdir(q, 0700) == 0);
    /* and one of 4 KiB with three links: 4096 / 3 bytes at each, not a whole number */
    snprintf(p, sizeof p, "%s/f1", root);
    snprintf(q, sizeof q, "%s/link1a", root);
    CHECK(link(p, q) == 0);
    snprintf(q, sizeof q, "%s/sub/link1b", root);
    CHECK(link(p, q) == 0);
    snprintf(q, sizeof q, "%s/to_sub", root);
    CHECK(symlink("sub", q) == 0);
    snprintf(q, sizeof q, "%s/dangling", root);
    CHECK(symlink("nowhere", q) == 0);
    snprintf(q, sizeof q, "%s/sub/fifo", root);
    CHECK(mkfifo(q, 0600) == 0);
    /* 45 levels, a file at each */
    size_t n = (size_t)snprintf(p, sizeof p, "%s/deep", root);
    int made = 0;
    for (int i = 0; i < 45 && mkdir(p, 0700) == 0; i++, made++) {
        snprintf(q, sizeof q, "%s/x", p);
        write_file(q, 5000 + (size_t)i * 3);
        n += (size_t)snprintf(p + n, sizeof p - n, "/d");
    }
    CHECK_INT(made, 45);
    /* 20 + 4 links + fifo + 2 symbolic links + 45 deep files */
    same("a tree of links, a FIFO and 45 levels", root, 72);

    struct rlimit old, few;
    CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
    few = old;
    few.rlim_cur = 16;
    CHECK(setrlimit(RLIMIT_NOFILE, &few) == 0);
    same("the same with 16 descriptors", root, 72);
    CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);

    snprintf(p, sizeof p, "%s/f3", root);
    same("a root that is a file", p, 1);
    snprintf(p, sizeof p, "%s/to_sub", root);
    same("a root that is a symbolic link (not followed)", p, 1);
    snprintf(p, sizeof p, "%s/none", root);
    same("a root that does not exist", p, 0);
    same("the current directory", ".", -1);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    return test_done();
}
