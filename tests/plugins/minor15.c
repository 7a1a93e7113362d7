/* A plugin as it was built against ABI 1.5: the 1.5 ELF note, tracks named
 * with 1.5's ak_track_add_n() straight from the input, and each channel's
 * keys appended on their own (not with 1.6's ak_track_keys_append_uninit).
 * It must keep loading and reading under a 1.6 core. */
#include <animkit/plugin.h>

#include <string.h>

/* ak_codec as of 1.5 (unchanged since 1.2), spelled out so that later
 * growth does not change what this plugin hands the core. */
typedef struct codec_1_5 {
    uint32_t abi_major, abi_minor, struct_size, caps;
    const char *name, *version, *description, *license, *extensions;
    int (*probe)(const unsigned char *, size_t, const char *);
    ak_status (*read)(ak_job *, const unsigned char *, size_t, ak_doc *);
    ak_status (*write)(ak_job *, const ak_doc *, ak_sink *);
    const ak_param *params;
} codec_1_5;

__attribute__((section(".note.animkit"), used, aligned(4))) static const ak_plugin_note note_1_5 = {
    8, 16, AK_NOTE_TYPE, AK_NOTE_NAME, 1, 5, (uint32_t)sizeof(codec_1_5), 0
};

static int probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "M15\n", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

/* One track per input byte after the magic, named by that byte (one byte
 * of the input, no terminator), with the byte as one rotation key's x and
 * one translation key's x, both attached to the byte as stored bytes. */
static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d)
{
    (void)j;
    ak_clip *clip = ak_clip_add(d, "minor15");
    if (!clip)
        return AK_E_NOMEM;
    unsigned char *stored = n > 4 ? ak_doc_store(d, b + 4, n - 4) : NULL;
    if (n > 4 && !stored)
        return AK_E_NOMEM;
    for (size_t i = 4; i < n; i++) {
        ak_track *t = ak_track_add_n(clip, (const char *)b + i, 1);
        ak_key *q = t ? ak_keys_append_uninit(t, AK_ROTATION, 1) : NULL;
        ak_key *p = q ? ak_keys_append_uninit(t, AK_TRANSLATION, 1) : NULL;
        if (!p)
            return AK_E_NOMEM;
        q->time = p->time = 0;
        q->tick = p->tick = 0;
        q->v[0] = p->v[0] = b[i];
        q->v[1] = q->v[2] = p->v[1] = p->v[2] = p->v[3] = 0;
        q->v[3] = 1;
        if (ak_keys_set_raw(q, 1, stored + i - 4, 1, 1) != AK_OK || ak_keys_set_raw(p, 1, stored + i - 4, 1, 1) != AK_OK)
            return AK_E_NOMEM;
    }
    return AK_OK;
}

static const codec_1_5 codec = { 1, 5, sizeof(codec_1_5), AK_CAP_TRANSLATION, "minor15", "1",
                                 "ABI 1.5", "MIT", "m15", probe, rd, NULL, NULL };

__attribute__((visibility("default"))) const ak_codec *animkit_codec(void);
__attribute__((visibility("default"))) const ak_codec *animkit_codec(void) { return (const ak_codec *)&codec; }
