/* test_edit.c - the editing API: replace, merge/split, rename/remove and
 * bone edits checked on the byte ranges of ANP3 files (laid out here from
 * the fact sheet, not by the plugin), retime against values computed in
 * the test, and diff. */
#include "testutil.h"

#include "../../plugins/ifp/ifp.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static ak_registry *reg;

static void setup(void)
{
    const ak_codec *codecs[] = { ifp_codec(), NULL };
    reg = ak_test_registry(codecs);
}

static void teardown(void) { ak_registry_free(reg); }

/* ---- ANP3 layout (ifp.md §2): where each animation's bytes lie ----------- */

typedef struct range {
    size_t start, end; /* [start, end): header, bone headers and frames */
} range;

static uint32_t u32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

static size_t frame_size(uint32_t type)
{
    static const size_t sizes[5] = { 0, 20, 32, 10, 16 };
    return type >= 1 && type <= 4 ? sizes[type] : 0;
}

/* Fills ranges (up to max) and returns the animation count. */
static size_t anp3_ranges(const unsigned char *b, size_t n, range *r, size_t max)
{
    ck_assert(n >= 36 && !memcmp(b, "ANP3", 4));
    size_t count = u32(b + 32), at = 36;
    ck_assert_uint_le(count, max);
    for (size_t a = 0; a < count; a++) {
        ck_assert_uint_le(at + 36, n);
        r[a].start = at;
        uint32_t bones = u32(b + at + 24);
        at += 36;
        for (uint32_t i = 0; i < bones; i++) {
            ck_assert_uint_le(at + 36, n);
            size_t fs = frame_size(u32(b + at + 24));
            ck_assert_uint_gt(fs, 0);
            at += 36 + fs * u32(b + at + 28);
            ck_assert_uint_le(at, n);
        }
        r[a].end = at;
    }
    return count;
}

static int same_range(const unsigned char *a, range ra, const unsigned char *b, range rb, size_t skip)
{
    return ra.end - ra.start == rb.end - rb.start &&
           !memcmp(a + ra.start + skip, b + rb.start + skip, ra.end - ra.start - skip);
}

#define MAX_ANIMS 4096
static range ra[MAX_ANIMS], rb[MAX_ANIMS], rd[MAX_ANIMS];

static ak_doc *corpus_doc(const char *rel, unsigned char **bytes, size_t *n)
{
    *bytes = ak_test_corpus_file(rel, n);
    return *bytes ? ak_test_read(reg, *bytes, *n, rel) : NULL;
}

/* ---- replace ------------------------------------------------------------- */

START_TEST(replace_walk_civi_keeps_other_clips_bytes)
{
    size_t n, dn;
    unsigned char *orig, *donor_bytes;
    ak_doc *ped = corpus_doc("ifp/ped_cretaceous.ifp", &orig, &n);
    if (!ped)
        return;
    ak_doc *donor = corpus_doc("ifp/walking_cuffed.ifp", &donor_bytes, &dn);
    ck_assert_ptr_nonnull(donor);
    long at = ak_doc_clip_index(ped, "walk_civi");
    ck_assert_int_ge(at, 0);
    size_t clips = ped->clip_count, index = 0;
    ck_assert_int_eq(ak_doc_put_clip(ped, donor->clips[0], "walk_civi", &index), AK_OK);
    ck_assert_uint_eq(index, (size_t)at);
    ck_assert_uint_eq(ped->clip_count, clips);
    ck_assert_str_eq(ped->clips[at]->name, "WALK_civi"); /* the stored spelling stays */

    size_t on;
    unsigned char *out = ak_test_write(reg, ped, "ifp", &on);
    size_t ca = anp3_ranges(orig, n, ra, MAX_ANIMS), cb = anp3_ranges(out, on, rb, MAX_ANIMS);
    ck_assert_uint_eq(ca, clips);
    ck_assert_uint_eq(cb, clips);
    for (size_t i = 0; i < clips; i++) {
        if (i == (size_t)at)
            continue;
        ck_assert_msg(same_range(orig, ra[i], out, rb[i], 0), "clip %zu (%s) changed", i, ped->clips[i]->name);
        ck_assert(!memcmp(out + rb[i].start, ped->clips[i]->name, strlen(ped->clips[i]->name)));
    }
    /* The new clip is the donor's animation, bone for bone and frame for
     * frame; only its 24-byte name field differs. */
    ck_assert_uint_eq(anp3_ranges(donor_bytes, dn, rd, MAX_ANIMS), 1);
    ck_assert(same_range(donor_bytes, rd[0], out, rb[at], 24));
    ck_assert(!memcmp(out + rb[at].start, "WALK_civi", 10));

    /* Read back: the clip's keys are the donor's. */
    ak_doc *back = ak_test_read(reg, out, on, "out.ifp");
    const ak_clip *got = back->clips[at], *want = donor->clips[0];
    ck_assert_uint_eq(got->track_count, want->track_count);
    for (size_t t = 0; t < got->track_count; t++)
        for (int c = 0; c < AK_CHANNELS; c++) {
            const ak_channel *g = &got->tracks[t]->channel[c], *w = &want->tracks[t]->channel[c];
            ck_assert_uint_eq(g->count, w->count);
            for (size_t k = 0; k < g->count; k++) {
                ck_assert(g->keys[k].time == w->keys[k].time);
                for (int v = 0; v < 4; v++)
                    ck_assert(g->keys[k].v[v] == w->keys[k].v[v]);
            }
        }
    ak_doc_free(back);
    free(out);
    ak_doc_free(donor);
    ak_doc_free(ped);
    free(donor_bytes);
    free(orig);
}
END_TEST

