/* test_model.c - the document model, properties, key fingerprints, clone,
 * validation, JSON, CRC-32 and the per-read memory cap. */
#include "testutil.h"
#include "internal.h"

#include <animkit/plugin.h>

#include <math.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

START_TEST(new_doc_is_empty)
{
    ak_doc *doc = ak_doc_new();
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(doc->format, "");
    ck_assert_str_eq(doc->variant, "");
    ck_assert_uint_eq(doc->clip_count, 0);
    ak_doc_free(doc);
    ak_doc_free(NULL);
}
END_TEST

START_TEST(clip_lookup_is_case_insensitive_first_match)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *a = ak_clip_add(doc, "Drive_LO_l");
    ak_clip *b = ak_clip_add(doc, "Drive_LO_L");
    ak_clip *c = ak_clip_add(doc, "idle");
    ck_assert_ptr_eq(ak_doc_find_clip(doc, "drive_lo_l"), a);
    ck_assert_ptr_eq(ak_doc_find_clip(doc, "IDLE"), c);
    ck_assert_ptr_null(ak_doc_find_clip(doc, "idl"));
    ak_clip_remove(doc, 0);
    ck_assert_uint_eq(doc->clip_count, 2);
    ck_assert_ptr_eq(doc->clips[0], b);
    ck_assert_ptr_eq(ak_doc_find_clip(doc, "DRIVE_lo_l"), b);
    ak_doc_free(doc);
}
END_TEST

START_TEST(many_clips_grow_and_shrink)
{
    ak_doc *doc = ak_doc_new();
    char name[16];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "c%d", i);
        ck_assert_ptr_nonnull(ak_clip_add(doc, name));
    }
    for (int i = 299; i >= 0; i -= 2)
        ak_clip_remove(doc, (size_t)i);
    ck_assert_uint_eq(doc->clip_count, 150);
    ck_assert_str_eq(doc->clips[0]->name, "c0");
    ck_assert_str_eq(doc->clips[149]->name, "c298");
    /* Growing again after removals: the list keeps its order and every
     * slot (an array too small for the count would show under ASan). */
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "d%d", i);
        ck_assert_ptr_nonnull(ak_clip_add(doc, name));
    }
    ck_assert_uint_eq(doc->clip_count, 350);
    for (int i = 0; i < 150; i++) {
        snprintf(name, sizeof name, "c%d", 2 * i);
        ck_assert_str_eq(doc->clips[i]->name, name);
    }
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "d%d", i);
        ck_assert_str_eq(doc->clips[150 + i]->name, name);
    }
    while (doc->clip_count)
        ak_clip_remove(doc, 0);
    ck_assert_ptr_nonnull(ak_clip_add(doc, "again"));
    ak_doc_free(doc);
}
END_TEST

START_TEST(track_defaults_and_copies)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "walk");
    char bone[] = "Pelvis";
    ak_track *t = ak_track_add(clip, bone);
    bone[0] = 'X';
    ck_assert_str_eq(t->bone, "Pelvis");
    ck_assert(t->weight == 1.0);
    ck_assert_int_eq(t->has_bone_id, 0);
    ck_assert_ptr_eq(t->clip, clip);
    ak_key *k = ak_key_add(t, AK_ROTATION);
    ck_assert(k->v[0] == 0 && k->v[1] == 0 && k->v[2] == 0 && k->v[3] == 1);
    k = ak_key_add(t, AK_TRANSLATION);
    ck_assert(k->v[3] == 0);
    ck_assert_ptr_null(ak_key_add(t, (ak_channel_kind)7));
    ak_doc_free(doc);
}
END_TEST

/* ak_track_add_n (1.5): the name is the given bytes, whatever follows them. */
START_TEST(track_named_by_length)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "walk");
    /* No NUL after the name: the bytes of a file, the next field beside it. */
    const char field[6] = { 'S', 'p', 'i', 'n', 'e', '1' };
    ak_track *a = ak_track_add_n(clip, field, 5);
    ak_track *b = ak_track_add_n(clip, field, 0);
    ak_track *c = ak_track_add_n(clip, NULL, 0);
    ak_track *d = ak_track_add_n(clip, "ab\0cd", 5);
    ak_track *e = ak_track_add_n(clip, field, sizeof field);
    ck_assert_ptr_nonnull(a);
    ck_assert_str_eq(a->bone, "Spine");
    ck_assert_str_eq(b->bone, "");
    ck_assert_str_eq(c->bone, "");
    ck_assert_str_eq(d->bone, "ab"); /* a NUL among the bytes ends the name */
    ck_assert_str_eq(e->bone, "Spine1");
    ck_assert_uint_eq(clip->track_count, 5);
    ck_assert_ptr_eq(clip->tracks[4], e);
    ck_assert(a->weight == 1.0 && a->skeleton_bone == -1 && a->clip == clip);
    /* Many, each with its own name, the arena growing under them. */
    char names[64];
    for (int i = 0; i < 2000; i++) {
        int n = snprintf(names, sizeof names, "bone%dtail", i);
        ck_assert_ptr_nonnull(ak_track_add_n(clip, names, (size_t)n - 4));
    }
    for (int i = 0; i < 2000; i++) {
        snprintf(names, sizeof names, "bone%d", i);
        ck_assert_str_eq(clip->tracks[5 + i]->bone, names);
    }
    ak_doc_free(doc);
}
END_TEST

START_TEST(key_fingerprint_tracks_edits)
{
    ak_doc *doc = ak_doc_new();
    ak_track *t = ak_track_add(ak_clip_add(doc, "c"), "b");
    ak_key *k = ak_key_add(t, AK_ROTATION);
    k->time = 0.5;
    k->tick = 30;
    k->v[0] = 0.25;
    ck_assert_int_eq(ak_key_changed(k), 1); /* no stored bytes: must be encoded */
    unsigned char raw[3] = { 1, 2, 3 };
    ck_assert_int_eq(ak_key_set_raw(t, k, raw, sizeof raw), AK_OK);
    raw[0] = 9;
    ck_assert_int_eq(k->raw[0], 1);
    ck_assert_uint_eq(k->raw_size, 3);
    ck_assert_int_eq(ak_key_changed(k), 0);
    k->v[1] = -0.0; /* -0.0 == 0.0 but the stored bits differ */
    ck_assert_int_eq(ak_key_changed(k), 1);
    k->v[1] = 0.0;
    ck_assert_int_eq(ak_key_changed(k), 0);
    k->tick = 31;
    ck_assert_int_eq(ak_key_changed(k), 1);
    k->tick = 30;
    k->time = 0.5000001;
    ck_assert_int_eq(ak_key_changed(k), 1);
    ak_doc_free(doc);
}
END_TEST

/* Keys filled in bulk: one stored block, keys pointing into it, every
 * kind of edit detected on every key (each word of time, tick and v, one
 * bit each, through the struct), setters clearing or setting the state. */
/* Keys of random bits (NaN payloads, -0, huge ticks) attached in bulk, by
 * every count around the vector width, must read as untouched key by key:
 * the bulk fingerprint (vector arithmetic where the processor has it) and
 * the single-key check agree, and ak_keys_unchanged() stops at the first
 * edited or touched key. ak_keys_append_uninit keys start unattached. */
START_TEST(bulk_fingerprint_agrees_with_the_single_key_check)
{
    ak_doc *doc = ak_doc_new();
    ak_track *t = ak_track_add(ak_clip_add(doc, "c"), "b");
    uint64_t x = 0x243F6A8885A308D3ull;
    const unsigned char *block = ak_doc_store(doc, NULL, 8);
    size_t counts[] = { 1, 2, 3, 4, 5, 7, 8, 9, 1000 };
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t n = counts[c];
        ak_key *k = ak_keys_append_uninit(t, AK_TRANSLATION, n);
        ck_assert_ptr_nonnull(k);
        for (size_t i = 0; i < n; i++) {
            ck_assert(k[i].raw == NULL && k[i].raw_size == 0 && ak_key_changed(&k[i]) == 1);
            unsigned char *words = (unsigned char *)&k[i];
            for (size_t w = 0; w < 6; w++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
                memcpy(words + 8 * w, &x, 8);
            }
        }
        ck_assert_int_eq(ak_keys_set_raw(k, n, block, 0, 8), AK_OK);
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(ak_key_changed(&k[i]) == 0, "count %zu key %zu", n, i);
        ck_assert_uint_eq(ak_keys_unchanged(k, n), n);
        /* The first edited key, by each of the six words, ends the run. */
        for (size_t w = 0; w < 6; w++) {
            size_t at = (n - 1) * w / 5;
            unsigned char *word = (unsigned char *)&k[at] + 8 * w;
            word[w] ^= 0x10;
            ck_assert_uint_eq(ak_keys_unchanged(k, n), at);
            word[w] ^= 0x10;
        }
        ak_key_touch(&k[n / 2]);
        ck_assert_uint_eq(ak_keys_unchanged(k, n), n / 2);
        ck_assert_int_eq(ak_keys_set_raw(&k[n / 2], 1, block, 0, 8), AK_OK);
        k[n - 1].tick ^= (int64_t)1 << 62;
        ck_assert_int_eq(ak_key_changed(&k[n - 1]), 1);
        ck_assert_uint_eq(ak_keys_unchanged(k, n), n - 1);
    }
    ck_assert_uint_eq(ak_keys_unchanged(NULL, 0), 0);
    ak_key *bare = ak_keys_append(t, AK_SCALE, 5); /* no stored bytes: changed */
    ck_assert_uint_eq(ak_keys_unchanged(bare, 5), 0);
    ak_doc_free(doc);
}
END_TEST

/* A track's keys for several channels in one call (ABI 1.6): empty
 * channels get one block in channel order, so one ak_keys_set_raw()
 * attaches a run across two of them; later growth of any channel keeps
 * every other channel's keys; channels that hold keys grow in place. */
