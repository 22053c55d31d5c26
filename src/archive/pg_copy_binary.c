/* PostgreSQL's binary COPY format (see pg_copy_binary.h). Integers are
 * big-endian; a field is its length (int32, -1 for NULL) and its bytes. */
#include "archive/pg_copy_binary.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static void put_be(struct byte_writer *b, uint64_t v, int bytes)
{
    unsigned char out[8];
    for (int i = 0; i < bytes; i++)
        out[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
    byte_put(b, out, (size_t)bytes);
}

/* The integer a value stands for, when it is a whole number in [lo, hi]. */
static bool whole(const struct sql_value *v, long long lo, long long hi, long long *out)
{
    if (v->type == SQL_INT) {
        *out = v->integer;
    } else if (v->type == SQL_REAL && isfinite(v->real) && v->real == floor(v->real) &&
               v->real >= -9223372036854775808.0 && v->real < 9223372036854775808.0) {
        *out = (long long)v->real;
    } else {
        return false;
    }
    return *out >= lo && *out <= hi;
}

void pg_copy_binary_header(struct byte_writer *b)
{
    byte_put(b, "PGCOPY\n\377\r\n\0", 11);
    put_be(b, 0, 4); /* flags: no OIDs */
    put_be(b, 0, 4); /* no header extension */
}

/* A row is gathered in a buffer of its own and added to the stream in one
 * byte_put: a byte_put per length and per value was most of the writing
 * thread's work for a COPY (46 columns a summary). */
#define ROW_BUFFER 1024

struct row_out {
    struct byte_writer *b;
    size_t len;
    unsigned char buf[ROW_BUFFER];
};

/* Room for n more bytes (n <= ROW_BUFFER), the buffer sent on first. */
static unsigned char *room(struct row_out *o, size_t n)
{
    if (o->len + n > ROW_BUFFER) {
        byte_put(o->b, o->buf, o->len);
        o->len = 0;
    }
    unsigned char *at = o->buf + o->len;
    o->len += n;
    return at;
}

static void store_be32(unsigned char *at, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(at, &v, 4);
}

static void store_be64(unsigned char *at, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(at, &v, 8);
}

/* An integer column's value as its width's big-endian bytes, after its
 * length; false when it is no whole number in the width's range. */
static bool put_integer(struct row_out *o, const struct sql_value *v, int bytes)
{
    long long lo = bytes == 8 ? INT64_MIN : bytes == 4 ? INT32_MIN : INT16_MIN;
    long long hi = bytes == 8 ? INT64_MAX : bytes == 4 ? INT32_MAX : INT16_MAX;
    long long n;
    if (!whole(v, lo, hi, &n))
        return false;
    unsigned char *at = room(o, 4 + (size_t)bytes);
    store_be32(at, (uint32_t)bytes);
    if (bytes == 8) {
        store_be64(at + 4, (uint64_t)n);
    } else if (bytes == 4) {
        store_be32(at + 4, (uint32_t)n);
    } else {
        at[4] = (unsigned char)((uint64_t)n >> 8);
        at[5] = (unsigned char)n;
    }
    return true;
}

/* Bytes after their length; a value longer than the row's buffer goes
 * straight to the stream, after what the buffer holds. */
static void put_bytes(struct row_out *o, const void *bytes, size_t len)
{
    store_be32(room(o, 4), (uint32_t)len);
    if (len <= ROW_BUFFER - o->len) {
        memcpy(room(o, len), bytes, len);
    } else {
        byte_put(o->b, o->buf, o->len);
        o->len = 0;
        byte_put(o->b, bytes, len);
    }
}

/* One value for its column's type; false when it does not fit it. */
static bool put_value(struct row_out *o, unsigned type, const struct sql_value *v)
{
    switch (type) {
    case OID_INT8:
    case OID_INT4:
    case OID_INT2:
    case OID_FLOAT8:
    case OID_TEXT:
    case OID_VARCHAR:
    case OID_BYTEA:
        break;
    default:
        return false; /* not even NULL: the batch goes as text */
    }
    if (v->type == SQL_NULL) {
        store_be32(room(o, 4), UINT32_MAX); /* -1 */
        return true;
    }
    switch (type) {
    case OID_INT8: return put_integer(o, v, 8);
    case OID_INT4: return put_integer(o, v, 4);
    case OID_INT2: return put_integer(o, v, 2);
    case OID_FLOAT8: {
        if (v->type != SQL_REAL && v->type != SQL_INT)
            return false;
        double d = v->type == SQL_INT ? (double)v->integer : v->real;
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        unsigned char *at = room(o, 12);
        store_be32(at, 8);
        store_be64(at + 4, bits);
        return true;
    }
    case OID_BYTEA:
        if (v->type != SQL_BLOB || v->length > INT32_MAX)
            return false;
        put_bytes(o, v->text, v->length);
        return true;
    default: { /* text, varchar */
        size_t len = v->type == SQL_TEXT ? strlen(v->text) : 0;
        if (v->type != SQL_TEXT || len > INT32_MAX)
            return false;
        put_bytes(o, v->text, len);
        return true;
    }
    }
}

bool pg_copy_binary_row(struct byte_writer *b, const unsigned *types, const struct sql_value *row,
                        size_t ncols)
{
    struct row_out o;
    o.b = b;
    o.len = 0;
    size_t start = b->len;
    unsigned char *count = room(&o, 2);
    count[0] = (unsigned char)(ncols >> 8);
    count[1] = (unsigned char)ncols;
    for (size_t c = 0; c < ncols; c++) {
        if (!put_value(&o, types[c], &row[c])) {
            b->len = start; /* what a long value sent before, taken back */
            return false;
        }
    }
    byte_put(b, o.buf, o.len);
    return true;
}

void pg_copy_binary_trailer(struct byte_writer *b)
{
    put_be(b, UINT16_MAX, 2); /* -1 */
}
