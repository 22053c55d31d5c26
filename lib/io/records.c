/* libtally-io's records: a path made absolute and normal (lexically, as
 * Darshan does: no symbolic links resolved), its record found or taken in
 * the region through a lock-free open-addressing table of path hashes (a
 * signal handler may open a file while the thread it interrupted is inside
 * a wrapper), each thread's last path kept with its record (a stat then an
 * open of one path scan and hash it once), and the counter updates of one
 * operation, under the record's spin lock. Its few system calls are raw (io_sys): nothing here sets errno,
 * so a wrapper that counts through it alone need not save errno. */
#include "records.h"

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HASH_SLOTS 4096 /* a power of two, over twice the capacity */
/* The path → record table, process-local. A slot is one word: the record
 * (bits 0-10, 1-based), the generation (bits 11-22) and the top 41 bits of
 * the path's 64-bit hash, the low 12 bits being the slot's place. A lookup
 * compares words and never reads the record (its path is written once, for
 * the monitor): as in Darshan, whose record ids are 64-bit hashes of the
 * path, two paths of equal hash would share a record (about 2^-53 per
 * pair). A slot of another generation is free: a forked child starts a new
 * generation instead of clearing the table (it writes only the slots it
 * uses). */
#define REC_BITS 11
#define GEN_BITS 12
#define TAG_SHIFT (REC_BITS + GEN_BITS)
_Static_assert(TALLY_IO_CAPACITY + 1 < (1 << REC_BITS), "a record fits its bits");
static uint64_t slots[HASH_SLOTS];
static uint64_t generation IO_HOT = 1;
#if defined(__SSE2__)
#define BLOCK 16
#else
#define BLOCK 8
#endif
/* The page offset past which a block of a path is copied byte by byte
 * (scan_path); -1 (every block) under memcheck. */
static long block_limit IO_HOT = 4096 - BLOCK;

void io_scan_exact(void)
{
    block_limit = -1;
}
static char cwd[PATH_MAX];
static int cwd_known;
/* Counts the changes of the current directory (chdir, fchdir): a relative
 * path's last lookup (below) holds only under the epoch it was made in. */
static uint64_t cwd_epoch = 1;

/* The last path this thread looked up and its record, so that a program
 * that stats a path and then opens it, or opens the same path again, finds
 * its record by comparing the path's bytes with these (same_as_last), with
 * no scan, hash or table. Per thread: the thread's own calls only (a signal
 * handler that calls a wrapper while its thread is inside the helper is
 * kept out by the busy guard, region.h); emptied in a forked child, whose
 * records are new (io_records_reset). A path relative to the current
 * directory is kept with the directory's epoch; an absolute one needs
 * none (a record is a path's, whatever file it names: a rename, an unlink
 * or a new file of the same name change nothing). A path relative to another
 * descriptor, a path of LAST_MAX bytes or more and the incomplete record
 * (whose every lookup counts past_bound) are not kept. */
#define LAST_MAX 256
static __thread struct last_path {
    int32_t rec;        /* 0: empty */
    uint32_t len;
    uint64_t epoch;     /* cwd_epoch when it was looked up (a relative path) */
    char path[LAST_MAX] __attribute__((aligned(16)));
} last __attribute__((tls_model("initial-exec")));

void io_records_reset(void)
{
    last.rec = 0;
    if (++generation >= (1u << GEN_BITS)) { /* once in 4095 generations */
        memset(slots, 0, sizeof slots);
        generation = 1;
    }
}

void io_cwd_changed(void)
{
    __atomic_store_n(&cwd_known, 0, __ATOMIC_RELAXED);
    __atomic_fetch_add(&cwd_epoch, 1, __ATOMIC_RELAXED);
}

/* The hash of a path, eight bytes at a time: each whole word mixed in, then
 * the last 0-7 bytes (zero-padded) with the length, then murmur3's
 * finalizer, so that every bit moves the slot (the low bits) and the tag
 * (the high ones). */