START_TEST(track_keys_appended_in_one_block)
{
    ak_doc *doc = ak_doc_new();
    ak_track *t = ak_track_add(ak_clip_add(doc, "c"), "b");
    /* Stored first, so that the keys are the newest allocation when the
     * first channel grows below. */
    unsigned char *block = ak_doc_store(doc, NULL, 5 * 12);
    size_t counts[AK_CHANNELS] = { 2, 3, 0, 1 };
    ak_key *first[AK_CHANNELS];
    ck_assert_int_eq(ak_track_keys_append_uninit(t, counts, first), AK_OK);
    ck_assert_ptr_null(first[AK_SCALE]);
    ck_assert_ptr_eq(first[AK_TRANSLATION], first[AK_ROTATION] + 2);
    ck_assert_ptr_eq(first[AK_VISIBILITY], first[AK_TRANSLATION] + 3);
    for (int c = 0; c < AK_CHANNELS; c++) {
        ck_assert_uint_eq(t->channel[c].count, counts[c]);
        ck_assert_ptr_eq(t->channel[c].keys, counts[c] ? first[c] : NULL);
        for (size_t i = 0; i < counts[c]; i++)
            ck_assert(first[c][i].raw == NULL && first[c][i].raw_size == 0 && ak_key_changed(&first[c][i]) == 1);
    }
    /* Rotation and translation: five keys, one run of 12-byte records. */
    ak_key *k = first[AK_ROTATION];
    for (int i = 0; i < 6; i++) {
        k[i].time = i;
        k[i].tick = 10 * i;
        for (int j = 0; j < 4; j++)
            k[i].v[j] = 100 * i + j;
    }
    ck_assert_int_eq(ak_keys_set_raw(k, 5, block, 12, 12), AK_OK);
    ck_assert_uint_eq(ak_keys_unchanged(t->channel[AK_ROTATION].keys, 2), 2);
    ck_assert_uint_eq(ak_keys_unchanged(t->channel[AK_TRANSLATION].keys, 3), 3);
    ck_assert_ptr_eq(t->channel[AK_TRANSLATION].keys[2].raw, block + 4 * 12);
    ck_assert_int_eq(ak_key_changed(&t->channel[AK_VISIBILITY].keys[0]), 1); /* not attached */
    /* The first channel grows (into a copy: keys follow it) and then the
     * last (where it lies: nothing follows): nobody's keys move under
     * anybody else's. */
    ak_key *added = ak_key_add(t, AK_ROTATION);
    ck_assert_ptr_nonnull(added);
    added->time = 99;
    ck_assert_ptr_eq(t->channel[AK_TRANSLATION].keys, first[AK_TRANSLATION]);
    for (int i = 0; i < 3; i++)
        ck_assert(t->channel[AK_TRANSLATION].keys[i].time == 2 + i);
    ck_assert(t->channel[AK_ROTATION].keys[1].v[3] == 103 && t->channel[AK_ROTATION].keys[2].time == 99);
    ck_assert_uint_eq(ak_keys_unchanged(t->channel[AK_ROTATION].keys, 3), 2);
    ak_key *shown = ak_key_add(t, AK_VISIBILITY);
    ck_assert_ptr_nonnull(shown);
    shown->time = 77;
    ck_assert(t->channel[AK_VISIBILITY].keys[0].time == 5 && t->channel[AK_VISIBILITY].keys[1].time == 77);
    ck_assert(t->channel[AK_ROTATION].keys[2].time == 99);
    /* Channels that hold keys grow one by one, the old keys kept. */
    size_t more[AK_CHANNELS] = { 1, 0, 2, 0 };
    ck_assert_int_eq(ak_track_keys_append_uninit(t, more, first), AK_OK);
    ck_assert_uint_eq(t->channel[AK_ROTATION].count, 4);
    ck_assert_uint_eq(t->channel[AK_SCALE].count, 2);
    ck_assert_ptr_eq(first[AK_ROTATION], &t->channel[AK_ROTATION].keys[3]);
    ck_assert_ptr_eq(first[AK_SCALE], t->channel[AK_SCALE].keys);
    ck_assert(first[AK_TRANSLATION] == NULL && first[AK_VISIBILITY] == NULL);
    ck_assert(t->channel[AK_ROTATION].keys[2].time == 99 && t->channel[AK_ROTATION].keys[0].v[2] == 2);
    /* One channel alone, on a fresh track. */
    ak_track *lone = ak_track_add(t->clip, "lone");
    size_t scale_only[AK_CHANNELS] = { 0, 0, 4, 0 };
    ck_assert_int_eq(ak_track_keys_append_uninit(lone, scale_only, first), AK_OK);
    ck_assert(first[0] == NULL && first[1] == NULL && first[3] == NULL);
    ck_assert_ptr_eq(first[AK_SCALE], lone->channel[AK_SCALE].keys);
    ck_assert_uint_eq(lone->channel[AK_SCALE].count, 4);
    ck_assert(first[AK_SCALE][3].raw == NULL && ak_key_changed(&first[AK_SCALE][3]) == 1);
    /* Nothing asked: nothing given. Bad arguments and impossible counts
     * change nothing. */
    size_t none[AK_CHANNELS] = { 0, 0, 0, 0 };
    first[0] = first[1] = k;
    ck_assert_int_eq(ak_track_keys_append_uninit(t, none, first), AK_OK);
    ck_assert(first[0] == NULL && first[1] == NULL && first[2] == NULL && first[3] == NULL);
    ck_assert_int_eq(ak_track_keys_append_uninit(NULL, counts, first), AK_E_USAGE);
    ck_assert_int_eq(ak_track_keys_append_uninit(t, NULL, first), AK_E_USAGE);
    ck_assert_int_eq(ak_track_keys_append_uninit(t, counts, NULL), AK_E_USAGE);
    size_t huge[AK_CHANNELS] = { 0, SIZE_MAX / 2, SIZE_MAX / 2, 0 };
    ck_assert_int_eq(ak_track_keys_append_uninit(t, huge, first), AK_E_LIMIT);
    ck_assert_uint_eq(t->channel[AK_TRANSLATION].count, 3);
    ck_assert_uint_eq(t->channel[AK_SCALE].count, 2);
    ak_doc_free(doc);
}
END_TEST

/* Edits of several words at once that a host makes through the struct:
 * the sign of any set of the six words flipped (mirroring negates two
 * components of a rotation, q -> -q all four), any two words swapped, two
 * words set to zero. Each must be seen, by the single-key check and in
 * bulk, on keys of random bits and on real values. */
START_TEST(edits_of_several_words_are_detected)
{
    ak_doc *doc = ak_doc_new();
    ak_track *t = ak_track_add(ak_clip_add(doc, "c"), "b");
    const unsigned char *block = ak_doc_store(doc, NULL, 8);
    enum { N = 300 };
    ak_key *k = ak_keys_append_uninit(t, AK_ROTATION, N);
    ck_assert_ptr_nonnull(k);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < N; i++) {
        uint64_t words[6];
        for (int w = 0; w < 6; w++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
            words[w] = x;
        }
        if (i % 2) { /* half of them real: a time, a tick, a unit quaternion */
            double q[4] = { (double)(words[2] % 2001) / 1000 - 1, (double)(words[3] % 2001) / 1000 - 1,
                            (double)(words[4] % 2001) / 1000 - 1, 0.5 };
            double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            double time = (double)i / 30;
            int64_t tick = (int64_t)i;
            memcpy(&words[0], &time, 8);
            memcpy(&words[1], &tick, 8);
            for (int j = 0; j < 4; j++) {
                double v = q[j] / n;
                memcpy(&words[2 + j], &v, 8);
            }
        }
        memcpy(&k[i], words, sizeof words);
    }
    ck_assert_int_eq(ak_keys_set_raw(k, N, block, 0, 8), AK_OK);
    ck_assert_uint_eq(ak_keys_unchanged(k, N), N);
    for (size_t i = 0; i < N; i++) {
        uint64_t *words = (uint64_t *)(void *)&k[i];
        for (unsigned set = 1; set < 64; set++) { /* every set of sign flips */
            for (int w = 0; w < 6; w++)
                if (set >> w & 1)
                    words[w] ^= 1ull << 63;
            ck_assert_msg(ak_key_changed(&k[i]) == 1, "key %zu: signs of words 0x%02x flipped", i, set);
            ck_assert_uint_eq(ak_keys_unchanged(&k[i], 1), 0);
            for (int w = 0; w < 6; w++)
                if (set >> w & 1)
                    words[w] ^= 1ull << 63;
        }
        for (int a = 0; a < 6; a++)
            for (int b = a + 1; b < 6; b++) {
                uint64_t wa = words[a], wb = words[b];
                words[a] = wb, words[b] = wa;
                ck_assert_msg(ak_key_changed(&k[i]) == 1, "key %zu: words %d and %d swapped", i, a, b);
                ck_assert_uint_eq(ak_keys_unchanged(&k[i], 1), 0);
                words[a] = 0, words[b] = 0;
                ck_assert_msg(ak_key_changed(&k[i]) == 1 || (wa == 0 && wb == 0), "key %zu: words %d, %d zeroed",
                              i, a, b);
                words[a] = wa, words[b] = wb;
            }
        ck_assert_int_eq(ak_key_changed(&k[i]), 0);
    }
    ck_assert_uint_eq(ak_keys_unchanged(k, N), N);
    ak_doc_free(doc);
}
END_TEST

/* FNV-1a over the eight little-endian bytes of each word, written out here
 * from its definition: the JSON dump's "_check" values. */
static uint64_t fnv1a_words(const uint64_t *w, int n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++)
        for (int b = 0; b < 8; b++) {
            h ^= (w[i] >> (8 * b)) & 0xff;
            h *= 0x100000001b3ull;
        }
    return h;
}

/* Digests of many keys at once (the dump takes four side by side) are
 * each key's own digest, for every kind and for counts on both sides of
 * four; a key's digest is FNV-1a over tick, time and the kind's values,
 * one NaN for all NaNs, visibility as 0 or 1. */
START_TEST(key_digests_in_bulk_agree_with_each_key)
{
    static const int width[AK_CHANNELS] = { 4, 3, 3, 1 };
    ak_key keys[11];
    uint64_t x = 0x9E3779B97F4A7C15ull, got[11];
    for (int kind = 0; kind < AK_CHANNELS; kind++)
        for (size_t n = 0; n <= 11; n++) {
            memset(keys, 0, sizeof keys);
            for (size_t i = 0; i < n; i++) {
                double *d = &keys[i].time;
                for (int w = 0; w < 6; w++) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    if (w == 1)
                        keys[i].tick = (int64_t)x;
                    else
                        memcpy(w == 0 ? d : &keys[i].v[w - 2], &x, 8);
                }
                if (i == 3)
                    keys[i].v[0] = NAN;
            }
            ak_keys_digest(keys, n, (ak_channel_kind)kind, got);
            for (size_t i = 0; i < n; i++) {
                uint64_t w[6];
                double vals[6] = { 0, keys[i].time, keys[i].v[0], keys[i].v[1], keys[i].v[2], keys[i].v[3] };
                if (kind == AK_VISIBILITY)
                    vals[2] = keys[i].v[0] != 0 ? 1.0 : 0.0;
                w[0] = (uint64_t)keys[i].tick;
                for (int j = 1; j < 2 + width[kind]; j++) {
                    if (vals[j] != vals[j])
                        vals[j] = NAN;
                    memcpy(&w[j], &vals[j], 8);
                    if (vals[j] != vals[j])
                        w[j] = 0x7ff8000000000000ull;
                }
                uint64_t want = fnv1a_words(w, 2 + width[kind]);
                ck_assert_msg(ak_key_digest(&keys[i], (ak_channel_kind)kind) == want, "kind %d key %zu", kind, i);
                ck_assert_msg(got[i] == want, "bulk: kind %d count %zu key %zu", kind, n, i);
            }
        }
}
END_TEST

