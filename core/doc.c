/* doc.c - the document model: clips, tracks, keys, events and properties,
 * all allocated from the document's own heap so that one call frees it and
 * a read can be capped. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { KEY_HAS_RAW = 1, KEY_TOUCHED = 2 };

static void *std_alloc(void *user, size_t size) { (void)user; return malloc(size); }
static void *std_realloc(void *user, void *ptr, size_t size) { (void)user; return realloc(ptr, size); }
static void std_free(void *user, void *ptr) { (void)user; free(ptr); }

const ak_allocator ak_default_allocator = { std_alloc, std_realloc, std_free, NULL };

static int heap_admit(ak_heap *heap, size_t grow)
{
    if (heap->limit && (grow > heap->limit || heap->used > heap->limit - grow)) {
        if (heap->job)
            ak_fail(heap->job, AK_E_LIMIT, -1,
                    "the document would need more than %zu bytes of memory (the limit for this input); "
                    "the counts in the file are not plausible", heap->limit);
        return 0;
    }
    return 1;
}

static void heap_out_of_memory(ak_heap *heap)
{
    if (heap->job)
        ak_fail(heap->job, AK_E_NOMEM, -1, "out of memory");
}

void *ak_heap_alloc(ak_heap *heap, size_t size)
{
    if (!heap_admit(heap, size))
        return NULL;
    void *p = heap->allocator.alloc(heap->allocator.user, size ? size : 1);
    if (!p) {
        heap_out_of_memory(heap);
        return NULL;
    }
    heap->used += size;
    return p;
}

void *ak_heap_realloc(ak_heap *heap, void *ptr, size_t old_size, size_t new_size)
{
    if (new_size > old_size && !heap_admit(heap, new_size - old_size))
        return NULL;
    void *p = heap->allocator.realloc(heap->allocator.user, ptr, new_size ? new_size : 1);
    if (!p) {
        heap_out_of_memory(heap);
        return NULL;
    }
    heap->used = heap->used - old_size + new_size;
    return p;
}

void ak_heap_free(ak_heap *heap, void *ptr, size_t size)
{
    if (!ptr)
        return;
    heap->allocator.free(heap->allocator.user, ptr);
    heap->used -= size < heap->used ? size : heap->used;
}

/* Strings and raw bytes live in an arena: they are never freed one by one. */
typedef struct ak_arena_block {
    struct ak_arena_block *next;
    size_t size, used;
    unsigned char bytes[];
} ak_arena_block;

#define ARENA_BLOCK 16384u

static void *arena_alloc(ak_doc *doc, size_t size)
{
    struct ak_doc_private *pv = doc->private_;
    ak_arena_block *b = pv->arena;
    size_t aligned = (size + 7u) & ~(size_t)7u;
    if (aligned < size)
        return NULL;
    if (!b || b->size - b->used < aligned) {
        size_t cap = aligned > ARENA_BLOCK ? aligned : ARENA_BLOCK;
        b = ak_heap_alloc(&pv->heap, sizeof *b + cap);
        if (!b)
            return NULL;
        b->size = cap;
        b->used = 0;
        b->next = pv->arena;
        pv->arena = b;
    }
    void *p = b->bytes + b->used;
    b->used += aligned;
    return p;
}

