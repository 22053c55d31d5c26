/* The checks of libtally-io's last-path cache (lib/io/records.c: each
 * thread's last path looked up and its record, found again by comparing
 * bytes), shared by the unit tests of its two forms: io_last_path_test.c
 * (sixteen bytes at a time, SSE2, as x86-64 builds it) and
 * io_last_path_word_test.c (eight bytes at a time, as other machines build
 * it). Included after lib/io/records.c. A buffer reused with other contents
 * (longer, shorter, differing only in its last byte) gets the other file's
 * record; a relative path follows the current directory (chdir) and is not
 * taken for a path relative to another directory descriptor; a forked
 * child's reset forgets it; the incomplete record is never kept (every
 * lookup past the bound is counted); paths ending right before a PROT_NONE
 * page are compared without a fault, by blocks and byte by byte (as under
 * memcheck); threads looking up paths of their own in turn, each from one
 * buffer rewritten, each get their own path's record. */

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "test.h"

/* What records.c takes from the rest of the helper. */
struct tally_io_header *io_region;
struct io_fd io_fds[IO_MAX_FDS];
int io_fd_high = -1;

static char *page; /* a page followed by a PROT_NONE one */

/* S copied so that its NUL is the last byte before the guard page. */
static char *on_page_end(const char *s)
{
    size_t len = strlen(s);
    char *at = page + 4096 - len - 1;
    memcpy(at, s, len + 1);
    return at;
}

static void new_region(void)
{
    free(io_region);
    io_region = aligned_alloc(4096, (TALLY_IO_SIZE + 4095) / 4096 * 4096);
    if (!io_region)
        abort();
    memset(io_region, 0, TALLY_IO_SIZE);
    io_records_reset();
}

/* The record of PATH relative to DIRFD, checked to be named WANT. */
static int32_t lookup(int dirfd, const char *path, const char *want)
{
    int32_t rec = io_record_for(dirfd, path);
    if (rec < 1 || rec > TALLY_IO_CAPACITY || strcmp(io_rec(rec)->path, want) != 0) {
        printf("# %s: record %d named %s, want %s\n", path, rec,
               rec >= 1 && rec <= TALLY_IO_CAPACITY ? io_rec(rec)->path : "(none)", want);
        return -1;
    }
    return rec;
}

/* One buffer, its contents changed between lookups. */
static void check_reused_buffer(void)
{
    new_region();
    static char buf[4096] __attribute__((aligned(16))); /* the blocks past its NUL are its own */
    static const char *paths[] = {"/data/run/out.dat", "/data/run/out.dau", "/data/run/out.dat.1",
                                  "/data/run/out.da", "/data/run/out.dat", "/data/run/out.dat/",
                                  "/data/run/other/and/a/longer/name/past/two/blocks.txt",
                                  "/data/run/other/and/a/longer/name/past/two/blocks.txx", "/"};
    static const char *names[] = {"/data/run/out.dat", "/data/run/out.dau", "/data/run/out.dat.1",
                                  "/data/run/out.da", "/data/run/out.dat", "/data/run/out.dat",
                                  "/data/run/other/and/a/longer/name/past/two/blocks.txt",
                                  "/data/run/other/and/a/longer/name/past/two/blocks.txx", "/"};
    int bad = 0;
    int32_t first = 0;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        strcpy(buf, paths[i]);
        int32_t rec = lookup(AT_FDCWD, buf, names[i]);
        bad += rec < 0;
        if (i == 0)
            first = rec;
        if ((i == 4 || i == 5) && rec != first) /* the same file again, and in another form */
            bad++;
        if (lookup(AT_FDCWD, buf, names[i]) != rec) /* looked up again: the same */
            bad++;
    }
    CHECK_INT(bad, 0);
    CHECK_INT((int)io_region->records, 7); /* out.dat, out.dau, out.dat.1, out.da, two long ones, / */
    /* the buffer's bytes past its NUL differ from the last path's: no matter */
    memset(buf, 'x', sizeof buf);
    strcpy(buf, "/data/run/out.da");
    CHECK(lookup(AT_FDCWD, buf, "/data/run/out.da") > 0);
    memset(buf, 0, sizeof buf);
    strcpy(buf, "/data/run/out.da");
    CHECK(lookup(AT_FDCWD, buf, "/data/run/out.da") > 0);
    CHECK_INT((int)io_region->records, 7);
}

