/* anim.c - one glTF animation per clip, and extras.animkit with everything
 * float32 accessors cannot hold (README.md, "extras").
 *
 * Per channel the extras keep: "n" (key count), "sampler" (-1 when the
 * values live only in extras, for a second track of the same bone in one
 * clip), "ticks", "time" ("ticks" when every time is tick / tick_rate, the
 * exact seconds when float32 could not hold them or they had to be made
 * valid), "v" (exact values where float32 could not hold them), "raw" (the
 * stored key bytes, null for keys without) and "digest" (over the keys as
 * they were, so a reader can tell whether anybody changed them). */
#include "build.h"

#include <math.h>
#include <string.h>

typedef struct clip_state {
    gw *w;
    const ak_clip *clip;
    json_t *anim, *channels, *samplers;
    unsigned char *used; /* node x kind already targeted in this animation */
    size_t fixed_times, fixed_values;
} clip_state;

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static json_t *name_json(gw *w, const char *bytes)
{
    char *s = gltf_utf8_of_bytes(w->job, bytes);
    json_t *j = s ? json_string(s) : NULL;
    ak_job_free(w->job, s);
    return j;
}

/* "ticks", an array of exact times, or NULL when float32 holds them. */
static json_t *times_extra(gw *w, const ak_channel *ch, const float *f, double tick_rate)
{
    int from_ticks = tick_rate != 0, exact = 1;
    for (size_t k = 0; k < ch->count; k++) {
        const ak_key *key = &ch->keys[k];
        from_ticks &= same_bits(key->time, (double)key->tick / tick_rate);
        exact &= same_bits(key->time, (double)f[k]);
    }
    if (exact)
        return NULL;
    if (from_ticks)
        return json_string("ticks");
    json_t *a = json_array();
    for (size_t k = 0; k < ch->count; k++)
        gw_push(w, a, gltf_number(ch->keys[k].time));
    return a;
}

static json_t *ticks_extra(gw *w, const ak_channel *ch)
{
    int any = 0;
    for (size_t k = 0; k < ch->count; k++)
        any |= ch->keys[k].tick != 0;
    if (!any)
        return NULL;
    json_t *a = json_array();
    for (size_t k = 0; k < ch->count; k++)
        gw_push(w, a, json_integer((json_int_t)ch->keys[k].tick));
    return a;
}

static json_t *raw_extra(gw *w, const ak_channel *ch, ak_channel_kind kind, json_t *extra)
{
    int any = 0;
    for (size_t k = 0; k < ch->count; k++)
        any |= !ak_key_changed(&ch->keys[k]);
    if (!any)
        return NULL;
    json_t *a = json_array();
    for (size_t k = 0; k < ch->count; k++) {
        const ak_key *key = &ch->keys[k];
        gw_push(w, a, ak_key_changed(key) ? json_null() : gltf_hex(w->job, key->raw, key->raw_size));
    }
    char digest[24];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)gltf_channel_digest(ch, kind));
    gw_set(w, extra, "digest", json_string(digest));
    return a;
}

static void set_if(gw *w, json_t *obj, const char *key, json_t *value)
{
    if (value)
        gw_set(w, obj, key, value);
}