START_TEST(bulk_keys_and_change_detection)
{
    ak_doc *doc = ak_doc_new();
    ak_track *t = ak_track_add(ak_clip_add(doc, "c"), "b");
    enum { N = 200, STRIDE = 10 };
    unsigned char file[N * STRIDE];
    for (size_t i = 0; i < sizeof file; i++)
        file[i] = (unsigned char)(i * 7u);
    ak_key *k = ak_keys_append(t, AK_ROTATION, N);
    ck_assert_ptr_nonnull(k);
    ck_assert_uint_eq(t->channel[AK_ROTATION].count, N);
    ck_assert(k[N - 1].v[3] == 1.0 && k[N - 1].v[0] == 0.0 && k[N - 1].raw == NULL);
    for (int i = 0; i < N; i++) {
        k[i].time = i / 60.0;
        k[i].tick = i;
        k[i].v[0] = 0.5 - i / 1000.0;
        k[i].v[2] = i & 1 ? -0.0 : 0.0;
    }
    const unsigned char *block = ak_doc_store(doc, file, sizeof file);
    ck_assert_ptr_nonnull(block);
    ck_assert_int_eq(ak_keys_set_raw(k, N, block, STRIDE, 6), AK_OK);
    ck_assert_ptr_eq(k[3].raw, block + 3 * STRIDE);
    ck_assert_uint_eq(k[3].raw_size, 6);
    ck_assert_int_eq(memcmp(k[N - 1].raw, file + (N - 1) * STRIDE, 6), 0);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(ak_key_changed(&k[i]), 0);
    /* Flip each bit of each of the six words of every key in turn. */
    for (int i = 0; i < N; i++) {
        unsigned char *words = (unsigned char *)&k[i];
        for (size_t byte = 0; byte < offsetof(ak_key, raw); byte++)
            for (int bit = 0; bit < 8; bit++) {
                words[byte] ^= (unsigned char)(1u << bit);
                ck_assert_msg(ak_key_changed(&k[i]) == 1, "key %d byte %zu bit %d", i, byte, bit);
                words[byte] ^= (unsigned char)(1u << bit);
                ck_assert_int_eq(ak_key_changed(&k[i]), 0);
            }
    }
    /* Two words edited at once, as a user setting a new value would. */
    k[5].v[0] = 0.125;
    k[5].v[1] = 0.25;
    ck_assert_int_eq(ak_key_changed(&k[5]), 1);
    /* Setters: touch marks edited, set_raw stores anew (then unchanged). */
    ak_key_touch(&k[6]);
    ck_assert_int_eq(ak_key_changed(&k[6]), 1);
    ck_assert_int_eq(ak_key_set_raw(t, &k[5], "xyz", 3), AK_OK);
    ck_assert_int_eq(ak_key_changed(&k[5]), 0);
    ck_assert_int_eq(ak_keys_set_raw(&k[6], 1, block, STRIDE, 6), AK_OK);
    ck_assert_int_eq(ak_key_changed(&k[6]), 0);
    /* Appending more keys moves the array; stored bytes stay put. */
    const unsigned char *raw7 = k[7].raw;
    ak_key *more = ak_keys_append(t, AK_ROTATION, 3);
    ck_assert_ptr_nonnull(more);
    ak_key *all = t->channel[AK_ROTATION].keys;
    ck_assert_ptr_eq(more, all + N);
    ck_assert_ptr_eq(all[7].raw, raw7);
    ck_assert_int_eq(ak_key_changed(&all[7]), 0);
    ck_assert_int_eq(ak_key_changed(&more[0]), 1); /* no stored bytes */
    ck_assert_ptr_null(ak_keys_append(t, AK_CHANNELS, 1));
    ck_assert_int_eq(ak_keys_set_raw(all, 1, NULL, 0, 4), AK_E_USAGE);
    /* Zero stored bytes are still stored: unchanged. */
    ck_assert_int_eq(ak_keys_set_raw(more, 3, NULL, 0, 0), AK_OK);
    ck_assert_int_eq(ak_key_changed(&more[2]), 0);
    /* A clone keeps every key unchanged, with its own copy of the bytes. */
    ak_doc *copy = ak_doc_clone(doc);
    ck_assert_ptr_nonnull(copy);
    ak_key *ck = copy->clips[0]->tracks[0]->channel[AK_ROTATION].keys;
    ck_assert_int_eq(ak_key_changed(&ck[9]), 0);
    ck_assert_ptr_ne(ck[9].raw, all[9].raw);
    ck_assert_int_eq(memcmp(ck[9].raw, file + 9 * STRIDE, 6), 0);
    ak_doc_free(copy);
    ak_doc_free(doc);
}
END_TEST

/* Many small props and tracks come from the document's arena; arrays grow
 * in place or move, and every value stays readable. */
START_TEST(arena_holds_many_small_things)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *c = ak_clip_add(doc, "c");
    char name[32];
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "bone%d", i);
        ak_track *t = ak_track_add(c, name);
        ck_assert_ptr_nonnull(t);
        ck_assert_int_eq(ak_prop_set_int(doc, &t->props, "a", i), AK_OK);
        ck_assert_int_eq(ak_prop_set_int(doc, &t->props, "b", -i), AK_OK);
        ck_assert_ptr_nonnull(ak_key_add(t, AK_TRANSLATION));
        ck_assert_int_eq(ak_prop_set_string(doc, &c->props, name, name), AK_OK);
    }
    ck_assert_uint_eq(c->track_count, 3000);
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "bone%d", i);
        ck_assert_str_eq(c->tracks[i]->bone, name);
        ck_assert_int_eq(ak_prop_int(&c->tracks[i]->props, "a", 0), i);
        ck_assert_int_eq(ak_prop_int(&c->tracks[i]->props, "b", 0), -i);
        ck_assert_str_eq((const char *)ak_prop_get(&c->props, name)->data, name);
    }
    ak_clip_remove(doc, 0);
    ck_assert_uint_eq(doc->clip_count, 0);
    ak_doc_free(doc);
}
END_TEST

START_TEST(touch_and_digest)
{
    ak_doc *doc = ak_doc_new();
    ak_track *t = ak_track_add(ak_clip_add(doc, "c"), "b");
    ak_key *k = ak_key_add(t, AK_VISIBILITY);
    k->v[0] = 1;
    unsigned char raw = 8;
    ak_key_set_raw(t, k, &raw, 1);
    ck_assert_int_eq(ak_key_changed(k), 0);
    ak_key_touch(k);
    ck_assert_int_eq(ak_key_changed(k), 1);
    ak_key_set_raw(t, k, &raw, 1); /* fresh stored state */
    ck_assert_int_eq(ak_key_changed(k), 0);
    uint64_t d = ak_key_digest(k, AK_VISIBILITY);
    k->v[0] = 5; /* shown as 1, like before */
    ck_assert_uint_eq(ak_key_digest(k, AK_VISIBILITY), d);
    k->v[1] = 7; /* not a visibility value */
    ck_assert_uint_eq(ak_key_digest(k, AK_VISIBILITY), d);
    k->tick = 1;
    ck_assert_uint_ne(ak_key_digest(k, AK_VISIBILITY), d);
    ak_key *r = ak_key_add(t, AK_ROTATION);
    r->v[0] = ak_bits_f32(0x7FC00001u); /* NaN payloads digest alike */
    uint64_t dn = ak_key_digest(r, AK_ROTATION);
    r->v[0] = NAN;
    ck_assert_uint_eq(ak_key_digest(r, AK_ROTATION), dn);
    r->v[3] = 0.5;
    ck_assert_uint_ne(ak_key_digest(r, AK_ROTATION), dn);
    ak_doc_free(doc);
}
END_TEST

START_TEST(props_replace_and_keep_bytes)
{
    ak_doc *doc = ak_doc_new();
    ck_assert_int_eq(ak_prop_set_int(doc, &doc->props, "flags", 1), AK_OK);
    ck_assert_int_eq(ak_prop_set_int(doc, &doc->props, "flags", -7), AK_OK);
    ck_assert_uint_eq(doc->props.count, 1);
    ck_assert_int_eq(ak_prop_int(&doc->props, "flags", 0), -7);
    ck_assert_int_eq(ak_prop_int(&doc->props, "absent", 42), 42);
    const unsigned char name[24] = "CAMERA\0criptExp";
    ck_assert_int_eq(ak_prop_set_bytes(doc, &doc->props, "raw_name", name, sizeof name), AK_OK);
    const ak_prop *p = ak_prop_get(&doc->props, "raw_name");
    ck_assert_int_eq(p->type, AK_PROP_BYTES);
    ck_assert_uint_eq(p->size, 24);
    ck_assert_int_eq(memcmp(p->data, name, 24), 0);
    ck_assert_int_eq(ak_prop_set_string(doc, &doc->props, "s", "hi"), AK_OK);
    ck_assert_int_eq(ak_prop_get(&doc->props, "s")->type, AK_PROP_STRING);
    ck_assert_int_eq(ak_prop_int(&doc->props, "s", 5), 5);
    ck_assert_int_eq(ak_prop_set_float(doc, &doc->props, "f", 2.5), AK_OK);
    ck_assert(ak_prop_get(&doc->props, "f")->f == 2.5);
    ak_doc_free(doc);
}
END_TEST

/* Keys are copied once per address while the text there stays the same:
 * a buffer reused for other keys must still give each its own. */
