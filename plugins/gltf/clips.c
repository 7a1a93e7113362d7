/* clips.c - glTF animations into clips.
 *
 * Exact path: an animation with extras.animkit lists its tracks in order;
 * per channel the extras give what float32 lost (anim.c). A key whose
 * accessor values are still what the writer would write for the originals
 * gets the originals back; where the digest of the channel still matches,
 * its stored bytes are re-attached, so the game writer re-emits them.
 *
 * Edited path (no extras, e.g. exported by Blender): channels become
 * tracks per node; CUBICSPLINE keeps the values and drops the tangents;
 * channels that stay at the node's rest value all along are dropped (Blender
 * bakes every channel of every bone; a game shows the rest pose for bones a
 * clip does not key, so they carry nothing); the frame rate comes from the
 * smallest key spacing. Each of these is said in a warning. */
#include "parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct clip_src {
    json_int_t index;      /* the clip's place in the document */
    size_t order;
    const json_t *anim;    /* NULL for a clip without glTF channels */
    const json_t *extras;  /* extras.animkit, or NULL */
} clip_src;

typedef struct clip_ctx {
    gr *r;
    ak_clip *clip;
    const json_t *anim;
    size_t anim_index;
    unsigned char *used;     /* samplers consumed through extras */
    ak_track **track_of;     /* per node, for the edited path */
    size_t dropped, cubic;
} clip_ctx;

