/* robust.h - what the robustness tests share: a counting allocator that can
 * fail the Nth allocation, a tiny synthetic codec, the real codecs that are
 * linked in, and representative inputs for each of them. */
#ifndef ANIMKIT_ROBUST_H
#define ANIMKIT_ROBUST_H

#include "testutil.h"

/* ---- the counting, failing allocator ----------------------------------- */
typedef struct rb_alloc {
    long fail_at;        /* refuse the allocation call with this number (1-based); 0 = never */
    long calls;          /* allocation calls (alloc, realloc) since the last rb_alloc_arm */
    long refused;        /* how many calls were refused */
    long live;           /* blocks currently held */
    size_t live_bytes;   /* bytes currently held */
    size_t peak_bytes;   /* most bytes held at once since the last rb_alloc_arm */
    size_t max_block;    /* the largest single request since the last rb_alloc_arm */
    size_t cap_bytes;    /* refuse any request that would take live_bytes past this; 0 = none */
    long bad_frees;      /* frees of pointers this allocator did not hand out */
} rb_alloc;

/* The allocator for `state`; every block carries a header with its size. */
ak_allocator rb_alloc_make(rb_alloc *state);
/* Starts counting again and fails call number `fail_at` (0 = none). */
void rb_alloc_arm(rb_alloc *state, long fail_at);

/* A registry whose memory comes from `state` and that holds `codecs`. */
ak_registry *rb_registry(rb_alloc *state, const ak_codec *const *codecs);

/* ---- the synthetic codec "tst" ----------------------------------------- */
/*
 * Layout (little-endian):
 *   "TST1"
 *   u32 clip_count, then per clip:
 *     u8 name_len, name, f32 duration, u32 track_count, then per track:
 *       u8 bone_len, bone, u32 key_count, then per key
 *         u32 tick, f32 x, f32 y, f32 z, f32 w      (a rotation key, 20 bytes, kept raw)
 *     u32 event_count, then per event: u32 tick, u8 type_len, type
 * Ticks are 1/30 s. Every count is checked with ak_need_array.
 */
const ak_codec *rb_tst_codec(void);
/* Builds a TST1 file with `clips` clips of `tracks` tracks of `keys` keys
 * each (and one event per clip); malloc'd. */
unsigned char *rb_tst_build(unsigned clips, unsigned tracks, unsigned keys, size_t *size);

/* ---- the real codecs linked into this test ------------------------------ */
typedef struct rb_plugin {
    const char *name;
    const ak_codec *codec;
    const char *corpus[3]; /* representative small corpus files, NULL-terminated */
} rb_plugin;
/* The plugins this program was built with (see local.mk); count in *n. */
const rb_plugin *rb_plugins(size_t *n);

/* A hand-built document that any writer should be able to encode: one clip,
 * two named tracks with rotation and translation keys, one event. */
ak_doc *rb_sample_doc(void);

/* A representative input for `p`: the first corpus file that it reads,
 * else what its writer makes of rb_sample_doc() (if it reads that back).
 * Returns a malloc'd buffer or NULL (with the reason in `why`). */
unsigned char *rb_plugin_input(const rb_plugin *p, size_t *size, char *label, size_t label_size,
                               char *why, size_t why_size);

/* What the writer of `p` makes of rb_sample_doc(), if it reads back. */
unsigned char *rb_plugin_synthetic(const rb_plugin *p, size_t *size, char *label, size_t label_size,
                                   char *why, size_t why_size);

/* Whether `st` is one of the statuses a bad input may end in. */
int rb_clean_error(ak_status st);

#endif