START_TEST(replace_appends_a_new_name_and_other_variant_is_reencoded)
{
    size_t n, vn;
    unsigned char *b, *vb;
    ak_doc *deagle = corpus_doc("ifp/deagle.ifp", &b, &n);
    if (!deagle)
        return;
    ak_doc *vice = corpus_doc("ifp/vice.ifp", &vb, &vn);
    if (!vice) {
        ak_doc_free(deagle);
        free(b);
        return;
    }
    const ak_clip *walk = ak_doc_find_clip(vice, "walk_civi");
    ck_assert_ptr_nonnull(walk);
    size_t index;
    ck_assert_int_eq(ak_doc_put_clip(deagle, walk, "vc_walk", &index), AK_OK);
    ck_assert_uint_eq(index, 5);
    ck_assert_str_eq(deagle->clips[5]->name, "vc_walk");
    /* ANPK keys cannot be ANP3 bytes: every copied key is to be encoded. */
    const ak_track *t = deagle->clips[5]->tracks[0];
    ck_assert_uint_gt(t->channel[AK_ROTATION].count, 0);
    for (size_t k = 0; k < t->channel[AK_ROTATION].count; k++) {
        ck_assert(ak_key_changed(&t->channel[AK_ROTATION].keys[k]));
        ck_assert_ptr_null(t->channel[AK_ROTATION].keys[k].raw);
    }
    for (size_t p = 0; p < deagle->clips[5]->props.count; p++)
        ck_assert(strncmp(deagle->clips[5]->props.items[p].key, "ifp.", 4) != 0);
    size_t on;
    unsigned char *out = ak_test_write(reg, deagle, "ifp", &on);
    size_t c0 = anp3_ranges(b, n, ra, MAX_ANIMS);
    ck_assert_uint_eq(anp3_ranges(out, on, rb, MAX_ANIMS), c0 + 1);
    for (size_t i = 0; i < c0; i++)
        ck_assert(same_range(b, ra[i], out, rb[i], 0));
    /* Values survive the int16 encoding to within its steps. */
    ak_doc *back = ak_test_read(reg, out, on, "out.ifp");
    const ak_channel *g = &back->clips[5]->tracks[0]->channel[AK_ROTATION];
    const ak_channel *w = &walk->tracks[0]->channel[AK_ROTATION];
    ck_assert_uint_eq(g->count, w->count);
    for (size_t k = 0; k < g->count; k++) {
        ck_assert(fabs(g->keys[k].time - w->keys[k].time) <= 0.5 / 60 + 1e-9);
        for (int v = 0; v < 4; v++)
            ck_assert(fabs(g->keys[k].v[v] - w->keys[k].v[v]) <= 1.0 / 4096 + 1e-9);
    }
    ak_doc_free(back);
    free(out);
    ak_doc_free(vice);
    ak_doc_free(deagle);
    free(vb);
    free(b);
}
END_TEST

/* ---- merge and split ------------------------------------------------------------ */

