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

/* Zigzag: a signed value as an unsigned one whose magnitude follows its
 * absolute value (0, -1, 1, -2 as 0, 1, 2, 3), for varints. */
static inline uint64_t byte_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t byte_unzigzag(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

/* 2^53: a short decimal's digits m stay below it, where every integer is an
 * exact double. */
#define BYTE_DECIMAL_LIMIT (INT64_C(1) << 53)

struct byte_writer {
    unsigned char *data; /* malloc'd; the caller frees it */
    size_t len, capacity;
    bool failed;
};

/* Room for n more bytes made at once (an estimate of what is to come). */
void byte_reserve(struct byte_writer *w, size_t n);
void byte_put(struct byte_writer *w, const void *bytes, size_t n);
void byte_put_byte(struct byte_writer *w, unsigned char c);
void byte_put_varint(struct byte_writer *w, uint64_t v);
void byte_put_signed(struct byte_writer *w, int64_t v);
void byte_put_double(struct byte_writer *w, double d);
/* A short decimal: m / 10^k, |m| < 2^53, 0 <= k <= BYTE_DECIMAL_DIGITS. */
struct byte_decimal {
    int64_t m;
    unsigned k;
};
/* d as the short decimal of the smallest k whose division m / 10^k gives
 * back d to the bit (IEEE division of two exact operands is correctly
 * rounded, so it does on every platform); false when there is none (-0,
 * NaN, 1/3, most sums of products). */
bool byte_decimal_of(double d, struct byte_decimal *out);
/* A double as a short decimal when it is one: in one varint, zigzag(m) << 4
 * | k; otherwise the varint 15 and the 8 bytes of byte_put_double. 484.809
 * takes 4 bytes instead of 8. */
void byte_put_decimal(struct byte_writer *w, double d);

/* A value known to lie on one side of the one before it in a series (the
 * ascending largest values of histogram bins, a sum below count × largest):
 * the last value of the series as a decimal, the base of the next. */
struct byte_near {
    int64_t m;
    unsigned k;
    bool known; /* false: the last was no short decimal (or there was none) */
};
/* d written as its distance from base in base's units when d is a short
 * decimal of at most base's places on the side `direction` says (+1: at or
 * above, -1: at or below): the varint distance << 1. Otherwise the tag of
 * byte_put_decimal << 1 | 1 (and a raw double's 8 bytes). base becomes d.
 * The bin maxima of a day's histogram are ~1 % apart: 484.809 after 480.123
 * takes 2 bytes instead of 4. */
void byte_put_near(struct byte_writer *w, double d, struct byte_near *base, int direction);

struct byte_reader {
    const unsigned char *p, *end;
    bool failed;
};

unsigned byte_get_byte(struct byte_reader *r);
/* A varint of more than one byte, or none left (byte_get_varint's slow path). */
uint64_t byte_get_varint_long(struct byte_reader *r);

/* The readers below are inline: an aggregate's decoding (every query, every
 * ingest into stored days) is mostly these calls, one or two per byte (the
 * larger two always: left to the compiler, byte_get_near stayed a call, 13 %
 * of a question's time). */
static inline uint64_t byte_get_varint(struct byte_reader *r)
{
    if (!r->failed && r->end - r->p >= 2) {
        if (!(r->p[0] & 0x80)) /* one byte: most are */
            return *r->p++;
        if (!(r->p[1] & 0x80)) { /* two: a bin's largest value beside the last (7 % of a question as calls) */
            uint64_t v = (uint64_t)(r->p[0] & 0x7f) | (uint64_t)r->p[1] << 7;
            r->p += 2;
            return v;
        }
    }
    return byte_get_varint_long(r);
}

static inline int64_t byte_get_signed(struct byte_reader *r)
{
    return byte_unzigzag(byte_get_varint(r));
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

/* The value of a short decimal's tag (zigzag(m) << 4 | k, or
 * BYTE_DECIMAL_RAW and 8 bytes); its digits into *dec (dec->known false for
 * a raw double). */
static inline __attribute__((always_inline)) double
byte_decimal_from_tag(struct byte_reader *r, uint64_t tag, struct byte_near *dec)
{
    unsigned k = (unsigned)(tag & 15);
    if (k == BYTE_DECIMAL_RAW && tag >> 4 == 0) {
        dec->known = false;
        return byte_get_double(r);
    }
    int64_t m = byte_unzigzag(tag >> 4);
    if (k > BYTE_DECIMAL_DIGITS || m >= BYTE_DECIMAL_LIMIT || m <= -BYTE_DECIMAL_LIMIT) {
        r->failed = true; /* never written */
        dec->known = false;
        return 0;
    }
    *dec = (struct byte_near){m, k, true};
    return (double)m / byte_powers_of_ten[k];
}

/* A value byte_put_decimal wrote. */
static inline double byte_get_decimal(struct byte_reader *r)
{
    struct byte_near ignored;
    return byte_decimal_from_tag(r, byte_get_varint(r), &ignored);
}

/* A value byte_put_near wrote after base (which becomes it). */
static inline __attribute__((always_inline)) double
byte_get_near(struct byte_reader *r, struct byte_near *base, int direction)
{
    uint64_t tag = byte_get_varint(r);
    if (tag & 1)
        return byte_decimal_from_tag(r, tag >> 1, base);
    uint64_t distance = tag >> 1;
    if (!base->known || distance >= (UINT64_C(1) << 54)) {
        r->failed = true; /* never written */
        return 0;
    }
    int64_t m = direction > 0 ? base->m + (int64_t)distance : base->m - (int64_t)distance;
    if (m >= BYTE_DECIMAL_LIMIT || m <= -BYTE_DECIMAL_LIMIT) {
        r->failed = true;
        return 0;
    }
    base->m = m;
    return (double)m / byte_powers_of_ten[base->k];
}
/* The next n bytes in place, or NULL (and failed) when fewer are left. */
const unsigned char *byte_get_bytes(struct byte_reader *r, size_t n);

#endif
