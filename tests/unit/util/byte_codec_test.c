/* Unit tests for the binary encodings (src/util/byte_codec.c): varints,
 * zigzag signed values, doubles and decimals come back to the bit (a
 * decimal short when it is one); a reader past its
 * end, over an overlong varint or asked for more bytes than are left fails
 * and stays failed. A decimal's bytes are those of every k tried in turn. */
#include "test.h"
#include "util/byte_codec.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* byte_put_decimal as it was before its shortcut for values that are no
 * short decimal (every k tried in turn): the shortcut must write the same
 * bytes. */
static void reference_decimal(struct byte_writer *w, double d)
{
    static const double powers[10] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    const double limit = 9007199254740992.0;
    for (int k = 0; k <= 9 && fabs(d) < limit; k++) {
        double scaled = d * powers[k];
        if (!(fabs(scaled) < limit))
            break;
        double rounded = nearbyint(scaled);
        if (fabs(scaled - rounded) > fabs(scaled) * 1e-14)
            continue;
        int64_t mi = (int64_t)rounded;
        double back = (double)mi / powers[k];
        if (!memcmp(&back, &d, sizeof d)) {
            uint64_t zigzag = ((uint64_t)mi << 1) ^ (uint64_t)(mi >> 63);
            byte_put_varint(w, zigzag << 4 | (uint64_t)k);
            return;
        }
    }
    byte_put_varint(w, 15);
    byte_put_double(w, d);
}

