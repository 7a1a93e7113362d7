/* read_s.c - family S (.mab of Far Cry 2, 3 and Blood Dragon): constant
 * and keyed 48-bit quaternions in groups of eight frames with presence
 * bytes (fact sheet 9). */
#include "mab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S_SECTIONS 9
#define S_MASK_BITS 160

typedef struct slayout {
    int fc2;
    size_t data_start;          /* end of the fixed header */
    size_t off[S_SECTIONS];     /* absolute, 0 = unused */
    size_t end_of_data;
} slayout;

static size_t s_span_end(const mab_ctx *c, const slayout *L, size_t off)
{
    size_t end = c->size;
    for (size_t i = 0; i < S_SECTIONS; i++)
        if (L->off[i] > off && L->off[i] < end)
            end = L->off[i];
    return end;
}

static int mask_bit(const unsigned char *mask, unsigned bit)
{
    return (mask[bit >> 3] >> (bit & 7)) & 1;
}

/* The tracks of one kind of data, in slot order. */
typedef struct slots {
    size_t count;
    ak_track **track;
} slots;

/* Reads keyed rotations from a group table (sheet 9.1, 9.2). `group_end[g]`
 * bounds group g. Frames past `last_frame` are an error. */
static ak_status keyed_groups(mab_ctx *c, size_t sec, const size_t *starts, const size_t *ends, size_t groups,
                              const slots *tr, unsigned last_frame, double fps)
{
    size_t n = tr->count;
    for (size_t g = 0; g < groups; g++) {
        ak_reader r;
        ak_reader_init(&r, c->job, c->bytes, ends[g]);
        r.pos = starts[g];
        if (!ak_need_array(&r, n, 6, "first-frame quaternions of a group"))
            return AK_E_DATA;
        unsigned frame0 = (unsigned)(8 * g);
        if (frame0 > last_frame)
            return ak_fail(c->job, AK_E_DATA, (int64_t)starts[g], "group %zu starts at frame %u, past lastFrame %u",
                           g, frame0, last_frame);
        for (size_t t = 0; t < n; t++) {
            const unsigned char *q = ak_bytes(&r, 6, "quaternion");
            ak_key *k = ak_key_add(tr->track[t], AK_ROTATION);
            if (!k)
                return mab_oom(c);
            k->tick = frame0;
            k->time = frame0 / fps;
            mab_quat48(q, 1, k->v);
            if (ak_key_set_raw(tr->track[t], k, q, 6) != AK_OK)
                return mab_oom(c);
        }
        const unsigned char *presence = ak_bytes(&r, n, "presence bytes");
        if (!presence || !ak_skip(&r, n & 1, "presence padding"))
            return AK_E_DATA;
        for (size_t t = 0; t < n; t++) {
            unsigned p = presence[t] & 0x7Fu;
            for (unsigned i = 0; i < 7; i++) {
                if (!((p >> i) & 1u))
                    continue;
                unsigned frame = frame0 + i + 1;
                if (frame > last_frame)
                    return ak_fail(c->job, AK_E_DATA, (int64_t)(presence - c->bytes + t),
                                   "presence byte of track %zu in group %zu sets frame %u, past lastFrame %u", t, g,
                                   frame, last_frame);
                const unsigned char *q = ak_bytes(&r, 6, "quaternion");
                if (!q)
                    return AK_E_DATA;
                ak_key *k = ak_key_add(tr->track[t], AK_ROTATION);
                if (!k)
                    return mab_oom(c);
                k->tick = frame;
                k->time = frame / fps;
                mab_quat48(q, 1, k->v);
                if (ak_key_set_raw(tr->track[t], k, q, 6) != AK_OK)
                    return mab_oom(c);
            }
        }
        if (r.failed)
            return AK_E_DATA;
        (void)sec;
    }
    return AK_OK;
}

/* Group starts from i32 offsets relative to the section; each group ends
 * where the next starts (the last at `last_end`). */