START_TEST(split_then_merge_then_split_is_byte_identical)
{
    size_t n;
    unsigned char *b;
    ak_doc *doc = corpus_doc("ifp/deagle.ifp", &b, &n);
    if (!doc)
        return;
    size_t clips = doc->clip_count;
    unsigned char *part[8];
    size_t part_n[8];
    ck_assert_uint_le(clips, 8);
    ak_doc *merged = ak_doc_new();
    for (size_t i = 0; i < clips; i++) {
        ak_doc *one = ak_doc_extract_clip(doc, i);
        ck_assert_ptr_nonnull(one);
        ck_assert_uint_eq(one->clip_count, 1);
        ck_assert_str_eq(one->variant, "ANP3");
        part[i] = ak_test_write(reg, one, "ifp", &part_n[i]);
        ak_doc_free(one);
        /* Merge the split files as read back from their bytes. */
        ak_doc *re = ak_test_read(reg, part[i], part_n[i], "part.ifp");
        ck_assert_int_eq(ak_doc_merge(merged, re), AK_OK);
        ak_doc_free(re);
    }
    ck_assert_ptr_null(ak_doc_extract_clip(doc, clips));
    /* Merging a document into itself doubles it once. */
    ak_doc *twice = ak_doc_clone(doc);
    ck_assert_int_eq(ak_doc_merge(twice, twice), AK_OK);
    ck_assert_uint_eq(twice->clip_count, 2 * clips);
    ck_assert_str_eq(twice->clips[clips]->name, doc->clips[0]->name);
    ak_doc_free(twice);
    size_t mn;
    unsigned char *m = ak_test_write(reg, merged, "ifp", &mn);
    /* The merged package is the original file again. */
    ck_assert(ak_test_same_bytes(b, n, m, mn, "merge of the split deagle.ifp"));
    /* And splitting the merged file gives the merged inputs back. */
    ak_doc *again = ak_test_read(reg, m, mn, "merged.ifp");
    for (size_t i = 0; i < clips; i++) {
        ak_doc *one = ak_doc_extract_clip(again, i);
        size_t on;
        unsigned char *o = ak_test_write(reg, one, "ifp", &on);
        ck_assert(ak_test_same_bytes(part[i], part_n[i], o, on, "split of the merged file"));
        free(o);
        ak_doc_free(one);
        free(part[i]);
    }
    ak_doc_free(again);
    free(m);
    ak_doc_free(merged);
    ak_doc_free(doc);
    free(b);
}
END_TEST

START_TEST(rename_and_remove_keep_other_clips_bytes)
{
    size_t n;
    unsigned char *b;
    ak_doc *doc = corpus_doc("ifp/deagle.ifp", &b, &n);
    if (!doc)
        return;
    size_t clips = anp3_ranges(b, n, ra, MAX_ANIMS);
    ck_assert_int_eq(ak_clip_set_name(doc->clips[2], "FIRE"), AK_OK);
    size_t on;
    unsigned char *out = ak_test_write(reg, doc, "ifp", &on);
    ck_assert_uint_eq(anp3_ranges(out, on, rb, MAX_ANIMS), clips);
    for (size_t i = 0; i < clips; i++)
        ck_assert(same_range(b, ra[i], out, rb[i], i == 2 ? 24 : 0));
    ck_assert(!memcmp(out + rb[2].start, "FIRE\0\0\0\0", 8));
    free(out);

    long gone = ak_doc_clip_index(doc, "PYTHON_CROUCHRELOAD"); /* case-insensitive */
    ck_assert_int_eq(gone, 1);
    ak_clip_remove(doc, (size_t)gone);
    out = ak_test_write(reg, doc, "ifp", &on);
    ck_assert_uint_eq(anp3_ranges(out, on, rb, MAX_ANIMS), clips - 1);
    for (size_t i = 0, j = 0; i < clips; i++) {
        if (i == 1)
            continue;
        ck_assert(same_range(b, ra[i], out, rb[j], i == 2 ? 24 : 0));
        j++;
    }
    free(out);
    ak_doc_free(doc);
    free(b);
}
END_TEST

/* ---- bones ------------------------------------------------------------------------------ */

