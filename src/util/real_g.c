/* printf's "%.Pg" by exact integer arithmetic (real_g.h). v = m * 2^e
 * exactly (m of 53 bits); its P digits are the quotient of m * 10^k * 2^e
 * (k = P - 1 - X, X its decimal exponent), made with 128-bit integers:
 * in the range taken (1e-5 <= |v| < 1e17, P <= 17) the numerator is below
 * 2^127 and the denominator below 2^107, and the remainder says how to
 * round, ties to even as glibc does in the default rounding mode. A
 * compiler without 128-bit integers leaves every number to printf. */
#include "util/real_g.h"

#include <stdint.h>
#include <string.h>

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

static u128 pow10_wide(int k) /* 0 <= k <= 38 */
{
    static const uint64_t small[20] = {
        1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
        1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
        100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
        1000000000000000000ull, 10000000000000000000ull};
    return k < 20 ? (u128)small[k] : (u128)small[19] * small[k - 19];
}

/* Floor division by a positive divisor, for a negative dividend too. */
static int floor_div(int a, int b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

size_t real_g(double v, int p, char *buf)
{
    double a = v < 0 ? -v : v;
    if (!(a >= 1e-5 && a < 1e17) || p < 1 || p > 17)
        return 0;
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int biased = (int)(bits >> 52); /* a is normal here */
    uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    int e = biased - 1075;
    /* X from the binary exponent (log10(2) ~ 0.30103), one off at most;
     * set right by the quotient's number of digits. */
    int x = floor_div((biased - 1023) * 30103, 100000);
    u128 q, rem, den;
    for (;;) {
        int k = p - 1 - x;
        u128 num = m;
        den = 1;
        if (k >= 0)
            num *= pow10_wide(k);
        else
            den = pow10_wide(-k);
        if (e >= 0)
            num <<= e;
        else
            den <<= -e;
        q = num / den;
        rem = num % den;
        if (q < pow10_wide(p - 1))
            x--;
        else if (q >= pow10_wide(p))
            x++;
        else
            break;
    }
    u128 twice = rem << 1;
    if (twice > den || (twice == den && (q & 1)))
        q++;
    if (q == pow10_wide(p)) { /* 9.99... rounded up to 10.0... */
        q = pow10_wide(p - 1);
        x++;
    }
    char d[17];
    uint64_t u = (uint64_t)q;
    for (int i = p - 1; i >= 0; i--) {
        d[i] = (char)('0' + u % 10);
        u /= 10;
    }
    int nd = p; /* %g drops the fraction's trailing zeros, and a point left alone */
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    char *o = buf;
    if (v < 0)
        *o++ = '-';
    if (x < -4 || x >= p) { /* style e */
        *o++ = d[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, d + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        int ax = x < 0 ? -x : x;
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        *o++ = (char)('0' + ax / 10);
        *o++ = (char)('0' + ax % 10);
    } else if (x >= 0) { /* style f: X + 1 digits before the point */
        memcpy(o, d, (size_t)x + 1);
        o += x + 1;
        if (nd > x + 1) {
            *o++ = '.';
            memcpy(o, d + x + 1, (size_t)(nd - x - 1));
            o += nd - x - 1;
        }
    } else { /* style f: 0.000ddd */
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -x - 1; i++)
            *o++ = '0';
        memcpy(o, d, (size_t)nd);
        o += nd;
    }
    *o = '\0';
    return (size_t)(o - buf);
}
#else
/* No 128-bit integers (32-bit machines): every number is left to printf. */
size_t real_g(double v, int p, char *buf)
{
    (void)v, (void)p, (void)buf;
    return 0;
}
#endif
