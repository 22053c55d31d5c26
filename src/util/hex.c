/* Hexadecimal text (hex.h). */
#include "util/hex.h"

#include <string.h>

char *hex_encode(const void *data, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * len] = '\0';
    return out;
}

static int digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long hex_decode(const char *text, void *out, size_t cap)
{
    size_t n = strlen(text);
    if (n % 2 || n / 2 > cap)
        return -1;
    unsigned char *p = out;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = digit(text[2 * i]), lo = digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        p[i] = (unsigned char)(hi << 4 | lo);
    }
    return (long)(n / 2);
}