START_TEST(props_key_from_reused_buffer)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "c");
    char key[16];
    for (int i = 0; i < 40; i++) {
        ak_track *t = ak_track_add(clip, "bone");
        snprintf(key, sizeof key, "k%d", i % 3);
        ck_assert_int_eq(ak_prop_set_int(doc, &t->props, key, i), AK_OK);
        strcpy(key, "other");
        ck_assert_int_eq(ak_prop_set_int(doc, &t->props, key, -i), AK_OK);
        ck_assert_int_eq(ak_prop_set_int(doc, &t->props, "literal", 2 * i), AK_OK);
    }
    for (size_t i = 0; i < clip->track_count; i++) {
        const ak_props *props = &clip->tracks[i]->props;
        char want[16];
        snprintf(want, sizeof want, "k%d", (int)i % 3);
        ck_assert_uint_eq(props->count, 3);
        ck_assert_str_eq(props->items[0].key, want);
        ck_assert_int_eq(props->items[0].i, (int64_t)i);
        ck_assert_str_eq(props->items[1].key, "other");
        ck_assert_int_eq(ak_prop_int(props, "other", 1), -(int64_t)i);
        ck_assert_int_eq(ak_prop_int(props, "literal", -1), 2 * (int64_t)i);
        ck_assert_ptr_ne(props->items[0].key, key);
    }
    ak_doc_free(doc);
}
END_TEST

/* Setting a key a list holds replaces it, whatever came between: keys
 * alike in length and ending, lists filled in turns, and lists past the
 * length where the document's index takes over from scanning. */
START_TEST(props_found_while_lists_fill)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "c");
    ak_track *a = ak_track_add(clip, "a"), *b = ak_track_add(clip, "b");
    /* "xaz" and "yaz": the same length, middle and last byte. */
    ck_assert_int_eq(ak_prop_set_int(doc, &a->props, "xaz", 1), AK_OK);
    ck_assert_int_eq(ak_prop_set_int(doc, &a->props, "yaz", 2), AK_OK);
    ck_assert_int_eq(ak_prop_set_int(doc, &a->props, "xaz", 3), AK_OK);
    ck_assert_uint_eq(a->props.count, 2);
    ck_assert_int_eq(ak_prop_int(&a->props, "xaz", 0), 3);
    ck_assert_int_eq(ak_prop_int(&a->props, "yaz", 0), 2);
    /* Turns: b starts (and is marked), then a gets a key it holds. */
    ck_assert_int_eq(ak_prop_set_int(doc, &b->props, "yaz", 4), AK_OK);
    ck_assert_int_eq(ak_prop_set_int(doc, &a->props, "yaz", 5), AK_OK);
    ck_assert_int_eq(ak_prop_set_int(doc, &b->props, "yaz", 6), AK_OK);
    ck_assert_uint_eq(a->props.count, 2);
    ck_assert_uint_eq(b->props.count, 1);
    ck_assert_int_eq(ak_prop_int(&a->props, "yaz", 0), 5);
    ck_assert_int_eq(ak_prop_int(&b->props, "yaz", 0), 6);
    /* Twenty keys (the index takes over at eight), each set twice: first
     * all, then all again in reverse, interleaved with the clip's list. */
    char key[16];
    for (int i = 0; i < 20; i++) {
        snprintf(key, sizeof key, "anm.k%d", i);
        ck_assert_int_eq(ak_prop_set_int(doc, &clip->props, key, i), AK_OK);
    }
    for (int i = 19; i >= 0; i--) {
        snprintf(key, sizeof key, "anm.k%d", i);
        ck_assert_int_eq(ak_prop_set_int(doc, &clip->props, key, 100 + i), AK_OK);
        ck_assert_int_eq(ak_prop_set_int(doc, &b->props, key, i), AK_OK);
    }
    ck_assert_uint_eq(clip->props.count, 20);
    ck_assert_uint_eq(b->props.count, 21);
    for (int i = 0; i < 20; i++) {
        snprintf(key, sizeof key, "anm.k%d", i);
        ck_assert_int_eq(ak_prop_int(&clip->props, key, -1), 100 + i);
        ck_assert_int_eq(ak_prop_int(&b->props, key, -1), i);
        ck_assert_str_eq(clip->props.items[i].key, key); /* in the order first set */
    }
    ak_doc_free(doc);
}
END_TEST

/* Keys are compared a word at a time: keys equal in their first word(s)
 * and differing after, a terminator on a word boundary, a key that is a
 * prefix of another and the empty key must each stay their own, in a short
 * list (scanned) and a long one (indexed), when set again through another
 * buffer. */
START_TEST(props_keys_compared_by_word)
{
    static const char *const keys[] = { "1234567",  "12345678",         "123456789",   "1234567812345678",
                                         "12345678123456789", "anm.records", "anm.recordz", "anm.fps",
                                         "anm.fps2", "" };
    const size_t n = sizeof keys / sizeof keys[0];
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "c");
    ak_track *shortl = ak_track_add(clip, "s");
    char buf[32];
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(ak_prop_set_int(doc, &clip->props, keys[i], (int64_t)i), AK_OK);
        if (i % 2)
            ck_assert_int_eq(ak_prop_set_int(doc, &shortl->props, keys[i], (int64_t)i), AK_OK);
    }
    for (size_t i = 0; i < n; i++) {
        strcpy(buf, keys[i]);
        ck_assert_int_eq(ak_prop_set_int(doc, &clip->props, buf, 100 + (int64_t)i), AK_OK);
        if (i % 2)
            ck_assert_int_eq(ak_prop_set_int(doc, &shortl->props, buf, 200 + (int64_t)i), AK_OK);
    }
    ck_assert_uint_eq(clip->props.count, n);
    ck_assert_uint_eq(shortl->props.count, n / 2);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(clip->props.items[i].key, keys[i]);
        ck_assert_int_eq(ak_prop_int(&clip->props, keys[i], -1), 100 + (int64_t)i);
        ck_assert_int_eq(ak_prop_int(&shortl->props, keys[i], -1), i % 2 ? 200 + (int64_t)i : -1);
    }
    ak_doc_free(doc);
}
END_TEST

/* Setting a key the list holds, through buffers the document has not seen
 * (so it copies the key before finding it), gives the copy back: a host
 * that re-sets a property in a loop does not grow the document. */
START_TEST(props_reset_keeps_memory)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "c");
    ak_track *t = ak_track_add(clip, "b");
    ck_assert_int_eq(ak_prop_set_int(doc, &t->props, "anm.records", 0), AK_OK);
    size_t before = doc->private_->arena_total;
    char bufs[8][32];
    for (int i = 0; i < 100000; i++) {
        char *key = bufs[i % 8];
        strcpy(key, "anm.records");
        ck_assert_int_eq(ak_prop_set_int(doc, &t->props, key, i), AK_OK);
    }
    ck_assert_uint_eq(t->props.count, 1);
    ck_assert_int_eq(t->props.items[0].i, 99999);
    ck_assert_uint_eq(doc->private_->arena_total, before);
    ak_doc_free(doc);
}
END_TEST

static ak_doc *sample_doc(void)
{
    ak_doc *doc = ak_doc_new();
    ak_doc_set_format(doc, "test", "T1");
    ak_clip *clip = ak_clip_add(doc, "walk");
    clip->duration = 1.0;
    ak_track *t = ak_track_add(clip, "Root");
    t->has_bone_hash = 1;
    t->bone_hash = ak_crc32("Root", 4);
    for (int i = 0; i < 3; i++) {
        ak_key *k = ak_key_add(t, AK_ROTATION);
        k->time = i * 0.5;
        k->v[2] = sin(i * 0.1);
        k->v[3] = cos(i * 0.1);
        unsigned char raw = (unsigned char)i;
        ak_key_set_raw(t, k, &raw, 1);
    }
    ak_event_add(clip, 0.25, "sound", "step.wav");
    ak_prop_set_int(doc, &clip->props, "flags", 3);
    ak_prop_set_float(doc, &clip->props, "speed", 2.0);
    return doc;
}

START_TEST(clone_is_deep)
{
    ak_doc *doc = sample_doc();
    ak_doc *copy = ak_doc_clone(doc);
    ck_assert_ptr_nonnull(copy);
    ck_assert_str_eq(copy->format, "test");
    ck_assert_str_eq(copy->variant, "T1");
    ak_track *t = copy->clips[0]->tracks[0];
    ck_assert_uint_eq(t->channel[AK_ROTATION].count, 3);
    ak_key *k = &t->channel[AK_ROTATION].keys[2];
    ck_assert_int_eq(ak_key_changed(k), 0);
    ck_assert_ptr_ne(k->raw, doc->clips[0]->tracks[0]->channel[AK_ROTATION].keys[2].raw);
    ck_assert_int_eq(k->raw[0], 2);
    k->v[0] = 1;
    ck_assert_int_eq(ak_key_changed(k), 1);
    ck_assert(doc->clips[0]->tracks[0]->channel[AK_ROTATION].keys[2].v[0] == 0);
    ck_assert_str_eq(copy->clips[0]->events[0].info, "step.wav");
    ck_assert_int_eq(ak_prop_int(&copy->clips[0]->props, "flags", 0), 3);
    ck_assert_uint_eq(t->bone_hash, 0xB6C65665u);
    ak_doc_free(doc);
    ak_doc_free(copy);
}
END_TEST

