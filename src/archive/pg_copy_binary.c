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

static int integer_bytes(unsigned type)
{
    return type == OID_INT8 ? 8 : type == OID_INT4 ? 4 : type == OID_INT2 ? 2 : 0;
}

static bool fits(unsigned type, const struct sql_value *v)
{
    long long n;
    switch (type) {
    case OID_INT8: return v->type == SQL_NULL || whole(v, INT64_MIN, INT64_MAX, &n);
    case OID_INT4: return v->type == SQL_NULL || whole(v, INT32_MIN, INT32_MAX, &n);
    case OID_INT2: return v->type == SQL_NULL || whole(v, INT16_MIN, INT16_MAX, &n);
    case OID_FLOAT8: return v->type == SQL_NULL || v->type == SQL_REAL || v->type == SQL_INT;
    case OID_TEXT:
    case OID_VARCHAR: return v->type == SQL_NULL || (v->type == SQL_TEXT && strlen(v->text) <= INT32_MAX);
    case OID_BYTEA: return v->type == SQL_NULL || (v->type == SQL_BLOB && v->length <= INT32_MAX);
    default: return false;
    }
}

bool pg_copy_binary_fits(const unsigned *types, const struct sql_value *values, size_t nrows,
                         size_t ncols)
{
    for (size_t r = 0; r < nrows; r++)
        for (size_t c = 0; c < ncols; c++)
            if (!fits(types[c], &values[r * ncols + c]))
                return false;
    return true;
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

static void store_be(unsigned char *at, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        at[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
}

void pg_copy_binary_row(struct byte_writer *b, const unsigned *types, const struct sql_value *row,
                        size_t ncols)
{
    struct row_out o;
    o.b = b;
    o.len = 0;
    store_be(room(&o, 2), ncols, 2);
    for (size_t c = 0; c < ncols; c++) {
        const struct sql_value *v = &row[c];
        long long n = 0;
        int bytes = integer_bytes(types[c]);
        if (v->type == SQL_NULL) {
            store_be(room(&o, 4), UINT32_MAX, 4); /* -1 */
        } else if (bytes) {
            whole(v, INT64_MIN, INT64_MAX, &n);
            unsigned char *at = room(&o, 4 + (size_t)bytes);
            store_be(at, (uint64_t)bytes, 4);
            store_be(at + 4, (uint64_t)n, bytes);
        } else if (types[c] == OID_FLOAT8) {
            double d = v->type == SQL_INT ? (double)v->integer : v->real;
            uint64_t bits;
            memcpy(&bits, &d, sizeof bits);
            unsigned char *at = room(&o, 12);
            store_be(at, 8, 4);
            store_be(at + 4, bits, 8);
        } else {
            size_t len = v->type == SQL_BLOB ? v->length : strlen(v->text);
            store_be(room(&o, 4), len, 4);
            if (len <= ROW_BUFFER - o.len) {
                memcpy(room(&o, len), v->text, len);
            } else {
                byte_put(b, o.buf, o.len);
                o.len = 0;
                byte_put(b, v->text, len);
            }
        }
    }
    byte_put(b, o.buf, o.len);
}

void pg_copy_binary_trailer(struct byte_writer *b)
{
    put_be(b, UINT16_MAX, 2); /* -1 */
}