static ak_status group_table(mab_ctx *c, size_t sec, size_t table, size_t groups, size_t entries, size_t last_end,
                             size_t **starts, size_t **ends)
{
    ak_reader r;
    ak_reader_init(&r, c->job, c->bytes, last_end);
    r.pos = table;
    if (!ak_need_array(&r, groups, 4, "group offsets"))
        return AK_E_DATA;
    *starts = ak_job_alloc(c->job, groups, sizeof **starts);
    *ends = ak_job_alloc(c->job, groups, sizeof **ends);
    if (!*starts || !*ends)
        return mab_oom(c);
    size_t table_end = table + 4 * entries;
    for (size_t g = 0; g < groups; g++) {
        int32_t v = ak_i32(&r);
        uint64_t abs = (uint64_t)sec + (uint64_t)(int64_t)v;
        if (v < 0 || abs < table_end || abs > last_end || (g && abs < (*starts)[g - 1]))
            return ak_fail(c->job, AK_E_DATA, (int64_t)(table + 4 * g),
                           "group %zu offset %d is out of order or outside its section (%zu..%zu)", g, v,
                           table_end - sec, last_end - sec);
        (*starts)[g] = (size_t)abs;
    }
    for (size_t g = 0; g < groups; g++)
        (*ends)[g] = g + 1 < groups ? (*starts)[g + 1] : last_end;
    return AK_OK;
}

static ak_status add_const_rotations(mab_ctx *c, size_t at, size_t count, size_t end, const slots *tr)
{
    ak_reader r;
    ak_reader_init(&r, c->job, c->bytes, end);
    r.pos = at;
    if (!ak_need_array(&r, count, 6, "constant rotations"))
        return AK_E_DATA;
    for (size_t i = 0; i < count; i++) {
        const unsigned char *q = ak_bytes(&r, 6, "quaternion");
        ak_key *k = ak_key_add(tr->track[i], AK_ROTATION);
        if (!k)
            return mab_oom(c);
        mab_quat48(q, 1, k->v);
        if (ak_key_set_raw(tr->track[i], k, q, 6) != AK_OK)
            return mab_oom(c);
    }
    return AK_OK;
}

static ak_status keep_raw(mab_ctx *c, const slayout *L, const int *modelled)
{
    ak_props *p = &c->doc->props;
    size_t first = c->size;
    for (size_t i = 0; i < S_SECTIONS; i++)
        if (L->off[i] && L->off[i] < first)
            first = L->off[i];
    if (!mab_prop_bytes(c, p, "header", 0, first))
        return AK_E_NOMEM;
    for (size_t i = 0; i < S_SECTIONS; i++) {
        if (!L->off[i] || modelled[i])
            continue;
        int owner = 1;
        for (size_t j = i + 1; j < S_SECTIONS; j++)
            owner &= L->off[j] != L->off[i];
        if (!owner)
            continue;
        char key[32];
        snprintf(key, sizeof key, "section.%zu", i);
        if (!mab_prop_bytes(c, p, key, L->off[i], s_span_end(c, L, L->off[i]) - L->off[i]))
            return AK_E_NOMEM;
    }
    return AK_OK;
}

static ak_status make_slots(mab_ctx *c, slots *s, size_t count)
{
    s->count = count;
    s->track = ak_job_alloc(c->job, count, sizeof *s->track);
    return s->track ? AK_OK : mab_oom(c);
}

/* ---- Far Cry 2 (sheet 9.1) --------------------------------------------- */

