/* digest.c - the byte-wise FNV-1a that plugins store beside data they
 * must later recognise as unchanged (a skeleton, a shared accessor). */
#include "internal.h"

uint64_t ak_digest_bytes(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
