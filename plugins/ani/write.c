/* write.c - encoding a document as .ani.
 *
 * A document this plugin read ("native") is written back from what it
 * stored: string bytes, weight and event-time float bits, the total time,
 * the rotation words of every key that ak_key_changed() calls untouched
 * (re-encoding 4001/4002 words is not stable, fact sheet §9), position
 * bytes and trailing bytes. Everything else is encoded from the model
 * values with the engine's rules (quat.c).
 *
 * ANI stores rotation, position and time together in one key. When the
 * two channels of a track do not pair up key by key, their key times are
 * merged (union) and the channel missing at a time is interpolated (slerp
 * for rotations, lerp for positions), with a warning. */
#include "ani.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ani_wr {
    ak_job *job;
    const ak_doc *doc;
    ak_sink *out;
    int version;   /* the version being written */
    int native;    /* the document was read by this plugin */
    int reuse_rot; /* native and written in its stored version */
    size_t interp_rot, interp_pos, interp_tracks;
    size_t no_pos_tracks, no_rot_tracks, nonfinite;
    size_t rounded; /* key times that were not whole milliseconds */
} ani_wr;

static int64_t at(const ani_wr *wr) { return (int64_t)ak_sink_size(wr->out); }

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static ak_status put_string(ani_wr *wr, const char *what, const void *bytes, size_t len)
{
    if (len > ANI_MAX_STRING)
        return ak_fail(wr->job, AK_E_DATA, at(wr),
                       "%s \"%.40s...\" is %zu bytes long; the engine reads strings into a 260-byte "
                       "buffer, so at most %d bytes can be written",
                       what, (const char *)bytes, len, ANI_MAX_STRING);
    ak_put_i32(wr->out, (int32_t)len);
    ak_put(wr->out, bytes, len);
    return AK_OK;
}

/* The model string, or the stored bytes (with a NUL inside) when the model
 * still holds the part before that NUL. */
static ak_status put_model_string(ani_wr *wr, const char *what, const char *s, const ak_props *props,
                                  const char *key)
{
    const ak_prop *p = wr->native ? ak_prop_get(props, key) : NULL;
    if (p && p->type == AK_PROP_BYTES && strlen((const char *)p->data) == strlen(s) &&
        strcmp((const char *)p->data, s) == 0)
        return put_string(wr, what, p->data, p->size);
    return put_string(wr, what, s, strlen(s));
}

/* A float stored as bits in `key`, if it still gives `value` when read
 * back the way read.c does (value = f / scale); else (float)(value*scale). */
static uint32_t float_bits(const ani_wr *wr, const ak_props *props, const char *key, double value,
                           double scale)
{
    const ak_prop *p = wr->native ? ak_prop_get(props, key) : NULL;
    if (p && p->type == AK_PROP_INT && p->i >= 0 && p->i <= UINT32_MAX) {
        uint32_t bits = (uint32_t)p->i;
        double back = (double)ak_bits_f32(bits);
        if (scale != 1.0)
            back /= scale;
        if (same_double(back, value))
            return bits;
    }
    return ak_f32_bits((float)(value * scale));
}

/* Milliseconds from seconds; 0 and an error when out of the int32 range. */
static int ms_from_seconds(ani_wr *wr, double seconds, const char *what, int32_t *ms)
{
    double v = seconds * 1000.0;
    if (!(v > -2147483648.5 && v < 2147483647.5)) {
        ak_fail(wr->job, AK_E_DATA, at(wr),
                "%s %g s does not fit the format's int32 milliseconds", what, seconds);
        return 0;
    }
    *ms = (int32_t)llround(v);
    return 1;
}

static int key_untouched(const ani_wr *wr, const ak_key *k)
{
    return wr->native && !ak_key_changed(k);
}

/* The stored time of a key: its tick when untouched, else its time. */
static int key_ms(ani_wr *wr, const ak_key *k, int32_t *ms)
{
    if (key_untouched(wr, k) && k->tick >= INT32_MIN && k->tick <= INT32_MAX) {
        *ms = (int32_t)k->tick;
        return 1;
    }
    return ms_from_seconds(wr, k->time, "key time", ms);
}

/* Counts a written key whose time is not a whole number of ms. */
static void note_rounding(ani_wr *wr, const ak_key *k, int32_t ms)
{
    if (!key_untouched(wr, k) && fabs(k->time * 1000.0 - (double)ms) > 1e-6)
        wr->rounded++;
}

/* Whether stored rotation bytes decode to exactly `v` (a key whose time
 * alone was edited keeps its words). */
