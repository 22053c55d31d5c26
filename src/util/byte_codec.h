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
uint64_t byte_get_varint(struct byte_reader *r);
int64_t byte_get_signed(struct byte_reader *r);
double byte_get_double(struct byte_reader *r);
double byte_get_decimal(struct byte_reader *r);
/* The next n bytes in place, or NULL (and failed) when fewer are left. */
const unsigned char *byte_get_bytes(struct byte_reader *r, size_t n);

#endif
