/*
 * akm.c - a complete animkit plugin for a deliberately small format, to
 * copy from when writing your own.
 *
 * The "akm" format (animkit minimal), little-endian:
 *   "AKM1"                magic
 *   f32 duration          seconds
 *   u32 track count
 *   per track:
 *     u8 name length, name bytes (no NUL)
 *     u32 key count
 *     per key: f32 time, f32 x, f32 y, f32 z, f32 w   (rotation only)
 *
 * It follows the rules of animkit.h and plugin.h one way:
 *  - quaternions are stored as the model holds them (x, y, z, w, Hamilton,
 *    bone space into parent space), so no conversion is needed;
 *  - `duration` is the length the file states;
 *  - the writer reads doc->clips[0] without checking: the descriptor lacks
 *    AK_CAP_MULTI_CLIP, so the core only ever hands it one clip;
 *  - names are passed straight from a stack buffer: the document copies;
 *  - ak_doc_set_format() is called only to record the variant "AKM1";
 *  - a NULL from a constructor means the job has already failed: return
 *    AK_E_NOMEM, nothing else;
 *  - the descriptor declares its parameters (none), so a mistyped -p is an
 *    error instead of being ignored.
 *
 * Build it out of tree with nothing but pkg-config (see Makefile), then add
 *     [plugin akm]
 *     path = /where/it/is/akm.so
 * to an animkit.ini.
 */
#include <animkit/plugin.h>

#include <string.h>

static int akm_probe(const unsigned char *bytes, size_t size, const char *filename)
{
    (void)filename;
    return size >= 4 && memcmp(bytes, "AKM1", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

static ak_status akm_read_track(ak_reader *r, ak_clip *clip)
{
    uint8_t len = ak_u8(r);
    const unsigned char *name = ak_bytes(r, len, "bone name");
    uint32_t keys = ak_u32(r);
    /* Check the count against the bytes left before allocating for it. */
    if (!name || !ak_need_array(r, keys, 20, "rotation keys"))
        return AK_E_DATA;
    char bone[256];
    memcpy(bone, name, len);
    bone[len] = '\0';
    ak_track *track = ak_track_add(clip, bone); /* copies the name */
    if (!track || ak_channel_reserve(track, AK_ROTATION, keys) != AK_OK)
        return AK_E_NOMEM;
    for (uint32_t i = 0; i < keys; i++) {
        ak_key *k = ak_key_add(track, AK_ROTATION);
        if (!k)
            return AK_E_NOMEM;
        k->time = ak_f32(r);
        for (int c = 0; c < 4; c++)
            k->v[c] = ak_f32(r);
    }
    return AK_OK;
}

static ak_status akm_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    ak_reader r;
    ak_reader_init(&r, job, bytes, size);
    const unsigned char *magic = ak_bytes(&r, 4, "magic");
    if (!magic || memcmp(magic, "AKM1", 4) != 0)
        return ak_fail(job, AK_E_DATA, 0, "not an akm file (magic is not AKM1)");
    ak_clip *clip = ak_clip_add(doc, "");
    /* The format name would be set by the core; the variant would not. */
    if (!clip || ak_doc_set_format(doc, "akm", "AKM1") != AK_OK)
        return AK_E_NOMEM; /* the job has failed already, with the reason */
    clip->duration = ak_f32(&r);
    uint32_t tracks = ak_u32(&r);
    if (!ak_need_array(&r, tracks, 5, "tracks"))
        return AK_E_DATA;
    for (uint32_t t = 0; t < tracks; t++) {
        ak_status st = akm_read_track(&r, clip);
        if (st != AK_OK)
            return st; /* the reader or the allocator has failed the job */
    }
    if (ak_remaining(&r))
        ak_warn(job, (int64_t)r.pos, "%zu bytes after the last track ignored", ak_remaining(&r));
    return AK_OK;
}

static ak_status akm_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    const ak_clip *clip = doc->clips[0]; /* single-clip codec: always exactly one */
    ak_put(out, "AKM1", 4);
    ak_put_f32(out, (float)clip->duration);
    ak_put_u32(out, (uint32_t)clip->track_count);
    for (size_t t = 0; t < clip->track_count; t++) {
        const ak_track *track = clip->tracks[t];
        size_t len = strlen(track->bone);
        if (len > 255)
            return ak_fail(job, AK_E_DATA, -1, "bone name '%.40s...' is longer than 255 bytes", track->bone);
        ak_put_u8(out, (uint8_t)len);
        ak_put(out, track->bone, len);
        const ak_channel *rot = &track->channel[AK_ROTATION];
        ak_put_u32(out, (uint32_t)rot->count);
        for (size_t k = 0; k < rot->count; k++) {
            ak_put_f32(out, (float)rot->keys[k].time);
            for (int c = 0; c < 4; c++)
                ak_put_f32(out, (float)rot->keys[k].v[c]);
        }
    }
    return ak_sink_failed(out) ? AK_E_NOMEM : AK_OK;
}

/* No parameters: declaring the empty list makes the core refuse any -p. */
static const ak_param akm_params[] = { { NULL, 0, 0, NULL, NULL, NULL } };

static const ak_codec akm_codec = {
    .abi_major = AK_ABI_MAJOR,
    .abi_minor = AK_ABI_MINOR,
    .struct_size = sizeof(ak_codec),
    .caps = AK_CAP_BONE_NAME,
    .name = "akm",
    .version = "1.0.0",
    .description = "animkit minimal example format (rotation keys only)",
    .license = "MIT",
    .extensions = "akm",
    .probe = akm_probe,
    .read = akm_read,
    .write = akm_write,
    .params = akm_params,
};

/* Exports animkit_codec() and the ABI note the core reads before loading. */
AK_PLUGIN_ENTRY(akm_codec);
