/* SHA-256 of a buffer, as lowercase hex. The archive uses it as the content
 * hash that makes adding the same summary twice store it once; HMAC-SHA256
 * (RFC 2104) signs requests sent over NATS with the user's credentials. */
#ifndef TALLY_UTIL_SHA256_H
#define TALLY_UTIL_SHA256_H

#include <stddef.h>

#define SHA256_LEN 32
#define SHA256_HEX_LEN 64

/* The 32 bytes of the hash. */
void sha256(const void *data, size_t len, unsigned char out[SHA256_LEN]);
/* Writes 64 hex digits and a NUL into hex (at least 65 bytes). */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);
/* The same without processor extensions (to check them against). */
void sha256_hex_portable(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

/* HMAC-SHA256 of data under key, as 64 hex digits. 0, or -1 out of memory. */
int hmac_sha256_hex(const void *key, size_t key_len, const void *data, size_t len,
                    char hex[SHA256_HEX_LEN + 1]);

#endif