/* The same bytes as reference_decimal for d? */
static int same_as_reference(double d)
{
    struct byte_writer a = {NULL, 0, 0, false}, b = {NULL, 0, 0, false};
    byte_put_decimal(&a, d);
    reference_decimal(&b, d);
    int same = !a.failed && !b.failed && a.len == b.len && !memcmp(a.data, b.data, a.len);
    free(a.data);
    free(b.data);
    return same;
}

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
    /* the shortcut writes what every k tried in turn writes: decimals of 0
     * to 11 places and of 1 to 17 digits, their sums (no decimal, mostly),
     * products, random bits, and values about 2^53 / 10^9 and 1e-9 */
    srand(20);
    int same = 1, shorts = 0, raws = 0;
    double sum = 0;
    for (int i = 0; i < 400000; i++) {
        int k = rand() % 12, digits = 1 + rand() % 17;
        double m = 0;
        for (int j = 0; j < digits; j++)
            m = m * 10 + rand() % 10;
        double d = (rand() & 1 ? -m : m) / pow(10, k);
        sum += d;
        uint64_t bits = (uint64_t)rand() << 42 ^ (uint64_t)rand() << 21 ^ (uint64_t)rand();
        double raw;
        memcpy(&raw, &bits, sizeof raw);
        double edge = 9007199.254740992 * (1 + (rand() % 2001 - 1000) * 1e-12);
        double tiny = 1e-9 * (1 + (rand() % 2001 - 1000) * 1e-13);
        const double tried[] = {d, sum, d * 1.01, d / 3, raw, edge, tiny, -tiny, nextafter(d, 0)};
        for (size_t t = 0; t < sizeof tried / sizeof *tried; t++) {
            same &= same_as_reference(tried[t]);
            struct byte_writer one = {NULL, 0, 0, false};
            byte_put_decimal(&one, tried[t]);
            one.len < 9 ? shorts++ : raws++;
            free(one.data);
        }
    }
    /* halves, which round to the even integer, near and above the margin's
     * reach (5e13) and up to 2^52 */
    const double ties[] = {50000000000000.5, 50000000000001.5, -50000000000002.5,
                           2251799813685248.5, 4503599627370495.5, -4503599627370494.5,
                           4503599627370496.0, 4503599627370497.0, 0.5, -1.5, 2.5};
    for (size_t t = 0; t < sizeof ties / sizeof *ties; t++)
        same &= same_as_reference(ties[t]);
    CHECK(same);
    CHECK(shorts > 100000 && raws > 100000); /* both paths taken, often */
    static const unsigned char bad_decimal[] = {0x1f}; /* k = 15 with a mantissa: never written */
    struct byte_reader b = {bad_decimal, bad_decimal + 1, false};
    byte_get_decimal(&b);
    CHECK(b.failed);

    /* a series of values each near the one before (byte_put_near): every
     * value comes back to the bit; a value on its side of the one before,
     * of no more places, is its distance in the last one's units */
    {
        struct near_case {
            double v;
            int direction;
            size_t length; /* bytes written */
        } series[] = {
            {480.123, 1, 4},   /* the first: no base; tag of 480123 / 10^3 << 1 | 1 */
            {484.809, 1, 2},   /* 4686 units above: 9372 in 2 bytes */
            {484.809, 1, 1},   /* equal: distance 0 */
            {43.6, -1, 3},     /* below, of fewer places: 441209 units of 10^-3 */
            {43.64, 1, 1},     /* 40 units above 43.600 */
            {43.6401, 1, 4},   /* more places than the base: written on its own */
            {43.64, 1, 3},     /* below while the series goes up: on its own */
            {1.0 / 3, 1, 9},   /* no short decimal: 31 and its 8 bytes */
            {0.5, 1, 2},       /* after a raw value: on its own, (zigzag 5 << 4 | 1) << 1 | 1 */
            {-2.5, -1, 1},     /* 30 units below 0.5 */
            {-0.0, 1, 9},      /* -0: raw */
            {1e-9, 1, 1},      /* on its own: (2 << 4 | 9) << 1 | 1 */
            {1e8, 1, 5},       /* in units of 10^-9 it would pass 2^53: on its own */
        };
        size_t n = sizeof series / sizeof series[0];
        struct byte_writer nw = {NULL, 0, 0, false};
        struct byte_near base = {0, 0, false};
        size_t lengths_near[sizeof series / sizeof series[0]];
        for (size_t i = 0; i < n; i++) {
            size_t before = nw.len;
            byte_put_near(&nw, series[i].v, &base, series[i].direction);
            lengths_near[i] = nw.len - before;
        }
        CHECK(!nw.failed);
        for (size_t i = 0; i < n; i++)
            CHECK_INT(lengths_near[i], series[i].length);
        struct byte_reader nr = {nw.data, nw.data + nw.len, false};
        struct byte_near back = {0, 0, false};
        ok = 1;
        for (size_t i = 0; i < n; i++) {
            double d = byte_get_near(&nr, &back, series[i].direction);
            ok &= !memcmp(&d, &series[i].v, sizeof d);
        }
        CHECK(ok);
        CHECK(!nr.failed && nr.p == nr.end);
        free(nw.data);
    }
    /* random series up and down, of 0 to 9 places, with raw values among
     * them: every value back to the bit */
    {
        struct byte_writer nw = {NULL, 0, 0, false};
        struct byte_near base = {0, 0, false};
        enum { SERIES = 200000 };
        static double values[SERIES];
        static int directions[SERIES];
        double v = 100;
        for (int i = 0; i < SERIES; i++) {
            int k = rand() % 10, dir = rand() % 2 ? 1 : -1;
            double step = (double)(rand() % 100000) / pow(10, k);
            v = i % 97 == 0 ? v / 7 : round((v + dir * step) * pow(10, k)) / pow(10, k);
            values[i] = v;
            /* the direction the writer is told: mostly the right one */
            directions[i] = rand() % 10 ? dir : -dir;
            byte_put_near(&nw, v, &base, directions[i]);
        }
        struct byte_reader nr = {nw.data, nw.data + nw.len, false};
        struct byte_near back = {0, 0, false};
        ok = 1;
        for (int i = 0; i < SERIES; i++) {
            double d = byte_get_near(&nr, &back, directions[i]);
            ok &= !memcmp(&d, &values[i], sizeof d);
        }
        CHECK(ok);
        CHECK(!nr.failed && nr.p == nr.end);
        free(nw.data);
    }
    /* damage: a distance with no base, a distance past 2^53 */
    {
        static const unsigned char no_base[] = {0x04};
        struct byte_reader nr = {no_base, no_base + 1, false};
        struct byte_near unknown = {0, 0, false};
        byte_get_near(&nr, &unknown, 1);
        CHECK(nr.failed);
        struct byte_near high = {(INT64_C(1) << 53) - 2, 0, true};
        struct byte_reader hr = {no_base, no_base + 1, false};
        byte_get_near(&hr, &high, 1); /* 2 units up: 2^53 */
        CHECK(hr.failed);
    }
    return test_done();
}
