/* propindex.c - finding a property by key without scanning the list, so
 * that setting n properties costs O(n), not O(n^2) (100,000 properties in
 * a JSON file took 25 s). One hash table per document maps (list, key) to
 * the item's index. An entry is trusted only after checking the list
 * still holds that key at that index, so entries of lists since freed do
 * no harm. If the table ever cannot grow, the document falls back to
 * scanning, which is slow but right. */
#include "internal.h"

#include <string.h>

typedef struct slot {
    const ak_props *props; /* NULL = empty */
    uint32_t hash;
    uint32_t index;
} slot;

struct ak_prop_index {
    slot *slots;
    size_t capacity, used; /* capacity is a power of two, or 0 */
    int broken;
};

static uint32_t hash_key(const ak_props *props, const char *key)
{
    uint64_t h = 1469598103934665603u ^ (uint64_t)(uintptr_t)props;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    return (uint32_t)(h ^ (h >> 32));
}

/* Both keys are the document's copies (doc.c, key_copy), zero-filled to
 * a whole word past the terminator: equal words up to the one holding the
 * terminator mean equal keys. */
static inline int same_key(const char *a, const char *b)
{
    for (;; a += 8, b += 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y)
            return 0;
        if ((x - 0x0101010101010101u) & ~x & 0x8080808080808080u)
            return 1;
    }
}

static ak_prop *scan(ak_props *props, const char *key)
{
    for (size_t i = 0; i < props->count; i++)
        if (same_key(props->items[i].key, key))
            return &props->items[i];
    return NULL;
}

ak_prop *ak_prop_index_find(struct ak_prop_index *idx, ak_props *props, const char *key)
{
    if (props->count < AK_PROP_SCAN_BELOW || !idx || idx->broken)
        return scan(props, key);
    uint32_t h = hash_key(props, key);
    size_t mask = idx->capacity - 1;
    for (size_t i = h & mask; idx->slots[i].props; i = (i + 1) & mask) {
        const slot *s = &idx->slots[i];
        if (s->props == props && s->hash == h && s->index < props->count &&
            same_key(props->items[s->index].key, key))
            return &props->items[s->index];
    }
    return NULL;
}

static void put(struct ak_prop_index *idx, slot entry)
{
    size_t mask = idx->capacity - 1, i = entry.hash & mask;
    while (idx->slots[i].props)
        i = (i + 1) & mask;
    idx->slots[i] = entry;
    idx->used++;
}

static int grow(ak_heap *heap, struct ak_prop_index *idx)
{
    size_t cap = idx->capacity ? idx->capacity * 2 : 64;
    slot *fresh = ak_heap_alloc(heap, cap * sizeof(slot));
    if (!fresh)
        return 0;
    memset(fresh, 0, cap * sizeof(slot));
    slot *old = idx->slots;
    size_t old_cap = idx->capacity;
    idx->slots = fresh;
    idx->capacity = cap;
    idx->used = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].props)
            put(idx, old[i]);
    ak_heap_free(heap, old, old_cap * sizeof(slot));
    return 1;
}

/* The index of a document whose index could not be made: never written. */
static struct ak_prop_index no_index = { NULL, 0, 0, 1 };

int ak_prop_index_added(ak_heap *heap, struct ak_prop_index **pidx, const ak_props *props)
{
    struct ak_prop_index *idx = *pidx;
    if (!idx) {
        idx = ak_heap_alloc(heap, sizeof *idx);
        if (!idx) {
            *pidx = &no_index; /* scan from now on */
            return 0;
        }
        memset(idx, 0, sizeof *idx);
        *pidx = idx;
    }
    if (idx->broken || props->count < AK_PROP_SCAN_BELOW)
        return 1;
    /* A list reaching AK_PROP_SCAN_BELOW items enters the index whole: most lists
     * (a track's two or three properties) never do, and cost nothing. */
    size_t first = props->count == AK_PROP_SCAN_BELOW ? 0 : props->count - 1;
    for (size_t i = first; i < props->count; i++) {
        if ((idx->used + 1) * 2 > idx->capacity && !grow(heap, idx)) {
            idx->broken = 1; /* an entry would be missing: scan from now on */
            return 0;
        }
        put(idx, (slot){ props, hash_key(props, props->items[i].key), (uint32_t)i });
    }
    return 1;
}

void ak_prop_index_free(ak_heap *heap, struct ak_prop_index *idx)
{
    if (!idx || idx == &no_index)
        return;
    ak_heap_free(heap, idx->slots, idx->capacity * sizeof(slot));
    ak_heap_free(heap, idx, sizeof *idx);
}
