/* A plugin as it was built against ABI 1.6: the 1.6 ELF note, each track's
 * keys from 1.6's ak_track_keys_append_uninit() in one block, and stored
 * bytes from ak_doc_store(), which clears them (not with 1.7's
 * ak_doc_store_uninit() or ak_prop_set_bytes_uninit()). It must keep
 * loading and reading under a 1.7 core. */
#include <animkit/plugin.h>

#include <string.h>

/* ak_codec as of 1.6 (unchanged since 1.2), spelled out so that later
 * growth does not change what this plugin hands the core. */
typedef struct codec_1_6 {
    uint32_t abi_major, abi_minor, struct_size, caps;
    const char *name, *version, *description, *license, *extensions;
    int (*probe)(const unsigned char *, size_t, const char *);
    ak_status (*read)(ak_job *, const unsigned char *, size_t, ak_doc *);
    ak_status (*write)(ak_job *, const ak_doc *, ak_sink *);
    const ak_param *params;
} codec_1_6;

__attribute__((section(".note.animkit"), used, aligned(4))) static const ak_plugin_note note_1_6 = {
    8, 16, AK_NOTE_TYPE, AK_NOTE_NAME, 1, 6, (uint32_t)sizeof(codec_1_6), 0
};

static int probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "M16\n", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

/* One track per input byte after the magic, named by that byte, with one
 * rotation and one translation key whose x is the byte, appended in one
 * call and attached with one call to two stored copies of the byte; the
 * byte again as the track's bytes property "b". */
static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d)
{
    (void)j;
    ak_clip *clip = ak_clip_add(d, "minor16");
    if (!clip)
        return AK_E_NOMEM;
    for (size_t i = 4; i < n; i++) {
        ak_track *t = ak_track_add_n(clip, (const char *)b + i, 1);
        unsigned char *pair = t ? ak_doc_store(d, NULL, 2) : NULL;
        size_t counts[AK_CHANNELS] = { 1, 1, 0, 0 };
        ak_key *first[AK_CHANNELS];
        if (!pair || ak_track_keys_append_uninit(t, counts, first) != AK_OK)
            return AK_E_NOMEM;
        pair[0] = pair[1] = b[i];
        for (int c = 0; c < 2; c++) {
            ak_key *k = first[c];
            k->time = 0;
            k->tick = 0;
            k->v[0] = b[i];
            k->v[1] = k->v[2] = 0;
            k->v[3] = c == AK_ROTATION ? 1 : 0;
        }
        if (ak_keys_set_raw(first[AK_ROTATION], 2, pair, 1, 1) != AK_OK ||
            ak_prop_set_bytes(d, &t->props, "b", b + i, 1) != AK_OK)
            return AK_E_NOMEM;
    }
    return AK_OK;
}

static const codec_1_6 codec = { 1, 6, sizeof(codec_1_6), AK_CAP_TRANSLATION, "minor16", "1",
                                 "ABI 1.6", "MIT", "m16", probe, rd, NULL, NULL };

__attribute__((visibility("default"))) const ak_codec *animkit_codec(void);
__attribute__((visibility("default"))) const ak_codec *animkit_codec(void) { return (const ak_codec *)&codec; }