START_TEST(rename_bones_then_ids_from_skeleton)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "walk");
    ak_track *pelvis = ak_track_add(clip, " Pelvis");
    ak_track *spine = ak_track_add(clip, "Spine");
    ak_track *neck = ak_track_add(clip, "Neck");
    neck->has_bone_hash = 1;
    neck->bone_hash = ak_crc32("Neck", 4);
    ak_track *hashed = ak_track_add(clip, ""); /* known only by hash, as in MAB */
    hashed->has_bone_hash = 1;
    hashed->bone_hash = ak_crc32("Tail", 4);
    ak_track *stray = ak_track_add(clip, "Wing");

    const char *from[] = { "Spine", "Neck", "Head" }, *to[] = { "Spine1", "Head", "Neck" };
    ck_assert_uint_eq(ak_doc_rename_bones(doc, from, to, 3), 2);
    ck_assert_str_eq(spine->bone, "Spine1");
    ck_assert_str_eq(neck->bone, "Head"); /* one pass: not renamed back to Neck */
    ck_assert_uint_eq(neck->bone_hash, ak_crc32("Head", 4));

    ak_doc *model = ak_doc_new();
    static const struct { const char *name; int32_t id; } bones[] = {
        { "Root", 0 }, { "Pelvis", 1 }, { "Spine1", 3 }, { "Head", 5 }, { "Tail", 41 },
    };
    for (size_t i = 0; i < 5; i++) {
        ak_bone *bn = ak_bone_add(model, bones[i].name);
        bn->id = bones[i].id;
        bn->has_id = 1;
        bn->parent = i ? 0 : -1;
    }
    size_t assigned = 0;
    ck_assert_int_eq(ak_doc_assign_bone_ids(doc, model, &assigned), AK_OK);
    ck_assert_uint_eq(assigned, 4);
    ck_assert(pelvis->has_bone_id && pelvis->bone_id == 1);
    ck_assert(spine->has_bone_id && spine->bone_id == 3);
    ck_assert(neck->has_bone_id && neck->bone_id == 5);
    ck_assert(hashed->has_bone_id && hashed->bone_id == 41);
    ck_assert(!stray->has_bone_id);
    ck_assert_str_eq(pelvis->bone, " Pelvis"); /* names are kept */
    ak_doc_free(model);
    ak_doc_free(doc);
}
END_TEST

/* ---- retime --------------------------------------------------------------------------------- */

/* Rotation about z by `deg` degrees. */
static void zrot(double deg, double q[4])
{
    double h = deg * M_PI / 360.0;
    q[0] = q[1] = 0;
    q[2] = sin(h);
    q[3] = cos(h);
}

static const unsigned char stored[4] = { 1, 2, 3, 4 };

/* Rotation keys at 0, 0.5, 1 s: 0, 90, 180 degrees about z; translation
 * keys at 0 and 1 s: (0,0,0) to (2,4,6); an event at 0.25 s. Every key
 * carries stored bytes, so untouched keys can be told from edited ones. */
static ak_doc *synthetic(ak_clip **clip_out)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "turn");
    clip->duration = 1.0;
    clip->frame_rate = 2;
    ak_track *t = ak_track_add(clip, "Spine");
    for (int i = 0; i < 3; i++) {
        ak_key *k = ak_key_add(t, AK_ROTATION);
        k->time = i * 0.5;
        zrot(90.0 * i, k->v);
        ak_key_set_raw(t, k, stored, sizeof stored);
    }
    for (int i = 0; i < 2; i++) {
        ak_key *k = ak_key_add(t, AK_TRANSLATION);
        k->time = i;
        k->v[0] = 2.0 * i;
        k->v[1] = 4.0 * i;
        k->v[2] = 6.0 * i;
        ak_key_set_raw(t, k, stored, sizeof stored);
    }
    ak_event_add(clip, 0.25, "sound", "step");
    *clip_out = clip;
    return doc;
}

static void expect_rot(const ak_key *k, double time, double deg)
{
    double q[4];
    zrot(deg, q);
    ck_assert_msg(fabs(k->time - time) < 1e-12, "time %.17g, want %.17g", k->time, time);
    for (int c = 0; c < 4; c++)
        ck_assert_msg(fabs(k->v[c] - q[c]) < 1e-9, "at %g s: v[%d] = %.17g, want %.17g (%g deg)", time, c, k->v[c],
                      q[c], deg);
}

static ak_retime how(void)
{
    ak_retime h;
    memset(&h, 0, sizeof h);
    h.struct_size = sizeof h;
    return h;
}

START_TEST(retime_speed)
{
    ak_clip *clip;
    ak_doc *doc = synthetic(&clip);
    ak_retime h = how();
    h.speed = 2;
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_OK);
    ck_assert(clip->duration == 0.5);
    const ak_channel *r = &clip->tracks[0]->channel[AK_ROTATION];
    ck_assert_uint_eq(r->count, 3);
    expect_rot(&r->keys[0], 0, 0);
    expect_rot(&r->keys[1], 0.25, 90);
    expect_rot(&r->keys[2], 0.5, 180);
    ck_assert(!ak_key_changed(&r->keys[0])); /* time 0 stays 0 */
    ck_assert(ak_key_changed(&r->keys[1]));
    ck_assert(clip->events[0].time == 0.125);
    h.speed = 0.25; /* 4x slower: 0.5 s -> 2 s */
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_OK);
    ck_assert(clip->duration == 2.0);
    expect_rot(&r->keys[2], 2.0, 180);
    h.speed = -1;
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_E_USAGE);
    ak_doc_free(doc);
}
END_TEST

