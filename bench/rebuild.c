/*
 * rebuild.c - the benchmark's two floors, as the codec "rebuild".
 *
 * Its read parses nothing: it builds, into the document ak_read() gives
 * it, a copy of a document decoded before (the same clips, tracks, keys,
 * stored bytes, events, bones and properties), through the calls a reader
 * makes (ak_track_add, one ak_doc_store and one
 * ak_track_keys_append_uninit per keyed track, ak_keys_set_raw per run of
 * a channel's keys whose stored bytes have one size, ak_prop_set_*). Run
 * through ak_read() like any codec, it gets the same job, memory pool and
 * first arena block as a real read, minus the probe.
 * Timed, it is the floor under a read of that document while the core's
 * constructors cost what they cost: the rest of a read's time is probing
 * and the reader's own work.
 *
 * Its write encodes nothing: it does the least that any writer of a 1.x
 * document must do to know what to write (the document is public structs
 * a host may have edited, so every key is asked whether it changed, with
 * ak_keys_unchanged once per channel, and every property, event and bone
 * name is looked at), then puts the file's bytes in one call. Run through
 * ak_write() with the capabilities of the file's own codec, it pays the
 * same call, loss check and output buffer as a same-format write. Timed,
 * it is a floor under that write: the rest is the writer's own work,
 * which this floor does not show to be necessary or not.
 *
 * A second codec, "call", is the floor under both: its read adds nothing
 * to the document ak_read() gives it and its write puts the file's bytes
 * in one call, so timed, each is what any read or write of that file
 * costs through ak_read() / ak_write() before a codec does any work (the
 * registry lookup, the job, the document or the output buffer). For a
 * small file that cost alone is most of a 1 GB/s budget.
 */
#include "rebuild.h"

#include <string.h>

static int copy_props(ak_doc *doc, ak_props *to, const ak_props *from)
{
    for (size_t i = 0; i < from->count; i++) {
        const ak_prop *p = &from->items[i];
        ak_status s;
        switch (p->type) {
        case AK_PROP_INT: s = ak_prop_set_int(doc, to, p->key, p->i); break;
        case AK_PROP_FLOAT: s = ak_prop_set_float(doc, to, p->key, p->f); break;
        case AK_PROP_STRING: s = ak_prop_set_string(doc, to, p->key, (const char *)p->data); break;
        default: s = ak_prop_set_bytes(doc, to, p->key, p->data, p->size); break;
        }
        if (s != AK_OK)
            return 0;
    }
    return 1;
}

/* The channel's keys into `keys` (appended, not yet set), their stored
 * bytes copied to `*raw` (which advances) and attached one run of equal
 * sizes at a time. */
static int copy_channel(ak_key *keys, const ak_channel *from, unsigned char **raw)
{
    size_t run = 0;
    for (size_t i = 0; i < from->count; i++) {
        const ak_key *k = &from->keys[i];
        keys[i].time = k->time;
        keys[i].tick = k->tick;
        memcpy(keys[i].v, k->v, sizeof k->v);
        if (i + 1 < from->count && from->keys[i + 1].raw_size == k->raw_size)
            continue;
        unsigned char *at = *raw;
        for (size_t j = run; j <= i; j++, *raw += k->raw_size)
            if (k->raw_size)
                memcpy(*raw, from->keys[j].raw, k->raw_size);
        if (ak_keys_set_raw(&keys[run], i + 1 - run, at, k->raw_size, k->raw_size) != AK_OK)
            return 0;
        run = i + 1;
    }
    return 1;
}

