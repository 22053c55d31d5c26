/* Unit tests for PostgreSQL's binary COPY format (src/archive/pg_copy_binary.c):
 * which values fit which column types (a row that does not is not written),
 * and the bytes of a header, a row and the trailer, as the protocol's
 * documentation gives them. */
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "archive/pg_copy_binary.h"
#include "test.h"

/* The bytes of a big-endian integer, written here independently. */
static size_t be(unsigned char *at, unsigned long long v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        at[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
    return (size_t)bytes;
}

/* A row longer than the writer's own buffer (1 KB): 120 float8 columns and
 * texts of 3,000 and 1,000 bytes among them, and a short one after the
 * buffer has filled, the same bytes as a row written field by field. */
static void check_long_row(void)
{
    enum { NCOLS = 124 };
    unsigned types[NCOLS];
    struct sql_value row[NCOLS];
    static char long_text[3001], mid_text[1001];
    memset(long_text, 'L', 3000);
    memset(mid_text, 'm', 1000);
    for (size_t c = 0; c < NCOLS; c++) {
        types[c] = OID_FLOAT8;
        row[c] = c % 7 == 3 ? sql_null() : sql_real((double)c * 0.25 - 3);
    }
    types[5] = OID_TEXT, row[5] = sql_text(long_text);
    types[60] = OID_BYTEA, row[60] = sql_blob(mid_text, 1000);
    types[84] = OID_INT4, row[84] = sql_int(-7);
    types[100] = OID_TEXT, row[100] = sql_text("tail");
    static unsigned char want[2 + NCOLS * 12 + 4000 + 4];
    size_t n = be(want, NCOLS, 2);
    for (size_t c = 0; c < NCOLS; c++) {
        if (row[c].type == SQL_NULL) {
            n += be(want + n, 0xffffffffu, 4);
        } else if (types[c] == OID_FLOAT8) {
            unsigned long long bits;
            memcpy(&bits, &row[c].real, sizeof bits);
            n += be(want + n, 8, 4);
            n += be(want + n, bits, 8);
        } else if (types[c] == OID_INT4) {
            n += be(want + n, 4, 4);
            n += be(want + n, (unsigned long long)row[c].integer, 4);
        } else {
            size_t len = row[c].type == SQL_BLOB ? row[c].length : strlen(row[c].text);
            n += be(want + n, len, 4);
            memcpy(want + n, row[c].text, len);
            n += len;
        }
    }
    struct byte_writer b = {NULL, 0, 0, false};
    CHECK(pg_copy_binary_row(&b, types, row, NCOLS));
    CHECK_INT(b.len, n);
    /* a misfit after the long values: the stream as it was */
    types[110] = OID_INT2, row[110] = sql_int(70000);
    CHECK(!pg_copy_binary_row(&b, types, row, NCOLS));
    CHECK_INT(b.len, n);
    CHECK(b.len == n && !memcmp(b.data, want, n));
    free(b.data);
}

/* Whether a row of one value is written, and when not, that the stream is
 * left as it was (two bytes before it). */
static bool fits_one(unsigned type, struct sql_value v)
{
    struct byte_writer b = {NULL, 0, 0, false};
    byte_put(&b, "ab", 2);
    bool written = pg_copy_binary_row(&b, &type, &v, 1);
    CHECK(written ? b.len > 2 : b.len == 2);
    free(b.data);
    return written;
}

int main(void)
{
    /* integers: in range of their column, reals only when whole */
    CHECK(fits_one(OID_INT4, sql_int(2147483647)));
    CHECK(!fits_one(OID_INT4, sql_int(2147483648LL)));
    CHECK(!fits_one(OID_INT2, sql_int(-32769)));
    CHECK(fits_one(OID_INT8, sql_real(3.0)));
    CHECK(!fits_one(OID_INT8, sql_real(2.5)));
    CHECK(!fits_one(OID_INT8, sql_real(NAN)));
    CHECK(!fits_one(OID_INT8, sql_real(9223372036854775808.0)));
    CHECK(!fits_one(OID_INT4, sql_text("7")));
    /* reals and integers into float8; text and bytes into their own */
    CHECK(fits_one(OID_FLOAT8, sql_int(7)));
    CHECK(!fits_one(OID_FLOAT8, sql_text("7")));
    CHECK(fits_one(OID_TEXT, sql_text("a")));
    CHECK(!fits_one(OID_TEXT, sql_blob("a", 1)));
    CHECK(fits_one(OID_BYTEA, sql_blob("a", 1)));
    CHECK(!fits_one(OID_BYTEA, sql_text("a")));
    /* NULL fits anything known; an unknown type (numeric) nothing */
    CHECK(fits_one(OID_INT2, sql_null()));
    CHECK(!fits_one(OID_NUMERIC, sql_null()));
    CHECK(!fits_one(OID_NUMERIC, sql_real(1)));
    /* one misfit in a batch leaves the whole batch to the text format */
    unsigned types[2] = {OID_INT8, OID_FLOAT8};
    struct sql_value rows[4] = {sql_int(1), sql_real(1.5), sql_real(2.5), sql_real(2)};
    struct byte_writer batch = {NULL, 0, 0, false};
    CHECK(pg_copy_binary_row(&batch, types, rows, 2));
    size_t first = batch.len;
    CHECK(!pg_copy_binary_row(&batch, types, rows + 2, 2));
    CHECK_INT(batch.len, first);
    free(batch.data);

    struct byte_writer b = {NULL, 0, 0, false};
    pg_copy_binary_header(&b);
    CHECK_INT(b.len, 19);
    CHECK(!memcmp(b.data, "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0", 19));
    b.len = 0;
    unsigned row_types[5] = {OID_INT4, OID_INT8, OID_FLOAT8, OID_TEXT, OID_BYTEA};
    struct sql_value row[5] = {sql_null(), sql_real(-2), sql_real(1.5), sql_text("ab"), sql_blob("\0z", 2)};
    CHECK(pg_copy_binary_row(&b, row_types, row, 5));
    static const unsigned char want[] = {
        0, 5,                                            /* fields */
        0xff, 0xff, 0xff, 0xff,                          /* NULL */
        0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, /* int8 -2 */
        0, 0, 0, 8, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0,        /* float8 1.5 */
        0, 0, 0, 2, 'a', 'b',                            /* text */
        0, 0, 0, 2, 0, 'z'};                             /* bytea */
    CHECK_INT(b.len, sizeof want);
    CHECK(b.len == sizeof want && !memcmp(b.data, want, sizeof want));
    b.len = 0;
    pg_copy_binary_trailer(&b);
    CHECK(b.len == 2 && b.data[0] == 0xff && b.data[1] == 0xff);
    CHECK(!b.failed);
    free(b.data);
    check_long_row();
    return test_done();
}
