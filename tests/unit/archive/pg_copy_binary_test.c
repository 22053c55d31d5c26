/* Unit tests for PostgreSQL's binary COPY format (src/archive/pg_copy_binary.c):
 * which values fit which column types, and the bytes of a header, a row and
 * the trailer, as the protocol's documentation gives them. */
#include <math.h>
#include <stdlib.h>

#include "archive/pg_copy_binary.h"
#include "test.h"

static bool fits_one(unsigned type, struct sql_value v)
{
    return pg_copy_binary_fits(&type, &v, 1, 1);
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
    CHECK(pg_copy_binary_fits(types, rows, 1, 2));
    CHECK(!pg_copy_binary_fits(types, rows, 2, 2));

    struct byte_writer b = {NULL, 0, 0, false};
    pg_copy_binary_header(&b);
    CHECK_INT(b.len, 19);
    CHECK(!memcmp(b.data, "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0", 19));
    b.len = 0;
    unsigned row_types[5] = {OID_INT4, OID_INT8, OID_FLOAT8, OID_TEXT, OID_BYTEA};
    struct sql_value row[5] = {sql_null(), sql_real(-2), sql_real(1.5), sql_text("ab"), sql_blob("\0z", 2)};
    pg_copy_binary_row(&b, row_types, row, 5);
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
    return test_done();
}