START_TEST(retime_resample)
{
    ak_clip *clip;
    ak_doc *doc = synthetic(&clip);
    ak_retime h = how();
    h.fps = 4;
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_OK);
    const ak_channel *r = &clip->tracks[0]->channel[AK_ROTATION];
    const ak_channel *tr = &clip->tracks[0]->channel[AK_TRANSLATION];
    ck_assert_uint_eq(r->count, 5);
    ck_assert_uint_eq(tr->count, 5);
    for (int i = 0; i < 5; i++) {
        /* Slerp at constant angular speed: 45 degrees per quarter second. */
        expect_rot(&r->keys[i], i * 0.25, i * 45.0);
        ck_assert(fabs(tr->keys[i].v[0] - 0.5 * i) < 1e-12);
        ck_assert(fabs(tr->keys[i].v[1] - 1.0 * i) < 1e-12);
        ck_assert(fabs(tr->keys[i].v[2] - 1.5 * i) < 1e-12);
        /* Keys that lay on the grid are the same keys, stored bytes and all. */
        ck_assert_int_eq(ak_key_changed(&r->keys[i]), i % 2 == 1);
    }
    ck_assert(clip->frame_rate == 4);
    ak_doc_free(doc);
}
END_TEST

START_TEST(retime_trim_and_reverse)
{
    ak_clip *clip;
    ak_doc *doc = synthetic(&clip);
    ak_retime h = how();
    h.trim = 1;
    h.t0 = 0.25;
    h.t1 = 0.75;
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_OK);
    ck_assert(clip->duration == 0.5);
    const ak_channel *r = &clip->tracks[0]->channel[AK_ROTATION];
    const ak_channel *tr = &clip->tracks[0]->channel[AK_TRANSLATION];
    ck_assert_uint_eq(r->count, 3);
    expect_rot(&r->keys[0], 0, 45);
    expect_rot(&r->keys[1], 0.25, 90);
    expect_rot(&r->keys[2], 0.5, 135);
    ck_assert_uint_eq(tr->count, 2);
    ck_assert(fabs(tr->keys[0].v[0] - 0.5) < 1e-12 && fabs(tr->keys[1].v[2] - 4.5) < 1e-12);
    ck_assert_uint_eq(clip->event_count, 1);
    ck_assert(clip->events[0].time == 0);

    h = how();
    h.reverse = 1;
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_OK);
    expect_rot(&r->keys[0], 0, 135);
    expect_rot(&r->keys[1], 0.25, 90);
    expect_rot(&r->keys[2], 0.5, 45);
    ck_assert(fabs(tr->keys[0].v[0] - 1.5) < 1e-12 && tr->keys[1].time == 0.5);
    ck_assert(clip->events[0].time == 0.5);

    h = how();
    h.trim = 1;
    h.t0 = 0.6; /* past the end */
    h.t1 = 0.9;
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_E_USAGE);
    ak_doc_free(doc);
}
END_TEST

/* Played backwards, a visibility step holds from where the next key was:
 * steps 1 on [0, 0.4), 0 on [0.4, 0.7) and 1 on [0.7, 1] become 1 on
 * [0, 0.3), 0 on [0.3, 0.6) and 1 on [0.6, 1]. Events come out in
 * reverse order at 1 - t: 0.2 "a", 0.5 "b", 0.9 "c" become 0.1 "c",
 * 0.5 "b", 0.8 "a". */
START_TEST(retime_reverse_visibility_steps_and_events)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "blink");
    clip->duration = 1.0;
    ak_track *t = ak_track_add(clip, "Lid");
    static const double when[] = { 0, 0.4, 0.7 }, value[] = { 1, 0, 1 };
    for (int i = 0; i < 3; i++) {
        ak_key *k = ak_key_add(t, AK_VISIBILITY);
        k->time = when[i];
        k->v[0] = value[i];
    }
    ak_event_add(clip, 0.2, "sound", "a");
    ak_event_add(clip, 0.5, "sound", "b");
    ak_event_add(clip, 0.9, "sound", "c");
    ak_retime h = how();
    h.reverse = 1;
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_OK);
    const ak_channel *vis = &clip->tracks[0]->channel[AK_VISIBILITY];
    ck_assert_uint_eq(vis->count, 3);
    static const double want_time[] = { 0, 0.3, 0.6 }, want_value[] = { 1, 0, 1 };
    for (int i = 0; i < 3; i++) {
        ck_assert_msg(fabs(vis->keys[i].time - want_time[i]) < 1e-12, "key %d at %.17g", i, vis->keys[i].time);
        ck_assert(vis->keys[i].v[0] == want_value[i]);
    }
    ck_assert_uint_eq(clip->event_count, 3);
    static const char *const want_info[] = { "c", "b", "a" };
    static const double want_at[] = { 0.1, 0.5, 0.8 };
    for (int e = 0; e < 3; e++) {
        ck_assert_str_eq(clip->events[e].info, want_info[e]);
        ck_assert_msg(fabs(clip->events[e].time - want_at[e]) < 1e-12, "event %d at %.17g", e, clip->events[e].time);
    }
    ak_doc_free(doc);
}
END_TEST