static int cmp_src(const void *a, const void *b)
{
    const clip_src *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int same_bits_f(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Sampler `s` of the animation: its times and values (CUBICSPLINE: the
 * values without tangents). */
static ak_status sampler_data(clip_ctx *cc, json_int_t s, int width, float **times, float **values,
                              size_t *count, int *cubic)
{
    gr *r = cc->r;
    char where[64];
    snprintf(where, sizeof where, "animations[%zu].samplers[%lld]", cc->anim_index, (long long)s);
    const json_t *sampler = json_array_get(json_object_get(cc->anim, "samplers"), (size_t)s);
    if (s < 0 || !json_is_object(sampler))
        return ak_fail(r->job, AK_E_DATA, -1, "%s: no such sampler", where);
    json_int_t in, out;
    if (!gr_int(r, sampler, "input", 0, INT32_MAX, &in, where) || !gr_int(r, sampler, "output", 0, INT32_MAX, &out, where))
        return AK_E_DATA;
    const json_t *interp = json_object_get(sampler, "interpolation");
    *cubic = json_is_string(interp) && strcmp(json_string_value(interp), "CUBICSPLINE") == 0;
    size_t n, m;
    ak_status st = gltf_accessor_floats(r->job, &r->g, in, 1, times, &n);
    if (st == AK_OK)
        st = gltf_accessor_floats(r->job, &r->g, out, width, values, &m);
    if (st != AK_OK)
        return st;
    if (m != (*cubic ? 3 * n : n))
        return ak_fail(r->job, AK_E_DATA, -1, "%s: %zu outputs for %zu times", where, m, n);
    if (*cubic) /* keep the value of each (in-tangent, value, out-tangent) */
        for (size_t k = 0; k < n; k++)
            memmove(*values + k * (size_t)width, *values + (3 * k + 1) * (size_t)width, (size_t)width * sizeof(float));
    *count = n;
    return AK_OK;
}

/* ---- exact path ------------------------------------------------------- */

typedef struct extra_channel {
    json_int_t n, sampler;
    const json_t *ticks, *time, *v, *raw, *digest;
} extra_channel;

static ak_status extra_fields(clip_ctx *cc, const json_t *e, int width, extra_channel *x, const char *where)
{
    gr *r = cc->r;
    if (!gr_int(r, e, "n", 1, INT32_MAX, &x->n, where) || !gr_int(r, e, "sampler", -1, INT32_MAX, &x->sampler, where))
        return AK_E_DATA;
    x->ticks = json_object_get(e, "ticks");
    x->time = json_object_get(e, "time");
    x->v = json_object_get(e, "v");
    x->raw = json_object_get(e, "raw");
    x->digest = json_object_get(e, "digest");
    size_t n = (size_t)x->n;
    if ((x->ticks && (!json_is_array(x->ticks) || json_array_size(x->ticks) != n)) ||
        (x->time && !json_is_string(x->time) && (!json_is_array(x->time) || json_array_size(x->time) != n)) ||
        (x->v && (!json_is_array(x->v) || json_array_size(x->v) != n * (size_t)width)) ||
        (x->raw && (!json_is_array(x->raw) || json_array_size(x->raw) != n)))
        return ak_fail(r->job, AK_E_DATA, -1, "%s: ticks, time, v or raw do not hold n=%lld keys", where,
                       (long long)x->n);
    if (x->sampler < 0 && (!json_is_array(x->time) || !x->v))
        return ak_fail(r->job, AK_E_DATA, -1, "%s: keys without a sampler need time and v", where);
    return AK_OK;
}

static int extra_time(const extra_channel *x, size_t k, double tick_rate, int64_t tick, const float *f, double *out)
{
    if (json_is_array(x->time))
        return gltf_number_value(json_array_get(x->time, k), out);
    if (json_is_string(x->time) && tick_rate != 0) {
        *out = (double)tick / tick_rate;
        return 1;
    }
    *out = f ? (double)f[k] : 0;
    return f != NULL;
}

static ak_status attach_raw(clip_ctx *cc, ak_track *t, ak_channel_kind kind, const extra_channel *x)
{
    ak_channel *ch = &t->channel[kind];
    for (size_t k = 0; k < ch->count; k++) {
        const json_t *h = json_array_get(x->raw, k);
        if (!json_is_string(h))
            continue;
        size_t len = json_string_length(h);
        unsigned char *buf = ak_job_alloc(cc->r->job, len / 2 + 1, 1);
        if (!buf)
            return AK_E_NOMEM;
        long n = gltf_hex_decode(json_string_value(h), buf);
        ak_status st = n < 0 ? ak_fail(cc->r->job, AK_E_DATA, -1, "clip '%s': malformed raw key bytes", cc->clip->name)
                             : ak_key_set_raw(t, &ch->keys[k], buf, (size_t)n);
        ak_job_free(cc->r->job, buf);
        if (st != AK_OK)
            return st;
    }
    return AK_OK;
}

static ak_status exact_channel(clip_ctx *cc, ak_track *t, ak_channel_kind kind, const json_t *e, const char *where)
{
    gr *r = cc->r;
    int width = gltf_width(kind), cubic = 0;
    extra_channel x;
    ak_status st = extra_fields(cc, e, width, &x, where);
    if (st != AK_OK)
        return st;
    size_t n = (size_t)x.n, count = n;
    float *f = NULL, *out = NULL;
    if (x.sampler >= 0) {
        if ((st = sampler_data(cc, x.sampler, width, &f, &out, &count, &cubic)) != AK_OK)
            return st;
        if (x.sampler < (json_int_t)json_array_size(json_object_get(cc->anim, "samplers")))
            cc->used[x.sampler] = 1;
    }
    int stale = count != n;
    if (stale) {
        ak_warn(r->job, -1, "%s: the sampler has %zu keys, extras %zu: keys taken from the sampler", where, count, n);
        n = count;
    }
    double *orig = ak_job_alloc(r->job, n, sizeof(double));
    float *ft = ak_job_alloc(r->job, n, sizeof(float));
    if (!orig || !ft || (st = ak_channel_reserve(t, kind, n)) != AK_OK)
        return st != AK_OK ? st : AK_E_NOMEM;
    double tick_rate = cc->clip->tick_rate;
    for (size_t k = 0; k < n; k++) {
        json_t *tk = stale ? NULL : json_array_get(x.ticks, k);
        int64_t tick = json_is_integer(tk) ? (int64_t)json_integer_value(tk) : 0;
        if (stale || !extra_time(&x, k, tick_rate, tick, f, &orig[k]))
            orig[k] = f ? (double)f[k] : 0;
        ak_key *key = ak_key_add(t, kind);
        if (!key)
            return AK_E_NOMEM;
        key->tick = tick;
        key->time = orig[k];
    }
    int edited = 0;
    gltf_fix_times(orig, n, ft);
    for (size_t k = 0; f && k < n; k++)
        if (!same_bits_f(ft[k], f[k]))
            edited = 1;
    ak_key *keys = t->channel[kind].keys;
    for (size_t k = 0; k < n; k++) {
        if (edited && f) { /* times moved: the sampler's win, ticks follow them */
            keys[k].time = f[k];
            keys[k].tick = tick_rate != 0 ? (int64_t)llround(f[k] * tick_rate) : 0;
        }
        double v[4] = { 0, 0, 0, kind == AK_ROTATION ? 1 : 0 };
        float fv[4];
        for (int c = 0; c < width; c++)
            if (stale || !x.v || !gltf_number_value(json_array_get(x.v, k * (size_t)width + (size_t)c), &v[c]))
                v[c] = out ? out[k * (size_t)width + (size_t)c] : 0;
        gltf_fix_value(kind, v, fv);
        int mirror = kind == AK_SCALE && gltf_track_mirrored(t);
        if (mirror)
            fv[2] = -fv[2];
        for (int c = 0; out && c < width; c++)
            if (!same_bits_f(fv[c], out[k * (size_t)width + (size_t)c])) {
                edited = 1;
                for (int d = 0; d < width; d++)
                    v[d] = out[k * (size_t)width + (size_t)d];
                if (mirror)
                    v[2] = -v[2];
                break;
            }
        memcpy(keys[k].v, v, sizeof v);
    }
    if (x.raw && !stale) {
        char digest[24];
        snprintf(digest, sizeof digest, "%016llx", (unsigned long long)gltf_channel_digest(&t->channel[kind], kind));
        if (!edited && json_is_string(x.digest) && strcmp(json_string_value(x.digest), digest) == 0)
            return attach_raw(cc, t, kind, &x);
        ak_warn(r->job, -1, "%s: keys edited since export; they will be encoded afresh", where);
    }
    return AK_OK;
}

static ak_status number_field(gr *r, const json_t *obj, const char *field, double *out, const char *where)
{
    const json_t *v = json_object_get(obj, field);
    if (v && !gltf_number_value(v, out))
        return ak_fail(r->job, AK_E_DATA, -1, "%s.%s: not a number", where, field);
    return AK_OK;
}

static ak_status exact_track(clip_ctx *cc, const json_t *e, size_t i)
{
    gr *r = cc->r;
    char where[96];
    snprintf(where, sizeof where, "animations[%zu].extras.animkit.tracks[%zu]", cc->anim_index, i);
    const json_t *bone = json_object_get(e, "bone");
    char *name = json_is_string(bone) ? gltf_bytes_of_utf8(r->job, json_string_value(bone)) : NULL;
    if (!json_is_object(e) || !json_is_string(bone))
        return ak_fail(r->job, AK_E_DATA, -1, "%s: needs a bone name", where);
    ak_track *t = name ? ak_track_add(cc->clip, name) : NULL;
    if (!t)
        return AK_E_NOMEM;
    const json_t *id = json_object_get(e, "id"), *hash = json_object_get(e, "hash");
    if (json_is_integer(id)) {
        t->has_bone_id = 1;
        t->bone_id = (int32_t)json_integer_value(id);
    }
    if (json_is_integer(hash)) {
        t->has_bone_hash = 1;
        t->bone_hash = (uint32_t)json_integer_value(hash);
    }
    ak_status st = number_field(r, e, "weight", &t->weight, where);
    if (st == AK_OK)
        st = gltf_props_read(r->job, r->doc, &t->props, json_object_get(e, "props"), where, &r->g);
    const json_t *channels = json_object_get(e, "channels");
    for (int kind = 0; st == AK_OK && kind < AK_CHANNELS; kind++) {
        const json_t *c = json_object_get(channels, ak_channel_name((ak_channel_kind)kind));
        if (c) {
            char w2[128];
            snprintf(w2, sizeof w2, "%s.channels.%s", where, ak_channel_name((ak_channel_kind)kind));
            st = json_is_object(c) ? exact_channel(cc, t, (ak_channel_kind)kind, c, w2)
                                   : ak_fail(r->job, AK_E_DATA, -1, "%s: not an object", w2);
        }
    }
    return st;
}

/* ---- edited path ------------------------------------------------------ */

static int constant_at(const float *v, size_t n, int width, const double *at, double tolerance)
{
    for (size_t k = 0; k < n; k++)
        for (int c = 0; c < width; c++)
            if (fabs(v[k * (size_t)width + (size_t)c] - at[c]) > tolerance)
                return 0;
    return 1;
}

/* 1 when every key of the channel equals the node's rest value (within
 * 1e-5; rotations up to sign): the game shows the rest pose for bones a
 * clip does not key, so the channel carries nothing. */
static int at_rest(const gr_node *n, ak_channel_kind kind, const float *v, size_t count)
{
    if (kind == AK_TRANSLATION)
        return constant_at(v, count, 3, n->t, 1e-5);
    if (kind == AK_SCALE)
        return constant_at(v, count, 3, n->s, 1e-5);
    const double neg[4] = { -n->r[0], -n->r[1], -n->r[2], -n->r[3] };
    for (size_t k = 0; k < count; k++)
        if (!constant_at(v + 4 * k, 1, 4, n->r, 1e-5) && !constant_at(v + 4 * k, 1, 4, neg, 1e-5))
            return 0;
    return 1;
}

/* Node and kind a channel targets; -1 when it is nothing animkit keeps. */
static int channel_target(clip_ctx *cc, const json_t *ch, size_t c, json_int_t *node)
{
    const json_t *target = json_object_get(ch, "target");
    const json_t *path = json_object_get(target, "path");
    const char *p = json_is_string(path) ? json_string_value(path) : "";
    static const char *const paths[] = { "rotation", "translation", "scale" };
    const json_t *jn = json_object_get(target, "node");
    *node = json_is_integer(jn) ? json_integer_value(jn) : -1;
    if (strcmp(p, "pointer") == 0) {
        const json_t *ptr = json_object_get(json_object_get(json_object_get(target, "extensions"),
                                                            "KHR_animation_pointer"), "pointer");
        long long n = -1;
        int end = 0;
        if (json_is_string(ptr) &&
            sscanf(json_string_value(ptr), "/nodes/%lld/extensions/KHR_node_visibility/visible%n", &n, &end) == 1 &&
            json_string_value(ptr)[end] == '\0') {
            *node = n;
            if (n >= 0 && (size_t)n < cc->r->node_count)
                return AK_VISIBILITY;
        }
    }
    for (int k = 0; k < 3; k++)
        if (strcmp(p, paths[k]) == 0) {
            if (*node < 0 || (size_t)*node >= cc->r->node_count) {
                ak_fail(cc->r->job, AK_E_DATA, -1, "animations[%zu].channels[%zu].target.node: no such node",
                        cc->anim_index, c);
                return -2;
            }
            return k;
        }
    ak_warn(cc->r->job, -1, "animations[%zu].channels[%zu]: target '%s' skipped (animkit keeps bone transforms "
            "and visibility)", cc->anim_index, c, p);
    return -1;
}

static ak_track *node_track(clip_ctx *cc, json_int_t node)
{
    if (cc->track_of[node])
        return cc->track_of[node];
    const gr_node *n = &cc->r->nodes[node];
    ak_track *t = ak_track_add(cc->clip, n->name);
    if (t) {
        t->has_bone_id = n->has_id;
        t->bone_id = n->id;
        t->has_bone_hash = n->has_hash;
        t->bone_hash = n->hash;
        cc->track_of[node] = t;
    }
    return t;
}

static ak_status plain_channel(clip_ctx *cc, const json_t *ch, size_t c, int foreign)
{
    gr *r = cc->r;
    json_int_t node, s;
    int kind = channel_target(cc, ch, c, &node), cubic = 0;
    if (kind == -2)
        return AK_E_DATA;
    char where[64];
    snprintf(where, sizeof where, "animations[%zu].channels[%zu]", cc->anim_index, c);
    if (kind < 0)
        return AK_OK;
    if (!gr_int(r, ch, "sampler", 0, INT32_MAX, &s, where))
        return AK_E_DATA;
    int width = gltf_width((ak_channel_kind)kind);
    float *f, *v;
    size_t n;
    ak_status st = sampler_data(cc, s, width, &f, &v, &n, &cubic);
    if (st != AK_OK)
        return st;
    cc->cubic += (size_t)cubic;
    const gr_node *gn = &r->nodes[node];
    if (foreign && kind != AK_VISIBILITY && at_rest(gn, (ak_channel_kind)kind, v, n)) {
        cc->dropped++;
        return AK_OK;
    }
    ak_track *t = node_track(cc, node);
    if (!t)
        return AK_E_NOMEM;
    if (t->channel[kind].count)
        return ak_fail(r->job, AK_E_DATA, -1, "%s: node %lld %s is animated twice", where, (long long)node,
                       gltf_path_name((ak_channel_kind)kind));
    if ((st = ak_channel_reserve(t, (ak_channel_kind)kind, n)) != AK_OK)
        return st;
    for (size_t k = 0; k < n; k++) {
        ak_key *key = ak_key_add(t, (ak_channel_kind)kind);
        if (!key)
            return AK_E_NOMEM;
        key->time = f[k];
        for (int d = 0; d < width; d++)
            key->v[d] = v[k * (size_t)width + (size_t)d];
        if (gn->root_bone && r->fix_axis)
            gr_fix_key(r, (ak_channel_kind)kind, key->v);
        if (cc->clip->tick_rate != 0)
            key->tick = (int64_t)llround(key->time * cc->clip->tick_rate);
    }
    return AK_OK;
}

/* Duration and frame rate of a clip without extras: the last key, and the
 * rate of the smallest key spacing when that is a whole number. */
static void derive_timing(clip_ctx *cc)
{
    ak_clip *clip = cc->clip;
    double last = 0, step = INFINITY;
    for (size_t i = 0; i < clip->track_count; i++)
        for (int kind = 0; kind < AK_CHANNELS; kind++) {
            const ak_channel *ch = &clip->tracks[i]->channel[kind];
            for (size_t k = 0; k < ch->count; k++) {
                last = fmax(last, ch->keys[k].time);
                if (k && ch->keys[k].time - ch->keys[k - 1].time > 1e-6)
                    step = fmin(step, ch->keys[k].time - ch->keys[k - 1].time);
            }
        }
    clip->duration = last;
    double fps = 1.0 / step;
    if (isfinite(fps) && fabs(fps - round(fps)) < 0.01 * fps && round(fps) >= 1) {
        clip->frame_rate = round(fps);
        ak_warn(cc->r->job, -1, "clip '%s': %g frames per second, from the key spacing", clip->name, clip->frame_rate);
    }
}

/* ---- clips ------------------------------------------------------------ */

static ak_status clip_header(clip_ctx *cc, const json_t *x, const char *where)
{
    gr *r = cc->r;
    ak_clip *clip = cc->clip;
    ak_status st = number_field(r, x, "duration", &clip->duration, where);
    if (st == AK_OK)
        st = number_field(r, x, "frame_rate", &clip->frame_rate, where);
    if (st == AK_OK)
        st = number_field(r, x, "tick_rate", &clip->tick_rate, where);
    if (st == AK_OK)
        st = gltf_props_read(r->job, r->doc, &clip->props, json_object_get(x, "props"), where, &r->g);
    const json_t *events = json_object_get(x, "events");
    for (size_t i = 0; st == AK_OK && i < json_array_size(events); i++) {
        const json_t *e = json_array_get(events, i);
        const json_t *type = json_object_get(e, "type"), *info = json_object_get(e, "info");
        double time = 0;
        if (!gltf_number_value(json_object_get(e, "time"), &time) || !json_is_string(type) || !json_is_string(info))
            return ak_fail(r->job, AK_E_DATA, -1, "%s.events[%zu]: needs time, type and info", where, i);
        char *ty = gltf_bytes_of_utf8(r->job, json_string_value(type));
        char *in = gltf_bytes_of_utf8(r->job, json_string_value(info));
        ak_event *ev = ty && in ? ak_event_add(clip, time, ty, in) : NULL;
        if (!ev)
            return AK_E_NOMEM;
        st = gltf_props_read(r->job, r->doc, &ev->props, json_object_get(e, "props"), where, &r->g);
    }
    return st;
}

static ak_status read_clip(gr *r, const clip_src *src, size_t anim_index)
{
    const json_t *x = src->extras;
    const json_t *xname = json_object_get(x, "name"), *aname = json_object_get(src->anim, "name");
    char fallback[32];
    snprintf(fallback, sizeof fallback, "animation_%zu", anim_index);
    const char *utf8 = json_is_string(xname) ? json_string_value(xname)
                       : json_is_string(aname) ? json_string_value(aname) : fallback;
    char *name = gltf_bytes_of_utf8(r->job, utf8);
    ak_clip *clip = name ? ak_clip_add(r->doc, name) : NULL;
    if (!clip)
        return AK_E_NOMEM;
    const json_t *samplers = json_object_get(src->anim, "samplers");
    clip_ctx cc = { r, clip, src->anim, anim_index, ak_job_alloc(r->job, json_array_size(samplers) + 1, 1),
                    ak_job_alloc(r->job, r->node_count + 1, sizeof(ak_track *)), 0, 0 };
    if (!cc.used || !cc.track_of)
        return AK_E_NOMEM;
    char where[64];
    snprintf(where, sizeof where, "animations[%zu].extras.animkit", anim_index);
    ak_status st = x ? clip_header(&cc, x, where) : AK_OK;
    const json_t *tracks = json_object_get(x, "tracks");
    for (size_t i = 0; st == AK_OK && i < json_array_size(tracks); i++)
        st = exact_track(&cc, json_array_get(tracks, i), i);
    const json_t *channels = json_object_get(src->anim, "channels");
    for (size_t c = 0; st == AK_OK && c < json_array_size(channels); c++) {
        const json_t *ch = json_array_get(channels, c);
        const json_t *s = json_object_get(ch, "sampler");
        if (json_is_integer(s) && json_integer_value(s) >= 0 && (size_t)json_integer_value(s) < json_array_size(samplers) &&
            cc.used[json_integer_value(s)])
            continue;
        st = plain_channel(&cc, ch, c, x == NULL);
    }
    if (st != AK_OK)
        return st;
    if (cc.cubic)
        ak_warn(r->job, -1, "clip '%s': %zu CUBICSPLINE channels: values kept, tangents dropped", clip->name, cc.cubic);
    if (!x) {
        derive_timing(&cc);
        if (cc.dropped)
            ak_warn(r->job, -1, "clip '%s': %zu channels dropped that only hold the rest pose", clip->name,
                    cc.dropped);
    }
    ak_job_free(r->job, cc.used);
    ak_job_free(r->job, cc.track_of);
    return AK_OK;
}

ak_status gr_clips(gr *r)
{
    const json_t *anims = json_object_get(r->root, "animations");
    const json_t *empty = json_object_get(r->animkit, "clips");
    if ((anims && !json_is_array(anims)) || (empty && !json_is_array(empty)))
        return ak_fail(r->job, AK_E_DATA, -1, "animations or asset.extras.animkit.clips: not an array");
    size_t na = json_array_size(anims), ne = json_array_size(empty), n = na + ne;
    clip_src *src = ak_job_alloc(r->job, n ? n : 1, sizeof *src);
    if (!src)
        return AK_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const json_t *anim = i < na ? json_array_get(anims, i) : NULL;
        const json_t *x = anim ? json_object_get(json_object_get(anim, "extras"), "animkit")
                               : json_array_get(empty, i - na);
        if ((anim && !json_is_object(anim)) || (x && !json_is_object(x)))
            return ak_fail(r->job, AK_E_DATA, -1, "animations[%zu]: not an object", i);
        const json_t *index = json_object_get(x, "index");
        src[i] = (clip_src){ json_is_integer(index) ? json_integer_value(index) : INT64_MAX, i, anim,
                             json_is_object(x) ? x : NULL };
    }
    qsort(src, n, sizeof *src, cmp_src);
    for (size_t i = 0; i < n; i++) {
        ak_status st = read_clip(r, &src[i], src[i].order);
        if (st != AK_OK)
            return st;
    }
    if (!r->animkit && ak_prop_set_string(r->doc, &r->doc->props, GLTF_P_UP, gltf_up_name(r->up)) != AK_OK)
        return AK_E_NOMEM;
    return AK_OK; /* the core ties the tracks to the skeleton after every read */
}
