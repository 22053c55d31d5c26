/* The checks of libtally-io's path scan (lib/io/records.c: scan_path, one
 * pass for a path's hash, length and whether it may not be normal) and of
 * the records it finds, shared by the unit tests of its two forms:
 * io_path_scan_test.c (sixteen bytes at a time, SSE2, as x86-64 builds it)
 * and io_path_scan_word_test.c (eight bytes at a time, as other machines
 * build it). Included after lib/io/records.c. A path is placed at every
 * alignment and so that its NUL is the last byte before a PROT_NONE page:
 * the scan reads whole blocks and must neither fault nor let the bytes
 * past the NUL change anything; the same again scanned byte by byte, as
 * under valgrind's memcheck (io_scan_exact). */
#include <stdlib.h>
#include <sys/mman.h>

#include "test.h"

/* What records.c takes from the rest of the helper. */
struct tally_io_header *io_region;
struct io_fd io_fds[IO_MAX_FDS];
int io_fd_high = -1;

/* Two pages, the second PROT_NONE; the first filled with NOISE. */
static char *guarded_page(int noise)
{
    char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m + 4096, 4096, PROT_NONE) != 0)
        abort();
    memset(m, noise, 4096);
    return m;
}

/* The definition of *odd: a slash followed by a slash or a dot, or a slash last. */
static bool odd_by_definition(const char *s)
{
    for (; *s; s++)
        if (*s == '/' && (s[1] == '/' || s[1] == '.' || s[1] == '\0'))
            return true;
    return false;
}

static char *page, *page2;

/* S scanned where it starts at each offset 0..31 of PAGE and where it ends
 * right before the guard page, with other bytes after its NUL: the same
 * hash, the length, and the flag as defined (a superset of the paths not
 * normal: "/.a" is flagged, then found normal by is_normal). */
static int scan_everywhere(const char *s, uint64_t *hash_out)
{
    size_t len = strlen(s), n;
    bool odd, want = odd_by_definition(s);
    uint64_t h0 = 0;
    int bad = 0;
    for (int place = 0; place < 32 + 16; place++) {
        char *at;
        if (place < 32) {
            at = page + place;
        } else { /* the NUL at 4095 - (place - 32): the last block crosses into the guard */
            at = page2 + 4096 - (size_t)(place - 32) - len - 1;
        }
        memcpy(at, s, len + 1);
        uint64_t h = scan_path(at, &n, &odd);
        if (place == 0)
            h0 = h;
        if (h != h0 || n != len || odd != want)
            bad++;
        memset(at, place & 1 ? '/' : 'x', len + 1); /* other bytes after the next string's NUL */
    }
    if (s[0] == '/' && !is_normal(s) && !want) /* a path not normal taken as it is */
        bad++;
    *hash_out = h0;
    return bad;
}

static void check_scan(void)
{
    page = guarded_page('x');
    page2 = guarded_page('/');
    /* every path of length 0..20 made of 'a', '/', '.' drawn at random,
     * and longer ones of every length to 70 */
    static const char alphabet[] = "a/.";
    char s[128];
    int bad = 0, collisions = 0;
    uint64_t hashes[4000];
    char seen[4000][72];
    int kept = 0;
    srand(29);
    for (int i = 0; i < 4000; i++) {
        size_t len = (size_t)(i < 2000 ? i % 21 : i % 71);
        s[0] = '/';
        for (size_t k = i % 3 ? 1 : 0; k < len; k++)
            s[k] = alphabet[rand() % 3];
        s[len] = '\0';
        uint64_t h;
        bad += scan_everywhere(s, &h);
        int dup = 0;
        for (int j = 0; j < kept && !dup; j++)
            if (hashes[j] == h && !(dup = !strcmp(seen[j], s)))
                collisions++;
        if (!dup && kept < 4000) {
            hashes[kept] = h;
            strcpy(seen[kept++], s);
        }
    }
    CHECK_INT(bad, 0);
    CHECK_INT(collisions, 0); /* 64-bit hashes of a few thousand distinct paths */
    CHECK(kept > 1000);
}

/* S copied so that its NUL is the last byte before the guard page, where
 * every path given to the helper below is read: memory ASan does not watch
 * (the scan's reads past a NUL are within its page, but ASan, which the
 * inlined scan does not escape, would call them overflows). */
static const char *on_page(const char *s)
{
    size_t len = strlen(s);
    char *at = page + 4096 - len - 1;
    memcpy(at, s, len + 1);
    return at;
}

/* The record of each form of a path is the record of its normal form,
 * named by it; PREFIX is a directory (the current one). */
static void check_records(const char *cwd)
{
    io_region = aligned_alloc(4096, (TALLY_IO_SIZE + 4095) / 4096 * 4096);
    if (!io_region)
        abort();
    memset(io_region, 0, TALLY_IO_SIZE);
    io_records_reset();
    char want[2 * PATH_MAX], form[3 * PATH_MAX];
    snprintf(want, sizeof want, "%s/dir/file", cwd);
    int32_t rec = io_record_for(AT_FDCWD, on_page(want));
    CHECK(rec >= 1 && rec <= TALLY_IO_CAPACITY);
    CHECK(!strcmp(io_rec(rec)->path, want));
    static const char *forms[] = {"%s//dir/file", "%s/dir//file", "%s/./dir/file", "%s/dir/./file",
                                  "%s/dir/../dir/file", "%s/dir/file/", "%s/dir/file/.", "%s/dir/file//",
                                  "%s/../%s/dir/file", "/%s/dir/file", "%s/dir/x/../file"};
    int bad = 0;
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        snprintf(form, sizeof form, forms[i], cwd, strrchr(cwd, '/') + 1);
        if (i == 8 && strrchr(cwd, '/') == cwd) /* the current directory is /X: /X/../X */
            snprintf(form, sizeof form, "%s/..%s/dir/file", cwd, cwd);
        if (io_record_for(AT_FDCWD, on_page(form)) != rec) {
            printf("# %s: another record\n", form);
            bad++;
        }
    }
    static const char *relative[] = {"dir/file", "./dir/file", "dir//file", "dir/./file", "./dir/../dir/file/"};
    for (size_t i = 0; i < sizeof relative / sizeof relative[0]; i++) {
        if (io_record_for(AT_FDCWD, on_page(relative[i])) != rec) {
            printf("# %s: another record\n", relative[i]);
            bad++;
        }
    }
    CHECK_INT(bad, 0);
    /* "/", ".", ".." and the empty relative path name directories */
    int32_t root = io_record_for(AT_FDCWD, on_page("/"));
    CHECK(root != rec && !strcmp(io_rec(root)->path, "/"));
    CHECK_INT(io_record_for(AT_FDCWD, on_page("//")), root);
    CHECK_INT(io_record_for(AT_FDCWD, on_page("/..")), root);
    CHECK_INT(io_record_for(AT_FDCWD, on_page("/./")), root);
    int32_t here = io_record_for(AT_FDCWD, on_page("."));
    CHECK(!strcmp(io_rec(here)->path, cwd));
    CHECK_INT(io_record_for(AT_FDCWD, on_page(cwd)), here);
    CHECK_INT(io_record_for(AT_FDCWD, on_page("dir/..")), here);
    CHECK_INT((int)io_region->records, 3); /* file, "/" and the current directory */
    free(io_region);
    io_region = NULL;
}

static int run_checks(void)
{
    check_scan();
    io_scan_exact(); /* as under memcheck: byte by byte, the same results */
    check_scan();
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        abort();
    check_records(cwd);
    return test_done();
}
