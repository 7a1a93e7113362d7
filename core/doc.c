/* doc.c - the document model: clips, tracks, keys, events and properties,
 * all allocated from the document's own arena so that freeing a document
 * is a few free() calls and a read can be capped. */
#include "internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>


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

/* Reports a grant that does not fit: the counts were not plausible. */
int ak_heap_refuse(ak_heap *heap, const char *what)
{
    if (heap->job)
        ak_fail(heap->job, AK_E_LIMIT, -1,
                "%s would need more than %zu bytes of memory (the limit for this input); "
                "the counts in the file are not plausible", what, heap->key_limit);
    return 0;
}

/* A key array is counted twice: once for the keys, once for what comes
 * with each key (its stored bytes, the plugin's working memory per key). */
static inline int heap_grant_keys(ak_heap *heap, size_t bytes)
{
    return bytes <= SIZE_MAX / 2 && ak_heap_grant(heap, 2 * bytes, "the keys");
}

static void heap_out_of_memory(ak_heap *heap)
{
    if (heap->job)
        ak_fail(heap->job, AK_E_NOMEM, -1, "out of memory");
}

/* `size` bytes counted against the limit: a kept block of the pool when
 * `pooled` and it has one, else fresh from the allocator. */
static void *heap_alloc_from(ak_heap *heap, size_t size, int pooled)
{
    size_t got;
    if (!heap_admit(heap, size))
        return NULL;
    void *p = pooled ? ak_pool_take(heap->pool, size, &got) : NULL;
    if (!p && !(p = heap->allocator.alloc(heap->allocator.user, size ? size : 1))) {
        heap_out_of_memory(heap);
        return NULL;
    }
    heap->used += size;
    return p;
}

void *ak_heap_alloc(ak_heap *heap, size_t size) { return heap_alloc_from(heap, size, 0); }

void *ak_heap_alloc_pooled(ak_heap *heap, size_t size) { return heap_alloc_from(heap, size, 1); }