static ak_status read_fc2(mab_ctx *c)
{
    const size_t C = 0x10;
    slayout L;
    memset(&L, 0, sizeof L);
    L.fc2 = 1;
    if (c->size < C + 0xA0)
        return ak_fail(c->job, AK_E_DATA, (int64_t)c->size, "truncated FC2 header: %zu bytes needed, %zu present",
                       C + 0xA0, c->size);
    const unsigned char *b = c->bytes;
    if (memcmp(b + C + 0x70, "AnD\x1A", 4) != 0)
        return ak_fail(c->job, AK_E_DATA, (int64_t)C + 0x70, "no 'AnD\\x1A' tag at 0x80 where FC2 puts it");
    float duration = ak_bits_f32(ak_load_u32(b + C + 0x74));
    c->clip->duration = duration;
    for (size_t i = 0; i < S_SECTIONS; i++) {
        int32_t v = (int32_t)ak_load_u32(b + C + 0x78 + 4 * i);
        if (v == 0)
            continue;
        if (v < 0xA0 || (uint64_t)v + C > c->size)
            return ak_fail(c->job, AK_E_DATA, (int64_t)(C + 0x78 + 4 * i),
                           "offset of section %zu is %d, outside the data (0xA0..%zu)", i, v, c->size - C);
        L.off[i] = (size_t)v + C;
    }
    if (ak_doc_set_format(c->doc, "mab", "FC2") != AK_OK)
        return mab_oom(c);
    const unsigned char *masks = b + C;
    ak_props *p = &c->doc->props;
    if (!mab_prop_bytes(c, p, "masks", C, 0x50) || !mab_prop_bytes(c, p, "trajectory_reference", C + 0x50, 16) ||
        !mab_prop_bytes(c, p, "loop_rotation", C + 0x60, 16))
        return AK_E_NOMEM;

    /* One track per bone id named in any mask. */
    ak_track *by_id[S_MASK_BITS] = { 0 };
    slots sl[4] = { { 0, NULL } };
    ak_status st = AK_OK;
    for (unsigned id = 0; id < S_MASK_BITS; id++) {
        int any = 0;
        for (int m = 0; m < 4; m++)
            any |= mask_bit(masks + 20 * m, id);
        if (!any)
            continue;
        ak_track *t = ak_track_add(c->clip, "");
        if (!t)
            return mab_oom(c);
        t->bone_id = (int32_t)id;
        t->has_bone_id = 1;
        by_id[id] = t;
    }
    for (int m = 0; m < 4 && st == AK_OK; m++) {
        size_t n = 0;
        for (unsigned id = 0; id < S_MASK_BITS; id++)
            n += (size_t)mask_bit(masks + 20 * m, id);
        st = make_slots(c, &sl[m], n);
        n = 0;
        for (unsigned id = 0; id < S_MASK_BITS && st == AK_OK; id++)
            if (mask_bit(masks + 20 * m, id))
                sl[m].track[n++] = by_id[id];
    }
    static const char *mask_names[4] = { "constant rotations", "keyed rotations", "constant translations",
                                         "animated translations" };
    int modelled[S_SECTIONS] = { 0 };
    double fps = 0.0;
    size_t *starts = NULL, *ends = NULL;
    for (int m = 0; m < 4 && st == AK_OK; m++) {
        size_t sec = L.off[2 + m];
        if (!sl[m].count)
            continue;
        if (!sec) {
            st = ak_fail(c->job, AK_E_DATA, (int64_t)(C + 0x78 + 4 * (2 + m)),
                         "the mask names %zu %s but section %d is absent", sl[m].count, mask_names[m], 2 + m);
            break;
        }
        size_t end = s_span_end(c, &L, sec);
        if (end - sec < 8) {
            st = ak_fail(c->job, AK_E_DATA, (int64_t)sec, "section %d (%s) is shorter than its header", 2 + m,
                         mask_names[m]);
            break;
        }
        unsigned count = ak_load_u16(b + sec), lf = ak_load_u16(b + sec + 2), f = ak_load_u16(b + sec + 4);
        if (count != sl[m].count) {
            st = ak_fail(c->job, AK_E_DATA, (int64_t)sec, "section %d counts %u %s, the mask names %zu", 2 + m,
                         count, mask_names[m], sl[m].count);
            break;
        }
        if ((m == 1 || m == 3) && f == 0) {
            st = ak_fail(c->job, AK_E_DATA, (int64_t)sec + 4, "section %d stores a frame rate of 0", 2 + m);
            break;
        }
        char key[32];
        snprintf(key, sizeof key, "section.%d.header", 2 + m);
        if (!mab_prop_bytes(c, p, key, sec, 8)) {
            st = AK_E_NOMEM;
            break;
        }
        if (m == 0) {
            st = add_const_rotations(c, sec + 8, count, end, &sl[0]);
            modelled[2] = end - sec == 8 + 6 * (size_t)count;
        } else if (m == 1) {
            fps = f;
            size_t groups = ((size_t)lf >> 3) + 1;
            /* Sheet 11.15: no end entry; the last group ends with the section. */
            st = group_table(c, sec, sec + 8, groups, groups, end, &starts, &ends);
            if (st == AK_OK)
                st = keyed_groups(c, sec, starts, ends, groups, &sl[1], lf, fps);
        } else if (m == 2) {
            ak_reader r;
            ak_reader_init(&r, c->job, b, end);
            r.pos = sec + 8;
            if (!ak_need_array(&r, count, 12, "constant translations")) {
                st = AK_E_DATA;
                break;
            }
            for (size_t i = 0; i < count && st == AK_OK; i++) {
                const unsigned char *v = ak_bytes(&r, 12, "translation");
                ak_key *k = ak_key_add(sl[2].track[i], AK_TRANSLATION);
                if (!k) {
                    st = mab_oom(c);
                    break;
                }
                for (int j = 0; j < 3; j++)
                    k->v[j] = ak_bits_f32(ak_load_u32(v + 4 * j));
                if (ak_key_set_raw(sl[2].track[i], k, v, 12) != AK_OK)
                    st = mab_oom(c);
            }
            modelled[4] = end - sec == 8 + 12 * (size_t)count;
        } else {
            ak_reader r;
            ak_reader_init(&r, c->job, b, end);
            r.pos = sec + 8;
            uint64_t frames = (uint64_t)lf + 1;
            if (!ak_need_array(&r, frames * count, 12, "animated translations")) {
                st = AK_E_DATA;
                break;
            }
            for (size_t i = 0; i < count && st == AK_OK; i++)
                if (ak_channel_reserve(sl[3].track[i], AK_TRANSLATION, (size_t)frames) != AK_OK)
                    st = mab_oom(c);
            for (uint64_t fr = 0; fr < frames && st == AK_OK; fr++)
                for (size_t i = 0; i < count && st == AK_OK; i++) {
                    const unsigned char *v = ak_bytes(&r, 12, "translation");
                    ak_key *k = ak_key_add(sl[3].track[i], AK_TRANSLATION);
                    if (!k) {
                        st = mab_oom(c);
                        break;
                    }
                    k->tick = (int64_t)fr;
                    k->time = (double)fr / f;
                    for (int j = 0; j < 3; j++)
                        k->v[j] = ak_bits_f32(ak_load_u32(v + 4 * j));
                    if (ak_key_set_raw(sl[3].track[i], k, v, 12) != AK_OK)
                        st = mab_oom(c);
                }
            if (fps == 0.0)
                fps = f;
        }
    }
    ak_job_free(c->job, starts);
    ak_job_free(c->job, ends);
    for (int m = 0; m < 4; m++)
        ak_job_free(c->job, sl[m].track);
    if (st != AK_OK)
        return st;
    c->clip->tick_rate = fps;
    c->clip->frame_rate = fps;
    if (L.off[7])
        ak_warn(c->job, (int64_t)L.off[7], "the events section is not decoded; kept as raw bytes");
    if (L.off[6])
        ak_warn(c->job, (int64_t)L.off[6], "the tag table (chained clips) is not decoded; kept as raw bytes");
    if (L.off[8] && L.off[8] < c->size)
        ak_warn(c->job, (int64_t)L.off[8], "%zu bytes after the clip (a chained clip?) are kept as raw bytes",
                c->size - L.off[8]);
    return keep_raw(c, &L, modelled);
}

