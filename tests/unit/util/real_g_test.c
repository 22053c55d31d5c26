/* real_g against snprintf's "%.Pg" (C locale, rounding to nearest): every
 * precision 1-17 on random doubles of the whole range taken (random bits),
 * on decimal fractions and times as the reports hold (n / 10^k, ns / 1e9 -
 * an epoch), on powers of ten and the doubles next to them, on halves and
 * quarters (ties at low precision, to even), on integers up to 1e17, and
 * the range's ends; and 0 (nothing written) outside the range. */
#include "util/real_g.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

static long checked, wrong;

static void compare(double v, int p)
{
    char want[64], got[REAL_G_SIZE + 8];
    snprintf(want, sizeof want, "%.*g", p, v);
    memset(got, 'x', sizeof got);
    size_t n = real_g(v, p, got);
    double a = fabs(v);
    bool in_range = a >= 1e-5 && a < 1e17 && p >= 1 && p <= 17;
#ifndef __SIZEOF_INT128__
    in_range = false; /* built without 128-bit integers: every number is printf's */
#endif
    checked++;
    if (in_range ? (n != strlen(want) || strcmp(got, want)) : n != 0 || got[0] != 'x') {
        if (wrong++ < 10)
            printf("# %.17g at %d: got '%s' (%zu), want '%s'\n", v, p, n ? got : "", n, in_range ? want : "");
    }
}

static uint64_t state = 88172645463325252ull;
static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

int main(void)
{
    for (int p = 1; p <= 17; p++) {
        for (int i = 0; i < 30000; i++) { /* random bits, exponents 2^-17 .. 2^57 */
            uint64_t b = (next() & ((1ull << 52) - 1)) | ((uint64_t)(1006 + next() % 51) << 52);
            double v;
            memcpy(&v, &b, sizeof v);
            compare(i & 1 ? -v : v, p);
        }
        for (int i = 0; i < 5000; i++) { /* decimal fractions and times */
            uint64_t n = next() % 100000000000ull;
            compare((double)n / pow(10, (double)(next() % 16)), p);
            compare((double)(1795720000000000000ull + next() % 100000000000ull) / 1e9 - 1795720000.0, p);
            compare((double)(next() % 100000000) / 1e9, p);
        }
        for (int k = -6; k <= 17; k++) { /* powers of ten and their neighbours */
            double t = pow(10, k);
            compare(t, p);
            compare(nextafter(t, 0), p);
            compare(nextafter(t, INFINITY), p);
            compare(-t, p);
        }
        for (int i = 1; i < 4000; i++) { /* halves and quarters: exact ties */
            compare(i / 2.0, p);
            compare(i / 4.0, p);
            compare(i / 8.0 + 0.0625, p);
        }
        for (int i = 0; i < 2000; i++) /* integers */
            compare((double)(next() % 100000000000000000ull), p);
        compare(1e-5, p);
        compare(nextafter(1e-5, 0), p); /* out of range: 0 */
        compare(nextafter(1e17, 0), p);
        compare(1e17, p); /* out of range */
        compare(0.0, p);
        compare(-0.0, p);
        compare(INFINITY, p);
        compare(NAN, p);
        compare(5e-324, p);
        compare(1.7976931348623157e308, p);
    }
    compare(1.0, 0);  /* precision 0: left to printf */
    compare(1.0, 18); /* precision 18: left to printf */
    char m[160];
    snprintf(m, sizeof m, "%ld numbers at precisions 1-17 as snprintf gives them (%ld differ)", checked, wrong);
    test_report(wrong == 0 && checked > 1000000, __FILE__, __LINE__, m);
    return test_done();
}