/* Paths whose NUL is the last byte of a readable page, against a last path
 * longer, shorter and equal: no fault, the right records. */
static void check_page_end(void)
{
    new_region();
    int bad = 0;
    static const char *a[] = {"/p/a", "/p/abcdefghijklmnopqrstuvwxyz0123456789", "/p/ab", "/p/a",
                              "/p/abcdefghijklmnopqrstuvwxyz012345678", "/p/abcdefghijklmnopqrstuvwxyz0123456789"};
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
            bad += lookup(AT_FDCWD, on_page_end(a[i]), a[i]) < 0;
            /* the same path again, at each place near the page's end */
            for (size_t back = 0; back < 40; back++) {
                size_t len = strlen(a[i]);
                char *at = page + 4096 - len - 1 - back;
                memcpy(at, a[i], len + 1);
                bad += lookup(AT_FDCWD, at, a[i]) < 0;
            }
        }
        io_scan_exact(); /* as under memcheck: byte by byte */
    }
    CHECK_INT(bad, 0);
    CHECK_INT((int)io_region->records, 4);
    block_limit = 4096 - BLOCK;
}

/* A relative path: its record follows the current directory, and the
 * same name relative to another directory descriptor is another file. */
static void check_relative(void)
{
    new_region();
    char top[] = "/tmp/tally-last-path-XXXXXX";
    if (!mkdtemp(top))
        abort();
    char a[PATH_MAX], b[PATH_MAX], want[PATH_MAX + 16];
    snprintf(a, sizeof a, "%s/a", top);
    snprintf(b, sizeof b, "%s/b", top);
    if (mkdir(a, 0700) != 0 || mkdir(b, 0700) != 0 || chdir(a) != 0)
        abort();
    io_cwd_changed();
    char *name = on_page_end("data.txt");
    snprintf(want, sizeof want, "%s/data.txt", a);
    int32_t in_a = lookup(AT_FDCWD, name, want);
    CHECK(in_a > 0);
    CHECK_INT(lookup(AT_FDCWD, name, want), in_a);
    if (chdir(b) != 0)
        abort();
    io_cwd_changed(); /* as the chdir wrapper does */
    snprintf(want, sizeof want, "%s/data.txt", b);
    int32_t in_b = lookup(AT_FDCWD, name, want);
    CHECK(in_b > 0 && in_b != in_a);
    /* relative to a descriptor of directory a, while the current one is b */
    int dirfd = open(a, O_RDONLY | O_DIRECTORY);
    CHECK(dirfd >= 0);
    snprintf(want, sizeof want, "%s/data.txt", a);
    CHECK_INT(lookup(dirfd, name, want), in_a);
    snprintf(want, sizeof want, "%s/data.txt", b);
    CHECK_INT(lookup(AT_FDCWD, name, want), in_b);
    close(dirfd);
    if (chdir("/") != 0 || rmdir(a) != 0 || rmdir(b) != 0 || rmdir(top) != 0)
        abort();
    io_cwd_changed();
}

/* A forked child's reset: the table and the last path forgotten, the same
 * path taken anew (a record of the child's region). */
static void check_reset(void)
{
    new_region();
    char *p = on_page_end("/p/reset");
    int32_t before = lookup(AT_FDCWD, p, "/p/reset");
    CHECK_INT(lookup(AT_FDCWD, p, "/p/reset"), before);
    io_records_reset();
    int32_t after = lookup(AT_FDCWD, p, "/p/reset");
    CHECK(after > 0 && after != before);
    CHECK_INT((int)io_region->records, 2);
}

