/* SHA-256 (FIPS 180-4), small and dependency-free: the archive needs a content
 * hash and nothing else from a crypto library. On x86-64 processors with the
 * SHA extensions (checked at run time) the blocks go through them: hashing
 * was 7% of the CPU time of 'tally archive add'. */
#include "util/sha256.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t state[8], const unsigned char block[64])
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
               (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                      round_constants[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d;
    state[4] += e; state[5] += f; state[6] += g; state[7] += h;
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

/* The 64 rounds with the SHA-NI instructions: the state is kept as ABEF and
 * CDGH, two rounds per sha256rnds2, the schedule by sha256msg1/msg2. */
__attribute__((target("sha,sse4.1"))) static void compress_sha_ni(uint32_t state[8],
                                                                 const unsigned char block[64])
{
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1); /* CDAB */
    __m128i state1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B); /* EFGH */
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);    /* ABEF */
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);         /* CDGH */
    const __m128i abef_before = state0, cdgh_before = state1;
    __m128i w[4];
    for (int i = 0; i < 16; i++) {
        __m128i *wi = &w[i % 4];
        if (i < 4) {
            *wi = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16 * i)), byte_swap);
        } else {
            __m128i w4 = w[i % 4], w3 = w[(i + 1) % 4], w2 = w[(i + 2) % 4], w1 = w[(i + 3) % 4];
            __m128i t = _mm_add_epi32(_mm_sha256msg1_epu32(w4, w3), _mm_alignr_epi8(w1, w2, 4));
            *wi = _mm_sha256msg2_epu32(t, w1);
        }
        __m128i msg = _mm_add_epi32(*wi, _mm_loadu_si128((const __m128i *)&round_constants[4 * i]));
        state1 = _mm_sha256rnds2_epu32(state1, state0, msg);
        state0 = _mm_sha256rnds2_epu32(state0, state1, _mm_shuffle_epi32(msg, 0x0E));
    }
    state0 = _mm_add_epi32(state0, abef_before);
    state1 = _mm_add_epi32(state1, cdgh_before);
    tmp = _mm_shuffle_epi32(state0, 0x1B);            /* FEBA */
    state1 = _mm_shuffle_epi32(state1, 0xB1);         /* DCHG */
    state0 = _mm_blend_epi16(tmp, state1, 0xF0);      /* DCBA */
    state1 = _mm_alignr_epi8(state1, tmp, 8);         /* HGFE */
    _mm_storeu_si128((__m128i *)&state[0], state0);
    _mm_storeu_si128((__m128i *)&state[4], state1);
}

static bool cpu_has_sha_ni(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    bool sha = b & (1u << 29);
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return false;
    return sha && (c & bit_SSE4_1) && (c & bit_SSSE3);
}
#endif

typedef void (*compress_fn)(uint32_t state[8], const unsigned char block[64]);

static compress_fn best_compress(void)
{
#if defined(__x86_64__)
    static _Atomic int has = -1; /* the same answer whichever thread asks first */
    if (has < 0)
        has = cpu_has_sha_ni();
    if (has)
        return compress_sha_ni;
#endif
    return compress;
}

static void sha256_with(compress_fn compress_block, const void *data, size_t len,
                        unsigned char out[SHA256_LEN])
{
    uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const unsigned char *p = data;
    size_t left = len;
    while (left >= 64) {
        compress_block(state, p);
        p += 64;
        left -= 64;
    }
    unsigned char tail[128] = {0};
    memcpy(tail, p, left);
    tail[left] = 0x80;
    size_t tail_len = left + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++)
        tail[tail_len - 1 - i] = (unsigned char)(bits >> (8 * i));
    compress_block(state, tail);
    if (tail_len == 128)
        compress_block(state, tail + 64);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 4; k++)
            out[4 * i + k] = (unsigned char)(state[i] >> (24 - 8 * k));
}

static void to_hex(const unsigned char raw[SHA256_LEN], char hex[SHA256_HEX_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < SHA256_LEN; i++) {
        hex[2 * i] = digits[raw[i] >> 4];
        hex[2 * i + 1] = digits[raw[i] & 15];
    }
    hex[SHA256_HEX_LEN] = '\0';
}

void sha256(const void *data, size_t len, unsigned char out[SHA256_LEN])
{
    sha256_with(best_compress(), data, len, out);
}

void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1])
{
    unsigned char raw[SHA256_LEN];
    sha256_with(best_compress(), data, len, raw);
    to_hex(raw, hex);
}

void sha256_hex_portable(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1])
{
    unsigned char raw[SHA256_LEN];
    sha256_with(compress, data, len, raw);
    to_hex(raw, hex);
}

/* 32 raw bytes from 64 hex digits. */
static void hex_to_raw(const char *hex, unsigned char raw[32])
{
    for (int i = 0; i < 32; i++) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        raw[i] = (unsigned char)v;
    }
}

int hmac_sha256_hex(const void *key, size_t key_len, const void *data, size_t len,
                    char hex[SHA256_HEX_LEN + 1])
{
    unsigned char k[64] = {0};
    char digest[SHA256_HEX_LEN + 1];
    if (key_len > 64) {
        sha256_hex(key, key_len, digest);
        hex_to_raw(digest, k);
    } else {
        memcpy(k, key, key_len);
    }
    unsigned char *inner = malloc(64 + len);
    if (!inner)
        return -1;
    for (int i = 0; i < 64; i++)
        inner[i] = k[i] ^ 0x36;
    memcpy(inner + 64, data, len);
    sha256_hex(inner, 64 + len, digest);
    free(inner);
    unsigned char outer[64 + 32];
    for (int i = 0; i < 64; i++)
        outer[i] = k[i] ^ 0x5c;
    hex_to_raw(digest, outer + 64);
    sha256_hex(outer, sizeof outer, hex);
    return 0;
}
