/* A string's JSON text as jansson's encoder writes it (see json_string.h). */
#include "util/json_string.h"

#include <string.h>

size_t json_string_text(const unsigned char *d, size_t n, char *out)
{
    size_t len = 2;
    if (out)
        *out++ = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = d[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            len++;
            if (out)
                *out++ = (char)c;
            continue;
        }
        char escape = c == '"' ? '"' : c == '\\' ? '\\' : c == '\b' ? 'b' : c == '\f' ? 'f'
                      : c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : 0;
        len += escape ? 2 : 6;
        if (out && escape) {
            *out++ = '\\';
            *out++ = escape;
        } else if (out) {
            static const char hex[] = "0123456789ABCDEF";
            memcpy(out, "\\u00", 4);
            out[4] = hex[c >> 4];
            out[5] = hex[c & 15];
            out += 6;
        }
    }
    if (out)
        *out = '"';
    return len;
}
