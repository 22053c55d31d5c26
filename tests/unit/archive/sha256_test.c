/* Unit tests for the archive's content hash (src/archive/sha256.c) against
 * the FIPS 180-4 example vectors. */
#include "archive/sha256.h"
#include "test.h"

int main(void)
{
    char hex[SHA256_HEX_LEN + 1];
    sha256_hex("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha256_hex("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 56 bytes */
    sha256_hex(two_blocks, strlen(two_blocks), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char million[1000000];
    memset(million, 'a', sizeof million);
    sha256_hex(million, sizeof million, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    sha256_hex_portable(million, sizeof million, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* the accelerated and the portable path agree on every length around the
     * block and padding boundaries */
    int agree = 1;
    char portable[SHA256_HEX_LEN + 1];
    for (size_t len = 0; len < 300; len++) {
        for (size_t i = 0; i < len; i++)
            million[i] = (char)(i * 131 + len);
        sha256_hex(million, len, hex);
        sha256_hex_portable(million, len, portable);
        agree &= !strcmp(hex, portable);
    }
    CHECK(agree);
    return test_done();
}