void *ak_heap_realloc(ak_heap *heap, void *ptr, size_t old_size, size_t new_size)
{
    if (new_size > old_size && !heap_admit(heap, new_size - old_size))
        return NULL;
    /* A growing block moves into a kept one when the pool has one, instead
     * of into fresh pages; the old block may then go back to the pool. */
    size_t got;
    void *p = ptr ? ak_pool_move(heap->pool, &heap->allocator, ptr, old_size, old_size, new_size, &got) : NULL;
    if (!p)
        p = heap->allocator.realloc(heap->allocator.user, ptr, new_size ? new_size : 1);
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

void ak_heap_free_pooled(ak_heap *heap, void *ptr, size_t size)
{
    if (!ptr)
        return;
    ak_pool_put(heap->pool, &heap->allocator, ptr, size);
    heap->used -= size < heap->used ? size : heap->used;
}

/* A document and its private part are one allocation: a read of a small
 * file is mostly such fixed costs. */
typedef struct doc_block {
    ak_doc doc;
    struct ak_doc_private pv;
} doc_block;

/* doc->private_ without loading it: the arena's bump is on every
 * constructor's path, behind the loads of track->clip and clip->doc. */
static inline struct ak_doc_private *doc_private(const ak_doc *doc)
{
    return &((doc_block *)(uintptr_t)doc)->pv;
}

/* Everything a document holds (clips, tracks, key and prop arrays, strings,
 * stored bytes) lives in an arena: nothing is freed one by one, and the
 * blocks grow with the document, so freeing it is a few free() calls. */
typedef struct ak_arena_block {
    struct ak_arena_block *next;
    unsigned char *bytes; /* after the header, or at the next huge-page boundary */
    size_t size;
    size_t allocated; /* what was asked of the allocator, header included */
    max_align_t align_[]; /* the bytes, aligned for any type */
} ak_arena_block;

#define ARENA_BLOCK 16384u
#define ARENA_BLOCK_MAX (8u << 20)
#define HUGE_PAGE (2u << 20)
#define ARENA_ALIGN 8u

static unsigned char *block_bytes(ak_arena_block *b) { return b->bytes; }

static size_t arena_round(size_t size) { return (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1); }

/* Large blocks are filled front to back with key arrays. A fresh document
 * spends more time in page faults than in decoding (measured: ped_cretaceous
 * read 460 MB/s into fresh memory, 836 MB/s into reused memory), so on
 * Linux a block of several huge pages starts on a huge-page boundary and
 * asks for transparent huge pages: one fault per 2 MiB instead of one per
 * 4 KiB. Only a hint: ignored where it is not supported. */
#ifdef MADV_HUGEPAGE
static size_t huge_page_pad(size_t cap) { return cap >= 2 * HUGE_PAGE ? HUGE_PAGE : 0; }

static void advise_huge_pages(unsigned char *p, size_t size)
{
    uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t end = ((uintptr_t)p + size) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (end > start)
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
}
#else
static size_t huge_page_pad(size_t cap) { (void)cap; return 0; }
static void advise_huge_pages(unsigned char *p, size_t size) { (void)p; (void)size; }
#endif

/* A new block for at least `need` bytes: as large as everything so far
 * (up to ARENA_BLOCK_MAX) so that big documents take few blocks, but only
 * `need` when the read's limit would refuse more. */
static ak_arena_block *arena_block(struct ak_doc_private *pv, size_t need)
{
    size_t cap = pv->arena_total < ARENA_BLOCK ? ARENA_BLOCK : pv->arena_total;
    if (!pv->arena && pv->arena_first > cap)
        cap = pv->arena_first;
    if (cap > ARENA_BLOCK_MAX)
        cap = ARENA_BLOCK_MAX;
    if (cap < need)
        cap = need;
    ak_heap *heap = &pv->heap;
    if (heap->limit && cap > need && (cap > heap->limit || heap->used > heap->limit - cap))
        cap = need;
    size_t pad = huge_page_pad(cap);
    if (heap->limit && (cap + pad > heap->limit || heap->used > heap->limit - cap - pad))
        pad = 0; /* untouched, but counted against the limit */
    if (cap > SIZE_MAX - sizeof(ak_arena_block) - pad)
        return NULL;
    size_t allocated = sizeof(ak_arena_block) + cap + pad;
    ak_arena_block *b = ak_heap_alloc_pooled(heap, allocated);
    if (!b)
        return NULL;
    b->bytes = (unsigned char *)b->align_;
    if (pad)
        b->bytes = (unsigned char *)(((uintptr_t)b->bytes + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    advise_huge_pages(b->bytes, cap);
    b->allocated = allocated;
    b->size = cap;
    b->next = pv->arena;
    pv->arena = b;
    pv->arena_total += cap;
    return b;
}

/* A new block for an allocation of `aligned` bytes, the allocation taken
 * from it. Out of line: arena_alloc's common case is a few instructions. */
static void *arena_alloc_in_new_block(struct ak_doc_private *pv, size_t aligned)
{
    ak_arena_block *b = arena_block(pv, aligned);
    if (!b)
        return NULL;
    pv->arena_next = block_bytes(b) + aligned;
    pv->arena_end = block_bytes(b) + b->size;
    pv->arena_last = block_bytes(b);
    return pv->arena_last;
}

/* Inline: readers call it several times per track (ped_cretaceous.ifp adds
 * 7,340 tracks a read), and as a call its entry and exit cost more than
 * the bump itself. */
static inline void *arena_alloc(ak_doc *doc, size_t size)
{
    struct ak_doc_private *pv = doc_private(doc);
    unsigned char *p = pv->arena_next;
    size_t aligned = arena_round(size);
    if (aligned < size)
        return NULL;
    if (!p || (size_t)(pv->arena_end - p) < aligned)
        return arena_alloc_in_new_block(pv, aligned);
    pv->arena_next = p + aligned;
    pv->arena_last = p;
    return p;
}

/* Grows an arena array of `elem` sized items so that `need` fit: in place
 * when it is the block's last allocation and the block has room (then to
 * exactly `need`), else into a copy with room to double (the old copy
 * stays in the arena until the document is freed). */
static int arena_grow_to(ak_doc *doc, void **items, size_t *capacity, size_t need, size_t elem, int keys)
{
    /* The division only where the product could overflow: it was a third
     * of this function's time, which runs for every new channel. */
    if ((need > SIZE_MAX / 2 / 4096 || elem > 4096) && need > SIZE_MAX / 2 / elem)
        return 0;
    struct ak_doc_private *pv = doc_private(doc);
    if (*items && *items == pv->arena_last) {
        unsigned char *start = *items;
        size_t bytes = arena_round(need * elem);
        if (bytes <= (size_t)(pv->arena_end - start)) {
            pv->arena_next = start + bytes;
            *capacity = need;
            return 1;
        }
    }
    size_t cap = *capacity ? *capacity * 2 : 4;
    if (cap < need)
        cap = need;
    if (keys && !heap_grant_keys(&pv->heap, cap * elem))
        return 0;
    void *p = arena_alloc(doc, cap * elem);
    if (!p)
        return 0;
    if (*capacity)
        memcpy(p, *items, *capacity * elem);
    *items = p;
    *capacity = cap;
    return 1;
}

/* Inline for the common case, an array that has room. */
static inline int arena_grow(ak_doc *doc, void **items, size_t *capacity, size_t need, size_t elem, int keys)
{
    return need <= *capacity || arena_grow_to(doc, items, capacity, need, elem, keys);
}

/* The n bytes at s and a terminator, put at `to`. */
static const char *put_string(char *to, const char *s, size_t n)
{
    memcpy(to, s, n);
    to[n] = '\0';
    return to;
}

static const char *arena_strndup(ak_doc *doc, const char *s, size_t n)
{
    char *p = arena_alloc(doc, n + 1);
    return p ? put_string(p, s, n) : NULL;
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

static ak_heap *doc_heap(ak_doc *doc) { return &doc_private(doc)->heap; }

ak_doc *ak_doc_new_with(const ak_allocator *allocator, size_t limit)
{
    if (!allocator)
        allocator = &ak_default_allocator;
    doc_block *block = allocator->alloc(allocator->user, sizeof *block);
    if (!block)
        return NULL;
    memset(block, 0, sizeof *block);
    ak_doc *doc = &block->doc;
    struct ak_doc_private *pv = &block->pv;
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

/* Binary key formats spend 6 to 20 bytes a key and the model 72 plus the
 * stored bytes: a document is about 8 times its input. One block of that
 * size (up to ARENA_BLOCK_MAX) instead of a doubling series saves the small
 * blocks' page faults, and lets a large one use huge pages from the start. */
void ak_doc_expect(ak_doc *doc, size_t input)
{
    size_t guess = input > ARENA_BLOCK_MAX / 8 ? ARENA_BLOCK_MAX : input * 8;
    doc->private_->arena_first = guess;
}

void ak_doc_use_pool(ak_doc *doc, ak_pool *pool)
{
    ak_heap *heap = &doc->private_->heap;
    ak_pool_release(heap->pool);
    ak_pool_retain(pool);
    heap->pool = pool;
}

void ak_doc_limit_keys(ak_doc *doc, size_t key_limit)
{
    doc->private_->heap.key_limit = key_limit;
    doc->private_->heap.key_used = 0;
}

ak_doc *ak_doc_new(void) { return ak_doc_new_with(NULL, 0); }


/* The room the clip pointer array is known to have: it grows by powers of
 * two from 4, in the arena (so a read makes no allocation of its own for
 * it), and removing clips leaves it as large as it was. */
static size_t clip_capacity(const ak_doc *doc)
{
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
    ak_skeleton *sk = &doc->skeleton; /* the bones' props live in the arena */
    ak_heap_free(heap, sk->bones, sk->bone_capacity_ * sizeof(ak_bone));
    memset(sk, 0, sizeof *sk);
}

void ak_doc_free(ak_doc *doc)
{
    if (!doc)
        return;
    struct ak_doc_private *pv = doc->private_;
    ak_heap *heap = &pv->heap;
    ak_doc_clear_skeleton(doc);
    ak_prop_index_free(heap, pv->prop_index);
    for (ak_arena_block *b = pv->arena, *next; b; b = next) {
        next = b->next;
        ak_heap_free_pooled(heap, b, b->allocated);
    }
    ak_pool_release(heap->pool);
    ak_allocator a = heap->allocator;
    a.free(a.user, doc); /* and pv: one doc_block */
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
    size_t cap = clip_capacity(doc);
    if (doc->clip_count == cap) {
        if (cap > SIZE_MAX / 2 / sizeof(ak_clip *))
            return NULL;
        cap = cap ? cap * 2 : 4;
        ak_clip **grown = arena_alloc(doc, cap * sizeof *grown);
        if (!grown)
            return NULL;
        if (doc->clip_count)
            memcpy(grown, doc->clips, doc->clip_count * sizeof *grown);
        doc->clips = grown;
    }
    ak_clip *clip = arena_alloc(doc, sizeof *clip);
    if (!clip)
        return NULL;
    memset(clip, 0, sizeof *clip);
    clip->doc = doc;
    clip->name = arena_strdup(doc, name);
    if (!clip->name)
        return NULL;
    doc->clips[doc->clip_count++] = clip;
    return clip;
}

void ak_clip_remove(ak_doc *doc, size_t index)
{
    if (index >= doc->clip_count)
        return; /* the clip's memory stays in the arena until ak_doc_free */
    memmove(doc->clips + index, doc->clips + index + 1,
            (doc->clip_count - index - 1) * sizeof(ak_clip *));
    doc->clip_count--;
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

static const ak_track blank_track = { .weight = 1.0, .skeleton_bone = -1 };

/* Both entry points inline this: one calling the other went through the
 * GOT, as any call to an exported function does. */
static inline ak_track *track_add(ak_clip *clip, const char *bone, size_t len)
{
    void *items = clip->tracks;
    if (!arena_grow(clip->doc, &items, &clip->track_capacity_, clip->track_count + 1, sizeof(ak_track *), 0))
        return NULL;
    clip->tracks = items;
    /* The track and its bone's name in one allocation: a file of many
     * bones is mostly their names (citroen_bodyback.anm, 44 bones in 646
     * bytes), and the name's own allocation was a third of this call. */
    if (!bone)
        len = 0;
    if (len > SIZE_MAX - sizeof(ak_track) - 1) /* no bytes a caller holds are this long */
        return NULL;
    ak_track *t = arena_alloc(clip->doc, sizeof *t + len + 1);
    if (!t)
        return NULL;
    /* Copied from a constant rather than cleared: compilers clear a struct
     * this size with `rep stos`, whose start-up cost was two thirds of this
     * function (ped_cretaceous.ifp adds 7,340 tracks a read). */
    memcpy(t, &blank_track, sizeof *t);
    t->clip = clip;
    t->bone = put_string((char *)(t + 1), len ? bone : "", len);
    clip->tracks[clip->track_count++] = t;
    return t;
}

ak_track *ak_track_add(ak_clip *clip, const char *bone)
{
    return track_add(clip, bone, bone ? strlen(bone) : 0);
}

ak_track *ak_track_add_n(ak_clip *clip, const char *bone, size_t len) { return track_add(clip, bone, len); }

ak_status ak_track_set_bone(ak_track *track, const char *bone)
{
    const char *b = arena_strdup(track->clip->doc, bone);
    if (!b)
        return AK_E_NOMEM;
    track->bone = b;
    return AK_OK;
}

/* Room for exactly `need` keys in the channel, its keys kept: readers know
 * their counts, and exact sizes keep the memory cap meaningful. */
static inline ak_status reserve_exact(ak_track *track, ak_channel *ch, size_t need)
{
    if (need > SIZE_MAX / 2 / sizeof(ak_key))
        return AK_E_LIMIT;
    if (!heap_grant_keys(doc_heap(track->clip->doc), need * sizeof(ak_key)))
        return AK_E_NOMEM;
    void *p = arena_alloc(track->clip->doc, need * sizeof(ak_key));
    if (!p)
        return AK_E_NOMEM;
    if (ch->count)
        memcpy(p, ch->keys, ch->count * sizeof(ak_key));
    ch->keys = p;
    ch->capacity_ = need;
    return AK_OK;
}

ak_status ak_channel_reserve(ak_track *track, ak_channel_kind kind, size_t count)
{
    if ((unsigned)kind >= AK_CHANNELS)
        return AK_E_USAGE;
    ak_channel *ch = &track->channel[kind];
    if (count > SIZE_MAX - ch->count)
        return AK_E_LIMIT;
    size_t need = ch->count + count;
    if (need <= ch->capacity_)
        return AK_OK;
    return reserve_exact(track, ch, need);
}

ak_key *ak_key_add(ak_track *track, ak_channel_kind kind)
{
    if ((unsigned)kind >= AK_CHANNELS)
        return NULL;
    return ak_keys_append(track, kind, 1);
}

/* `count` more keys at the end of the channel, not yet initialised. */
static ak_key *keys_grow(ak_track *track, ak_channel_kind kind, size_t count)
{
    if ((unsigned)kind >= AK_CHANNELS)
        return NULL;
    ak_channel *ch = &track->channel[kind];
    if (!ch->capacity_ && !ch->count && count) {
        /* A fresh channel gets exactly its count: readers append a
         * channel's keys in one call, once per channel of every track. */
        if (reserve_exact(track, ch, count) != AK_OK)
            return NULL;
        ch->count = count;
        return ch->keys;
    }
    if (count > SIZE_MAX - ch->count)
        return NULL;
    void *items = ch->keys;
    if (!arena_grow(track->clip->doc, &items, &ch->capacity_, ch->count + count, sizeof(ak_key), 1))
        return NULL;
    ch->keys = items;
    ak_key *first = &ch->keys[ch->count];
    ch->count += count;
    return first;
}

ak_key *ak_keys_append(ak_track *track, ak_channel_kind kind, size_t count)
{
    ak_key *first = keys_grow(track, kind, count);
    if (!first)
        return NULL;
    memset(first, 0, count * sizeof *first);
    if (kind == AK_ROTATION)
        for (size_t i = 0; i < count; i++)
            first[i].v[3] = 1.0;
    return first;
}

/* New keys without stored bytes: the fingerprint counts only once attached. */
static void keys_unattached(ak_key *keys, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        keys[i].raw = NULL;
        keys[i].raw_size = 0;
        keys[i].flags_ = 0;
    }
}

ak_key *ak_keys_append_uninit(ak_track *track, ak_channel_kind kind, size_t count)
{
    ak_key *first = keys_grow(track, kind, count);
    if (first)
        keys_unattached(first, count);
    return first;
}

/* Undoes the appends of channels before `upto` after a later one failed. */
static void keys_unappend(ak_track *track, const size_t counts[AK_CHANNELS], ak_key *first[AK_CHANNELS], int upto)
{
    for (int c = 0; c < upto; c++)
        if (first[c]) {
            track->channel[c].count -= counts[c];
            first[c] = NULL;
        }
}

ak_status ak_track_keys_append_uninit(ak_track *track, const size_t counts[AK_CHANNELS], ak_key *first[AK_CHANNELS])
{
    if (!track || !counts || !first)
        return AK_E_USAGE;
    size_t total = 0;
    int all_empty = 1, asked = 0;
    for (int c = 0; c < AK_CHANNELS; c++) {
        first[c] = NULL;
        if (counts[c] > SIZE_MAX / 2 / sizeof(ak_key) - total)
            return AK_E_LIMIT;
        total += counts[c];
        asked += counts[c] != 0;
        if (counts[c] && (track->channel[c].capacity_ || track->channel[c].count))
            all_empty = 0;
    }
    if (!total)
        return AK_OK;
    /* Keys that are there already stay where they are, and one channel
     * alone is one block either way: each channel grows on its own. */
    if (!all_empty || asked == 1) {
        for (int c = 0; c < AK_CHANNELS; c++)
            if (counts[c] && !(first[c] = ak_keys_append_uninit(track, (ak_channel_kind)c, counts[c]))) {
                keys_unappend(track, counts, first, c);
                return AK_E_NOMEM;
            }
        return AK_OK;
    }
    /* One grant and one allocation for the track instead of one of each a
     * channel (hmmwv.anm: 192 channels in 64 tracks). */
    ak_doc *doc = track->clip->doc;
    if (!heap_grant_keys(doc_heap(doc), total * sizeof(ak_key)))
        return AK_E_NOMEM;
    ak_key *block = arena_alloc(doc, total * sizeof(ak_key)), *at = block, *last = block;
    if (!block)
        return AK_E_NOMEM;
    for (int c = 0; c < AK_CHANNELS; c++) {
        if (!counts[c])
            continue;
        ak_channel *ch = &track->channel[c];
        ch->keys = first[c] = last = at;
        ch->count = ch->capacity_ = counts[c];
        at += counts[c];
    }
    /* arena_grow_to() grows the newest allocation where it lies: that may
     * only be the last channel's keys, which nothing follows. */
    doc_private(doc)->arena_last = last;
    keys_unattached(block, total);
    return AK_OK;
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
    ak_key_attach(key, copy, size);
    key->fingerprint_ = ak_key_fingerprint(key);
    return AK_OK;
}

unsigned char *ak_doc_store(ak_doc *doc, const void *bytes, size_t size)
{
    unsigned char *copy = arena_alloc(doc, size ? size : 1);
    if (copy && size) {
        if (bytes)
            memcpy(copy, bytes, size);
        else
            memset(copy, 0, size);
    }
    return copy;
}

unsigned char *ak_doc_store_uninit(ak_doc *doc, size_t size)
{
    return doc ? arena_alloc(doc, size ? size : 1) : NULL;
}

ak_status ak_keys_set_raw(ak_key *keys, size_t count, const unsigned char *base, size_t stride, size_t size)
{
    if (size > UINT32_MAX || (count && !base && size))
        return AK_E_USAGE;
    ak_keys_attach_fingerprint(keys, count, base, stride, size);
    return AK_OK;
}

int ak_key_changed(const ak_key *key)
{
    return !ak_key_attached(key) || key->fingerprint_ != ak_key_fingerprint(key);
}

void ak_key_touch(ak_key *key) { key->flags_ |= AK_KEY_TOUCHED; }

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

static const int digest_width[AK_CHANNELS] = { 4, 3, 3, 1 };

/* Word `w` of what a key's digest covers: tick, time, then its values. */
static uint64_t digest_word(const ak_key *key, ak_channel_kind kind, int w)
{
    if (w == 0)
        return (uint64_t)key->tick;
    if (w == 1)
        return digest_bits(key->time);
    return digest_bits(kind == AK_VISIBILITY ? (key->v[0] != 0 ? 1.0 : 0.0) : key->v[w - 2]);
}

static int digest_words(ak_channel_kind kind) { return 2 + ((unsigned)kind < AK_CHANNELS ? digest_width[kind] : 0); }

uint64_t ak_key_digest(const ak_key *key, ak_channel_kind kind)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int w = 0; w < digest_words(kind); w++)
        h = fnv_u64(h, digest_word(key, kind, w));
    return h;
}

/* FNV-1a is one multiplication after another, each waiting for the last:
 * four keys side by side keep the multiplier busy (the digests were a
 * tenth of a JSON dump). The same values as ak_key_digest. */
void ak_keys_digest(const ak_key *keys, size_t count, ak_channel_kind kind, uint64_t *out)
{
    int words = digest_words(kind);
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        uint64_t h[4];
        for (int j = 0; j < 4; j++)
            h[j] = 0xcbf29ce484222325ull;
        for (int w = 0; w < words; w++) {
            uint64_t v[4];
            for (int j = 0; j < 4; j++)
                v[j] = digest_word(&keys[i + j], kind, w);
            for (int b = 0; b < 8; b++)
                for (int j = 0; j < 4; j++) {
                    h[j] ^= (v[j] >> (8 * b)) & 0xffu;
                    h[j] *= 0x100000001b3ull;
                }
        }
        for (int j = 0; j < 4; j++)
            out[i + j] = h[j];
    }
    for (; i < count; i++)
        out[i] = ak_key_digest(&keys[i], kind);
}

ak_event *ak_event_add(ak_clip *clip, double time, const char *type, const char *info)
{
    void *items = clip->events;
    if (!arena_grow(clip->doc, &items, &clip->event_capacity_, clip->event_count + 1, sizeof(ak_event), 0))
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

/* A property key's arena copy, its last word zero-filled past the
 * terminator: two such copies compare a word at a time without reading
 * past either (propindex.c), where a byte loop ran through the "anm." or
 * "ifp." every key of a plugin starts with. */
static const char *key_copy(ak_doc *doc, const char *key)
{
    size_t n = strlen(key);
    char *p = arena_alloc(doc, n + 1);
    if (!p)
        return NULL;
    memset(p + (arena_round(n + 1) - ARENA_ALIGN), 0, ARENA_ALIGN);
    memcpy(p, key, n);
    return p;
}

/* Where the copy of a key passed at this address is remembered. */
static size_t recent_slot(const char *key)
{
    uintptr_t from = (uintptr_t)key;
    return (from ^ from >> 4) & 3;
}

/* The key's arena copy: the one made for the same address when it still
 * says the same (a caller may reuse a buffer for another key), else a new
 * one (*fresh = 1). */
static const char *prop_key(ak_doc *doc, const char *key, int *fresh)
{
    struct ak_doc_private *pv = doc_private(doc);
    uintptr_t from = (uintptr_t)key;
    size_t slot = recent_slot(key);
    *fresh = 0;
    if (pv->key_from[slot] == from && strcmp(pv->key_copy[slot], key) == 0)
        return pv->key_copy[slot];
    const char *copy = key_copy(doc, key);
    if (copy) {
        pv->key_from[slot] = from;
        pv->key_copy[slot] = copy;
        *fresh = 1;
    }
    return copy;
}

/* Gives back the newest allocation when it is `p` (a key copy that turned
 * out to be a duplicate), so re-setting a key does not grow the arena. */
static void arena_unalloc(ak_doc *doc, const void *p, size_t size)
{
    struct ak_doc_private *pv = doc_private(doc);
    ak_arena_block *b = pv->arena;
    size_t aligned = arena_round(size);
    if (b && (size_t)(pv->arena_next - block_bytes(b)) >= aligned &&
        pv->arena_next - aligned == (const unsigned char *)p)
        pv->arena_next -= aligned;
}

static ak_prop *prop_slot(ak_doc *owner, ak_props *props, const char *key)
{
    struct ak_doc_private *pv = doc_private(owner);
    int fresh;
    const char *k = prop_key(owner, key, &fresh);
    if (!k)
        return NULL;
    ak_prop *found = props->count ? ak_prop_index_find(pv->prop_index, props, k) : NULL;
    if (found) {
        if (fresh) { /* the list's copy serves from now on */
            arena_unalloc(owner, k, strlen(k) + 1);
            pv->key_copy[recent_slot(key)] = found->key;
        }
        return found;
    }
    void *items = props->items;
    if (!props->capacity_ && !props->count) { /* a track's first: room for the few most have */
        if (!(items = arena_alloc(owner, 4 * sizeof(ak_prop))))
            return NULL;
        props->capacity_ = 4;
    } else if (!arena_grow(owner, &items, &props->capacity_, props->count + 1, sizeof(ak_prop), 0)) {
        return NULL;
    }
    props->items = items;
    ak_prop *p = &props->items[props->count++];
    memset(p, 0, sizeof *p);
    p->key = k;
    if (props->count < AK_PROP_SCAN_BELOW)
        return p;
    return ak_prop_index_added(&pv->heap, &pv->prop_index, props) ? p : NULL;
}

/* Room for a bytes or string value of `size` bytes and the NUL after
 * them, which it gets. The room is taken before the slot: prop_slot can
 * give back a key copy it made only while that is the newest allocation. */
static unsigned char *prop_set_room(ak_doc *owner, ak_props *props, const char *key, size_t size, ak_prop_type type)
{
    unsigned char *room = size < SIZE_MAX ? arena_alloc(owner, size + 1) : NULL;
    if (!room)
        return NULL;
    room[size] = 0;
    ak_prop *p = prop_slot(owner, props, key);
    if (!p)
        return NULL;
    p->type = type;
    p->data = room;
    p->size = size;
    return room;
}

static ak_status prop_set_data(ak_doc *owner, ak_props *props, const char *key, const void *data, size_t size,
                               ak_prop_type type)
{
    unsigned char *room = prop_set_room(owner, props, key, size, type);
    if (!room)
        return AK_E_NOMEM;
    if (size)
        memcpy(room, data, size);
    return AK_OK;
}

unsigned char *ak_prop_set_bytes_uninit(ak_doc *owner, ak_props *props, const char *key, size_t size)
{
    if (!owner || !props || !key)
        return NULL;
    return prop_set_room(owner, props, key, size, AK_PROP_BYTES);
}

ak_status ak_prop_set_bytes(ak_doc *owner, ak_props *props, const char *key, const void *data,
                            size_t size)
{
    return prop_set_data(owner, props, key, data, size, AK_PROP_BYTES);
}

ak_status ak_prop_set_string(ak_doc *owner, ak_props *props, const char *key, const char *value)
{
    return prop_set_data(owner, props, key, value, strlen(value), AK_PROP_STRING);
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
    memcpy(t->outline_keys, src->outline_keys, sizeof t->outline_keys);
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
    /* Keys that were only counted stay so in the copy: its document can no
     * more be written than the outline it came from. */
    if (src->doc->private_->outline)
        to->private_->outline = 1;
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
    int outline = clip->doc->private_->outline;
    for (size_t i = 0; i < clip->track_count; i++) {
        const ak_track *t = clip->tracks[i];
        for (int c = 0; c < AK_CHANNELS; c++)
            stats->keys[c] += t->channel[c].count + (outline ? t->outline_keys[c] : 0);
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

int ak_doc_outline(const ak_doc *doc) { return doc && doc->private_->outline; }

int ak_job_outline(ak_job *job)
{
    if (!job->outline_doc)
        return 0;
    job->outline_doc->private_->outline = 1;
    return 1;
}

ak_status ak_keys_outline(ak_track *track, ak_channel_kind kind, size_t count)
{
    if (!track || (unsigned)kind >= AK_CHANNELS || !track->clip->doc->private_->outline ||
        count > SIZE_MAX - track->outline_keys[kind])
        return AK_E_USAGE;
    track->outline_keys[kind] += count;
    return AK_OK;
}

const char *ak_channel_name(ak_channel_kind kind)
{
    static const char *const names[AK_CHANNELS] = { "rotation", "translation", "scale", "visibility" };
    return (unsigned)kind < AK_CHANNELS ? names[kind] : "?";
}