/* What a resample makes is bounded by the duration it ends with: 1 s
 * slowed down 100,000 times and resampled at 1000 fps would be 10^8 keys
 * a channel (over 10^7); 20 tracks of two channels over 1000 s at 1000
 * fps, 4 * 10^7 keys in all (over 2^25); a speed that makes the duration
 * infinite is refused as a bad factor. Each leaves the clip as it was. */
START_TEST(retime_bounds_what_a_resample_makes)
{
    ak_clip *clip;
    ak_doc *doc = synthetic(&clip);
    ak_retime h = how();
    h.speed = 1e-5;
    h.fps = 1000;
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_E_LIMIT);
    h.speed = 1e-310; /* 1 / 1e-310 overflows */
    h.fps = 0;
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_E_USAGE);
    ck_assert(clip->duration == 1.0);
    ck_assert_uint_eq(clip->tracks[0]->channel[AK_ROTATION].count, 3);
    ck_assert(clip->tracks[0]->channel[AK_ROTATION].keys[2].time == 1.0);
    ak_doc_free(doc);

    doc = ak_doc_new();
    clip = ak_clip_add(doc, "long");
    clip->duration = 1000;
    for (int t = 0; t < 20; t++) {
        char name[16];
        snprintf(name, sizeof name, "b%d", t);
        ak_track *tr = ak_track_add(clip, name);
        ak_key_add(tr, AK_ROTATION)->v[3] = 1;
        ak_key_add(tr, AK_TRANSLATION);
    }
    h = how();
    h.fps = 1000; /* 10^6 keys a channel, within the first bound */
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_E_LIMIT);
    ck_assert_uint_eq(clip->tracks[19]->channel[AK_TRANSLATION].count, 1);
    h.fps = 1; /* 1001 keys a channel */
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_OK);
    ck_assert_uint_eq(clip->tracks[19]->channel[AK_TRANSLATION].count, 1001);
    ak_doc_free(doc);
}
END_TEST

START_TEST(retime_identity_changes_nothing)
{
    ak_clip *clip;
    ak_doc *doc = synthetic(&clip);
    ak_doc *before = ak_doc_clone(doc);
    ak_retime h = how();
    h.speed = 1;
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_OK);
    h.speed = 0;
    h.fps = 2; /* the keys' own rate */
    ck_assert_int_eq(ak_clip_retime(clip, &h), AK_OK);
    const ak_track *t = clip->tracks[0], *o = before->clips[0]->tracks[0];
    ck_assert(clip->duration == 1.0);
    ck_assert_uint_eq(t->channel[AK_ROTATION].count, 3);
    for (size_t k = 0; k < 3; k++) {
        ck_assert(!ak_key_changed(&t->channel[AK_ROTATION].keys[k]));
        ck_assert(!memcmp(&t->channel[AK_ROTATION].keys[k], &o->channel[AK_ROTATION].keys[k], offsetof(ak_key, raw)));
    }
    /* fps 2 puts keys at 0, 0.5 and 1 s: the translation gains the middle one. */
    ck_assert_uint_eq(t->channel[AK_TRANSLATION].count, 3);
    ck_assert(!ak_key_changed(&t->channel[AK_TRANSLATION].keys[0]));
    ck_assert(!ak_key_changed(&t->channel[AK_TRANSLATION].keys[2]));
    ak_doc_free(before);
    ak_doc_free(doc);
}
END_TEST

/* ---- diff ------------------------------------------------------------------------------------- */