START_TEST(skeleton_bones_lookups_and_clone)
{
    ak_doc *doc = ak_doc_new();
    ck_assert_uint_eq(doc->skeleton.bone_count, 0);
    ak_bone *root = ak_bone_add(doc, "Root");
    ck_assert_ptr_nonnull(root);
    ck_assert_int_eq(root->parent, -1);
    ck_assert(root->rotation[0] == 0 && root->rotation[3] == 1.0);
    ck_assert(root->scale[0] == 1.0 && root->scale[1] == 1.0 && root->scale[2] == 1.0);
    for (int i = 1; i < 40; i++) { /* grows past the first capacity */
        char name[16];
        snprintf(name, sizeof name, " Bone%d", i);
        ak_bone *b = ak_bone_add(doc, name);
        ck_assert_ptr_nonnull(b);
        b->parent = i - 1;
        b->id = 100 + i;
        b->has_id = 1;
        b->hash = ak_crc32(name, strlen(name));
        b->has_hash = 1;
        b->translation[1] = i * 0.5;
        ck_assert_int_eq(ak_prop_set_int(doc, &b->props, "flags", i), AK_OK);
    }
    ck_assert_uint_eq(doc->skeleton.bone_count, 40);
    ck_assert_int_eq(ak_skeleton_find_name(doc, " Bone7"), 7);
    ck_assert_int_eq(ak_skeleton_find_name(doc, "Bone7"), -1); /* exact only */
    ck_assert_int_eq(ak_skeleton_find_id(doc, 139), 39);
    ck_assert_int_eq(ak_skeleton_find_id(doc, 7), -1);
    ck_assert_int_eq(ak_skeleton_find_hash(doc, ak_crc32(" Bone3", 6)), 3);
    ak_clip *clip = ak_clip_add(doc, "c");
    ak_track *t = ak_track_add(clip, "x");
    ck_assert_int_eq(t->skeleton_bone, -1);
    t->skeleton_bone = 5;
    ck_assert_int_eq(ak_bone_set_name(doc, &doc->skeleton.bones[0], "Renamed"), AK_OK);

    ak_doc *copy = ak_doc_clone(doc);
    ck_assert_ptr_nonnull(copy);
    ck_assert_uint_eq(copy->skeleton.bone_count, 40);
    ck_assert_str_eq(copy->skeleton.bones[0].name, "Renamed");
    ck_assert_ptr_ne(copy->skeleton.bones[0].name, doc->skeleton.bones[0].name);
    for (int i = 1; i < 40; i++) {
        const ak_bone *a = &doc->skeleton.bones[i], *b = &copy->skeleton.bones[i];
        ck_assert_str_eq(a->name, b->name);
        ck_assert_int_eq(b->parent, i - 1);
        ck_assert_int_eq(b->id, a->id);
        ck_assert_uint_eq(b->hash, a->hash);
        ck_assert(b->translation[1] == i * 0.5);
        ck_assert_int_eq(ak_prop_int(&b->props, "flags", -1), i);
        ck_assert_ptr_ne(b->props.items, a->props.items);
    }
    ck_assert_int_eq(copy->clips[0]->tracks[0]->skeleton_bone, 5);
    ak_doc_free(doc);
    ak_doc_free(copy);
}
END_TEST

static ak_track *track_named(ak_clip *clip, const char *bone)
{
    ak_track *t = ak_track_add(clip, bone);
    ck_assert_ptr_nonnull(t);
    return t;
}

START_TEST(skeleton_matching_rules)
{
    ak_doc *model = ak_doc_new();
    const char *names[] = { "Root", " Pelvis", "Spine", "L Thigh", "", "Head" };
    for (int i = 0; i < 6; i++) {
        ak_bone *b = ak_bone_add(model, names[i]);
        b->parent = i - 1;
    }
    model->skeleton.bones[2].id = 3;
    model->skeleton.bones[2].has_id = 1;
    model->skeleton.bones[4].hash = 0xdeadbeefu; /* a hash-only bone */
    model->skeleton.bones[4].has_hash = 1;

    ak_doc *anim = ak_doc_new();
    ak_clip *clip = ak_clip_add(anim, "walk");
    ak_track *by_id = track_named(clip, "whatever"); /* id beats the name */
    by_id->bone_id = 3;
    by_id->has_bone_id = 1;
    ak_track *exact = track_named(clip, "Root");
    ak_track *folded = track_named(clip, "PELVIS  ");
    ak_track *hashed = track_named(clip, ""); /* MAB style: hash of "L Thigh" */
    hashed->bone_hash = ak_crc32("L Thigh", 7);
    hashed->has_bone_hash = 1;
    ak_track *stored = track_named(clip, "");
    stored->bone_hash = 0xdeadbeefu;
    stored->has_bone_hash = 1;
    ak_track *missing = track_named(clip, "Tail");
    ak_track *wrong_id = track_named(clip, "Head"); /* no bone has id 99: falls back to the name */
    wrong_id->bone_id = 99;
    wrong_id->has_bone_id = 1;

    ck_assert_int_eq(ak_doc_attach_skeleton(anim, model), AK_OK);
    ck_assert_uint_eq(anim->skeleton.bone_count, 6);
    ck_assert_int_eq(by_id->skeleton_bone, 2);
    ck_assert_int_eq(exact->skeleton_bone, 0);
    ck_assert_int_eq(folded->skeleton_bone, 1);
    ck_assert_int_eq(hashed->skeleton_bone, 3);
    ck_assert_int_eq(stored->skeleton_bone, 4);
    ck_assert_int_eq(missing->skeleton_bone, -1);
    ck_assert_int_eq(wrong_id->skeleton_bone, 5);
    ck_assert_uint_eq(ak_clip_skeleton_matched(clip), 6);
    /* Matching never renames. */
    ck_assert_str_eq(folded->bone, "PELVIS  ");
    ck_assert_str_eq(hashed->bone, "");

    /* Attaching again replaces the skeleton; one without the bones unmatches. */
    ak_doc *small = ak_doc_new();
    ak_bone_add(small, "root");
    ck_assert_int_eq(ak_doc_attach_skeleton(anim, small), AK_OK);
    ck_assert_uint_eq(anim->skeleton.bone_count, 1);
    ck_assert_int_eq(exact->skeleton_bone, 0); /* case-insensitive */
    ck_assert_int_eq(folded->skeleton_bone, -1);
    ck_assert_uint_eq(ak_doc_match_skeleton(anim), 1);
    ak_doc_free(small);
    ak_doc_free(model);
    ak_doc_free(anim);
}
END_TEST

START_TEST(skeleton_matching_is_linear)
{
    /* 20,000 bones and tracks: quadratic matching would take 4e8 name
     * comparisons; the hash index does it in a blink (and the test in
     * tests/robustness times growth). Here: every track finds its bone. */
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "c");
    char name[32];
    for (int i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, "Bone%05d", i);
        ck_assert_ptr_nonnull(ak_bone_add(doc, name));
        snprintf(name, sizeof name, " bone%05d ", 19999 - i);
        track_named(clip, name);
    }
    ck_assert_uint_eq(ak_doc_match_skeleton(doc), 20000);
    ck_assert_int_eq(clip->tracks[0]->skeleton_bone, 19999);
    ck_assert_int_eq(clip->tracks[19999]->skeleton_bone, 0);
    ak_doc_free(doc);
}
END_TEST

START_TEST(stats_count_everything)
{
    ak_doc *doc = sample_doc();
    ak_track *t = ak_track_add(doc->clips[0], "");
    t->has_bone_hash = 1;
    ak_key_add(t, AK_VISIBILITY);
    ak_doc_stats s;
    ak_doc_stats_get(doc, &s);
    ck_assert_uint_eq(s.clips, 1);
    ck_assert_uint_eq(s.tracks, 2);
    ck_assert_uint_eq(s.keys[AK_ROTATION], 3);
    ck_assert_uint_eq(s.keys[AK_VISIBILITY], 1);
    ck_assert_uint_eq(s.events, 1);
    ck_assert_uint_eq(s.hashes, 2);
    ck_assert_uint_eq(s.hashes_named, 1);
    ak_doc_free(doc);
}
END_TEST

START_TEST(crc32_matches_zlib)
{
    /* The standard check value, and two bone hashes from the mab fact sheet. */
    ck_assert_uint_eq(ak_crc32("123456789", 9), 0xCBF43926u);
    ck_assert_uint_eq(ak_crc32("Root", 4), 0xB6C65665u);
    ck_assert_uint_eq(ak_crc32("Pelvis", 6), 0xB021FD58u);
    ck_assert_uint_eq(ak_crc32("L Thigh", 7), 0x04B99707u);
    ck_assert_uint_eq(ak_crc32("", 0), 0);
}
END_TEST

START_TEST(bone_names_from_dictionary)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "c");
    ak_track *a = ak_track_add(clip, "");
    a->has_bone_hash = 1;
    a->bone_hash = 0xB021FD58u;
    ak_track *b = ak_track_add(clip, "");
    b->has_bone_hash = 1;
    b->bone_hash = 0x12345678u;
    const char *names[] = { "pelvis", "Root", "Pelvis" };
    ck_assert_uint_eq(ak_doc_name_bones(doc, names, 3), 1);
    ck_assert_str_eq(a->bone, "Pelvis");
    ck_assert_str_eq(b->bone, "");
    ak_doc_free(doc);
}
END_TEST

typedef struct seen {
    int errors, warnings;
} seen;

static void count(void *user, const ak_message *m)
{
    seen *s = user;
    if (m->severity == AK_ERROR)
        s->errors++;
    else if (m->severity == AK_WARNING)
        s->warnings++;
}

START_TEST(validate_finds_problems)
{
    ak_doc *doc = sample_doc();
    seen s = { 0, 0 };
    ak_report rep = { 0 };
    rep.on_message = count;
    rep.user = &s;
    ck_assert_uint_eq(ak_doc_validate(doc, "x", &rep), 0);
    ck_assert_int_eq(s.warnings, 0);
    ak_track *t = doc->clips[0]->tracks[0];
    t->channel[AK_ROTATION].keys[1].v[3] = 2.0; /* not unit */
    t->channel[AK_ROTATION].keys[2].time = 0.1; /* before key 1 */
    ck_assert_uint_eq(ak_doc_validate(doc, "x", &rep), 1);
    ck_assert_int_eq(s.errors, 1);
    ck_assert_int_eq(s.warnings, 1);
    ck_assert_int_eq(rep.status, AK_E_DATA);
    t->channel[AK_ROTATION].keys[0].v[0] = NAN;
    s.errors = 0;
    ck_assert_uint_eq(ak_doc_validate(doc, "x", &rep), 2);
    ak_doc_free(doc);
}
END_TEST

/* Collects error texts, to check that each names its bone. */
typedef struct errors_seen {
    int count;
    char text[8][400];
} errors_seen;

static void keep_errors(void *user, const ak_message *m)
{
    errors_seen *e = user;
    if (m->severity != AK_ERROR)
        return;
    if (e->count < 8)
        snprintf(e->text[e->count], sizeof e->text[0], "%s", m->text);
    e->count++;
}

/* Root <- A <- B, Root <- C <- D: a valid five-bone tree with ids 0..4. */
static ak_doc *five_bones(void)
{
    static const char *const names[] = { "Root", "A", "B", "C", "D" };
    static const int32_t parents[] = { -1, 0, 1, 0, 3 };
    ak_doc *doc = ak_doc_new();
    for (int i = 0; i < 5; i++) {
        ak_bone *b = ak_bone_add(doc, names[i]);
        b->parent = parents[i];
        b->id = i;
        b->has_id = 1;
        b->translation[1] = 0.5;
    }
    return doc;
}

static unsigned validate_collect(ak_doc *doc, errors_seen *e)
{
    ak_report rep = { 0 };
    memset(e, 0, sizeof *e);
    rep.on_message = keep_errors;
    rep.user = e;
    unsigned n = ak_doc_validate(doc, "skel", &rep);
    ck_assert_int_eq((int)n, e->count);
    return n;
}

