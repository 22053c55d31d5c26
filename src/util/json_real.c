/* A real number's JSON text as jansson's jsonp_dtostr writes it (see
 * json_real.h). */
#include "util/json_real.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t json_real_text(double v, const char *format, char *buf, size_t size)
{
    if (size < 8 || !isfinite(v)) /* JSON has no NaN or infinity (jansson refuses them too) */
        return 0;
    if (v == 0) { /* the "%g" of a zero, ".0" added: the most common real of the reports */
        strcpy(buf, signbit(v) ? "-0.0" : "0.0");
        return strlen(buf);
    }
    int ret = strfromd(buf, size, format, v); /* printf's "%.Pg" without parsing the format each time */
    if (ret < 0 || (size_t)ret + 3 >= size)
        return 0;
    size_t len = (size_t)ret;
    const char *point = localeconv()->decimal_point;
    if (*point != '.') {
        char *at = strchr(buf, *point);
        if (at)
            *at = '.';
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