/* The sampler and channel of one track channel; -1 when out of memory. */
static json_int_t add_sampler(clip_state *cs, ak_channel_kind kind, json_int_t node, const float *times,
                              const float *values, size_t count)
{
    gw *w = cs->w;
    json_int_t in = gw_time_accessor(w, times, count), out;
    if (kind == AK_VISIBILITY) {
        unsigned char *b = ak_job_alloc(w->job, count, 1);
        if (!b)
            return -1;
        for (size_t k = 0; k < count; k++)
            b[k] = values[k] != 0;
        json_int_t view = gw_view(w, b, count);
        ak_job_free(w->job, b);
        gw_push(w, w->accessors, json_pack("{s:I,s:i,s:I,s:s}", "bufferView", view, "componentType", 5121,
                                           "count", (json_int_t)count, "type", "SCALAR"));
        out = view < 0 ? -1 : (json_int_t)json_array_size(w->accessors) - 1;
    } else {
        out = gw_float_accessor(w, values, count, gltf_width(kind), 0);
    }
    if (in < 0 || out < 0)
        return -1;
    json_int_t index = (json_int_t)json_array_size(cs->samplers);
    gw_push(w, cs->samplers, json_pack("{s:I,s:I,s:s}", "input", in, "output", out, "interpolation",
                                       kind == AK_VISIBILITY ? "STEP" : "LINEAR"));
    json_t *target;
    if (kind == AK_VISIBILITY) {
        char pointer[96];
        snprintf(pointer, sizeof pointer, "/nodes/%lld/extensions/KHR_node_visibility/visible", (long long)node);
        target = json_pack("{s:s,s:{s:{s:s}}}", "path", "pointer", "extensions", "KHR_animation_pointer",
                           "pointer", pointer);
        json_t *n = json_array_get(w->nodes, (size_t)node);
        gw_set(w, n, "extensions", json_pack("{s:{s:b}}", "KHR_node_visibility", "visible", 1));
        w->visibility = 1;
    } else {
        target = json_pack("{s:I,s:s}", "node", node, "path", gltf_path_name(kind));
    }
    gw_push(w, cs->channels, json_pack("{s:I,s:o}", "sampler", index, "target", target));
    return index;
}

static ak_status put_channel(clip_state *cs, json_t *extras, const ak_track *t, ak_channel_kind kind,
                             json_int_t node)
{
    gw *w = cs->w;
    const ak_channel *ch = &t->channel[kind];
    size_t n = ch->count;
    int width = gltf_width(kind);
    double *orig = ak_job_alloc(w->job, n, sizeof(double));
    float *times = ak_job_alloc(w->job, n, sizeof(float));
    float *values = ak_job_alloc(w->job, n, (size_t)width * sizeof(float));
    if (!orig || !times || !values)
        return AK_E_NOMEM;
    for (size_t k = 0; k < n; k++)
        orig[k] = ch->keys[k].time;
    cs->fixed_times += gltf_fix_times(orig, n, times);
    int exact_v = 1;
    for (size_t k = 0; k < n; k++) {
        float f[4];
        cs->fixed_values += (size_t)gltf_fix_value(kind, ch->keys[k].v, f);
        if (kind == AK_SCALE && gltf_track_mirrored(t))
            f[2] = -f[2];
        for (int c = 0; c < width; c++) {
            values[k * (size_t)width + (size_t)c] = f[c];
            exact_v &= same_bits((double)f[c], ch->keys[k].v[c]);
        }
    }
    unsigned char *used = &cs->used[(size_t)node * AK_CHANNELS + kind];
    json_int_t sampler = -1;
    if (!*used) {
        *used = 1;
        if ((sampler = add_sampler(cs, kind, node, times, values, n)) < 0)
            return AK_E_NOMEM;
    }
    json_t *e = json_pack("{s:I,s:I}", "n", (json_int_t)n, "sampler", sampler);
    set_if(w, e, "ticks", ticks_extra(w, ch));
    json_t *te = times_extra(w, ch, times, t->clip->tick_rate);
    if (!json_is_array(te) && sampler < 0) { /* no accessor to fall back on: the times themselves */
        json_decref(te);
        te = json_array();
        for (size_t k = 0; k < n; k++)
            gw_push(w, te, gltf_number(orig[k]));
    }
    set_if(w, e, "time", te);
    if (!exact_v || sampler < 0) {
        json_t *a = json_array();
        for (size_t k = 0; k < n; k++)
            for (int c = 0; c < width; c++)
                gw_push(w, a, gltf_number(ch->keys[k].v[c]));
        gw_set(w, e, "v", a);
    }
    set_if(w, e, "raw", raw_extra(w, ch, kind, e));
    gw_set(w, extras, ak_channel_name(kind), e);
    ak_job_free(w->job, orig);
    ak_job_free(w->job, times);
    ak_job_free(w->job, values);
    return AK_OK;
}

