/* Unit tests for the archive's content hash (src/archive/sha256.c) against
 * the FIPS 180-4 example vectors. */
#include "util/sha256.h"
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
    /* HMAC-SHA256, RFC 4231 test cases 1, 2 and 6 (a key longer than a block) */
    unsigned char key1[20];
    memset(key1, 0x0b, sizeof key1);
    CHECK(hmac_sha256_hex(key1, sizeof key1, "Hi There", 8, hex) == 0);
    CHECK_STR(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    hmac_sha256_hex("Jefe", 4, "what do ya want for nothing?", 28, hex);
    CHECK_STR(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    unsigned char key6[131];
    memset(key6, 0xaa, sizeof key6);
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    hmac_sha256_hex(key6, sizeof key6, m6, strlen(m6), hex);
    CHECK_STR(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    return test_done();
}
