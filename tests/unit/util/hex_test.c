/* Unit tests for hexadecimal text (src/util/hex.c): round trips, either
 * case, and the refusals (odd length, a non-digit, too long for the buffer). */
#include "util/hex.h"
#include "test.h"

int main(void)
{
    unsigned char bytes[4] = {0x00, 0x7f, 0xab, 0xff}, back[4];
    char text[9];
    CHECK_STR(hex_encode(bytes, 4, text), "007fabff");
    CHECK(hex_decode("007fabff", back, sizeof back) == 4);
    CHECK(!memcmp(bytes, back, 4));
    CHECK(hex_decode("007FABFF", back, sizeof back) == 4);
    CHECK(!memcmp(bytes, back, 4));
    CHECK(hex_decode("", back, sizeof back) == 0);
    CHECK(hex_decode("abc", back, sizeof back) == -1);       /* odd */
    CHECK(hex_decode("0g", back, sizeof back) == -1);        /* not a digit */
    CHECK(hex_decode("0011223344", back, sizeof back) == -1); /* 5 bytes into 4 */
    return test_done();
}