/* ---- Far Cry 3 / Blood Dragon (sheet 9.2) ------------------------------ */

static ak_status read_fc3(mab_ctx *c, unsigned version)
{
    slayout L;
    memset(&L, 0, sizeof L);
    if (c->size < 0xEC)
        return ak_fail(c->job, AK_E_DATA, (int64_t)c->size, "truncated FC3 header: 236 bytes needed, %zu present",
                       c->size);
    const unsigned char *b = c->bytes;
    float duration = ak_bits_f32(ak_load_u32(b + 0xC4));
    if (!isfinite(duration) || duration < 0.0f)
        return ak_fail(c->job, AK_E_DATA, 0xC4, "duration %g is not usable", (double)duration);
    c->clip->duration = duration;
    for (size_t i = 0; i < S_SECTIONS; i++) {
        int32_t v = (int32_t)ak_load_u32(b + 0xC8 + 4 * i);
        if (v == 0)
            continue;
        if (v < 0xDC || (uint64_t)v + 0x10 > c->size)
            return ak_fail(c->job, AK_E_DATA, (int64_t)(0xC8 + 4 * i),
                           "offset of section %zu is %d, outside the data (0xDC..%zu)", i, v, c->size - 0x10);
        L.off[i] = (size_t)v + 0x10;
    }
    if (ak_doc_set_format(c->doc, "mab", version == MAB_V_FC3 ? "FC3" : "FC3BD") != AK_OK)
        return mab_oom(c);
    int modelled[S_SECTIONS] = { 0 };
    ak_status st = AK_OK;
    slots cs = { 0, NULL }, ks = { 0, NULL };
    size_t *starts = NULL, *ends = NULL;
    /* Bones are not identified (the header bytes that may hold masks are
     * undecoded): one track per slot, constant ones first. */
    if (L.off[2]) {
        size_t sec = L.off[2], end = s_span_end(c, &L, sec);
        if (end - sec < 8)
            return ak_fail(c->job, AK_E_DATA, (int64_t)sec, "constant-rotation section shorter than its header");
        int32_t count = (int32_t)ak_load_u32(b + sec);
        if (count < 0 || (size_t)count > (end - sec - 8) / 6)
            return ak_fail(c->job, AK_E_DATA, (int64_t)sec,
                           "count of constant rotations is %d, but %zu bytes follow", count, end - sec - 8);
        st = make_slots(c, &cs, (size_t)count);
        for (size_t i = 0; i < cs.count && st == AK_OK; i++) {
            ak_track *t = ak_track_add(c->clip, "");
            if (!t || !mab_prop_string(c, &t->props, "section", "constant") ||
                !mab_prop_int(c, &t->props, "slot", (int64_t)i))
                st = mab_oom(c);
            cs.track[i] = t;
        }
        if (st == AK_OK && (!mab_prop_bytes(c, &c->doc->props, "section.2.header", sec, 8)))
            st = AK_E_NOMEM;
        if (st == AK_OK)
            st = add_const_rotations(c, sec + 8, cs.count, end, &cs);
        modelled[2] = end - sec == 8 + 6 * cs.count;
    }
    if (st == AK_OK && L.off[3]) {
        size_t sec = L.off[3], end = s_span_end(c, &L, sec);
        if (end - sec < 8) {
            st = ak_fail(c->job, AK_E_DATA, (int64_t)sec, "keyed-rotation section shorter than its header");
            goto done;
        }
        unsigned tracks = ak_load_u16(b + sec);
        float fps = ak_bits_f32(ak_load_u32(b + sec + 4));
        float frames = fps * duration;
        if (!isfinite(fps) || fps <= 0.0f || !isfinite(frames) || frames >= 65536.0f) {
            st = ak_fail(c->job, AK_E_DATA, (int64_t)sec + 4, "frame rate %g with duration %g is not usable",
                         (double)fps, (double)duration);
            goto done;
        }
        unsigned last_frame = (unsigned)floorf(frames);
        size_t groups = ((size_t)last_frame >> 3) + 1;
        ak_reader r;
        ak_reader_init(&r, c->job, b, end);
        r.pos = sec + 8;
        if (!ak_need_array(&r, groups + 1, 4, "group offsets")) {
            st = AK_E_DATA;
            goto done;
        }
        int32_t used = (int32_t)ak_load_u32(b + sec + 8 + 4 * groups);
        if (used < 0 || (size_t)used > end - sec || (size_t)used < 8 + 4 * (groups + 1)) {
            st = ak_fail(c->job, AK_E_DATA, (int64_t)(sec + 8 + 4 * groups),
                         "final group entry %d is outside the section (%zu bytes)", used, end - sec);
            goto done;
        }
        /* every track stores at least its frame-0 quaternion */
        r.pos = sec + 8 + 4 * (groups + 1);
        if (!ak_need_array(&r, tracks, 6, "keyed rotation tracks")) {
            st = AK_E_DATA;
            goto done;
        }
        c->clip->tick_rate = fps;
        c->clip->frame_rate = fps;
        st = make_slots(c, &ks, tracks);
        for (size_t i = 0; i < ks.count && st == AK_OK; i++) {
            ak_track *t = ak_track_add(c->clip, "");
            if (!t || !mab_prop_string(c, &t->props, "section", "keyed") ||
                !mab_prop_int(c, &t->props, "slot", (int64_t)i))
                st = mab_oom(c);
            ks.track[i] = t;
        }
        if (st == AK_OK && !mab_prop_int(c, &c->doc->props, "last_frame", last_frame))
            st = AK_E_NOMEM;
        if (st == AK_OK)
            st = group_table(c, sec, sec + 8, groups, groups + 1, sec + (size_t)used, &starts, &ends);
        if (st == AK_OK)
            st = keyed_groups(c, sec, starts, ends, groups, &ks, last_frame, fps);
    }
    for (size_t i = 4; i < 8 && st == AK_OK; i++)
        if (L.off[i])
            ak_warn(c->job, (int64_t)L.off[i], "FC3 section %zu is not decoded; kept as raw bytes", i);
    if (st == AK_OK)
        st = keep_raw(c, &L, modelled);
done:
    ak_job_free(c->job, starts);
    ak_job_free(c->job, ends);
    ak_job_free(c->job, cs.track);
    ak_job_free(c->job, ks.track);
    return st;
}

ak_status mab_read_family_s(mab_ctx *c, unsigned version)
{
    return version == MAB_V_FC2 ? read_fc2(c) : read_fc3(c, version);
}
