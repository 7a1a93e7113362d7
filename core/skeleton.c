/* skeleton.c - tying the tracks of a document to the bones of a skeleton.
 *
 * A track names its bone by id, by name or by hash, and files spell names
 * differently (GTA's " Pelvis" against a model's "pelvis"), so a track is
 * tried against four keys in order of trust. Each key has its own hash
 * index, so matching is linear in tracks + bones whatever their numbers. */
#include "internal.h"

#include <string.h>

enum { BY_ID, BY_NAME, BY_FOLDED, BY_HASH, KEYS };

typedef struct bone_index {
    uint32_t mask;       /* slots - 1; slots is a power of two */
    int32_t *slot[KEYS]; /* bone index + 1, 0 = empty */
    uint32_t *hash;      /* per bone: its stored hash or the CRC-32 of its name */
    int *has_hash;
} bone_index;

static int ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
static int is_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* The name without surrounding white space: [*start, *end). */
static void trimmed(const char *name, const char **start, const char **end)
{
    const char *s = name, *e = name + strlen(name);
    while (s < e && is_space((unsigned char)*s))
        s++;
    while (e > s && is_space((unsigned char)e[-1]))
        e--;
    *start = s;
    *end = e;
}

static int folded_equal(const char *a, const char *b)
{
    const char *as, *ae, *bs, *be;
    trimmed(a, &as, &ae);
    trimmed(b, &bs, &be);
    if (ae - as != be - bs)
        return 0;
    for (; as < ae; as++, bs++)
        if (ascii_lower((unsigned char)*as) != ascii_lower((unsigned char)*bs))
            return 0;
    return 1;
}

static uint32_t mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    return h;
}

static uint32_t name_hash(const char *name, int folded)
{
    const char *s = name, *e = name + strlen(name);
    if (folded)
        trimmed(name, &s, &e);
    uint32_t h = 2166136261u;
    for (; s < e; s++) {
        h ^= (uint32_t)(folded ? ascii_lower((unsigned char)*s) : (unsigned char)*s);
        h *= 16777619u;
    }
    return mix(h);
}

static int bone_has(const ak_doc *skel, const bone_index *ix, int32_t b, int key)
{
    const ak_bone *bone = &skel->skeleton.bones[b];
    switch (key) {
    case BY_ID: return bone->has_id;
    case BY_HASH: return ix->has_hash[b];
    default: return bone->name[0] != '\0';
    }
}

static uint32_t bone_key(const ak_doc *skel, const bone_index *ix, int32_t b, int key)
{
    const ak_bone *bone = &skel->skeleton.bones[b];
    switch (key) {
    case BY_ID: return mix((uint32_t)bone->id);
    case BY_NAME: return name_hash(bone->name, 0);
    case BY_FOLDED: return name_hash(bone->name, 1);
    default: return mix(ix->hash[b]);
    }
}

static int bone_equals_track(const ak_doc *skel, const bone_index *ix, int32_t b, int key,
                             const ak_track *t)
{
    const ak_bone *bone = &skel->skeleton.bones[b];
    switch (key) {
    case BY_ID: return bone->id == t->bone_id;
    case BY_NAME: return strcmp(bone->name, t->bone) == 0;
    case BY_FOLDED: return folded_equal(bone->name, t->bone);
    default: return ix->hash[b] == t->bone_hash;
    }
}

static int bones_share_key(const ak_doc *skel, const bone_index *ix, int32_t a, int32_t b, int key)
{
    const ak_bone *x = &skel->skeleton.bones[a], *y = &skel->skeleton.bones[b];
    switch (key) {
    case BY_ID: return x->id == y->id;
    case BY_NAME: return strcmp(x->name, y->name) == 0;
    case BY_FOLDED: return folded_equal(x->name, y->name);
    default: return ix->hash[a] == ix->hash[b];
    }
}

static void free_if(const ak_allocator *a, void *p)
{
    if (p)
        a->free(a->user, p);
}

static void index_free(const ak_allocator *a, bone_index *ix)
{
    for (int k = 0; k < KEYS; k++)
        free_if(a, ix->slot[k]);
    free_if(a, ix->hash);
    free_if(a, ix->has_hash);
}

/* Builds the four indexes; the first bone wins where several share a key,
 * as the first clip of a name wins in ak_doc_find_clip. */