static int raw_rotation_is(int version, const unsigned char *raw, const double v[4])
{
    float q[4];
    if (version == ANI_V_FLOAT)
        for (int c = 0; c < 4; c++)
            q[c] = ak_bits_f32(ak_load_u32(raw + 4 * c));
    else if (version == ANI_V_SMALL3)
        ani_decode_4001(ak_load_u32(raw), q);
    else
        ani_decode_4002(ak_load_u32(raw), ak_load_u32(raw + 4), q);
    for (int c = 0; c < 4; c++)
        if (!same_double((double)q[c], v[c]))
            return 0;
    return 1;
}

static void put_rotation(ani_wr *wr, const ak_key *k, const double v[4])
{
    size_t size = ani_rotation_size(wr->version);
    if (k && wr->reuse_rot && k->raw_size == size &&
        (!ak_key_changed(k) || raw_rotation_is(wr->version, k->raw, v))) {
        ak_put(wr->out, k->raw, size);
        return;
    }
    float q[4];
    for (int c = 0; c < 4; c++)
        q[c] = (float)v[c];
    if (wr->version == ANI_V_FLOAT) {
        /* Floats are stored as they are, without normalizing (§6). */
        for (int c = 0; c < 4; c++)
            ak_put_f32(wr->out, q[c]);
        return;
    }
    int finite = 1;
    for (int c = 0; c < 4; c++)
        finite &= isfinite(q[c]) != 0;
    if (!finite) {
        wr->nonfinite++;
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
    }
    if (wr->version == ANI_V_SMALL3) {
        ak_put_u32(wr->out, ani_encode_4001(q));
    } else {
        uint32_t w1, w2;
        ani_encode_4002(q, &w1, &w2);
        ak_put_u32(wr->out, w1);
        ak_put_u32(wr->out, w2);
    }
}

static void put_position(ani_wr *wr, const ak_key *k, const double v[3])
{
    if (k && wr->native && k->raw_size == 12) {
        /* Untouched, or only its time was edited: the stored bytes. */
        int same = 1;
        for (int c = 0; c < 3; c++)
            same &= same_double((double)ak_bits_f32(ak_load_u32(k->raw + 4 * c)), v[c]);
        same |= !ak_key_changed(k);
        if (same) {
            ak_put(wr->out, k->raw, 12);
            return;
        }
    }
    for (int c = 0; c < 3; c++)
        ak_put_f32(wr->out, (float)v[c]);
}

static const double identity[4] = { 0.0, 0.0, 0.0, 1.0 };
static const double origin[4] = { 0.0, 0.0, 0.0, 0.0 };

/* ---- merging the two channels of a track ---- */

typedef struct chan_view {
    const ak_channel *ch;
    int32_t *ms;   /* per key */
    size_t *order; /* key indices sorted by ms, then index */
    size_t n;
} chan_view;

typedef struct sort_item {
    int32_t ms;
    size_t index;
} sort_item;

