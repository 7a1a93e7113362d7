/*
 * akm_cxx.cpp - a plugin written in C++ (C++17), to show that plugin.h
 * and AK_PLUGIN_ENTRY serve a C++ translation unit built with
 * -fvisibility=hidden as they serve C.
 *
 * The "akx" format is akm.c's with another magic ("AKX1"), little-endian:
 *   "AKX1", f32 duration, u32 track count,
 *   per track: u8 name length, name bytes, u32 key count,
 *              per key: f32 time, f32 x, f32 y, f32 z, f32 w (rotation only)
 *
 * Build it out of tree with nothing but pkg-config:
 *     c++ -std=c++17 -Wall -Wextra -fvisibility=hidden -fPIC -shared \
 *         -o akx.so akm_cxx.cpp $(pkg-config --cflags --libs animkit)
 * then add a [plugin akx] section with its path to an animkit.ini.
 *
 * Things C++ changes: the descriptor is initialised positionally (designated
 * initialisers are C++20), no exception may leave a callback (nothing here
 * throws; the core is C), and scratch memory still comes from ak_job_alloc,
 * never from new or the standard containers.
 */
#include <animkit/plugin.h>

#include <cstring>

namespace {

constexpr char magic[4] = { 'A', 'K', 'X', '1' };

int akx_probe(const unsigned char *bytes, size_t size, const char *)
{
    return size >= sizeof magic && std::memcmp(bytes, magic, sizeof magic) == 0 ? AK_PROBE_MAGIC : 0;
}

ak_status read_track(ak_reader *r, ak_clip *clip)
{
    uint8_t len = ak_u8(r);
    const unsigned char *name = ak_bytes(r, len, "bone name");
    uint32_t keys = ak_u32(r);
    if (!name || !ak_need_array(r, keys, 20, "rotation keys"))
        return AK_E_DATA;
    char bone[256];
    std::memcpy(bone, name, len);
    bone[len] = '\0';
    ak_track *track = ak_track_add(clip, bone);
    if (!track || ak_channel_reserve(track, AK_ROTATION, keys) != AK_OK)
        return AK_E_NOMEM;
    for (uint32_t i = 0; i < keys; i++) {
        ak_key *k = ak_key_add(track, AK_ROTATION);
        if (!k)
            return AK_E_NOMEM;
        k->time = ak_f32(r);
        for (double &c : k->v)
            c = ak_f32(r);
    }
    return AK_OK;
}

ak_status akx_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    ak_reader r;
    ak_reader_init(&r, job, bytes, size);
    const unsigned char *m = ak_bytes(&r, sizeof magic, "magic");
    if (!m || std::memcmp(m, magic, sizeof magic) != 0)
        return ak_fail(job, AK_E_DATA, 0, "not an akx file (magic is not AKX1)");
    ak_clip *clip = ak_clip_add(doc, "");
    if (!clip)
        return AK_E_NOMEM;
    clip->duration = ak_f32(&r);
    uint32_t tracks = ak_u32(&r);
    if (!ak_need_array(&r, tracks, 5, "tracks"))
        return AK_E_DATA;
    for (uint32_t t = 0; t < tracks; t++) {
        ak_status st = read_track(&r, clip);
        if (st != AK_OK)
            return st;
    }
    if (ak_remaining(&r))
        ak_warn(job, static_cast<int64_t>(r.pos), "%zu bytes after the last track ignored", ak_remaining(&r));
    return AK_OK;
}

ak_status akx_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    const ak_clip *clip = doc->clips[0]; // single-clip codec: always exactly one
    ak_put(out, magic, sizeof magic);
    ak_put_f32(out, static_cast<float>(clip->duration));
    ak_put_u32(out, static_cast<uint32_t>(clip->track_count));
    for (size_t t = 0; t < clip->track_count; t++) {
        const ak_track *track = clip->tracks[t];
        size_t len = std::strlen(track->bone);
        if (len > 255)
            return ak_fail(job, AK_E_DATA, -1, "bone name '%.40s...' is longer than 255 bytes", track->bone);
        ak_put_u8(out, static_cast<uint8_t>(len));
        ak_put(out, track->bone, len);
        const ak_channel &rot = track->channel[AK_ROTATION];
        ak_put_u32(out, static_cast<uint32_t>(rot.count));
        for (size_t k = 0; k < rot.count; k++) {
            ak_put_f32(out, static_cast<float>(rot.keys[k].time));
            for (double c : rot.keys[k].v)
                ak_put_f32(out, static_cast<float>(c));
        }
    }
    return ak_sink_failed(out) ? AK_E_NOMEM : AK_OK;
}

const ak_param akx_params[] = { { nullptr, AK_PARAM_STRING, 0, nullptr, nullptr, nullptr } };

// Positional, in the order of struct ak_codec in plugin.h.
const ak_codec akx_codec = {
    AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), AK_CAP_BONE_NAME,
    "akx", "1.0.0", "animkit example format written in C++ (rotation keys only)", "MIT", "akx",
    akx_probe, akx_read, akx_write,
    akx_params,
};

} // namespace

// At file scope, outside the namespace: exports animkit_codec() with C linkage.
AK_PLUGIN_ENTRY(akx_codec);