START_TEST(diff_names_clip_bone_channel_key)
{
    ak_clip *clip;
    ak_doc *a = synthetic(&clip);
    ak_doc *b = ak_doc_clone(a);
    ak_diff *d = NULL;
    ck_assert_int_eq(ak_doc_diff(a, b, 0, &d), AK_OK);
    ck_assert_uint_eq(d->count, 0);
    ak_diff_free(d);

    ak_key *k = &b->clips[0]->tracks[0]->channel[AK_ROTATION].keys[1];
    k->v[2] += 0.01;
    ck_assert_int_eq(ak_doc_diff(a, b, 1e-6, &d), AK_OK);
    ck_assert_uint_eq(d->count, 1);
    const ak_diff_entry *e = &d->entries[0];
    ck_assert_int_eq(e->kind, AK_DIFF_KEYS);
    ck_assert_str_eq(e->clip, "turn");
    ck_assert_str_eq(e->bone, "Spine");
    ck_assert_int_eq(e->channel, AK_ROTATION);
    ck_assert_uint_eq(e->key, 1);
    ck_assert_int_eq(e->component, 2);
    ck_assert(fabs(e->max_diff - 0.01) < 1e-12);
    ak_diff_free(d);
    ck_assert_int_eq(ak_doc_diff(a, b, 0.02, &d), AK_OK); /* within tolerance */
    ck_assert_uint_eq(d->count, 0);
    ak_diff_free(d);

    /* A negated quaternion is the same rotation. */
    k->v[2] -= 0.01;
    for (int c = 0; c < 4; c++)
        k->v[c] = -k->v[c];
    ck_assert_int_eq(ak_doc_diff(a, b, 1e-12, &d), AK_OK);
    ck_assert_uint_eq(d->count, 0);
    ak_diff_free(d);

    ak_track_add(b->clips[0], "Tail");
    ak_clip_add(b, "extra");
    ak_clip_add(a, "gone");
    ck_assert_int_eq(ak_doc_diff(a, b, 0, &d), AK_OK);
    ck_assert_uint_eq(d->count, 3);
    ck_assert_int_eq(d->entries[0].kind, AK_DIFF_TRACK_ADDED);
    ck_assert_str_eq(d->entries[0].bone, "Tail");
    ck_assert_int_eq(d->entries[1].kind, AK_DIFF_CLIP_REMOVED);
    ck_assert_str_eq(d->entries[1].clip, "gone");
    ck_assert_int_eq(d->entries[2].kind, AK_DIFF_CLIP_ADDED);
    ck_assert_str_eq(d->entries[2].clip, "extra");
    ak_diff_free(d);
    ak_doc_free(b);
    ak_doc_free(a);
}
END_TEST

/* Every clip of every corpus IFP trimmed to its middle half, reversed,
 * played at 0.8 and resampled at 30 fps: the writer encodes it and the
 * file reads back with the durations computed here (to a 1/60 s tick). */
/* Tracks without bone names are paired by hash, else by id, else by
 * place, and named so in the entries: A's tracks hash 0x11, id 7 and hash
 * 0x22 against B's id 7, hash 0x11 and hash 0x33 (other order) leave 0x22
 * removed and 0x33 added. A NaN equals a NaN and is infinitely far from a
 * number. */
START_TEST(diff_pairs_and_names_unnamed_tracks)
{
    ak_doc *a = ak_doc_new(), *b = ak_doc_new();
    ak_clip *ca = ak_clip_add(a, "c"), *cb = ak_clip_add(b, "c");
    ca->duration = cb->duration = 1;
    static const struct { int hash; uint32_t num; } ta[] = { { 1, 0x11 }, { 0, 7 }, { 1, 0x22 } },
                                                   tb[] = { { 0, 7 }, { 1, 0x11 }, { 1, 0x33 } };
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < 3; i++) {
            ak_track *t = ak_track_add(side ? cb : ca, "");
            int hash = side ? tb[i].hash : ta[i].hash;
            uint32_t num = side ? tb[i].num : ta[i].num;
            if (hash) {
                t->has_bone_hash = 1;
                t->bone_hash = num;
            } else {
                t->has_bone_id = 1;
                t->bone_id = (int32_t)num;
            }
            ak_key *k = ak_key_add(t, AK_TRANSLATION);
            k->v[0] = hash ? 1.0 : NAN; /* the id-7 track holds a NaN on both sides */
        }
    ak_diff *d = NULL;
    ck_assert_int_eq(ak_doc_diff(a, b, 0, &d), AK_OK);
    ck_assert_uint_eq(d->count, 2);
    ck_assert_int_eq(d->entries[0].kind, AK_DIFF_TRACK_REMOVED);
    ck_assert_str_eq(d->entries[0].bone, "#0x00000022");
    ck_assert_int_eq(d->entries[1].kind, AK_DIFF_TRACK_ADDED);
    ck_assert_str_eq(d->entries[1].bone, "#0x00000033");
    ak_diff_free(d);
    /* The id-7 track's NaN against a number: one entry, infinitely far. */
    cb->tracks[0]->channel[AK_TRANSLATION].keys[0].v[0] = 2;
    ck_assert_int_eq(ak_doc_diff(a, b, 1e9, &d), AK_OK);
    ck_assert_uint_eq(d->count, 3);
    ck_assert_int_eq(d->entries[0].kind, AK_DIFF_KEYS);
    ck_assert_str_eq(d->entries[0].bone, "#7");
    ck_assert_int_eq(d->entries[0].component, 0);
    ck_assert(isinf(d->entries[0].max_diff));
    ak_diff_free(d);
    /* Neither name, hash nor id: paired by place, named by it. */
    ak_track *pa = ak_track_add(ca, ""), *pb = ak_track_add(cb, "");
    ak_key_add(pa, AK_ROTATION)->v[3] = 1;
    ak_key_add(pb, AK_ROTATION)->v[3] = 1;
    ak_key_add(pb, AK_ROTATION)->v[3] = 1;
    ck_assert_int_eq(ak_doc_diff(a, b, 1e9, &d), AK_OK);
    ck_assert_uint_eq(d->count, 4);
    ck_assert_int_eq(d->entries[2].kind, AK_DIFF_KEY_COUNT);
    ck_assert_str_eq(d->entries[2].bone, "(track 3)");
    ak_diff_free(d);
    ak_doc_free(b);
    ak_doc_free(a);
}
END_TEST