static ak_status put_track(clip_state *cs, json_t *tracks, const ak_track *t)
{
    gw *w = cs->w;
    json_int_t node = gw_node_of_track(w, t);
    json_t *e = json_pack("{s:I,s:o}", "node", node, "bone", name_json(w, t->bone));
    if (t->has_bone_id)
        gw_set(w, e, "id", json_integer(t->bone_id));
    if (t->has_bone_hash)
        gw_set(w, e, "hash", json_integer(t->bone_hash));
    if (!same_bits(t->weight, 1.0))
        gw_set(w, e, "weight", gltf_number(t->weight));
    if (t->props.count)
        gw_set(w, e, "props", gw_props(w, &t->props));
    json_t *channels = json_object();
    gw_set(w, e, "channels", channels);
    gw_push(w, tracks, e);
    for (int kind = 0; kind < AK_CHANNELS; kind++) {
        if (!t->channel[kind].count)
            continue;
        ak_status st = put_channel(cs, channels, t, (ak_channel_kind)kind, node);
        if (st != AK_OK)
            return st;
    }
    return AK_OK;
}

static json_t *events_json(gw *w, const ak_clip *clip)
{
    json_t *a = json_array();
    for (size_t i = 0; i < clip->event_count; i++) {
        const ak_event *ev = &clip->events[i];
        json_t *e = json_pack("{s:o,s:o,s:o}", "time", gltf_number(ev->time), "type", name_json(w, ev->type),
                              "info", name_json(w, ev->info));
        if (ev->props.count)
            gw_set(w, e, "props", gw_props(w, &ev->props));
        gw_push(w, a, e);
    }
    return a;
}

static ak_status put_clip(gw *w, size_t index, unsigned char *used)
{
    const ak_clip *clip = w->doc->clips[index];
    clip_state cs = { w, clip, json_object(), json_array(), json_array(), used, 0, 0 };
    memset(used, 0, (gw_bone_nodes(w) + 1) * AK_CHANNELS);
    json_t *extras = json_pack("{s:I,s:o,s:o}", "index", (json_int_t)index, "name", name_json(w, clip->name),
                               "duration", gltf_number(clip->duration));
    if (clip->frame_rate != 0)
        gw_set(w, extras, "frame_rate", gltf_number(clip->frame_rate));
    if (clip->tick_rate != 0)
        gw_set(w, extras, "tick_rate", gltf_number(clip->tick_rate));
    if (clip->props.count)
        gw_set(w, extras, "props", gw_props(w, &clip->props));
    if (clip->event_count)
        gw_set(w, extras, "events", events_json(w, clip));
    json_t *tracks = json_array();
    gw_set(w, extras, "tracks", tracks);
    ak_status st = AK_OK;
    for (size_t i = 0; st == AK_OK && i < clip->track_count; i++)
        st = put_track(&cs, tracks, clip->tracks[i]);
    if (cs.fixed_times)
        ak_warn(w->job, -1, "clip '%s': %zu key times made valid for glTF (negative or not increasing); "
                "the originals are kept in extras", clip->name, cs.fixed_times);
    if (cs.fixed_values)
        ak_warn(w->job, -1, "clip '%s': %zu key values repaired for glTF (not finite, or not unit "
                "quaternions); the originals are kept in extras", clip->name, cs.fixed_values);
    if (st == AK_OK && json_array_size(cs.channels)) {
        gw_set(w, cs.anim, "name", name_json(w, clip->name));
        gw_set(w, cs.anim, "channels", json_incref(cs.channels));
        gw_set(w, cs.anim, "samplers", json_incref(cs.samplers));
        gw_set(w, cs.anim, "extras", json_pack("{s:O}", "animkit", extras));
        gw_push(w, w->animations, json_incref(cs.anim));
    } else if (st == AK_OK) {
        gw_push(w, w->empty_clips, json_incref(extras));
    }
    json_decref(extras);
    json_decref(cs.anim);
    json_decref(cs.channels);
    json_decref(cs.samplers);
    return st;
}

ak_status gw_animations(gw *w)
{
    unsigned char *used = ak_job_alloc(w->job, gw_bone_nodes(w) + 1, AK_CHANNELS);
    if (!used)
        return AK_E_NOMEM;
    for (size_t i = 0; i < w->doc->clip_count; i++) {
        ak_status st = put_clip(w, i, used);
        if (st != AK_OK)
            return st;
    }
    ak_job_free(w->job, used);
    return AK_OK;
}
