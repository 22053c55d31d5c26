/* Unit tests for the binary encodings (src/util/byte_codec.c): varints,
 * zigzag signed values and doubles come back to the bit; a reader past its
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
    return test_done();
}