START_TEST(retime_every_corpus_clip)
{
    static const char *const files[] = { "ifp/vice.ifp", "ifp/ped_cretaceous.ifp", "ifp/covers.ifp",
                                         "ifp/camera.ifp", "ifp/weapc.ifp", NULL };
    for (int f = 0; files[f]; f++) {
        size_t n;
        unsigned char *b;
        ak_doc *doc = corpus_doc(files[f], &b, &n);
        if (!doc)
            return;
        double *want = calloc(doc->clip_count + 1, sizeof *want);
        for (size_t i = 0; i < doc->clip_count; i++) {
            ak_clip *clip = doc->clips[i];
            ak_retime h = how();
            h.trim = clip->duration > 0;
            h.t0 = clip->duration / 4;
            h.t1 = clip->duration * 3 / 4;
            h.reverse = 1;
            h.speed = 0.8;
            h.fps = 30;
            ck_assert_int_eq(ak_clip_retime(clip, &h), AK_OK);
            want[i] = clip->duration;
            double d = h.trim ? (h.t1 - h.t0) / 0.8 : 0;
            ck_assert_msg(fabs(clip->duration - d) < 1e-9, "%s %s: duration %g, want %g", files[f], clip->name,
                          clip->duration, d);
        }
        size_t on;
        unsigned char *out = ak_test_write(reg, doc, "ifp", &on);
        ak_doc *back = ak_test_read(reg, out, on, files[f]);
        ck_assert_uint_eq(back->clip_count, doc->clip_count);
        for (size_t i = 0; i < back->clip_count; i++) {
            /* The last resampled key lies at the duration. */
            ck_assert_msg(fabs(back->clips[i]->duration - want[i]) <= 0.5 / 60 + 1e-6, "%s %s: %g read back, want %g",
                          files[f], back->clips[i]->name, back->clips[i]->duration, want[i]);
        }
        ak_doc_free(back);
        free(out);
        free(want);
        ak_doc_free(doc);
        free(b);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("edit");
    TCase *tc = tcase_create("edit");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, replace_walk_civi_keeps_other_clips_bytes);
    tcase_add_test(tc, replace_appends_a_new_name_and_other_variant_is_reencoded);
    tcase_add_test(tc, split_then_merge_then_split_is_byte_identical);
    tcase_add_test(tc, rename_and_remove_keep_other_clips_bytes);
    tcase_add_test(tc, rename_bones_then_ids_from_skeleton);
    tcase_add_test(tc, retime_speed);
    tcase_add_test(tc, retime_resample);
    tcase_add_test(tc, retime_trim_and_reverse);
    tcase_add_test(tc, retime_reverse_visibility_steps_and_events);
    tcase_add_test(tc, retime_bounds_what_a_resample_makes);
    tcase_add_test(tc, retime_identity_changes_nothing);
    tcase_add_test(tc, diff_names_clip_bone_channel_key);
    tcase_add_test(tc, diff_pairs_and_names_unnamed_tracks);
    tcase_add_test(tc, retime_every_corpus_clip);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
