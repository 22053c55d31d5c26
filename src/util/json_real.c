/* A real number's JSON text as jansson's jsonp_dtostr writes it (see
 * json_real.h): the digits of real_g.c where it gives them (most reals of
 * the reports), else strfromd's. */
#include "util/json_real.h"
#include "util/real_g.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* P of a format "%.Pg"; 0 for any other format. */
static int precision_of(const char *format)
{
    if (format[0] != '%' || format[1] != '.')
        return 0;
    int p = 0, i = 2;
    for (; format[i] >= '0' && format[i] <= '9' && i < 4; i++)
        p = p * 10 + (format[i] - '0');
    return i > 2 && format[i] == 'g' && format[i + 1] == '\0' ? p : 0;
}

size_t json_real_text(double v, const char *format, char *buf, size_t size)
{
    if (size < 8 || !isfinite(v)) /* JSON has no NaN or infinity (jansson refuses them too) */
        return 0;
    if (v == 0) { /* the "%g" of a zero, ".0" added: the most common real of the reports */
        strcpy(buf, signbit(v) ? "-0.0" : "0.0");
        return strlen(buf);
    }
    size_t len = size >= REAL_G_SIZE + 3 ? real_g(v, precision_of(format), buf) : 0;
    if (!len) { /* outside real_g's range: printf's digits */
        int ret = strfromd(buf, size, format, v); /* "%.Pg" without parsing the format each time */
        if (ret < 0 || (size_t)ret + 3 >= size)
            return 0;
        len = (size_t)ret;
        const char *point = localeconv()->decimal_point;
        if (*point != '.') {
            char *at = strchr(buf, *point);
            if (at)
                *at = '.';
        }
    }
    if (!strchr(buf, '.') && !strchr(buf, 'e')) {
        memcpy(buf + len, ".0", 3);
        len += 2;
    }
    char *start = strchr(buf, 'e');
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, len - (size_t)(end - buf) + 1);
            len -= (size_t)(end - start);
        }
    }
    return len;
}