static inline uint64_t hash_word(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    return h ^ h >> 32;
}

static inline uint64_t hash_end(uint64_t h, uint64_t tail, size_t n)
{
    h ^= tail ^ (uint64_t)n << 56;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ h >> 33;
}

/* The first K (0-7) bytes of W. */
static inline uint64_t low_bytes(uint64_t w, unsigned k)
{
    return k ? w & (~0ull >> (64 - 8 * k)) : 0;
}

#define HASH_SEED 0x9e3779b97f4a7c15ull

/* One pass over the path S (a path is scanned at every open and stat): its
 * hash, its length, and whether it may not be normal (*odd: a slash
 * followed by a slash or a dot, or a slash last; is_normal then says
 * exactly). A block is read whole only where it cannot cross into the next
 * page (the string may end before it); the bytes past the string's end are
 * masked off. Read by blocks, the string's end may be passed inside its
 * page: ASan would call that an overflow, and valgrind's memcheck an error
 * of the program's, so under memcheck (io_scan_exact) every block is taken
 * as near a page's end, copied byte by byte up to the NUL. COPY, when
 * not NULL, gets each block read (bytes past the NUL included) while it
 * fits its LAST_MAX bytes: the whole path when *len < LAST_MAX. */
#if defined(__SSE2__)
#include <emmintrin.h>

/* Sixteen bytes at a time: which are NUL, '/' or '.', one compare each. */
__attribute__((no_sanitize_address, always_inline)) static inline uint64_t scan_path_into(const char *s, size_t *len,
                                                                                          bool *odd, char *copy)
{
    const __m128i nul = _mm_setzero_si128(), slash = _mm_set1_epi8('/'), dot = _mm_set1_epi8('.');
    uint64_t h = HASH_SEED;
    unsigned prev_slash = 0, bad = 0;
    size_t n = 0;
    long limit = block_limit;
    for (;;) {
        const char *p = s + n;
        char near_end[16];
        if ((long)((uintptr_t)p & 4095) > limit) { /* copied byte by byte, up to the NUL */
            int i = 0;
            for (; i < 16 && p[i]; i++)
                near_end[i] = p[i];
            for (; i < 16; i++)
                near_end[i] = 0;
            p = near_end;
        }
        __m128i v = _mm_loadu_si128((const __m128i *)p);
        if (copy && n + 16 <= LAST_MAX)
            _mm_store_si128((__m128i *)(copy + n), v);
        unsigned end = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nul));
        unsigned valid = end ? (end & -end) - 1 : 0xffff; /* the bytes before the first NUL */
        unsigned sl = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, slash)) & valid;
        unsigned either = sl | ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, dot)) & valid);
        /* a slash, then a slash or a dot: in this block, or across the last */
        bad |= (sl & either >> 1) | (prev_slash & either);
        uint64_t w0, w1;
        memcpy(&w0, p, 8);
        memcpy(&w1, p + 8, 8);
        if (end) {
            unsigned k = (unsigned)__builtin_ctz(end);
            bad |= k ? sl >> (k - 1) & 1 : prev_slash; /* a slash last */
            uint64_t tail;
            if (k >= 8) { /* low_bytes takes 0-7 bytes: of w1 here, of w0 below */
                h = hash_word(h, w0);
                tail = low_bytes(w1, k - 8);
            } else {
                tail = low_bytes(w0, k);
            }
            n += k;
            *len = n;
            *odd = bad != 0;
            return hash_end(h, tail, n);
        }
        prev_slash = sl >> 15;
        h = hash_word(hash_word(h, w0), w1);
        n += 16;
    }
}
#else
/* The high bit of each byte of W that is zero: exact for the lowest (the
 * borrow that may mark a byte above a zero one needs a byte 0x01 there). */
