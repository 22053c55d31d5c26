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

void pg_copy_binary_row(struct byte_writer *b, const unsigned *types, const struct sql_value *row,
                        size_t ncols)
{
    put_be(b, ncols, 2);
    for (size_t c = 0; c < ncols; c++) {
        const struct sql_value *v = &row[c];
        long long n = 0;
        int bytes = integer_bytes(types[c]);
        if (v->type == SQL_NULL) {
            put_be(b, UINT32_MAX, 4); /* -1 */
        } else if (bytes) {
            whole(v, INT64_MIN, INT64_MAX, &n);
            put_be(b, (uint64_t)bytes, 4);
            put_be(b, (uint64_t)n, bytes);
        } else if (types[c] == OID_FLOAT8) {
            double d = v->type == SQL_INT ? (double)v->integer : v->real;
            uint64_t bits;
            memcpy(&bits, &d, sizeof bits);
            put_be(b, 8, 4);
            put_be(b, bits, 8);
        } else {
            size_t len = v->type == SQL_BLOB ? v->length : strlen(v->text);
            put_be(b, len, 4);
            byte_put(b, v->text, len);
        }
    }
}

void pg_copy_binary_trailer(struct byte_writer *b)
{
    put_be(b, UINT16_MAX, 2); /* -1 */
}