static int copy_track(ak_doc *doc, ak_clip *clip, const ak_track *from)
{
    ak_track *t = ak_track_add(clip, from->bone);
    if (!t || !copy_props(doc, &t->props, &from->props))
        return 0;
    t->bone_id = from->bone_id;
    t->has_bone_id = from->has_bone_id;
    t->bone_hash = from->bone_hash;
    t->has_bone_hash = from->has_bone_hash;
    t->weight = from->weight;
    t->skeleton_bone = from->skeleton_bone;
    size_t raw_bytes = 0;
    for (int c = 0; c < AK_CHANNELS; c++)
        for (size_t i = 0; i < from->channel[c].count; i++)
            raw_bytes += from->channel[c].keys[i].raw_size;
    unsigned char *raw = raw_bytes ? ak_doc_store(doc, NULL, raw_bytes) : NULL;
    if (raw_bytes && !raw)
        return 0;
    /* A keyed track's channels in one call, as the anm reader asks. */
    size_t counts[AK_CHANNELS];
    ak_key *keys[AK_CHANNELS];
    int keyed = 0;
    for (int c = 0; c < AK_CHANNELS; c++)
        keyed |= (counts[c] = from->channel[c].count) != 0;
    if (keyed && ak_track_keys_append_uninit(t, counts, keys) != AK_OK)
        return 0;
    for (int c = 0; c < AK_CHANNELS; c++)
        if (counts[c] && !copy_channel(keys[c], &from->channel[c], &raw))
            return 0;
    return 1;
}

static int copy_clip(ak_doc *doc, const ak_clip *from)
{
    ak_clip *clip = ak_clip_add(doc, from->name);
    if (!clip || !copy_props(doc, &clip->props, &from->props))
        return 0;
    clip->duration = from->duration;
    clip->frame_rate = from->frame_rate;
    clip->tick_rate = from->tick_rate;
    for (size_t t = 0; t < from->track_count; t++)
        if (!copy_track(doc, clip, from->tracks[t]))
            return 0;
    for (size_t e = 0; e < from->event_count; e++) {
        const ak_event *fe = &from->events[e];
        ak_event *ev = ak_event_add(clip, fe->time, fe->type, fe->info);
        if (!ev || !copy_props(doc, &ev->props, &fe->props))
            return 0;
    }
    return 1;
}

static int copy_bone(ak_doc *doc, const ak_bone *from)
{
    ak_bone *b = ak_bone_add(doc, from->name);
    if (!b)
        return 0;
    b->id = from->id;
    b->has_id = from->has_id;
    b->hash = from->hash;
    b->has_hash = from->has_hash;
    b->parent = from->parent;
    memcpy(b->translation, from->translation, sizeof b->translation);
    memcpy(b->rotation, from->rotation, sizeof b->rotation);
    memcpy(b->scale, from->scale, sizeof b->scale);
    return copy_props(doc, &b->props, &from->props);
}

/* The document the next read copies and the next write checks, and the
 * bytes that write puts: the benchmark runs one file at a time, on one
 * thread. */
static const ak_doc *source;
static const unsigned char *source_bytes;
static size_t source_size;

void bench_rebuild_source(const ak_doc *from, const unsigned char *bytes, size_t size)
{
    source = from;
    source_bytes = bytes;
    source_size = size;
}

static ak_status rebuild_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    (void)bytes;
    (void)size;
    if (!source)
        return ak_fail(job, AK_E_USAGE, -1, "no document to rebuild (bench_rebuild_source)");
    int ok = ak_doc_set_format(doc, source->format, source->variant) == AK_OK &&
             copy_props(doc, &doc->props, &source->props);
    for (size_t b = 0; ok && b < source->skeleton.bone_count; b++)
        ok = copy_bone(doc, &source->skeleton.bones[b]);
    for (size_t c = 0; ok && c < source->clip_count; c++)
        ok = copy_clip(doc, source->clips[c]);
    return ok ? AK_OK : AK_E_NOMEM;
}

/* What a writer must look at of a property list: each key and value
 * (summed so that the compiler keeps the loads). */
static size_t look_at_props(const ak_props *props)
{
    size_t sum = 0;
    for (size_t i = 0; i < props->count; i++) {
        const ak_prop *p = &props->items[i];
        sum += (unsigned char)p->key[0] + p->size + (size_t)p->i + (size_t)p->type;
    }
    return sum;
}

