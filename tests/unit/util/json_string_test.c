/* Unit tests for a string's JSON text (src/util/json_string.c): the bytes
 * jansson's json_dumps writes for the same string (every ASCII byte alone,
 * quotes, backslashes, control characters, multi-byte UTF-8, a NUL inside),
 * the length alone when out is NULL, and nothing written past the text. */
#include <jansson.h>

#include "util/json_string.h"
#include "test.h"

/* The text json_string_text gives for n bytes of s, against jansson's. */
static void same_as_jansson(const char *s, size_t n)
{
    json_t *j = json_stringn(s, n);
    char *want = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    char out[JSON_STRING_ROOM(64) + 1];
    memset(out, '#', sizeof out);
    size_t len = json_string_text((const unsigned char *)s, n, out);
    CHECK(want != NULL);
    CHECK(len == json_string_text((const unsigned char *)s, n, NULL));
    CHECK(want && len == strlen(want) && !memcmp(out, want, len));
    CHECK(len < sizeof out && out[len] == '#'); /* nothing past the text */
    free(want);
    json_decref(j);
}

int main(void)
{
    for (int c = 0; c < 0x80; c++) {
        char one = (char)c;
        same_as_jansson(&one, 1);
    }
    same_as_jansson("", 0);
#define SAME_AS_JANSSON(literal) same_as_jansson(literal, sizeof literal - 1)
    SAME_AS_JANSSON("a\"b\\c/d");
    SAME_AS_JANSSON("tab\there\nnew line\r\x01\x1f\x7f");
    SAME_AS_JANSSON("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* é € 😀 */
    SAME_AS_JANSSON("nul\0inside");
    /* the most a byte takes: \u00XX, six bytes */
    char controls[16];
    memset(controls, 0x02, sizeof controls);
    CHECK(json_string_text((const unsigned char *)controls, sizeof controls, NULL) ==
          JSON_STRING_ROOM(sizeof controls));
    same_as_jansson(controls, sizeof controls);
    return test_done();
}