START_TEST(validate_skeleton_errors_name_the_bone)
{
    errors_seen e;
    ak_doc *doc = five_bones();
    ck_assert_uint_eq(validate_collect(doc, &e), 0);

    /* A forward parent: B (index 2) under D (index 4). */
    doc->skeleton.bones[2].parent = 4;
    ck_assert_uint_eq(validate_collect(doc, &e), 1);
    ck_assert_ptr_nonnull(strstr(e.text[0], "bone 'B' (index 2)"));
    ck_assert_ptr_nonnull(strstr(e.text[0], "parent 'D' (index 4) comes after it"));

    /* A cycle A -> B -> A: B's parent is A (fine), A's parent is B (forward). */
    doc->skeleton.bones[2].parent = 1;
    doc->skeleton.bones[1].parent = 2;
    ck_assert_uint_eq(validate_collect(doc, &e), 2);
    ck_assert_ptr_nonnull(strstr(e.text[0], "bone 'A' (index 1)"));
    ck_assert_ptr_nonnull(strstr(e.text[1], "a parent cycle of 2 bones"));
    /* a bone that is its own parent, and one out of range */
    doc->skeleton.bones[1].parent = 1;
    doc->skeleton.bones[2].parent = 5;
    ck_assert_uint_eq(validate_collect(doc, &e), 2);
    ck_assert_ptr_nonnull(strstr(e.text[0], "bone 'A' (index 1): is its own parent"));
    ck_assert_ptr_nonnull(strstr(e.text[1], "bone 'B' (index 2): parent index 5 is out of range (5 bones)"));
    doc->skeleton.bones[1].parent = 0;
    doc->skeleton.bones[2].parent = 1;

    /* A duplicate id: D takes C's id 3. */
    doc->skeleton.bones[4].id = 3;
    ck_assert_uint_eq(validate_collect(doc, &e), 1);
    ck_assert_ptr_nonnull(strstr(e.text[0], "bone 'D' (index 4): id 3 is also the id of bone 'C' (index 3)"));
    doc->skeleton.bones[4].id = 4;

    /* A duplicate name; empty names (hash-only bones) never clash. */
    ck_assert_int_eq(ak_bone_set_name(doc, &doc->skeleton.bones[3], "A"), AK_OK);
    ck_assert_uint_eq(validate_collect(doc, &e), 1);
    ck_assert_ptr_nonnull(strstr(e.text[0], "bone 'A' (index 3): the name is also that of bone index 1"));
    ck_assert_int_eq(ak_bone_set_name(doc, &doc->skeleton.bones[3], ""), AK_OK);
    ck_assert_int_eq(ak_bone_set_name(doc, &doc->skeleton.bones[4], ""), AK_OK);
    ck_assert_uint_eq(validate_collect(doc, &e), 0);

    /* Rest pose: a non-unit rotation, a NaN translation, an infinite scale. */
    doc->skeleton.bones[1].rotation[3] = 0.9;
    doc->skeleton.bones[2].translation[0] = NAN;
    doc->skeleton.bones[0].scale[2] = INFINITY;
    ck_assert_uint_eq(validate_collect(doc, &e), 3);
    ck_assert_ptr_nonnull(strstr(e.text[0], "bone 'Root' (index 0): rest scale is not finite"));
    ck_assert_ptr_nonnull(strstr(e.text[1], "bone 'A' (index 1): rest rotation is not a unit quaternion (norm 0.9)"));
    ck_assert_ptr_nonnull(strstr(e.text[2], "bone 'B' (index 2): rest translation is not finite"));
    ak_doc_free(doc);
}
END_TEST

/* A long chain of backward links and many repeated names stay fast: the
 * checks sort and stamp instead of comparing every pair. */
START_TEST(validate_large_skeleton)
{
    enum { N = 200000 };
    ak_doc *doc = ak_doc_new();
    for (int i = 0; i < N; i++) {
        ak_bone *b = ak_bone_add(doc, i % 2 ? "same" : "");
        ck_assert_ptr_nonnull(b);
        b->parent = i ? i - 1 : -1;
    }
    errors_seen e;
    ck_assert_uint_eq(validate_collect(doc, &e), N / 2 - 1); /* every "same" after the first */
    /* Close the chain into one cycle of N bones: bone 0's parent is the last. */
    ak_bone_set_name(doc, &doc->skeleton.bones[1], "first");
    for (int i = 3; i < N; i += 2)
        ck_assert_int_eq(ak_bone_set_name(doc, &doc->skeleton.bones[i], ""), AK_OK);
    doc->skeleton.bones[0].parent = N - 1;
    ck_assert_uint_eq(validate_collect(doc, &e), 2);
    ck_assert_ptr_nonnull(strstr(e.text[0], "comes after it"));
    ck_assert_ptr_nonnull(strstr(e.text[1], "a parent cycle of 200000 bones"));
    ak_doc_free(doc);
}
END_TEST

START_TEST(json_has_schema_and_exact_numbers)
{
    ak_doc *doc = sample_doc();
    ak_track *t = doc->clips[0]->tracks[0];
    ak_track_set_bone(t, "Bip \"01\"\n");
    t->channel[AK_ROTATION].keys[0].v[0] = -0.0;
    t->channel[AK_ROTATION].keys[0].v[1] = 0.1;
    t->channel[AK_ROTATION].keys[0].v[2] = (double)0.70710677f;
    FILE *fp = tmpfile();
    ck_assert_int_eq(ak_doc_write_json(doc, NULL, AK_JSON_RAW, fp), AK_OK);
    long n = ftell(fp);
    rewind(fp);
    char *text = calloc(1, (size_t)n + 1);
    ck_assert(fread(text, 1, (size_t)n, fp) == (size_t)n);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(text, "{\"animkit\":1,\"format\":\"test\",\"variant\":\"T1\""));
    ck_assert_ptr_nonnull(strstr(text, "\"bone\":\"Bip \\\"01\\\"\\n\""));
    ck_assert_ptr_nonnull(strstr(text, "\"hash\":3066451557"));
    ck_assert_ptr_nonnull(strstr(text, "\"props\":{\"flags\":3,\"speed\":2.0}"));
    ck_assert_ptr_nonnull(strstr(text, "\"rotation\":[[0,-0.0,0.1,0.7071067690849304,1]"));
    ck_assert_ptr_nonnull(strstr(text, "\"rotation_raw\":[\"00\",\"01\",\"02\"]"));
    ck_assert_ptr_nonnull(strstr(text, "\"events\":[{\"time\":0.25,\"type\":\"sound\",\"info\":\"step.wav\"}]"));
    free(text);
    ak_doc_free(doc);
}
END_TEST

/* A codec that asks for as many keys as a count in the file says. */
static ak_status greedy_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    ak_reader r;
    ak_reader_init(&r, job, bytes, size);
    uint32_t keys = ak_u32(&r);
    ak_track *t = ak_track_add(ak_clip_add(doc, "c"), "b");
    for (uint32_t i = 0; i < keys; i++)
        if (!ak_key_add(t, AK_ROTATION))
            return AK_E_NOMEM;
    return AK_OK;
}

static const ak_codec greedy = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "greedy", "1", "test",
                                 "MIT", "greedy", NULL, greedy_read, NULL, NULL };

/* A codec that asks, for a count in the file, that many scale keys of a
 * track together with one rotation and one translation key, once on a
 * track whose translation holds a key (so channels grow one by one) and
 * once on a fresh track (one block); what each left is kept here. */
static size_t grown_counts[2][AK_CHANNELS];
static ak_status grown_status[2];

static ak_status all_or_nothing_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    ak_reader r;
    ak_reader_init(&r, job, bytes, size);
    size_t n = ak_u32(&r);
    ak_clip *clip = ak_clip_add(doc, "c");
    ak_track *used = ak_track_add(clip, "used"), *fresh = ak_track_add(clip, "fresh");
    if (!ak_key_add(used, AK_TRANSLATION))
        return AK_E_NOMEM;
    size_t counts[AK_CHANNELS] = { 1, 1, n, 0 };
    ak_key *first[AK_CHANNELS];
    ak_track *tracks[2] = { used, fresh };
    for (int i = 0; i < 2; i++) {
        grown_status[i] = ak_track_keys_append_uninit(tracks[i], counts, first);
        for (int c = 0; c < AK_CHANNELS; c++)
            grown_counts[i][c] = tracks[i]->channel[c].count;
    }
    return grown_status[0] != AK_OK ? grown_status[0] : grown_status[1];
}

static const ak_codec all_or_nothing = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "aon", "1", "test",
                                         "MIT", "aon", NULL, all_or_nothing_read, NULL, NULL };

/* Over the read's cap, ak_track_keys_append_uninit() adds no key to any
 * channel, on either path; under it, every channel gets its keys. */