static size_t look_at_clip(const ak_clip *clip)
{
    size_t sum = look_at_props(&clip->props) + clip->event_count;
    for (size_t t = 0; t < clip->track_count; t++) {
        const ak_track *tr = clip->tracks[t];
        sum += look_at_props(&tr->props) + (unsigned char)tr->bone[0];
        for (int c = 0; c < AK_CHANNELS; c++)
            if (tr->channel[c].count)
                sum += ak_keys_unchanged(tr->channel[c].keys, tr->channel[c].count);
    }
    for (size_t e = 0; e < clip->event_count; e++)
        sum += look_at_props(&clip->events[e].props);
    return sum;
}

/* Kept where the compiler cannot drop the walk that sums into it. */
static volatile size_t looked_at;

static ak_status rebuild_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    if (!source_bytes)
        return ak_fail(job, AK_E_USAGE, -1, "no bytes to write (bench_rebuild_source)");
    size_t sum = look_at_props(&doc->props);
    for (size_t b = 0; b < doc->skeleton.bone_count; b++)
        sum += look_at_props(&doc->skeleton.bones[b].props) + (unsigned char)doc->skeleton.bones[b].name[0];
    for (size_t c = 0; c < doc->clip_count; c++)
        sum += look_at_clip(doc->clips[c]);
    looked_at = sum;
    return ak_put(out, source_bytes, source_size) ? AK_OK : AK_E_NOMEM;
}

static int never(const unsigned char *bytes, size_t size, const char *filename)
{
    (void)bytes;
    (void)size;
    (void)filename;
    return 0;
}

static const ak_param no_params[] = { { NULL, 0, 0, NULL, NULL, NULL } };

/* Not const: its capabilities become those of the file's own codec
 * (bench_rebuild_like), so that ak_write() checks for losses as it does
 * for a same-format write. */
static ak_codec rebuild_codec = {
    .abi_major = AK_ABI_MAJOR,
    .abi_minor = AK_ABI_MINOR,
    .struct_size = sizeof(ak_codec),
    .name = "rebuild",
    .version = "1.0.0",
    .description = "animkit-bench: the document read last, built again without parsing, or checked and "
                   "written as the bytes it was read from",
    .license = "MIT",
    .extensions = "",
    .probe = never,
    .read = rebuild_read,
    .write = rebuild_write,
    .params = no_params,
    .caps = AK_CAP_MULTI_CLIP,
};

const ak_codec *bench_rebuild_codec(void) { return &rebuild_codec; }

static ak_status call_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    (void)job;
    (void)bytes;
    (void)size;
    (void)doc;
    return AK_OK;
}

static ak_status call_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    (void)doc;
    if (!source_bytes)
        return ak_fail(job, AK_E_USAGE, -1, "no bytes to write (bench_rebuild_source)");
    return ak_put(out, source_bytes, source_size) ? AK_OK : AK_E_NOMEM;
}

/* Not const, for the same reason as rebuild_codec. */
static ak_codec call_codec = {
    .abi_major = AK_ABI_MAJOR,
    .abi_minor = AK_ABI_MINOR,
    .struct_size = sizeof(ak_codec),
    .name = "call",
    .version = "1.0.0",
    .description = "animkit-bench: a read that adds nothing and a write that puts the bytes read, "
                   "the cost of the call alone",
    .license = "MIT",
    .extensions = "",
    .probe = never,
    .read = call_read,
    .write = call_write,
    .params = no_params,
    .caps = AK_CAP_MULTI_CLIP,
};

const ak_codec *bench_call_codec(void) { return &call_codec; }

void bench_rebuild_like(const ak_codec *codec)
{
    /* ANY_FORMAT: a same-format write skips the check for data of another
     * format, so this one does too. */
    rebuild_codec.caps = codec->caps | AK_CAP_MULTI_CLIP | AK_CAP_ANY_FORMAT;
    call_codec.caps = rebuild_codec.caps;
}