static inline uint64_t zero_bytes(uint64_t w)
{
    return (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
}

#define BYTES(c) (0x0101010101010101ull * (unsigned char)(c))

/* Eight bytes at a time, in a word. */
__attribute__((no_sanitize_address, always_inline)) static inline uint64_t scan_path_into(const char *s, size_t *len,
                                                                                          bool *odd, char *copy)
{
    uint64_t h = HASH_SEED, prev_slash = 0, bad = 0;
    size_t n = 0;
    long limit = block_limit;
    for (;;) {
        const char *p = s + n;
        uint64_t w = 0;
        if ((long)((uintptr_t)p & 4095) <= limit)
            memcpy(&w, p, 8);
        else
            for (int i = 0; i < 8 && p[i]; i++)
                w |= (uint64_t)(unsigned char)p[i] << (8 * i);
        if (copy && n + 8 <= LAST_MAX)
            memcpy(copy + n, &w, 8);
        uint64_t end = zero_bytes(w);
        if (end)
            w &= ((end & -end) >> 7) - 1; /* the bytes before the first NUL */
        /* '/' (0x2f) and '.' (0x2e) differ in bit 0 only: one test finds
         * both (w | 1 has no byte 0x01 after the xor: the test is exact),
         * the slashes among them have bit 0 set. */
        uint64_t either = zero_bytes((w | BYTES(1)) ^ BYTES('/'));
        uint64_t slash = either & w << 7;
        /* a slash, then a slash or a dot: in this word, or across the last */
        bad |= (slash & either >> 8) | (prev_slash & either);
        if (end) {
            unsigned k = (unsigned)__builtin_ctzll(end) / 8;
            bad |= k ? slash >> (8 * k - 1) & 1 : prev_slash; /* a slash last */
            n += k;
            *len = n;
            *odd = bad != 0;
            return hash_end(h, w, n);
        }
        prev_slash = slash >> 63 << 7; /* to the first byte's high bit */
        h = hash_word(h, w);
        n += 8;
    }
}
#endif

__attribute__((always_inline)) static inline uint64_t scan_path(const char *s, size_t *len, bool *odd)
{
    return scan_path_into(s, len, odd, NULL);
}

/* The record of ABS, whose hash and length scan_path gave. */
static int32_t record_for(const char *abs, uint64_t hash, size_t n)
{
    struct tally_io_header *h = io_region;
    uint64_t tag = hash >> TAG_SHIFT, gen = generation;
    for (uint32_t i = 0; i < HASH_SLOTS; i++) {
        uint64_t *slot = &slots[(hash + i) & (HASH_SLOTS - 1)];
        uint64_t v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if ((v >> REC_BITS & ((1u << GEN_BITS) - 1)) == gen) {
            if (v >> TAG_SHIFT == tag)
                return (int32_t)(v & ((1u << REC_BITS) - 1));
            continue;
        }
        uint64_t idx = __atomic_fetch_add(&h->records, 1, __ATOMIC_RELAXED);
        if (idx >= TALLY_IO_CAPACITY) {
            __atomic_fetch_sub(&h->records, 1, __ATOMIC_RELAXED);
            break;
        }
        struct tally_io_record *r = tally_io_record_at(h, (uint32_t)idx);
        if (n > TALLY_IO_PATH - 1)
            n = TALLY_IO_PATH - 1;
        memcpy(r->path, abs, n);
        r->path[n] = '\0';
        r->path_hash = (uint32_t)hash;
        r->last_read_end = r->last_write_end = -1;
        r->ready = 1;
        int32_t mine = (int32_t)idx + 1;
        /* Lost to another taker of the same slot: this record stays, with
         * its path (the monitor merges records of one path). */
        __atomic_compare_exchange_n(slot, &v, tag << TAG_SHIFT | gen << REC_BITS | (uint64_t)mine, false,
                                    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
        return mine;
    }
    __atomic_fetch_add(&h->past_bound, 1, __ATOMIC_RELAXED);
    return TALLY_IO_CAPACITY + 1;
}

int32_t io_record_for_abs(const char *abs)
{
    size_t n;
    bool odd;
    uint64_t hash = scan_path(abs, &n, &odd);
    return record_for(abs, hash, n);
}

/* Appends component [s, s+n) to out (length *len), resolving . and ..  */
static void push_component(char *out, size_t *len, const char *s, size_t n)
{
    if (n == 0 || (n == 1 && s[0] == '.'))
        return;
    if (n == 2 && s[0] == '.' && s[1] == '.') {
        while (*len > 0 && out[*len - 1] != '/')
            (*len)--;
        if (*len > 0)
            (*len)--; /* the slash */
        return;
    }
    if (*len + 1 + n >= PATH_MAX)
        return;
    out[(*len)++] = '/';
    memcpy(out + *len, s, n);
    *len += n;
}

static void append_path(char *out, size_t *len, const char *path)
{
    while (*path) {
        size_t n = strcspn(path, "/");
        push_component(out, len, path, n);
        path += n;
        while (*path == '/')
            path++;
    }
}

/* The directory DIRFD names, into BASE (absolute); -1 when unknown. */
static int base_of(int dirfd, char *base)
{
    if (dirfd == AT_FDCWD) {
        if (!__atomic_load_n(&cwd_known, __ATOMIC_RELAXED)) {
            if (io_sys(SYS_getcwd, cwd, sizeof cwd) < 0)
                return -1;
            __atomic_store_n(&cwd_known, 1, __ATOMIC_RELAXED);
        }
        strcpy(base, cwd);
        return 0;
    }
    struct io_fd *s = io_fd_slot(dirfd);
    if (s && s->rec && s->rec <= TALLY_IO_CAPACITY) {
        strcpy(base, io_rec(s->rec)->path);
        return 0;
    }
    char link[64] = "/proc/self/fd/";
    char *p = link + strlen(link);
    char tmp[16];
    int n = 0, v = dirfd;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    *p = '\0';
    long got = io_sys(SYS_readlinkat, AT_FDCWD, link, base, PATH_MAX - 1);
    if (got <= 0 || base[0] != '/')
        return -1;
    base[got] = '\0';
    return 0;
}

int32_t io_record_of_inherited(int fd, struct io_fd *s)
{
    if (s->probed)
        return 0;
    s->probed = 1;
    char target[PATH_MAX];
    if (base_of(fd, target) < 0) /* the slot has no record: its link is read */
        return 0; /* pipe:[...], socket:[...], anon_inode:... */
    int64_t at = io_sys(SYS_lseek, fd, 0L, SEEK_CUR);
    s->offset = at > 0 ? at : 0;
    s->rec = io_record_for_abs(target);
    return s->rec;
}

/* True when PATH (absolute) is already normal: no empty, "." or ".."
 * component, no trailing slash; it is then its own record's name. */
static bool is_normal(const char *p)
{
    for (; *p; p++) {
        if (*p != '/')
            continue;
        char c = p[1];
        if (c == '/' || c == '\0')
            return false;
        if (c == '.' && (p[2] == '/' || p[2] == '\0' || (p[2] == '.' && (p[3] == '/' || p[3] == '\0'))))
            return false;
    }
    return true;
}

/* A path relative to DIRFD, or absolute but not normal: made absolute and
 * normal first (apart, so that the common case above keeps a small frame). */
__attribute__((noinline)) static int32_t record_for_made_normal(int dirfd, const char *path)
{
    char out[PATH_MAX];
    size_t len = 0;
    if (path[0] != '/') {
        char base[PATH_MAX];
        if (base_of(dirfd, base) < 0)
            return io_record_for_abs(path); /* as given */
        append_path(out, &len, base);
    }
    append_path(out, &len, path);
    if (len == 0)
        out[len++] = '/';
    out[len] = '\0';
    return io_record_for_abs(out);
}

/* True when S is this thread's last path, compared as scan_path reads: by
 * whole blocks where none can cross into the next page (the last path's
 * length says how many; a byte of S's page is readable, so is every
 * other), the block of the last path's NUL first (paths of one directory
 * differ there), else byte by byte, never past the first byte that differs
 * (a shorter S ends at a NUL where the last path has none). */
__attribute__((no_sanitize_address, always_inline)) static inline bool same_as_last(const char *s)
{
    size_t len = last.len, end = len / BLOCK * BLOCK;
    const char *l = last.path;
    if ((long)((uintptr_t)s & 4095) + (long)end > block_limit) {
        for (size_t i = 0; i <= len; i++)
            if (s[i] != l[i])
                return false;
        return true;
    }
#if defined(__SSE2__)
#define SAME_BLOCK(i) \
    (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(s + (i))), \
                                               _mm_load_si128((const __m128i *)(l + (i)))))
    unsigned want = (2u << (len - end)) - 1; /* the NUL's block: its bytes up to the NUL's */
    if ((SAME_BLOCK(end) & want) != want)
        return false;
    for (size_t i = 0; i < end; i += 16)
        if (SAME_BLOCK(i) != 0xffff)
            return false;
#undef SAME_BLOCK
#else
    uint64_t a, b;
    unsigned k = (unsigned)(len - end) + 1; /* the NUL's block: its bytes up to the NUL's */
    memcpy(&a, s + end, 8);
    memcpy(&b, l + end, 8);
    if ((a ^ b) & (k == 8 ? ~0ull : (1ull << 8 * k) - 1))
        return false;
    for (size_t i = 0; i < end; i += 8) {
        memcpy(&a, s + i, 8);
        memcpy(&b, l + i, 8);
        if (a != b)
            return false;
    }
#endif
    return true;
}

