/* A plugin as it was built against ABI 1.3: the 1.3 ELF note and the 1.3
 * key calls (ak_keys_append_uninit, the inline loads). It knows nothing of
 * outlines, so it must keep loading without a warning and read in full
 * when a host asks for an outline. */
#include <animkit/plugin.h>

#include <string.h>

/* ak_codec as of 1.3, spelled out so that later growth does not change
 * what this plugin hands the core. */
typedef struct codec_1_3 {
    uint32_t abi_major, abi_minor, struct_size, caps;
    const char *name, *version, *description, *license, *extensions;
    int (*probe)(const unsigned char *, size_t, const char *);
    ak_status (*read)(ak_job *, const unsigned char *, size_t, ak_doc *);
    ak_status (*write)(ak_job *, const ak_doc *, ak_sink *);
    const ak_param *params;
} codec_1_3;

__attribute__((section(".note.animkit"), used, aligned(4))) static const ak_plugin_note note_1_3 = {
    8, 16, AK_NOTE_TYPE, AK_NOTE_NAME, 1, 3, (uint32_t)sizeof(codec_1_3), 0
};

static int probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "M13\n", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

/* One translation key per input byte after the magic, x being the byte. */
static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d)
{
    size_t count = n - 4;
    ak_clip *clip = ak_clip_add(d, "minor13");
    ak_track *t = clip ? ak_track_add(clip, "root") : NULL;
    ak_key *k = t && count ? ak_keys_append_uninit(t, AK_TRANSLATION, count) : NULL;
    if (!t || (count && !k))
        return ak_fail(j, AK_E_NOMEM, -1, "out of memory");
    for (size_t i = 0; i < count; i++) {
        k[i].tick = (int64_t)i;
        k[i].time = (double)i;
        k[i].v[0] = b[4 + i];
        k[i].v[1] = k[i].v[2] = k[i].v[3] = 0.0;
    }
    clip->duration = count ? (double)(count - 1) : 0.0;
    return AK_OK;
}

static const codec_1_3 codec = { 1, 3, sizeof(codec_1_3), AK_CAP_TRANSLATION, "minor13", "1", "ABI 1.3",
                                 "MIT", "m13", probe, rd, NULL, NULL };

__attribute__((visibility("default"))) const ak_codec *animkit_codec(void);
__attribute__((visibility("default"))) const ak_codec *animkit_codec(void) { return (const ak_codec *)&codec; }
