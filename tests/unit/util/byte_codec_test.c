/* Unit tests for the binary encodings (src/util/byte_codec.c): varints,
 * zigzag signed values, doubles and decimals come back to the bit (a
 * decimal short when it is one); a reader past its
 * end, over an overlong varint or asked for more bytes than are left fails
 * and stays failed. */
#include "test.h"
#include "util/byte_codec.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    static const uint64_t unsigned_values[] = {0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX, UINT64_MAX};
    static const int64_t signed_values[] = {0, -1, 1, -64, 64, INT64_MIN, INT64_MAX};
    const double doubles[] = {0.0, -0.0, 1.5, -1e308, 5e-324, INFINITY, NAN};
    struct byte_writer w = {NULL, 0, 0, false};
    for (size_t i = 0; i < sizeof unsigned_values / sizeof *unsigned_values; i++)
        byte_put_varint(&w, unsigned_values[i]);
    for (size_t i = 0; i < sizeof signed_values / sizeof *signed_values; i++)
        byte_put_signed(&w, signed_values[i]);
    for (size_t i = 0; i < sizeof doubles / sizeof *doubles; i++)
        byte_put_double(&w, doubles[i]);
    byte_put(&w, "tail", 4);
    CHECK(!w.failed);
    CHECK_INT(w.data[0], 0);    /* 0: one byte */
    CHECK_INT(w.data[3], 0x80); /* 128: 0x80 0x01 */
    CHECK_INT(w.data[4], 0x01);

    struct byte_reader r = {w.data, w.data + w.len, false};
    int ok = 1;
    for (size_t i = 0; i < sizeof unsigned_values / sizeof *unsigned_values; i++)
        ok &= byte_get_varint(&r) == unsigned_values[i];
    CHECK(ok);
    ok = 1;
    for (size_t i = 0; i < sizeof signed_values / sizeof *signed_values; i++)
        ok &= byte_get_signed(&r) == signed_values[i];
    CHECK(ok);
    ok = 1;
    for (size_t i = 0; i < sizeof doubles / sizeof *doubles; i++) {
        double d = byte_get_double(&r);
        ok &= !memcmp(&d, &doubles[i], sizeof d); /* to the bit: -0 and NaN too */
    }
    CHECK(ok);
    const unsigned char *tail = byte_get_bytes(&r, 4);
    CHECK(tail && !memcmp(tail, "tail", 4));
    CHECK(!r.failed && r.p == r.end);
    CHECK_INT(byte_get_byte(&r), 0); /* past the end */
    CHECK(r.failed);
    CHECK(byte_get_varint(&r) == 0); /* stays failed */

    /* a cut varint, an overlong one, too many bytes asked */
    static const unsigned char cut[] = {0x80, 0x80};
    struct byte_reader c = {cut, cut + sizeof cut, false};
    CHECK(byte_get_varint(&c) == 0 && c.failed);
    unsigned char overlong[11];
    memset(overlong, 0xff, sizeof overlong);
    struct byte_reader o = {overlong, overlong + sizeof overlong, false};
    CHECK(byte_get_varint(&o) == 0 && o.failed);
    struct byte_reader s = {w.data, w.data + 2, false};
    CHECK(byte_get_bytes(&s, 3) == NULL && s.failed);
    free(w.data);

    /* decimals: short when a decimal of at most 9 places gives the double
     * back to the bit, the 8 bytes otherwise; every value comes back */
    const double decimals[] = {484.809, 583, -2.5, 0.1, 1795000000.123, 43.64, 1e-9, 0.0, -0.0,
                               1.0 / 3, 1e300, -1e-300, 5e-324, INFINITY, -INFINITY, NAN,
                               9007199254740991.0, 9007199254740992.0};
    struct byte_writer dw = {NULL, 0, 0, false};
    size_t lengths[sizeof decimals / sizeof *decimals];
    for (size_t i = 0; i < sizeof decimals / sizeof *decimals; i++) {
        size_t before = dw.len;
        byte_put_decimal(&dw, decimals[i]);
        lengths[i] = dw.len - before;
    }
    CHECK(!dw.failed);
    CHECK_INT(lengths[0], 4);  /* 484809 / 10^3 */
    CHECK_INT(lengths[1], 3);  /* 583: zigzag 1166 << 4 in 15 bits */
    CHECK_INT(lengths[2], 2);  /* -25 / 10 */
    CHECK_INT(lengths[7], 1);  /* 0 */
    CHECK_INT(lengths[8], 9);  /* -0: raw */
    CHECK_INT(lengths[9], 9);  /* 1/3: raw */
    CHECK_INT(lengths[15], 9); /* NaN: raw */
    struct byte_reader dr = {dw.data, dw.data + dw.len, false};
    ok = 1;
    for (size_t i = 0; i < sizeof decimals / sizeof *decimals; i++) {
        double d = byte_get_decimal(&dr);
        ok &= !memcmp(&d, &decimals[i], sizeof d);
    }
    CHECK(ok);
    CHECK(!dr.failed && dr.p == dr.end);
    free(dw.data);
    static const unsigned char bad_decimal[] = {0x1f}; /* k = 15 with a mantissa: never written */
    struct byte_reader b = {bad_decimal, bad_decimal + 1, false};
    byte_get_decimal(&b);
    CHECK(b.failed);
    return test_done();
}
