/* A plugin as it was built against ABI 1.4: the 1.4 ELF note and the 1.4
 * outline calls. It names its tracks with ak_track_add(), not 1.5's
 * ak_track_add_n(), and must keep loading and reading under a 1.5 core,
 * in full and as an outline. */
#include <animkit/plugin.h>

#include <string.h>

/* ak_codec as of 1.4 (unchanged since 1.2), spelled out so that later
 * growth does not change what this plugin hands the core. */
typedef struct codec_1_4 {
    uint32_t abi_major, abi_minor, struct_size, caps;
    const char *name, *version, *description, *license, *extensions;
    int (*probe)(const unsigned char *, size_t, const char *);
    ak_status (*read)(ak_job *, const unsigned char *, size_t, ak_doc *);
    ak_status (*write)(ak_job *, const ak_doc *, ak_sink *);
    const ak_param *params;
} codec_1_4;

__attribute__((section(".note.animkit"), used, aligned(4))) static const ak_plugin_note note_1_4 = {
    8, 16, AK_NOTE_TYPE, AK_NOTE_NAME, 1, 4, (uint32_t)sizeof(codec_1_4), 0
};

static int probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "M14\n", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

/* One track per input byte after the magic, named "b" and the byte's
 * letter, with that byte as its one translation key; an outline counts
 * the key instead. */
static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d)
{
    ak_clip *clip = ak_clip_add(d, "minor14");
    if (!clip)
        return AK_E_NOMEM;
    for (size_t i = 4; i < n; i++) {
        char name[3] = { 'b', (char)b[i], '\0' };
        ak_track *t = ak_track_add(clip, name);
        if (!t)
            return AK_E_NOMEM;
        if (ak_job_outline(j)) {
            if (ak_keys_outline(t, AK_TRANSLATION, 1) != AK_OK)
                return ak_fail(j, AK_E_USAGE, -1, "outline refused");
            continue;
        }
        ak_key *k = ak_key_add(t, AK_TRANSLATION);
        if (!k)
            return AK_E_NOMEM;
        k->v[0] = b[i];
    }
    return AK_OK;
}

static const codec_1_4 codec = { 1, 4, sizeof(codec_1_4), AK_CAP_TRANSLATION, "minor14", "1", "ABI 1.4",
                                 "MIT", "m14", probe, rd, NULL, NULL };

__attribute__((visibility("default"))) const ak_codec *animkit_codec(void);
__attribute__((visibility("default"))) const ak_codec *animkit_codec(void) { return (const ak_codec *)&codec; }