static int index_build(const ak_allocator *a, const ak_doc *skel, bone_index *ix)
{
    size_t n = skel->skeleton.bone_count, slots = 4;
    memset(ix, 0, sizeof *ix);
    while (slots < 2 * n)
        slots *= 2;
    ix->mask = (uint32_t)(slots - 1);
    for (int k = 0; k < KEYS; k++) {
        ix->slot[k] = a->alloc(a->user, slots * sizeof(int32_t));
        if (ix->slot[k])
            memset(ix->slot[k], 0, slots * sizeof(int32_t));
    }
    ix->hash = a->alloc(a->user, (n ? n : 1) * sizeof *ix->hash);
    ix->has_hash = a->alloc(a->user, (n ? n : 1) * sizeof *ix->has_hash);
    if (!ix->slot[0] || !ix->slot[1] || !ix->slot[2] || !ix->slot[3] || !ix->hash || !ix->has_hash)
        return 0;
    for (int32_t b = 0; (size_t)b < n; b++) {
        const ak_bone *bone = &skel->skeleton.bones[b];
        ix->has_hash[b] = bone->has_hash || bone->name[0];
        ix->hash[b] = bone->has_hash ? bone->hash : ak_crc32(bone->name, strlen(bone->name));
        for (int k = 0; k < KEYS; k++) {
            if (!bone_has(skel, ix, b, k))
                continue;
            for (uint32_t s = bone_key(skel, ix, b, k) & ix->mask;; s = (s + 1) & ix->mask) {
                int32_t other = ix->slot[k][s] - 1;
                if (other < 0) {
                    ix->slot[k][s] = b + 1;
                    break;
                }
                if (bones_share_key(skel, ix, other, b, k))
                    break;
            }
        }
    }
    return 1;
}

static uint32_t track_key(const ak_track *t, int key)
{
    switch (key) {
    case BY_ID: return mix((uint32_t)t->bone_id);
    case BY_NAME: return name_hash(t->bone, 0);
    case BY_FOLDED: return name_hash(t->bone, 1);
    default: return mix(t->bone_hash);
    }
}

static int track_has(const ak_track *t, int key)
{
    switch (key) {
    case BY_ID: return t->has_bone_id;
    case BY_HASH: return t->has_bone_hash;
    default: return t->bone[0] != '\0';
    }
}

static int32_t index_lookup(const ak_doc *skel, const bone_index *ix, const ak_track *t)
{
    for (int k = 0; k < KEYS; k++) {
        if (!track_has(t, k))
            continue;
        for (uint32_t s = track_key(t, k) & ix->mask;; s = (s + 1) & ix->mask) {
            int32_t b = ix->slot[k][s] - 1;
            if (b < 0)
                break;
            if (bone_equals_track(skel, ix, b, k, t))
                return b;
        }
    }
    return -1;
}

size_t ak_doc_match_skeleton(ak_doc *doc)
{
    const ak_allocator *a = &doc->private_->heap.allocator;
    bone_index ix;
    size_t matched = 0;
    int ok = index_build(a, doc, &ix);
    for (size_t c = 0; c < doc->clip_count; c++) {
        ak_clip *clip = doc->clips[c];
        for (size_t i = 0; i < clip->track_count; i++) {
            ak_track *t = clip->tracks[i];
            t->skeleton_bone = ok && doc->skeleton.bone_count ? index_lookup(doc, &ix, t) : -1;
            matched += t->skeleton_bone >= 0;
        }
    }
    index_free(a, &ix);
    return ok ? matched : (size_t)-1;
}

size_t ak_clip_skeleton_matched(const ak_clip *clip)
{
    size_t matched = 0;
    for (size_t i = 0; i < clip->track_count; i++)
        matched += clip->tracks[i]->skeleton_bone >= 0;
    return matched;
}

ak_status ak_doc_attach_skeleton(ak_doc *doc, const ak_doc *from)
{
    if (from == doc)
        return ak_doc_match_skeleton(doc) == (size_t)-1 ? AK_E_NOMEM : AK_OK;
    ak_doc_clear_skeleton(doc);
    ak_status st = ak_doc_copy_skeleton(doc, &from->skeleton);
    if (st == AK_OK && ak_doc_match_skeleton(doc) == (size_t)-1)
        st = AK_E_NOMEM;
    if (st != AK_OK) {
        ak_doc_clear_skeleton(doc);
        ak_doc_match_skeleton(doc); /* every track back to -1 */
    }
    return st;
}
