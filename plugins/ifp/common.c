/* common.c - helpers shared by the ifp reader and writer. */
#include "ifp.h"

#include <stdio.h>
#include <string.h>

static const char *const variant_names[IFP_VARIANTS] = { "ANP3", "ANP2", "ANPK", "ANLF" };

const char *ifp_variant_name(ifp_variant v)
{
    return (unsigned)v < IFP_VARIANTS ? variant_names[v] : "?";
}

int ifp_variant_of(const char *magic4)
{
    for (int i = 0; i < IFP_VARIANTS; i++)
        if (memcmp(magic4, variant_names[i], 4) == 0)
            return i;
    return -1;
}

size_t ifp_frame_size(uint32_t type)
{
    switch (type) {
    case 1: return 20;
    case 2: return 32;
    case 3: return 10;
    case 4: return 16;
    default: return 0;
    }
}

/* "KEY.computed" into buf (cut to fit); called per track by the writer,
 * so a plain copy rather than snprintf. */
static const char *computed_key(char *buf, size_t size, const char *key)
{
    static const char suffix[] = ".computed";
    size_t n = strlen(key);
    if (n > size - sizeof suffix)
        n = size - sizeof suffix;
    memcpy(buf, key, n);
    memcpy(buf + n, suffix, sizeof suffix);
    return buf;
}

ak_status ifp_stale_put(ak_doc *doc, ak_props *props, const char *key, int64_t stored, int64_t computed)
{
    char buf[96];
    computed_key(buf, sizeof buf, key);
    ak_status st = ak_prop_set_int(doc, props, key, stored);
    if (st == AK_OK)
        st = ak_prop_set_int(doc, props, buf, computed);
    return st;
}

int64_t ifp_stale_get(const ak_props *props, const char *key, int64_t computed_now)
{
    const ak_prop *v = ak_prop_get(props, key);
    if (!v)
        return computed_now; /* the common case: the field was not stale */
    char buf[96];
    const ak_prop *c = ak_prop_get(props, computed_key(buf, sizeof buf, key));
    if (v && c && v->type == AK_PROP_INT && c->type == AK_PROP_INT && c->i == computed_now)
        return v->i;
    return computed_now;
}

size_t ifp_field_len(const unsigned char *p, size_t n)
{
    const unsigned char *z = memchr(p, 0, n);
    return z ? (size_t)(z - p) : n;
}

/* Eight bytes at a time: every bone name of a file passes here. */
static int all_zero(const unsigned char *p, size_t n)
{
    uint64_t any = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        any |= w;
    }
    for (; i < n; i++)
        any |= p[i];
    return !any;
}

int ifp_field_zero_padded(const unsigned char *p, size_t n, size_t len)
{
    return len < n && all_zero(p + len, n - len);
}

int ifp_field_canonical(const unsigned char *p, size_t n)
{
    return ifp_field_zero_padded(p, n, ifp_field_len(p, n));
}

const char *ifp_block_key(char *buf, size_t size, int block, const char *key)
{
    if (block < 0) {
        snprintf(buf, size, "%s", key);
        return buf;
    }
    const char *rest = strncmp(key, "ifp.", 4) == 0 ? key + 4 : key;
    snprintf(buf, size, "ifp.b%d.%s", block, rest);
    return buf;
}