/* Makes what the scan copied into last.path (LEN bytes, and bytes past
 * them) this thread's last lookup, of record REC, under the current
 * directory's EPOCH. */
static inline void remember(size_t len, int32_t rec, uint64_t epoch)
{
    if (rec > TALLY_IO_CAPACITY || len >= LAST_MAX)
        return;
    last.path[len] = '\0';
    last.len = (uint32_t)len;
    last.epoch = epoch;
    last.rec = rec;
}

/* A path not absolute, or absolute but not normal, looked up, and kept as
 * the last lookup when it can be (apart, as record_for_made_normal is). */
__attribute__((noinline)) static int32_t record_for_other(int dirfd, const char *path)
{
    bool kept = path[0] == '/' || dirfd == AT_FDCWD;
    uint64_t epoch = __atomic_load_n(&cwd_epoch, __ATOMIC_RELAXED); /* before the directory is read */
    int32_t rec = record_for_made_normal(dirfd, path);
    if (kept) {
        size_t len = 0;
        for (; len < LAST_MAX && path[len]; len++)
            last.path[len] = path[len];
        remember(len, rec, epoch);
    }
    return rec;
}

/* A path that is not this thread's last: scanned (and copied as the last
 * path when it fits), then looked up (apart from io_record_for, whose
 * frame then stays small). */
