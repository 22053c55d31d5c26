/* The binary encodings the archive stores (packed documents, aggregate
 * blobs): a growing byte buffer that writes bytes, unsigned LEB128 varints,
 * zigzag signed varints and little-endian doubles, and the reader of the
 * same. Both keep a failed flag instead of returning errors at every call:
 * a writer that ran out of memory, or a reader past its end or over a bad
 * varint, stays failed and reads zeros, and the caller looks once. */
#ifndef TALLY_UTIL_BYTE_CODEC_H
#define TALLY_UTIL_BYTE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct byte_writer {
    unsigned char *data; /* malloc'd; the caller frees it */
    size_t len, capacity;
    bool failed;
};

void byte_put(struct byte_writer *w, const void *bytes, size_t n);
void byte_put_byte(struct byte_writer *w, unsigned char c);
void byte_put_varint(struct byte_writer *w, uint64_t v);
void byte_put_signed(struct byte_writer *w, int64_t v);
void byte_put_double(struct byte_writer *w, double d);
/* A double as a short decimal when it is one: m / 10^k (|m| < 2^53,
 * 0 <= k <= 9) in one varint, zigzag(m) << 4 | k, when that division gives
 * back d to the bit (IEEE division of two exact operands is correctly
 * rounded, so it does on every platform); otherwise the varint 15 and the
 * 8 bytes of byte_put_double. 484.809 takes 4 bytes instead of 8. */
void byte_put_decimal(struct byte_writer *w, double d);

struct byte_reader {
    const unsigned char *p, *end;
    bool failed;
};

unsigned byte_get_byte(struct byte_reader *r);
/* A varint of more than one byte, or none left (byte_get_varint's slow path). */
uint64_t byte_get_varint_long(struct byte_reader *r);

/* The readers below are inline: an aggregate's decoding (every query, every
 * ingest into stored days) is mostly these calls, one or two per byte. */
static inline uint64_t byte_get_varint(struct byte_reader *r)
{
    if (!r->failed && r->p < r->end && !(*r->p & 0x80)) /* one byte: most are */
        return *r->p++;
    return byte_get_varint_long(r);
}

static inline int64_t byte_get_signed(struct byte_reader *r)
{
    uint64_t u = byte_get_varint(r);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* 8 bytes, little-endian, whatever the host's order; 0 (and failed) when
 * fewer are left. */
static inline double byte_get_double(struct byte_reader *r)
{
    if (r->failed || r->end - r->p < 8) {
        r->failed = true;
        return 0;
    }
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    double d;
    __builtin_memcpy(&d, &u, sizeof d);
    return d;
}

#define BYTE_DECIMAL_DIGITS 9 /* the largest k of a short decimal */
#define BYTE_DECIMAL_RAW 15   /* the tag of a double stored as its 8 bytes */
static const double byte_powers_of_ten[BYTE_DECIMAL_DIGITS + 1] = {1e0, 1e1, 1e2, 1e3, 1e4,
                                                                    1e5, 1e6, 1e7, 1e8, 1e9};

/* A value byte_put_decimal wrote. */
static inline double byte_get_decimal(struct byte_reader *r)
{
    uint64_t tag = byte_get_varint(r);
    unsigned k = (unsigned)(tag & 15);
    if (k == BYTE_DECIMAL_RAW && tag >> 4 == 0)
        return byte_get_double(r);
    uint64_t zigzag = tag >> 4;
    int64_t m = (int64_t)(zigzag >> 1) ^ -(int64_t)(zigzag & 1);
    if (k > BYTE_DECIMAL_DIGITS || m >= (INT64_C(1) << 53) || m <= -(INT64_C(1) << 53)) {
        r->failed = true; /* never written */
        return 0;
    }
    return (double)m / byte_powers_of_ten[k];
}
/* The next n bytes in place, or NULL (and failed) when fewer are left. */
const unsigned char *byte_get_bytes(struct byte_reader *r, size_t n);

#endif