static int cmp_item(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    if (x->ms != y->ms)
        return x->ms < y->ms ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void view_free(ani_wr *wr, chan_view *v)
{
    ak_job_free(wr->job, v->ms);
    ak_job_free(wr->job, v->order);
}

static ak_status view_init(ani_wr *wr, const ak_channel *ch, chan_view *v)
{
    memset(v, 0, sizeof *v);
    v->ch = ch;
    v->n = ch->count;
    if (!v->n)
        return AK_OK;
    v->ms = ak_job_alloc(wr->job, v->n, sizeof *v->ms);
    v->order = ak_job_alloc(wr->job, v->n, sizeof *v->order);
    sort_item *items = ak_job_alloc(wr->job, v->n, sizeof *items);
    if (!v->ms || !v->order || !items) {
        ak_job_free(wr->job, items);
        return ak_fail(wr->job, AK_E_NOMEM, at(wr), "out of memory");
    }
    for (size_t i = 0; i < v->n; i++) {
        if (!key_ms(wr, &ch->keys[i], &v->ms[i])) {
            ak_job_free(wr->job, items);
            return AK_E_DATA;
        }
        note_rounding(wr, &ch->keys[i], v->ms[i]);
        items[i].ms = v->ms[i];
        items[i].index = i;
    }
    qsort(items, v->n, sizeof *items, cmp_item);
    for (size_t i = 0; i < v->n; i++)
        v->order[i] = items[i].index;
    ak_job_free(wr->job, items);
    return AK_OK;
}

/* The value of a channel at `ms`, which none of its keys has: held before
 * the first and after the last key, interpolated in between. */
static void sample(const chan_view *v, size_t next, int32_t ms, int rotation, double out[4])
{
    if (next == 0 || next >= v->n) {
        const ak_key *k = &v->ch->keys[v->order[next == 0 ? 0 : v->n - 1]];
        memcpy(out, k->v, sizeof k->v);
        return;
    }
    size_t ia = v->order[next - 1], ib = v->order[next];
    const ak_key *a = &v->ch->keys[ia], *b = &v->ch->keys[ib];
    double u = ((double)ms - (double)v->ms[ia]) / ((double)v->ms[ib] - (double)v->ms[ia]);
    if (rotation) {
        ak_quat_slerp(a->v, b->v, u, out);
    } else {
        for (int c = 0; c < 4; c++)
            out[c] = a->v[c] + (b->v[c] - a->v[c]) * u;
    }
}

/* Keys of the two channels at the same ms pair up in order; a time that
 * only one channel has gets an interpolated value of the other. */
static ak_status write_merged(ani_wr *wr, const ak_track *t, size_t count_at)
{
    chan_view rv, pv;
    memset(&pv, 0, sizeof pv); /* freed below even when rv fails first */
    ak_status st = view_init(wr, &t->channel[AK_ROTATION], &rv);
    if (st == AK_OK)
        st = view_init(wr, &t->channel[AK_TRANSLATION], &pv);
    if (st != AK_OK) {
        view_free(wr, &rv);
        view_free(wr, &pv);
        return st;
    }
    size_t i = 0, j = 0, keys = 0, interp = 0;
    while (i < rv.n || j < pv.n) {
        int32_t ms;
        if (i < rv.n && j < pv.n)
            ms = rv.ms[rv.order[i]] < pv.ms[pv.order[j]] ? rv.ms[rv.order[i]] : pv.ms[pv.order[j]];
        else
            ms = i < rv.n ? rv.ms[rv.order[i]] : pv.ms[pv.order[j]];
        size_t a = 0, b = 0;
        while (i + a < rv.n && rv.ms[rv.order[i + a]] == ms)
            a++;
        while (j + b < pv.n && pv.ms[pv.order[j + b]] == ms)
            b++;
        size_t n = a > b ? a : b;
        for (size_t k = 0; k < n; k++) {
            double rot[4], pos[4];
            const ak_key *rk = NULL, *pk = NULL;
            if (a) {
                rk = &rv.ch->keys[rv.order[i + (k < a ? k : a - 1)]];
                memcpy(rot, rk->v, sizeof rot);
            } else if (rv.n) {
                sample(&rv, i, ms, 1, rot);
                wr->interp_rot++;
                interp++;
            } else {
                memcpy(rot, identity, sizeof rot);
            }
            if (b) {
                pk = &pv.ch->keys[pv.order[j + (k < b ? k : b - 1)]];
                memcpy(pos, pk->v, sizeof pos);
            } else if (pv.n) {
                sample(&pv, j, ms, 0, pos);
                wr->interp_pos++;
                interp++;
            } else {
                memcpy(pos, origin, sizeof pos);
            }
            put_rotation(wr, rk, rot);
            put_position(wr, pk, pos);
            ak_put_i32(wr->out, ms);
            keys++;
        }
        i += a;
        j += b;
    }
    view_free(wr, &rv);
    view_free(wr, &pv);
    if (keys > INT32_MAX)
        return ak_fail(wr->job, AK_E_DATA, at(wr), "track \"%s\" has too many keys (%zu)", t->bone, keys);
    ak_sink_patch_u32(wr->out, count_at, (uint32_t)keys);
    if (interp)
        wr->interp_tracks++;
    return AK_OK;
}

/* Whether the channels pair up index by index with equal times. */
static int channels_pair(ani_wr *wr, const ak_track *t, int *ok)
{
    const ak_channel *r = &t->channel[AK_ROTATION], *p = &t->channel[AK_TRANSLATION];
    *ok = 1;
    if (r->count != p->count)
        return 0;
    for (size_t i = 0; i < r->count; i++) {
        int32_t a, b;
        if (!key_ms(wr, &r->keys[i], &a) || !key_ms(wr, &p->keys[i], &b)) {
            *ok = 0;
            return 0;
        }
        if (a != b)
            return 0;
    }
    return 1;
}

/* Whether every key of a track is untouched, written in its stored
 * version, with its stored bytes and one time per record: then the
 * records are rebuilt from the stored bytes and ticks alone. */
static int keys_untouched(const ani_wr *wr, const ak_track *t)
{
    const ak_channel *r = &t->channel[AK_ROTATION], *p = &t->channel[AK_TRANSLATION];
    size_t n = r->count, rot = ani_rotation_size(wr->version);
    if (!wr->reuse_rot || !n || p->count != n || n > INT32_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const ak_key *rk = &r->keys[i], *pk = &p->keys[i];
        if (rk->raw_size != rot || pk->raw_size != 12 || !rk->raw || !pk->raw || rk->tick != pk->tick ||
            rk->tick < INT32_MIN || rk->tick > INT32_MAX || ak_key_changed(rk) || ak_key_changed(pk))
            return 0;
    }
    return 1;
}

static ak_status write_track(ani_wr *wr, const ak_track *t)
{
    ak_status st = put_model_string(wr, "bone name", t->bone, &t->props, ANI_PROP_BONE_BYTES);
    if (st != AK_OK)
        return st;
    ak_put_u32(wr->out, float_bits(wr, &t->props, ANI_PROP_WEIGHT_BITS, t->weight, 1.0));
    const ak_channel *r = &t->channel[AK_ROTATION], *p = &t->channel[AK_TRANSLATION];
    if (r->count && !p->count)
        wr->no_pos_tracks++;
    if (p->count && !r->count)
        wr->no_rot_tracks++;
    if (keys_untouched(wr, t)) {
        size_t rot = ani_rotation_size(wr->version);
        ak_put_i32(wr->out, (int32_t)r->count);
        for (size_t i = 0; i < r->count; i++) {
            const ak_key *rk = &r->keys[i], *pk = &p->keys[i];
            if (pk->raw == rk->raw + rot) /* as the reader stores them: one piece */
                ak_put(wr->out, rk->raw, rot + 12);
            else {
                ak_put(wr->out, rk->raw, rot);
                ak_put(wr->out, pk->raw, 12);
            }
            ak_put_i32(wr->out, (int32_t)rk->tick);
        }
        return AK_OK;
    }
    size_t count_at = ak_sink_size(wr->out);
    ak_put_i32(wr->out, 0); /* patched below */
    int ok;
    if (!channels_pair(wr, t, &ok)) {
        if (!ok)
            return AK_E_DATA;
        return write_merged(wr, t, count_at);
    }
    if (r->count > INT32_MAX)
        return ak_fail(wr->job, AK_E_DATA, at(wr), "track \"%s\" has too many keys (%zu)", t->bone, r->count);
    for (size_t i = 0; i < r->count; i++) {
        int32_t ms;
        if (!key_ms(wr, &r->keys[i], &ms))
            return AK_E_DATA;
        note_rounding(wr, &r->keys[i], ms);
        note_rounding(wr, &p->keys[i], ms);
        put_rotation(wr, &r->keys[i], r->keys[i].v);
        put_position(wr, &p->keys[i], p->keys[i].v);
        ak_put_i32(wr->out, ms);
    }
    ak_sink_patch_u32(wr->out, count_at, (uint32_t)r->count);
    return AK_OK;
}

static ak_status write_event(ani_wr *wr, const ak_event *e)
{
    ak_status st = put_model_string(wr, "event type", e->type, &e->props, ANI_PROP_TYPE_BYTES);
    if (st == AK_OK)
        st = put_model_string(wr, "event sub-info", e->info, &e->props, ANI_PROP_INFO_BYTES);
    if (st == AK_OK)
        ak_put_u32(wr->out, float_bits(wr, &e->props, ANI_PROP_TIME_BITS, e->time, 1000.0));
    return st;
}

/* The total time: as stored while the duration is unchanged; an edited
 * duration in ms; without a stored total, the duration in ms but at least
 * the last key's time (playback stops at the total, §5). */
static ak_status total_time(ani_wr *wr, const ak_clip *clip, int32_t *total)
{
    const ak_prop *p = wr->native ? ak_prop_get(&clip->props, ANI_PROP_TOTAL) : NULL;
    if (p && p->type == AK_PROP_INT && p->i >= INT32_MIN && p->i <= INT32_MAX &&
        same_double((double)p->i / 1000.0, clip->duration)) {
        *total = (int32_t)p->i;
        return AK_OK;
    }
    if (!ms_from_seconds(wr, clip->duration, "clip duration", total))
        return AK_E_DATA;
    if (p) /* an edited duration is taken as it is */
        return AK_OK;
    for (size_t i = 0; i < clip->track_count; i++)
        for (int c = AK_ROTATION; c <= AK_TRANSLATION; c++) {
            const ak_channel *ch = &clip->tracks[i]->channel[c];
            for (size_t k = 0; k < ch->count; k++) {
                int32_t ms;
                if (!key_ms(wr, &ch->keys[k], &ms))
                    return AK_E_DATA;
                if (ms > *total)
                    *total = ms;
            }
        }
    return AK_OK;
}

static int stored_version(const ak_doc *doc)
{
    int64_t v = ak_prop_int(&doc->props, ANI_PROP_VERSION, 0);
    if (v >= ANI_V_FLOAT && v <= ANI_V_8BYTES)
        return (int)v;
    int from_variant = atoi(doc->variant);
    return ani_rotation_size(from_variant) ? from_variant : 0;
}

ak_status ani_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    ani_wr wr;
    memset(&wr, 0, sizeof wr);
    wr.job = job;
    wr.doc = doc;
    wr.out = out;
    wr.native = strcmp(doc->format, "ani") == 0;
    int stored = wr.native ? stored_version(doc) : 0;
    /* The target without a parameter: the document's variant when it names
     * an ANI version (so that ak_doc_set_format can pick one), else the
     * stored version. */
    int wanted = wr.native && ani_rotation_size(atoi(doc->variant)) ? atoi(doc->variant) : stored;
    const char *param = ak_job_param(job, "variant");
    if (param) {
        if (strcmp(param, "4000") == 0)
            wr.version = ANI_V_FLOAT;
        else if (strcmp(param, "4001") == 0)
            wr.version = ANI_V_SMALL3;
        else if (strcmp(param, "4002") == 0)
            wr.version = ANI_V_8BYTES;
        else
            return ak_fail(job, AK_E_USAGE, -1, "variant=%s: the ANI versions are 4000, 4001 and 4002", param);
    } else {
        /* A document from another format gets 4000: float quaternions,
         * the only version that stores rotations without quantizing. */
        wr.version = wanted ? wanted : ANI_V_FLOAT;
    }
    wr.reuse_rot = wr.native && stored == wr.version;
    if (doc->clip_count != 1)
        return ak_fail(job, AK_E_USAGE, -1, "an ANI file holds exactly one clip, the document has %zu",
                       doc->clip_count);
    const ak_clip *clip = doc->clips[0];

    ak_put(out, "ANI\0", 4);
    ak_put_i32(out, wr.version);
    if (clip->event_count > INT32_MAX)
        return ak_fail(job, AK_E_DATA, at(&wr), "too many events (%zu)", clip->event_count);
    ak_put_i32(out, (int32_t)clip->event_count);
    for (size_t i = 0; i < clip->event_count; i++) {
        ak_status st = write_event(&wr, &clip->events[i]);
        if (st != AK_OK)
            return st;
    }
    int32_t total;
    ak_status st = total_time(&wr, clip, &total);
    if (st != AK_OK)
        return st;
    ak_put_i32(out, total);
    if (clip->track_count > INT32_MAX)
        return ak_fail(job, AK_E_DATA, at(&wr), "too many tracks (%zu)", clip->track_count);
    ak_put_i32(out, (int32_t)clip->track_count);
    for (size_t i = 0; i < clip->track_count; i++) {
        st = write_track(&wr, clip->tracks[i]);
        if (st != AK_OK)
            return st;
    }
    const ak_prop *trail = wr.native ? ak_prop_get(&doc->props, ANI_PROP_TRAILING) : NULL;
    if (trail && trail->type == AK_PROP_BYTES)
        ak_put(out, trail->data, trail->size);

    if (wr.interp_tracks)
        ak_warn(job, -1,
                "ANI keys hold rotation and position at one time: in %zu tracks the key times of the "
                "two channels differ, so %zu rotations were slerped and %zu positions lerped at the "
                "other channel's times", wr.interp_tracks, wr.interp_rot, wr.interp_pos);
    if (wr.no_pos_tracks)
        ak_warn(job, -1,
                "%zu tracks have no translation keys; ANI keys always hold a position, written as "
                "(0, 0, 0)", wr.no_pos_tracks);
    if (wr.no_rot_tracks)
        ak_warn(job, -1,
                "%zu tracks have no rotation keys; ANI keys always hold a rotation, written as the "
                "identity", wr.no_rot_tracks);
    if (wr.rounded)
        ak_warn(job, -1, "%zu key times are not whole milliseconds and were rounded to the nearest one",
                wr.rounded);
    if (wr.nonfinite)
        ak_warn(job, -1,
                "%zu rotations are not finite and cannot be packed as version %d; written as the identity",
                wr.nonfinite, wr.version);
    if (ak_sink_failed(out))
        return ak_fail(job, AK_E_NOMEM, -1, "out of memory while encoding");
    return AK_OK;
}