__attribute__((noinline)) static int32_t record_for_new(int dirfd, const char *path)
{
    last.rec = 0; /* its path is overwritten */
    if (path[0] == '/') {
        size_t n;
        bool odd;
        uint64_t hash = scan_path_into(path, &n, &odd, last.path);
        if (!odd || is_normal(path)) {
            int32_t rec = record_for(path, hash, n);
            remember(n, rec, 0);
            return rec;
        }
    }
    return record_for_other(dirfd, path);
}

int32_t io_record_for(int dirfd, const char *path)
{
    if (last.rec &&
        (path[0] == '/' ||
         (dirfd == AT_FDCWD && last.epoch == __atomic_load_n(&cwd_epoch, __ATOMIC_RELAXED))) &&
        same_as_last(path))
        return last.rec;
    return record_for_new(dirfd, path);
}

/* Darshan's size buckets: 0-100, 100-1K, ... 1G+ (upper bounds included). */
static int bucket_of(int64_t bytes)
{
    static const int64_t upper[] = {100, 1024, 10240, 102400, 1048576, 4194304,
                                    10485760, 104857600, 1073741824};
    int b = 0;
    while (b < 9 && bytes > upper[b])
        b++;
    return b;
}

void io_count_rw(int32_t rec, bool stdio, enum io_op op, int64_t offset, int64_t bytes, uint64_t t0,
                 uint64_t t1)
{
    struct tally_io_record *r = io_rec(rec);
    int64_t *c = r->counter;
    int64_t took = (int64_t)(t1 - t0);
    bool locked = io_record_lock(r);
    if (stdio) {
        bool rd = op == IO_READ;
        c[rd ? STDIO_READS : STDIO_WRITES]++;
        c[rd ? STDIO_BYTES_READ : STDIO_BYTES_WRITTEN] += bytes;
        if (bytes > 0 && offset + bytes - 1 > c[rd ? STDIO_MAX_BYTE_READ : STDIO_MAX_BYTE_WRITTEN])
            c[rd ? STDIO_MAX_BYTE_READ : STDIO_MAX_BYTE_WRITTEN] = offset + bytes - 1;
        c[rd ? STDIO_F_READ_TIME : STDIO_F_WRITE_TIME] += took;
        io_first_time(&c[rd ? STDIO_F_READ_START_TIMESTAMP : STDIO_F_WRITE_START_TIMESTAMP], t0);
        io_last_time(&c[rd ? STDIO_F_READ_END_TIMESTAMP : STDIO_F_WRITE_END_TIMESTAMP], t1);
        io_record_unlock(r, locked);
        return;
    }
    bool rd = op == IO_READ;
    c[rd ? POSIX_READS : POSIX_WRITES]++;
    c[rd ? POSIX_BYTES_READ : POSIX_BYTES_WRITTEN] += bytes;
    c[(rd ? POSIX_SIZE_READ_0_100 : POSIX_SIZE_WRITE_0_100) + bucket_of(bytes)]++;
    int64_t *last_end = rd ? &r->last_read_end : &r->last_write_end;
    if (*last_end >= 0) {
        if (offset == *last_end)
            c[rd ? POSIX_CONSEC_READS : POSIX_CONSEC_WRITES]++;
        if (offset >= *last_end)
            c[rd ? POSIX_SEQ_READS : POSIX_SEQ_WRITES]++;
    }
    *last_end = offset + bytes;
    if (r->last_io && r->last_io != (uint32_t)op)
        c[POSIX_RW_SWITCHES]++;
    r->last_io = (uint32_t)op;
    if (bytes > 0 && offset + bytes - 1 > c[rd ? POSIX_MAX_BYTE_READ : POSIX_MAX_BYTE_WRITTEN])
        c[rd ? POSIX_MAX_BYTE_READ : POSIX_MAX_BYTE_WRITTEN] = offset + bytes - 1;
    c[rd ? POSIX_F_READ_TIME : POSIX_F_WRITE_TIME] += took;
    if (took > c[rd ? POSIX_F_MAX_READ_TIME : POSIX_F_MAX_WRITE_TIME])
        c[rd ? POSIX_F_MAX_READ_TIME : POSIX_F_MAX_WRITE_TIME] = took;
    io_first_time(&c[rd ? POSIX_F_READ_START_TIMESTAMP : POSIX_F_WRITE_START_TIMESTAMP], t0);
    io_last_time(&c[rd ? POSIX_F_READ_END_TIMESTAMP : POSIX_F_WRITE_END_TIMESTAMP], t1);
    io_record_unlock(r, locked);
}

void io_count_other_fd(enum io_op op, int64_t bytes)
{
    __atomic_fetch_add(op == IO_READ ? &io_region->other_fd_bytes_read : &io_region->other_fd_bytes_written,
                       (uint64_t)bytes, __ATOMIC_RELAXED);
}
