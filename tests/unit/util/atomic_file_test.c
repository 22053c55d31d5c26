/* Unit tests for atomic files (src/util/atomic_file.c): a commit puts the
 * whole file in place; a write that fails early (here the file-size limit,
 * RLIMIT_FSIZE: a real EFBIG from the kernel, as a full disk gives ENOSPC)
 * makes the commit fail with that error, not with whatever errno says by
 * then, and leaves neither the target nor a temporary file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "util/atomic_file.h"

static int write_hello(void *ctx, FILE *out)
{
    return fputs((const char *)ctx, out) < 0 ? -1 : 0;
}

static int write_then_fail(void *ctx, FILE *out)
{
    fputs("half", out);
    return -1; /* no errno: the writer's own failure */
}

int main(void)
{
    char dir[] = "/tmp/atomic_file_test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/out", dir);

    struct atomic_file af;
    CHECK_INT(atomic_file_open(&af, path), 0);
    for (int i = 0; i < 10000; i++)
        fprintf(af.fp, "line %d\n", i);
    CHECK_INT(atomic_file_commit(&af), 0);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size > 50000);
    unlink(path);

    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, small = {16384, 16384};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    CHECK_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
    CHECK_INT(atomic_file_open(&af, path), 0);
    for (int i = 0; i < 10000; i++) /* ~90 KB: fails past 16 KB, long before the commit */
        fprintf(af.fp, "line %d\n", i);
    errno = ECHILD; /* what waitpid left, as in tally run */
    CHECK_INT(atomic_file_commit(&af), -1);
    CHECK_INT(errno, EFBIG);
    CHECK(stat(path, &st) != 0);
    setrlimit(RLIMIT_FSIZE, &old);

    /* atomic_write_with: the writer fills the file; a failing one leaves the target as it was */
    CHECK_INT(atomic_write_with(path, write_hello, "hello\n"), 0);
    CHECK(stat(path, &st) == 0 && st.st_size == 6);
    errno = 0;
    CHECK_INT(atomic_write_with(path, write_then_fail, NULL), -1);
    CHECK_INT(errno, EIO);
    CHECK(stat(path, &st) == 0 && st.st_size == 6);
    unlink(path);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
    CHECK(system(cmd) == 0); /* no temporary file left */
    rmdir(dir);
    return test_done();
}
