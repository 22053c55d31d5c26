/* Binary encodings: byte buffer, varints, doubles (see byte_codec.h). */
#include "util/byte_codec.h"

#include <math.h>
#include <string.h>

#include "util/vec.h"

void byte_reserve(struct byte_writer *w, size_t n)
{
    if (!w->failed && w->len + n > w->capacity && VEC_RESERVE(w->data, w->capacity, w->len + n) < 0)
        w->failed = true;
}

void byte_put(struct byte_writer *w, const void *bytes, size_t n)
{
    byte_reserve(w, n);
    if (w->failed)
        return;
    memcpy(w->data + w->len, bytes, n);
    w->len += n;
}

void byte_put_byte(struct byte_writer *w, unsigned char c)
{
    byte_put(w, &c, 1);
}

void byte_put_varint(struct byte_writer *w, uint64_t v)
{
    unsigned char bytes[10];
    size_t n = 0;
    while (v >= 0x80) {
        bytes[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    bytes[n++] = (unsigned char)v;
    byte_put(w, bytes, n);
}

void byte_put_signed(struct byte_writer *w, int64_t v)
{
    byte_put_varint(w, byte_zigzag(v));
}

void byte_put_double(struct byte_writer *w, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    unsigned char bytes[8];
    for (int i = 0; i < 8; i++)
        bytes[i] = (unsigned char)(u >> (8 * i));
    byte_put(w, bytes, sizeof bytes);
}


/* nearbyint(x) in the default rounding mode (to nearest, ties to even),
 * without the call: below 2^52, adding and taking away 2^52 rounds x to an
 * integer in that mode (the compiler keeps both, without -ffast-math); from
 * 2^52 up every double is an integer. */
static double round_to_integer(double x)
{
    const double two52 = 4503599627370496.0;
    double a = fabs(x);
    return a < two52 ? copysign((a + two52) - two52, x) : x;
}

bool byte_decimal_of(double d, struct byte_decimal *out)
{
    const double limit = (double)BYTE_DECIMAL_LIMIT; /* every integer below is exact */
    /* Most values that are no short decimal (sums, moments) fail every k;
     * they fail at k = 9 already: when m / 10^k gives back d (so |d| >= 1e-9
     * or d = 0, never subnormal), d·10^9 is within 2 units in the last place
     * of the integer m·10^(9−k), far inside the margin below. So when d·10^9
     * is below 2^53 (and so is every d·10^k before it) and no integer is
     * within the margin, d is none without the nine tries before. */
    double scaled9 = d * byte_powers_of_ten[BYTE_DECIMAL_DIGITS];
    if (fabs(scaled9) < limit && fabs(scaled9 - round_to_integer(scaled9)) > fabs(scaled9) * 1e-14)
        return false;
    for (int k = 0; k <= BYTE_DECIMAL_DIGITS && fabs(d) < limit; k++) {
        double scaled = d * byte_powers_of_ten[k];
        if (!(fabs(scaled) < limit))
            break;
        double rounded = round_to_integer(scaled);
        /* a value m / 10^k gives back d only when d·10^k is within a few
         * units in the last place of m (|m − d·10^k| <= |d·10^k|·2^-52):
         * farther, this k is not the one, and the division is skipped
         * (with a margin of 45: the same bytes as dividing each time) */
        if (fabs(scaled - rounded) > fabs(scaled) * 1e-14)
            continue;
        int64_t mi = (int64_t)rounded;
        double back = (double)mi / byte_powers_of_ten[k]; /* as byte_get_decimal computes it */
        if (!memcmp(&back, &d, sizeof d)) { /* -0 and NaN never match: raw */
            *out = (struct byte_decimal){mi, (unsigned)k};
            return true;
        }
    }
    return false;
}

/* The tag of a short decimal: zigzag(m) << 4 | k. */
static uint64_t decimal_tag(struct byte_decimal dec)
{
    return byte_zigzag(dec.m) << 4 | dec.k;
}

void byte_put_decimal(struct byte_writer *w, double d)
{
    struct byte_decimal dec;
    if (byte_decimal_of(d, &dec)) {
        byte_put_varint(w, decimal_tag(dec));
        return;
    }
    byte_put_varint(w, BYTE_DECIMAL_RAW);
    byte_put_double(w, d);
}

/* dec at `base`'s scale k (finer or the same), or false when it is coarser
 * or its digits would reach 2^53. m·10^j / 10^(k+j) gives back the same
 * double as m / 10^k: both divide exact operands, so both are the one
 * correctly rounded value of the same number. */
static bool at_scale(struct byte_decimal dec, unsigned k, int64_t *m)
{
    if (dec.k > k)
        return false;
    double scaled = (double)dec.m * byte_powers_of_ten[k - dec.k];
    if (!(fabs(scaled) < (double)BYTE_DECIMAL_LIMIT))
        return false;
    *m = (int64_t)scaled; /* exact: an integer below 2^53 times a power of ten below 2^53 */
    return true;
}

void byte_put_near(struct byte_writer *w, double d, struct byte_near *base, int direction)
{
    struct byte_decimal dec;
    if (!byte_decimal_of(d, &dec)) {
        byte_put_varint(w, BYTE_DECIMAL_RAW << 1 | 1);
        byte_put_double(w, d);
        base->known = false;
        return;
    }
    int64_t m;
    if (base->known && at_scale(dec, base->k, &m)) {
        int64_t distance = direction > 0 ? m - base->m : base->m - m; /* both below 2^53 */
        if (distance >= 0) {
            byte_put_varint(w, (uint64_t)distance << 1);
            base->m = m;
            return;
        }
    }
    byte_put_varint(w, decimal_tag(dec) << 1 | 1);
    *base = (struct byte_near){dec.m, dec.k, true};
}

unsigned byte_get_byte(struct byte_reader *r)
{
    if (r->failed || r->p >= r->end) {
        r->failed = true;
        return 0;
    }
    return *r->p++;
}

uint64_t byte_get_varint_long(struct byte_reader *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && !r->failed; shift += 7) {
        unsigned c = byte_get_byte(r);
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    r->failed = true;
    return 0;
}

const unsigned char *byte_get_bytes(struct byte_reader *r, size_t n)
{
    if (r->failed || (size_t)(r->end - r->p) < n) {
        r->failed = true;
        return NULL;
    }
    const unsigned char *at = r->p;
    r->p += n;
    return at;
}