START_TEST(track_keys_all_or_nothing_over_the_cap)
{
    const ak_codec *codecs[] = { &all_or_nothing, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    unsigned char bytes[4] = { 0x00, 0x00, 0x10, 0x00 }; /* 1 Mi scale keys */
    ak_options o = { sizeof o, "aon", "aon.bin", NULL, 64 * 1024, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ck_assert_int_ne(ak_read(reg, bytes, 4, &o, &doc, &rep), AK_OK);
    ck_assert_ptr_null(doc);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(grown_status[i], AK_E_NOMEM);
        ck_assert_uint_eq(grown_counts[i][AK_ROTATION], 0);
        ck_assert_uint_eq(grown_counts[i][AK_TRANSLATION], i == 0 ? 1 : 0);
        ck_assert_uint_eq(grown_counts[i][AK_SCALE], 0);
    }
    unsigned char few[4] = { 7, 0, 0, 0 };
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_read(reg, few, 4, &o, &doc, &rep2), AK_OK);
    for (int i = 0; i < 2; i++) {
        ck_assert_uint_eq(grown_counts[i][AK_ROTATION], 1);
        ck_assert_uint_eq(grown_counts[i][AK_TRANSLATION], i == 0 ? 2 : 1);
        ck_assert_uint_eq(grown_counts[i][AK_SCALE], 7);
    }
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* Bytes the caller writes in place (ABI 1.7): ak_doc_store_uninit() gives
 * the document's bytes, each block apart from the others;
 * ak_prop_set_bytes_uninit() gives a bytes property's, with its NUL after
 * them, replacing an earlier value of the key. Bad arguments give nothing
 * and change nothing. */
START_TEST(bytes_written_in_place)
{
    ak_doc *doc = ak_doc_new();
    ak_track *t = ak_track_add(ak_clip_add(doc, "c"), "b");
    unsigned char *a = ak_doc_store_uninit(doc, 24), *none = ak_doc_store_uninit(doc, 0),
                  *c = ak_doc_store_uninit(doc, 8);
    ck_assert(a && none && c);
    memset(a, 0xa1, 24);
    none[0] = 0xb2; /* an empty block still has a byte of its own */
    memset(c, 0xc3, 8);
    for (int i = 0; i < 24; i++)
        ck_assert_uint_eq(a[i], 0xa1);
    ck_assert_uint_eq(none[0], 0xb2);
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(c[i], 0xc3);
    ck_assert_ptr_null(ak_doc_store_uninit(NULL, 4));

    unsigned char *v = ak_prop_set_bytes_uninit(doc, &t->props, "rec", 5);
    ck_assert_ptr_nonnull(v);
    memcpy(v, "\x01\x00\x02\x00\x03", 5);
    const ak_prop *p = ak_prop_get(&t->props, "rec");
    ck_assert(p && p->type == AK_PROP_BYTES && p->size == 5 && p->data == v);
    ck_assert_int_eq(memcmp(p->data, "\x01\x00\x02\x00\x03", 6), 0); /* with the NUL */
    unsigned char *w = ak_prop_set_bytes_uninit(doc, &t->props, "rec", 2);
    ck_assert(w && w != v);
    w[0] = 'o';
    w[1] = 'k';
    ck_assert_uint_eq(t->props.count, 1);
    p = ak_prop_get(&t->props, "rec");
    ck_assert(p->size == 2 && p->data == w && p->data[2] == 0);
    unsigned char *e = ak_prop_set_bytes_uninit(doc, &t->props, "empty", 0);
    ck_assert(e && e[0] == 0);
    ck_assert_uint_eq(ak_prop_get(&t->props, "empty")->size, 0);
    /* The value copies like any other bytes value. */
    ak_doc *other = ak_doc_new();
    ak_track *u = ak_track_add(ak_clip_add(other, "c"), "b");
    ck_assert_int_eq(ak_copy_props(other, &u->props, &t->props), AK_OK);
    ck_assert_int_eq(memcmp(ak_prop_get(&u->props, "rec")->data, "ok", 3), 0);
    ak_doc_free(other);

    ck_assert_ptr_null(ak_prop_set_bytes_uninit(NULL, &t->props, "x", 1));
    ck_assert_ptr_null(ak_prop_set_bytes_uninit(doc, NULL, "x", 1));
    ck_assert_ptr_null(ak_prop_set_bytes_uninit(doc, &t->props, NULL, 1));
    ck_assert_ptr_null(ak_prop_set_bytes_uninit(doc, &t->props, "huge", SIZE_MAX)); /* no room for the NUL */
    ck_assert_uint_eq(t->props.count, 2);
    ck_assert_ptr_null(ak_prop_get(&t->props, "huge"));
    ak_doc_free(doc);
}
END_TEST

/* A codec that asks, for a count in the file, that many stored bytes and
 * a clip property of that many bytes, both to be written in place. */
static int in_place_got[2];

static ak_status in_place_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    ak_reader r;
    ak_reader_init(&r, job, bytes, size);
    size_t n = ak_u32(&r);
    ak_clip *clip = ak_clip_add(doc, "c");
    if (!clip)
        return AK_E_NOMEM;
    unsigned char *stored = ak_doc_store_uninit(doc, n);
    unsigned char *value = ak_prop_set_bytes_uninit(doc, &clip->props, "big", n);
    in_place_got[0] = stored != NULL;
    in_place_got[1] = value != NULL;
    if (!stored || !value)
        return AK_E_NOMEM;
    memset(value, 'x', n);
    return AK_OK;
}

static const ak_codec in_place = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "inplace", "1", "test",
                                   "MIT", "inplace", NULL, in_place_read, NULL, NULL };

/* Over the read's cap, neither gives memory (and the read says the cap
 * was hit); under it, both do. */
START_TEST(bytes_in_place_over_the_cap)
{
    const ak_codec *codecs[] = { &in_place, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    unsigned char bytes[4] = { 0x00, 0x00, 0x10, 0x00 }; /* 1 MiB */
    ak_options o = { sizeof o, "inplace", "inplace.bin", NULL, 64 * 1024, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ck_assert_int_eq(ak_read(reg, bytes, 4, &o, &doc, &rep), AK_E_LIMIT); /* the cap, not the machine */
    ck_assert_ptr_null(doc);
    ck_assert(!in_place_got[0] && !in_place_got[1]);
    unsigned char few[4] = { 7, 0, 0, 0 };
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_read(reg, few, 4, &o, &doc, &rep2), AK_OK);
    ck_assert(in_place_got[0] && in_place_got[1]);
    const ak_prop *p = ak_prop_get(&doc->clips[0]->props, "big");
    ck_assert(p && p->size == 7 && memcmp(p->data, "xxxxxxx", 8) == 0);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

START_TEST(read_memory_is_capped)
{
    const ak_codec *codecs[] = { &greedy, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    unsigned char bytes[4] = { 0x00, 0x00, 0x10, 0x00 }; /* 1 Mi keys */
    ak_options o = { sizeof o, "greedy", "greedy.bin", NULL, 64 * 1024, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ck_assert_int_eq(ak_read(reg, bytes, 4, &o, &doc, &rep), AK_E_LIMIT);
    ck_assert_ptr_null(doc);
    ck_assert_ptr_nonnull(strstr(rep.message, "greedy.bin: greedy: error:"));
    ck_assert_int_eq(ak_status_exit(rep.status), 65);
    o.max_alloc = 0; /* the default cap (keys apart: 240 x input + 32 MiB) */
    unsigned char few[4] = { 0x00, 0x01, 0x00, 0x00 }; /* 256 keys */
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_read(reg, few, 4, &o, &doc, &rep2), AK_OK);
    ck_assert_str_eq(doc->format, "greedy");
    ck_assert_uint_eq(doc->clips[0]->tracks[0]->channel[AK_ROTATION].count, 256);
    /* After the read the cap is lifted: a host may grow the document. */
    for (int i = 0; i < 100000; i++)
        ck_assert_ptr_nonnull(ak_key_add(doc->clips[0]->tracks[0], AK_ROTATION));
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

START_TEST(sampling_interpolates_between_keys)
{
    ak_doc *doc = ak_doc_new();
    ak_track *t = ak_track_add(ak_clip_add(doc, "c"), "b");
    double out[4];
    ck_assert_int_eq(ak_channel_sample(&t->channel[AK_TRANSLATION], AK_TRANSLATION, 0, out), 0);
    ak_key *k = ak_key_add(t, AK_TRANSLATION);
    k->time = 1;
    k->v[0] = 2;
    k = ak_key_add(t, AK_TRANSLATION);
    k->time = 3;
    k->v[0] = 6;
    k->v[1] = -4;
    const ak_channel *tr = &t->channel[AK_TRANSLATION];
    ak_channel_sample(tr, AK_TRANSLATION, 0, out); /* held before the first key */
    ck_assert(out[0] == 2 && out[1] == 0);
    ak_channel_sample(tr, AK_TRANSLATION, 2.5, out); /* 3/4 of the way */
    ck_assert(out[0] == 5 && out[1] == -3);
    ak_channel_sample(tr, AK_TRANSLATION, 9, out); /* held after the last */
    ck_assert(out[0] == 6 && out[1] == -4);
    /* identity to 90 degrees about z: halfway is 45 degrees */
    k = ak_key_add(t, AK_ROTATION);
    k = ak_key_add(t, AK_ROTATION);
    k->time = 1;
    k->v[2] = sqrt(0.5);
    k->v[3] = sqrt(0.5);
    ak_channel_sample(&t->channel[AK_ROTATION], AK_ROTATION, 0.5, out);
    ck_assert_double_eq_tol(out[2], sin(M_PI / 8), 1e-12);
    ck_assert_double_eq_tol(out[3], cos(M_PI / 8), 1e-12);
    /* the antipode of the end key is the same rotation: same answer */
    k->v[2] = -sqrt(0.5);
    k->v[3] = -sqrt(0.5);
    ak_channel_sample(&t->channel[AK_ROTATION], AK_ROTATION, 0.5, out);
    ck_assert_double_eq_tol(fabs(out[2]), sin(M_PI / 8), 1e-12);
    ck_assert_double_eq_tol(fabs(out[3]), cos(M_PI / 8), 1e-12);
    /* visibility steps */
    k = ak_key_add(t, AK_VISIBILITY);
    k->v[0] = 1;
    k = ak_key_add(t, AK_VISIBILITY);
    k->time = 1;
    ak_channel_sample(&t->channel[AK_VISIBILITY], AK_VISIBILITY, 0.99, out);
    ck_assert(out[0] == 1);
    ak_channel_sample(&t->channel[AK_VISIBILITY], AK_VISIBILITY, 1, out);
    ck_assert(out[0] == 0);
    ak_doc_free(doc);
}
END_TEST

START_TEST(path_stem)
{
    char buf[8];
    ck_assert_uint_eq(ak_path_stem("dir.d/walk.ifp", buf, sizeof buf), 4);
    ck_assert_str_eq(buf, "walk");
    ak_path_stem(".hidden", buf, sizeof buf);
    ck_assert_str_eq(buf, ".hidden");
    ak_path_stem("a/very_long_name.ani", buf, sizeof buf);
    ck_assert_str_eq(buf, "very_lo");
    ak_path_stem(NULL, buf, sizeof buf);
    ck_assert_str_eq(buf, "");
}
END_TEST

/* Codecs that do one direction: "wonly" writes nothing at all (an empty
 * file), "ronly" fails its read without saying why. "bare" writes
 * rotations and translations only. */
static ak_status write_nothing(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    (void)job;
    (void)doc;
    (void)out;
    return AK_OK;
}

static ak_status fail_silently(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    (void)job;
    (void)bytes;
    (void)size;
    (void)doc;
    return AK_E_DATA;
}

static const ak_codec write_only = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), AK_CAP_MULTI_CLIP, "wonly", "1",
                                     "test", "MIT", "wo", NULL, NULL, write_nothing, NULL };
static const ak_codec read_only = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "ronly", "1",
                                    "test", "MIT", "ro", NULL, fail_silently, NULL, NULL };
static const ak_codec bare = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), AK_CAP_TRANSLATION | AK_CAP_BONE_NAME,
                               "bare", "1", "test", "MIT", "bare", NULL, NULL, write_nothing, NULL };

