/* fingerprint.c - the private fingerprint of a key's time, tick and v, by
 * which ak_key_changed() tells an edited key from one a reader attached
 * stored bytes to. Each of the six words is turned left by its own number
 * of bits (0 to 5) and multiplied by its own odd constant, and the results
 * are XORed. Both steps are bijections, so a change to any one word always
 * changes the fingerprint. The turns are there for edits of several words
 * at once: a multiplication carries a word's lowest changed bit to the
 * same place in the product, and the lowest set bit of the XOR is the
 * lowest of those places when one word's is alone there. Without the turns
 * every word's sign bit lands on bit 63, and two sign flips cancel: a
 * rotation mirrored through the struct (y and z negated) or q -> -q read
 * as untouched, and the writer put the old bytes back. With them a flip
 * of any set of signs is always seen (bits 63, 0, 1, 2, 3, 4), and so is a
 * swap of two words that agree in their top five bits (the same sign and
 * near magnitudes: no changed bit wraps around, and the lowest ones land
 * one to five places apart). Never stored outside a running process.
 *
 * Readers fingerprint every key they decode, so the bulk form matters: on
 * x86-64 processors with AVX-512 DQ the six lanes of a key are one vector
 * rotation and multiplication (the same arithmetic, so both forms give the
 * same value), elsewhere the plain loop runs. Attaching the stored bytes and taking the
 * fingerprint are one pass, each key's values loaded before the stores
 * into that key: the other order makes the 64-byte load wait for the
 * stores just before it (measured: ped_cretaceous read 640 MB/s instead of
 * 1040), and two passes went over the keys twice (this order: ani
 * lights_camera_action read 4.4 -> 5.2 GB/s, anm horse 1.24 -> 1.29).
 * The vector form serves runs of any length, even one key (channels of
 * two or three keys are common: hmmwv.anm read +5 %, write +8 % against
 * the plain loop below four keys). Single keys asked one by one
 * (ak_key_changed) stay plain: the vector form between other work made
 * every read and write slower. */
#include "internal.h"

#include <stddef.h>
#include <string.h>

/* The six factors and turns, padded to a whole vector. */
static const uint64_t lane_factor[8] = { AK_FP_FACTORS, 0, 0 };
static const uint64_t lane_turn[8] = { AK_FP_TURNS, 0, 0 };

/* time, tick and v[0..3] are six consecutive words: the vector form loads
 * them at once. */
_Static_assert(offsetof(ak_key, tick) == 8 && offsetof(ak_key, v) == 16 && sizeof(double) == 8 &&
                   sizeof(int64_t) == 8,
               "ak_key starts with six 64-bit words");

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx512f,avx512dq"))) static inline uint64_t fingerprint_of(const ak_key *key,
                                                                                   __m512i factor, __m512i turn)
{
    __m512i w = _mm512_maskz_loadu_epi64(0x3f, key); /* lanes 6 and 7 are 0; within the key */
    w = _mm512_mullo_epi64(_mm512_rolv_epi64(w, turn), factor);
    __m256i h = _mm256_xor_si256(_mm512_castsi512_si256(w), _mm512_extracti64x4_epi64(w, 1));
    __m128i q = _mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    return (uint64_t)_mm_cvtsi128_si64(_mm_xor_si128(q, _mm_unpackhi_epi64(q, q)));
}

/* Each key's values are loaded before its own stores: a load that
 * follows a store into the same key waits for it. */
__attribute__((target("avx512f,avx512dq"), aligned(64))) static void attach_avx512(ak_key *keys, size_t count,
                                                                      const unsigned char *base, size_t stride,
                                                                      size_t size)
{
    const __m512i factor = _mm512_loadu_si512(lane_factor), turn = _mm512_loadu_si512(lane_turn);
    for (size_t i = 0; i < count; i++) {
        uint64_t fp = fingerprint_of(&keys[i], factor, turn);
        ak_key_attach(&keys[i], size ? base + i * stride : NULL, size);
        keys[i].fingerprint_ = fp;
    }
}

__attribute__((target("avx512f,avx512dq"), aligned(64))) static size_t unchanged_avx512(const ak_key *keys, size_t count)
{
    const __m512i factor = _mm512_loadu_si512(lane_factor), turn = _mm512_loadu_si512(lane_turn);
    size_t i = 0;
    while (i < count && ak_key_attached(&keys[i]) && keys[i].fingerprint_ == fingerprint_of(&keys[i], factor, turn))
        i++;
    return i;
}

/* The compiler's runtime fills in the processor's features from a
 * constructor; a call before that sees none and takes the plain loop,
 * which gives the same values. */
static int has_avx512dq(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}
#endif

void ak_keys_attach_fingerprint(ak_key *keys, size_t count, const unsigned char *base, size_t stride, size_t size)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (has_avx512dq()) {
        attach_avx512(keys, count, base, stride, size);
        return;
    }
#endif
    for (size_t i = 0; i < count; i++) {
        uint64_t fp = ak_key_fingerprint(&keys[i]);
        ak_key_attach(&keys[i], size ? base + i * stride : NULL, size);
        keys[i].fingerprint_ = fp;
    }
}

size_t ak_keys_unchanged(const ak_key *keys, size_t count)
{
    if (!keys)
        return 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (has_avx512dq())
        return unchanged_avx512(keys, count);
#endif
    size_t i = 0;
    while (i < count && ak_key_attached(&keys[i]) && keys[i].fingerprint_ == ak_key_fingerprint(&keys[i]))
        i++;
    return i;
}