/* Past the bound: every lookup of a file with no record is counted. */
static void check_incomplete(void)
{
    new_region();
    char path[64];
    int bad = 0;
    for (int i = 0; i < TALLY_IO_CAPACITY; i++) {
        snprintf(path, sizeof path, "/p/file%d", i);
        bad += lookup(AT_FDCWD, path, path) < 0;
    }
    CHECK_INT(bad, 0);
    char *p = on_page_end("/p/one/too/many");
    for (int i = 0; i < 3; i++)
        CHECK_INT(io_record_for(AT_FDCWD, p), TALLY_IO_CAPACITY + 1);
    CHECK_INT((int)io_region->past_bound, 3);
    /* a file with a record is still found, by the table, then by the cache */
    int32_t seven = lookup(AT_FDCWD, on_page_end("/p/file7"), "/p/file7");
    CHECK(seven > 0);
    CHECK_INT(lookup(AT_FDCWD, on_page_end("/p/file7"), "/p/file7"), seven);
    CHECK_INT((int)io_region->past_bound, 3);
}

/* Threads, each looking up two paths of its own in turn, from one buffer
 * of its own rewritten each time: each gets its own path's record. */
#define THREADS 4
#define ROUNDS 20000
static int32_t thread_recs[THREADS][2];
static char thread_names[THREADS][2][64];

static void *thread_main(void *arg)
{
    long t = (long)arg;
    char *buf = page + 256 * (size_t)t; /* its own part of the page */
    char (*names)[64] = thread_names[t];
    long bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        int k = r % 3 == 0; /* first, first, second, ...: hits and misses */
        strcpy(buf, names[k]);
        int32_t rec = io_record_for(AT_FDCWD, buf);
        if (rec < 1 || rec > TALLY_IO_CAPACITY || strcmp(io_rec(rec)->path, names[k]) != 0)
            bad++;
        else if (thread_recs[t][k] == 0)
            thread_recs[t][k] = rec;
        else if (thread_recs[t][k] != rec)
            bad++;
    }
    return (void *)bad;
}

static void check_threads(void)
{
    new_region();
    /* The paths' home slots differ: no two threads race for one slot (the
     * loser's record would stay, and its path be given a second one, which
     * the monitor merges: not what is tested here). */
    int same_home = 0;
    for (long t = 0; t < THREADS; t++) {
        snprintf(thread_names[t][0], sizeof thread_names[t][0], "/threads/t%ld/first", t);
        snprintf(thread_names[t][1], sizeof thread_names[t][1], "/threads/t%ld/second-and-longer", t);
    }
    for (int i = 0; i < 2 * THREADS; i++)
        for (int j = 0; j < i; j++) {
            size_t n;
            bool odd;
            uint64_t hi = scan_path(on_page_end(thread_names[i / 2][i % 2]), &n, &odd);
            uint64_t hj = scan_path(on_page_end(thread_names[j / 2][j % 2]), &n, &odd);
            same_home += (hi & (HASH_SLOTS - 1)) == (hj & (HASH_SLOTS - 1));
        }
    CHECK_INT(same_home, 0);
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        if (pthread_create(&th[t], NULL, thread_main, (void *)t) != 0)
            abort();
    long bad = 0;
    for (int t = 0; t < THREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        bad += (long)r;
    }
    CHECK_INT(bad, 0);
    CHECK_INT((int)io_region->records, 2 * THREADS);
}

static int run_last_path_checks(void)
{
    page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED || mprotect(page + 4096, 4096, PROT_NONE) != 0)
        abort();
    memset(page, 'x', 4096);
    check_reused_buffer();
    check_page_end();
    check_relative();
    check_reset();
    check_incomplete();
    check_threads();
    return test_done();
}