static ak_status write_with(ak_registry *reg, const ak_doc *doc, const char *format, unsigned char **out, size_t *n,
                            ak_report *rep)
{
    ak_options o = { sizeof o, format, "out.x", NULL, 0, 0 };
    memset(rep, 0, sizeof *rep);
    return ak_write(reg, doc, &o, out, n, rep);
}

/* A direction a codec lacks is refused with the status that says so; a
 * read that fails without a message still reports one; an empty output
 * is a buffer, not NULL; what a format cannot hold is named before it is
 * dropped (one warning each). */
START_TEST(one_way_codecs_and_losses)
{
    const ak_codec *codecs[] = { &write_only, &read_only, &bare, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_options o = { sizeof o, "wonly", "in.wo", NULL, 0, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ck_assert_int_eq(ak_read(reg, "x", 1, &o, &doc, &rep), AK_E_UNSUPPORTED);
    ck_assert_msg(strstr(rep.message, "wonly: error: this plugin cannot read"), "%s", rep.message);
    o.format = "ronly";
    memset(&rep, 0, sizeof rep);
    ck_assert_int_eq(ak_read(reg, "x", 1, &o, &doc, &rep), AK_E_DATA);
    ck_assert_ptr_null(doc);
    ck_assert_msg(strstr(rep.message, "read failed (bad data)"), "%s", rep.message);

    doc = ak_doc_new();
    ak_track *t = ak_track_add(ak_clip_add(doc, "c"), "b");
    ck_assert_ptr_nonnull(ak_key_add(t, AK_SCALE));
    t->weight = 0.5;
    unsigned char *out = NULL;
    size_t n = 99;
    ck_assert_int_eq(write_with(reg, doc, "ronly", &out, &n, &rep), AK_E_NOWRITE);
    ck_assert_int_eq(ak_status_exit(AK_E_NOWRITE), 69);
    ck_assert_msg(strstr(rep.message, "ronly: error: this plugin cannot write"), "%s", rep.message);
    ck_assert(out == NULL && n == 0);
    ck_assert_int_eq(write_with(reg, doc, "wonly", &out, &n, &rep), AK_OK);
    ck_assert(out != NULL && n == 0);
    ak_buffer_free(reg, out);
    ak_test_said said = { "" };
    rep = (ak_report){ ak_test_collect, &said, AK_OK, 0, "", "", "", 0 };
    ak_options wo = { sizeof wo, "bare", "out.bare", NULL, 0, 0 };
    ck_assert_int_eq(ak_write(reg, doc, &wo, &out, &n, &rep), AK_OK);
    ak_buffer_free(reg, out);
    ck_assert_uint_eq(rep.warnings, 2);
    ck_assert_msg(strstr(said.text, "1 scale keys will be dropped: bare cannot store them\n"), "%s", said.text);
    ck_assert_msg(strstr(said.text, "1 track weights other than 1 will be dropped: bare cannot store them\n"), "%s",
                  said.text);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* Every status against <sysexits.h>, whose values the CLI's exit codes are. */
START_TEST(status_exit_codes)
{
    static const struct { ak_status status; int exit; } map[] = {
        { AK_OK, EX_OK },
        { AK_E_USAGE, EX_USAGE },
        { AK_E_DATA, EX_DATAERR },
        { AK_E_UNSUPPORTED, EX_DATAERR },
        { AK_E_NOFORMAT, EX_DATAERR },
        { AK_E_AMBIGUOUS, EX_DATAERR },
        { AK_E_LIMIT, EX_DATAERR },
        { AK_E_NOINPUT, EX_NOINPUT },
        { AK_E_NOMEM, EX_OSERR },
        { AK_E_CANTCREATE, EX_CANTCREAT },
        { AK_E_IO, EX_IOERR },
        { AK_E_CONFIG, EX_CONFIG },
        { AK_E_NOWRITE, EX_UNAVAILABLE },
    };
    size_t n = sizeof map / sizeof map[0];
    ck_assert_uint_eq(n, (size_t)AK_E_NOWRITE + 1); /* every status, once */
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(map[i].status, (ak_status)i);
        ck_assert_int_eq(ak_status_exit(map[i].status), map[i].exit);
        /* each has a name of its own */
        ck_assert_str_ne(ak_status_name(map[i].status), "unknown status");
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(ak_status_name(map[i].status), ak_status_name(map[j].status));
    }
    ck_assert_str_eq(ak_status_name(AK_E_DATA), "bad data");
    /* a status from a newer library than the caller knows */
    ck_assert_int_eq(ak_status_exit((ak_status)(AK_E_NOWRITE + 1)), EX_SOFTWARE);
    ck_assert_str_eq(ak_status_name((ak_status)(AK_E_NOWRITE + 1)), "unknown status");
}
END_TEST

/* ak_version_number() is ak_version()'s "MAJOR.MINOR.PATCH" as 0xMMmmpp. */
START_TEST(version_number_matches_version)
{
    const char *v = ak_version();
    char *end;
    unsigned long major = strtoul(v, &end, 10);
    ck_assert_int_eq(*end, '.');
    unsigned long minor = strtoul(end + 1, &end, 10);
    ck_assert_int_eq(*end, '.');
    unsigned long patch = strtoul(end + 1, &end, 10);
    ck_assert_msg(*end == '\0' || *end == '-' || *end == '+', "%s", v);
    ck_assert_uint_eq(ak_version_number(), (uint32_t)(major * 65536 + minor * 256 + patch));
}
END_TEST

/* A codec of text input that fails on line 2, column 9, byte 14. */
static ak_status failing_text_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    (void)bytes;
    (void)size;
    (void)doc;
    return ak_fail_at(job, AK_E_DATA, 14, 2, 9, "expected %s, found '%s'", "z", "0,7");
}

static const ak_codec failing_text = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "ftx", "1", "test",
                                       "MIT", "ftx", NULL, failing_text_read, NULL, NULL };

/* ak_fail_at() puts the line, column and offset in the report and the
 * message, which the CLI prints as FILE:LINE:COLUMN (ABI 1.2). */
START_TEST(fail_at_reports_line_and_column)
{
    const ak_codec *codecs[] = { &failing_text, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_options o = { sizeof o, "ftx", "bad.ftx", NULL, 0, 0 };
    ak_test_said said = { "" };
    ak_report rep = { ak_test_collect, &said, AK_OK, 0, "", "", "", 0 };
    ak_doc *doc = NULL;
    ck_assert_int_eq(ak_read(reg, "x y\n1 0,7", 10, &o, &doc, &rep), AK_E_DATA);
    ck_assert_ptr_null(doc);
    ck_assert_int_eq(rep.status, AK_E_DATA);
    ck_assert_int_eq(rep.offset, 14);
    ck_assert_str_eq(rep.plugin, "ftx");
    ck_assert_str_eq(rep.text, "expected z, found '0,7'");
    ck_assert_str_eq(rep.message, "bad.ftx:2:9: ftx: error: expected z, found '0,7' (at byte 14, 0xe)");
    /* The message the host's callback got carries the same line, column,
     * offset and severity (ak_message_format() shows each of them). */
    ck_assert_str_eq(said.text, "bad.ftx:2:9: ftx: error: expected z, found '0,7' (at byte 14, 0xe)\n");
    ak_registry_free(reg);
}
END_TEST

START_TEST(digest_bytes_is_fnv1a)
{
    /* The FNV-1a 64-bit test vectors of the algorithm's authors. */
    ck_assert_uint_eq(ak_digest_bytes(AK_DIGEST_START, "", 0), 0xcbf29ce484222325ull);
    ck_assert_uint_eq(ak_digest_bytes(AK_DIGEST_START, "a", 1), 0xaf63dc4c8601ec8cull);
    ck_assert_uint_eq(ak_digest_bytes(AK_DIGEST_START, "foobar", 6), 0x85944171f73967e8ull);
    /* Continued digests are the digest of the whole. */
    ck_assert_uint_eq(ak_digest_bytes(ak_digest_bytes(AK_DIGEST_START, "foo", 3), "bar", 3), 0x85944171f73967e8ull);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, new_doc_is_empty);
    tcase_add_test(tc, clip_lookup_is_case_insensitive_first_match);
    tcase_add_test(tc, many_clips_grow_and_shrink);
    tcase_add_test(tc, track_defaults_and_copies);
    tcase_add_test(tc, track_named_by_length);
    tcase_add_test(tc, key_fingerprint_tracks_edits);
    tcase_add_test(tc, touch_and_digest);
    tcase_add_test(tc, bulk_keys_and_change_detection);
    tcase_add_test(tc, arena_holds_many_small_things);
    tcase_add_test(tc, props_replace_and_keep_bytes);
    tcase_add_test(tc, props_key_from_reused_buffer);
    tcase_add_test(tc, props_keys_compared_by_word);
    tcase_add_test(tc, props_reset_keeps_memory);
    tcase_add_test(tc, props_found_while_lists_fill);
    tcase_add_test(tc, clone_is_deep);
    tcase_add_test(tc, skeleton_bones_lookups_and_clone);
    tcase_add_test(tc, skeleton_matching_rules);
    tcase_add_test(tc, skeleton_matching_is_linear);
    tcase_add_test(tc, stats_count_everything);
    tcase_add_test(tc, crc32_matches_zlib);
    tcase_add_test(tc, bone_names_from_dictionary);
    tcase_add_test(tc, validate_finds_problems);
    tcase_add_test(tc, validate_skeleton_errors_name_the_bone);
    tcase_add_test(tc, validate_large_skeleton);
    tcase_add_test(tc, json_has_schema_and_exact_numbers);
    tcase_add_test(tc, read_memory_is_capped);
    tcase_add_test(tc, sampling_interpolates_between_keys);
    tcase_add_test(tc, path_stem);
    tcase_add_test(tc, status_exit_codes);
    tcase_add_test(tc, one_way_codecs_and_losses);
    tcase_add_test(tc, version_number_matches_version);
    tcase_add_test(tc, fail_at_reports_line_and_column);
    tcase_add_test(tc, digest_bytes_is_fnv1a);
    tcase_add_test(tc, bulk_fingerprint_agrees_with_the_single_key_check);
    tcase_add_test(tc, edits_of_several_words_are_detected);
    tcase_add_test(tc, track_keys_appended_in_one_block);
    tcase_add_test(tc, track_keys_all_or_nothing_over_the_cap);
    tcase_add_test(tc, bytes_written_in_place);
    tcase_add_test(tc, bytes_in_place_over_the_cap);
    tcase_add_test(tc, key_digests_in_bulk_agree_with_each_key);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