static const char *arena_strndup(ak_doc *doc, const char *s, size_t n)
{
    char *p = arena_alloc(doc, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static const char *arena_strdup(ak_doc *doc, const char *s)
{
    return arena_strndup(doc, s ? s : "", s ? strlen(s) : 0);
}

/* Grows an array of `elem` sized items so that `need` fit. */
static int grow_array(ak_heap *heap, void **items, size_t *capacity, size_t need, size_t elem)
{
    if (need <= *capacity)
        return 1;
    size_t cap = *capacity ? *capacity : 4;
    while (cap < need) {
        if (cap > SIZE_MAX / 2 / elem)
            return 0;
        cap *= 2;
    }
    if (cap > SIZE_MAX / elem)
        return 0;
    void *p = ak_heap_realloc(heap, *items, *capacity * elem, cap * elem);
    if (!p)
        return 0;
    *items = p;
    *capacity = cap;
    return 1;
}

static ak_heap *doc_heap(ak_doc *doc) { return &doc->private_->heap; }

ak_doc *ak_doc_new_with(const ak_allocator *allocator, size_t limit)
{
    if (!allocator)
        allocator = &ak_default_allocator;
    ak_doc *doc = allocator->alloc(allocator->user, sizeof *doc);
    if (!doc)
        return NULL;
    struct ak_doc_private *pv = allocator->alloc(allocator->user, sizeof *pv);
    if (!pv) {
        allocator->free(allocator->user, doc);
        return NULL;
    }
    memset(doc, 0, sizeof *doc);
    memset(pv, 0, sizeof *pv);
    pv->heap.allocator = *allocator;
    pv->heap.limit = limit;
    doc->private_ = pv;
    doc->format = "";
    doc->variant = "";
    return doc;
}

void ak_doc_attach_job(ak_doc *doc, ak_job *job, size_t limit)
{
    doc->private_->heap.job = job;
    doc->private_->heap.limit = limit;
    if (job)
        job->heap = &doc->private_->heap;
}

ak_doc *ak_doc_new(void) { return ak_doc_new_with(NULL, 0); }

static void props_free(ak_heap *heap, ak_props *props)
{
    ak_heap_free(heap, props->items, props->capacity_ * sizeof(ak_prop));
    props->items = NULL;
    props->count = props->capacity_ = 0;
}

static void track_free(ak_heap *heap, ak_track *t)
{
    for (int c = 0; c < AK_CHANNELS; c++)
        ak_heap_free(heap, t->channel[c].keys, t->channel[c].capacity_ * sizeof(ak_key));
    props_free(heap, &t->props);
    ak_heap_free(heap, t, sizeof *t);
}

static void clip_free(ak_heap *heap, ak_clip *clip)
{
    for (size_t i = 0; i < clip->track_count; i++)
        track_free(heap, clip->tracks[i]);
    ak_heap_free(heap, clip->tracks, clip->track_capacity_ * sizeof(ak_track *));
    for (size_t i = 0; i < clip->event_count; i++)
        props_free(heap, &clip->events[i].props);
    ak_heap_free(heap, clip->events, clip->event_capacity_ * sizeof(ak_event));
    props_free(heap, &clip->props);
    ak_heap_free(heap, clip, sizeof *clip);
}

static size_t clip_capacity(const ak_doc *doc)
{
    /* Clip pointer arrays grow by powers of two from 4, like grow_array. */
    size_t cap = 0;
    if (doc->clip_count) {
        cap = 4;
        while (cap < doc->clip_count)
            cap *= 2;
    }
    return cap;
}

void ak_doc_clear_skeleton(ak_doc *doc)
{
    ak_heap *heap = doc_heap(doc);
    ak_skeleton *sk = &doc->skeleton;
    for (size_t i = 0; i < sk->bone_count; i++)
        props_free(heap, &sk->bones[i].props);
    ak_heap_free(heap, sk->bones, sk->bone_capacity_ * sizeof(ak_bone));
    memset(sk, 0, sizeof *sk);
}

void ak_doc_free(ak_doc *doc)
{
    if (!doc)
        return;
    struct ak_doc_private *pv = doc->private_;
    ak_heap *heap = &pv->heap;
    for (size_t i = 0; i < doc->clip_count; i++)
        clip_free(heap, doc->clips[i]);
    ak_doc_clear_skeleton(doc);
    ak_heap_free(heap, doc->clips, clip_capacity(doc) * sizeof(ak_clip *));
    props_free(heap, &doc->props);
    ak_prop_index_free(heap, pv->prop_index);
    for (ak_arena_block *b = pv->arena, *next; b; b = next) {
        next = b->next;
        ak_heap_free(heap, b, sizeof *b + b->size);
    }
    ak_allocator a = heap->allocator;
    a.free(a.user, pv);
    a.free(a.user, doc);
}

ak_status ak_doc_set_format(ak_doc *doc, const char *format, const char *variant)
{
    const char *f = arena_strdup(doc, format);
    const char *v = arena_strdup(doc, variant);
    if (!f || !v)
        return AK_E_NOMEM;
    doc->format = f;
    doc->variant = v;
    return AK_OK;
}

ak_clip *ak_clip_add(ak_doc *doc, const char *name)
{
    ak_heap *heap = doc_heap(doc);
    size_t cap = clip_capacity(doc);
    void *items = doc->clips;
    if (!grow_array(heap, &items, &cap, doc->clip_count + 1, sizeof(ak_clip *)))
        return NULL;
    doc->clips = items;
    ak_clip *clip = ak_heap_alloc(heap, sizeof *clip);
    if (!clip)
        return NULL;
    memset(clip, 0, sizeof *clip);
    clip->doc = doc;
    clip->name = arena_strdup(doc, name);
    if (!clip->name) {
        ak_heap_free(heap, clip, sizeof *clip);
        return NULL;
    }
    doc->clips[doc->clip_count++] = clip;
    return clip;
}

void ak_clip_remove(ak_doc *doc, size_t index)
{
    if (index >= doc->clip_count)
        return;
    clip_free(doc_heap(doc), doc->clips[index]);
    memmove(doc->clips + index, doc->clips + index + 1,
            (doc->clip_count - index - 1) * sizeof(ak_clip *));
    /* Keep the array's capacity consistent with clip_capacity(). */
    size_t old_cap = clip_capacity(doc);
    doc->clip_count--;
    size_t new_cap = clip_capacity(doc);
    if (new_cap != old_cap) {
        if (new_cap == 0) {
            ak_heap_free(doc_heap(doc), doc->clips, old_cap * sizeof(ak_clip *));
            doc->clips = NULL;
        } else {
            void *p = ak_heap_realloc(doc_heap(doc), doc->clips, old_cap * sizeof(ak_clip *),
                                      new_cap * sizeof(ak_clip *));
            if (p)
                doc->clips = p;
            else /* shrinking failed: account the block as still large */
                doc_heap(doc)->used += (old_cap - new_cap) * sizeof(ak_clip *);
        }
    }
}

ak_status ak_clip_set_name(ak_clip *clip, const char *name)
{
    const char *n = arena_strdup(clip->doc, name);
    if (!n)
        return AK_E_NOMEM;
    clip->name = n;
    return AK_OK;
}

ak_clip *ak_doc_find_clip(const ak_doc *doc, const char *name)
{
    for (size_t i = 0; i < doc->clip_count; i++)
        if (ak_str_ieq(doc->clips[i]->name, name))
            return doc->clips[i];
    return NULL;
}

ak_track *ak_track_add(ak_clip *clip, const char *bone)
{
    ak_heap *heap = doc_heap(clip->doc);
    void *items = clip->tracks;
    if (!grow_array(heap, &items, &clip->track_capacity_, clip->track_count + 1, sizeof(ak_track *)))
        return NULL;
    clip->tracks = items;
    ak_track *t = ak_heap_alloc(heap, sizeof *t);
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    t->clip = clip;
    t->weight = 1.0;
    t->skeleton_bone = -1;
    t->bone = arena_strdup(clip->doc, bone);
    if (!t->bone) {
        ak_heap_free(heap, t, sizeof *t);
        return NULL;
    }
    clip->tracks[clip->track_count++] = t;
    return t;
}

ak_status ak_track_set_bone(ak_track *track, const char *bone)
{
    const char *b = arena_strdup(track->clip->doc, bone);
    if (!b)
        return AK_E_NOMEM;
    track->bone = b;
    return AK_OK;
}

ak_status ak_channel_reserve(ak_track *track, ak_channel_kind kind, size_t count)
{
    if ((unsigned)kind >= AK_CHANNELS)
        return AK_E_USAGE;
    ak_channel *ch = &track->channel[kind];
    if (count > SIZE_MAX - ch->count)
        return AK_E_LIMIT;
    void *items = ch->keys;
    size_t need = ch->count + count;
    if (need <= ch->capacity_)
        return AK_OK;
    /* Reserve exactly: readers know their counts, and exact sizes keep the
     * memory cap meaningful. */
    if (need > SIZE_MAX / sizeof(ak_key))
        return AK_E_LIMIT;
    void *p = ak_heap_realloc(doc_heap(track->clip->doc), items, ch->capacity_ * sizeof(ak_key),
                              need * sizeof(ak_key));
    if (!p)
        return AK_E_NOMEM;
    ch->keys = p;
    ch->capacity_ = need;
    return AK_OK;
}

ak_key *ak_key_add(ak_track *track, ak_channel_kind kind)
{
    if ((unsigned)kind >= AK_CHANNELS)
        return NULL;
    ak_channel *ch = &track->channel[kind];
    void *items = ch->keys;
    if (!grow_array(doc_heap(track->clip->doc), &items, &ch->capacity_, ch->count + 1, sizeof(ak_key)))
        return NULL;
    ch->keys = items;
    ak_key *k = &ch->keys[ch->count++];
    memset(k, 0, sizeof *k);
    if (kind == AK_ROTATION)
        k->v[3] = 1.0;
    return k;
}

static uint64_t key_fingerprint(const ak_key *k)
{
    unsigned char buf[sizeof k->time + sizeof k->tick + sizeof k->v];
    memcpy(buf, &k->time, sizeof k->time);
    memcpy(buf + sizeof k->time, &k->tick, sizeof k->tick);
    memcpy(buf + sizeof k->time + sizeof k->tick, k->v, sizeof k->v);
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < sizeof buf; i++) {
        h ^= buf[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

ak_status ak_key_set_raw(ak_track *track, ak_key *key, const void *raw, size_t size)
{
    if (size > UINT32_MAX)
        return AK_E_USAGE;
    unsigned char *copy = NULL;
    if (size) {
        copy = arena_alloc(track->clip->doc, size);
        if (!copy)
            return AK_E_NOMEM;
        memcpy(copy, raw, size);
    }
    key->raw = copy;
    key->raw_size = (uint32_t)size;
    key->flags_ = (key->flags_ | KEY_HAS_RAW) & ~(uint32_t)KEY_TOUCHED;
    key->fingerprint_ = key_fingerprint(key);
    return AK_OK;
}

int ak_key_changed(const ak_key *key)
{
    if (!(key->flags_ & KEY_HAS_RAW) || (key->flags_ & KEY_TOUCHED))
        return 1;
    return key->fingerprint_ != key_fingerprint(key);
}

void ak_key_touch(ak_key *key) { key->flags_ |= KEY_TOUCHED; }

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xffu;
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t digest_bits(double v)
{
    uint64_t b;
    if (v != v)
        return 0x7ff8000000000000ull; /* text forms cannot tell NaN payloads apart */
    memcpy(&b, &v, sizeof b);
    return b;
}

uint64_t ak_key_digest(const ak_key *key, ak_channel_kind kind)
{
    static const int width[AK_CHANNELS] = { 4, 3, 3, 1 };
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv_u64(h, (uint64_t)key->tick);
    h = fnv_u64(h, digest_bits(key->time));
    for (int c = 0; (unsigned)kind < AK_CHANNELS && c < width[kind]; c++)
        h = fnv_u64(h, digest_bits(kind == AK_VISIBILITY ? (key->v[0] != 0 ? 1.0 : 0.0) : key->v[c]));
    return h;
}

ak_event *ak_event_add(ak_clip *clip, double time, const char *type, const char *info)
{
    void *items = clip->events;
    if (!grow_array(doc_heap(clip->doc), &items, &clip->event_capacity_, clip->event_count + 1,
                    sizeof(ak_event)))
        return NULL;
    clip->events = items;
    const char *t = arena_strdup(clip->doc, type);
    const char *i = arena_strdup(clip->doc, info);
    if (!t || !i)
        return NULL;
    ak_event *e = &clip->events[clip->event_count++];
    memset(e, 0, sizeof *e);
    e->time = time;
    e->type = t;
    e->info = i;
    return e;
}

ak_bone *ak_bone_add(ak_doc *doc, const char *name)
{
    ak_skeleton *sk = &doc->skeleton;
    if (sk->bone_count >= INT32_MAX)
        return NULL; /* parent indices are int32_t */
    const char *n = arena_strdup(doc, name);
    void *items = sk->bones;
    if (!n || !grow_array(doc_heap(doc), &items, &sk->bone_capacity_, sk->bone_count + 1, sizeof(ak_bone)))
        return NULL;
    sk->bones = items;
    ak_bone *b = &sk->bones[sk->bone_count++];
    memset(b, 0, sizeof *b);
    b->name = n;
    b->parent = -1;
    b->rotation[3] = 1.0;
    b->scale[0] = b->scale[1] = b->scale[2] = 1.0;
    return b;
}

ak_status ak_bone_set_name(ak_doc *doc, ak_bone *bone, const char *name)
{
    const char *n = arena_strdup(doc, name);
    if (!n)
        return AK_E_NOMEM;
    bone->name = n;
    return AK_OK;
}

int32_t ak_skeleton_find_name(const ak_doc *doc, const char *name)
{
    for (size_t i = 0; i < doc->skeleton.bone_count; i++)
        if (strcmp(doc->skeleton.bones[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

int32_t ak_skeleton_find_id(const ak_doc *doc, int32_t id)
{
    for (size_t i = 0; i < doc->skeleton.bone_count; i++)
        if (doc->skeleton.bones[i].has_id && doc->skeleton.bones[i].id == id)
            return (int32_t)i;
    return -1;
}

int32_t ak_skeleton_find_hash(const ak_doc *doc, uint32_t hash)
{
    for (size_t i = 0; i < doc->skeleton.bone_count; i++)
        if (doc->skeleton.bones[i].has_hash && doc->skeleton.bones[i].hash == hash)
            return (int32_t)i;
    return -1;
}

static ak_prop *prop_slot(ak_doc *owner, ak_props *props, const char *key)
{
    struct ak_doc_private *pv = owner->private_;
    ak_prop *found = ak_prop_index_find(&pv->heap, pv->prop_index, props, key);
    if (found)
        return found;
    void *items = props->items;
    if (!grow_array(doc_heap(owner), &items, &props->capacity_, props->count + 1, sizeof(ak_prop)))
        return NULL;
    props->items = items;
    const char *k = arena_strdup(owner, key);
    if (!k)
        return NULL;
    ak_prop *p = &props->items[props->count++];
    memset(p, 0, sizeof *p);
    p->key = k;
    return ak_prop_index_added(&pv->heap, &pv->prop_index, props) ? p : NULL;
}

ak_status ak_prop_set_bytes(ak_doc *owner, ak_props *props, const char *key, const void *data,
                            size_t size)
{
    unsigned char *copy = arena_alloc(owner, size + 1);
    if (!copy)
        return AK_E_NOMEM;
    if (size)
        memcpy(copy, data, size);
    copy[size] = 0;
    ak_prop *p = prop_slot(owner, props, key);
    if (!p)
        return AK_E_NOMEM;
    p->type = AK_PROP_BYTES;
    p->data = copy;
    p->size = size;
    return AK_OK;
}

ak_status ak_prop_set_string(ak_doc *owner, ak_props *props, const char *key, const char *value)
{
    ak_status st = ak_prop_set_bytes(owner, props, key, value, strlen(value));
    if (st == AK_OK)
        ((ak_prop *)ak_prop_get(props, key))->type = AK_PROP_STRING;
    return st;
}

ak_status ak_prop_set_int(ak_doc *owner, ak_props *props, const char *key, int64_t value)
{
    ak_prop *p = prop_slot(owner, props, key);
    if (!p)
        return AK_E_NOMEM;
    p->type = AK_PROP_INT;
    p->i = value;
    p->data = NULL;
    p->size = 0;
    return AK_OK;
}

ak_status ak_prop_set_float(ak_doc *owner, ak_props *props, const char *key, double value)
{
    ak_prop *p = prop_slot(owner, props, key);
    if (!p)
        return AK_E_NOMEM;
    p->type = AK_PROP_FLOAT;
    p->f = value;
    p->data = NULL;
    p->size = 0;
    return AK_OK;
}

const ak_prop *ak_prop_get(const ak_props *props, const char *key)
{
    for (size_t i = 0; i < props->count; i++)
        if (strcmp(props->items[i].key, key) == 0)
            return &props->items[i];
    return NULL;
}

int64_t ak_prop_int(const ak_props *props, const char *key, int64_t fallback)
{
    const ak_prop *p = ak_prop_get(props, key);
    return p && p->type == AK_PROP_INT ? p->i : fallback;
}

ak_status ak_copy_props(ak_doc *to, ak_props *dst, const ak_props *src)
{
    for (size_t i = 0; i < src->count; i++) {
        const ak_prop *p = &src->items[i];
        ak_status st;
        switch (p->type) {
        case AK_PROP_INT: st = ak_prop_set_int(to, dst, p->key, p->i); break;
        case AK_PROP_FLOAT: st = ak_prop_set_float(to, dst, p->key, p->f); break;
        case AK_PROP_STRING: st = ak_prop_set_string(to, dst, p->key, (const char *)p->data); break;
        default: st = ak_prop_set_bytes(to, dst, p->key, p->data, p->size); break;
        }
        if (st != AK_OK)
            return st;
    }
    return AK_OK;
}

static ak_status copy_track(ak_clip *to, const ak_track *src)
{
    ak_track *t = ak_track_add(to, src->bone);
    if (!t)
        return AK_E_NOMEM;
    t->bone_id = src->bone_id;
    t->has_bone_id = src->has_bone_id;
    t->bone_hash = src->bone_hash;
    t->has_bone_hash = src->has_bone_hash;
    t->weight = src->weight;
    t->skeleton_bone = src->skeleton_bone;
    for (int c = 0; c < AK_CHANNELS; c++) {
        const ak_channel *ch = &src->channel[c];
        if (ak_channel_reserve(t, (ak_channel_kind)c, ch->count) != AK_OK)
            return AK_E_NOMEM;
        for (size_t k = 0; k < ch->count; k++) {
            const ak_key *sk = &ch->keys[k];
            ak_key *dk = ak_key_add(t, (ak_channel_kind)c);
            if (!dk)
                return AK_E_NOMEM;
            *dk = *sk;
            if (sk->raw_size) {
                unsigned char *copy = arena_alloc(to->doc, sk->raw_size);
                if (!copy)
                    return AK_E_NOMEM;
                memcpy(copy, sk->raw, sk->raw_size);
                dk->raw = copy;
            }
        }
    }
    return ak_copy_props(to->doc, &t->props, &src->props);
}

ak_status ak_copy_clip(ak_doc *to, const ak_clip *src)
{
    ak_clip *c = ak_clip_add(to, src->name);
    if (!c)
        return AK_E_NOMEM;
    c->duration = src->duration;
    c->frame_rate = src->frame_rate;
    c->tick_rate = src->tick_rate;
    for (size_t i = 0; i < src->track_count; i++)
        if (copy_track(c, src->tracks[i]) != AK_OK)
            return AK_E_NOMEM;
    for (size_t i = 0; i < src->event_count; i++) {
        const ak_event *se = &src->events[i];
        ak_event *e = ak_event_add(c, se->time, se->type, se->info);
        if (!e || ak_copy_props(to, &e->props, &se->props) != AK_OK)
            return AK_E_NOMEM;
    }
    return ak_copy_props(to, &c->props, &src->props);
}

ak_status ak_doc_copy_skeleton(ak_doc *to, const ak_skeleton *src)
{
    for (size_t i = 0; i < src->bone_count; i++) {
        const ak_bone *sb = &src->bones[i];
        ak_bone *b = ak_bone_add(to, sb->name);
        if (!b)
            return AK_E_NOMEM;
        const char *name = b->name;
        *b = *sb;
        b->name = name;
        memset(&b->props, 0, sizeof b->props);
        ak_status st = ak_copy_props(to, &b->props, &sb->props);
        if (st != AK_OK)
            return st;
    }
    return AK_OK;
}

ak_doc *ak_doc_clone(const ak_doc *doc)
{
    ak_doc *copy = ak_doc_new_with(&doc->private_->heap.allocator, 0);
    if (!copy)
        return NULL;
    ak_status st = ak_doc_set_format(copy, doc->format, doc->variant);
    for (size_t i = 0; st == AK_OK && i < doc->clip_count; i++)
        st = ak_copy_clip(copy, doc->clips[i]);
    if (st == AK_OK)
        st = ak_copy_props(copy, &copy->props, &doc->props);
    if (st == AK_OK)
        st = ak_doc_copy_skeleton(copy, &doc->skeleton);
    if (st != AK_OK) {
        ak_doc_free(copy);
        return NULL;
    }
    return copy;
}

static void clip_stats_add(const ak_clip *clip, ak_doc_stats *stats)
{
    stats->clips++;
    stats->tracks += clip->track_count;
    stats->events += clip->event_count;
    for (size_t i = 0; i < clip->track_count; i++) {
        const ak_track *t = clip->tracks[i];
        for (int c = 0; c < AK_CHANNELS; c++)
            stats->keys[c] += t->channel[c].count;
        if (t->has_bone_hash) {
            stats->hashes++;
            if (t->bone[0])
                stats->hashes_named++;
        }
    }
}

void ak_doc_stats_get(const ak_doc *doc, ak_doc_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    for (size_t i = 0; i < doc->clip_count; i++)
        clip_stats_add(doc->clips[i], stats);
}

void ak_clip_stats_get(const ak_clip *clip, ak_doc_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    clip_stats_add(clip, stats);
}

const char *ak_channel_name(ak_channel_kind kind)
{
    static const char *const names[AK_CHANNELS] = { "rotation", "translation", "scale", "visibility" };
    return (unsigned)kind < AK_CHANNELS ? names[kind] : "?";
}
