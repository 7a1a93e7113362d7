/* A plugin as it was built against ABI 1.2: a 1.2 descriptor with declared
 * parameters, the 1.2 ELF note, and the 1.2 bulk key calls. It must keep
 * loading (without a warning) and reading after the core grows. */
#include <animkit/plugin.h>

#include <string.h>

/* The 1.2 descriptor and note, spelled out so that later growth of ak_codec
 * does not change what this plugin hands the core. */
typedef struct codec_1_2 {
    uint32_t abi_major, abi_minor, struct_size, caps;
    const char *name, *version, *description, *license, *extensions;
    int (*probe)(const unsigned char *, size_t, const char *);
    ak_status (*read)(ak_job *, const unsigned char *, size_t, ak_doc *);
    ak_status (*write)(ak_job *, const ak_doc *, ak_sink *);
    const ak_param *params;
} codec_1_2;

__attribute__((section(".note.animkit"), used, aligned(4))) static const ak_plugin_note note_1_2 = {
    8, 16, AK_NOTE_TYPE, AK_NOTE_NAME, 1, 2, (uint32_t)sizeof(codec_1_2), 0
};

static int probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "M12\n", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

/* One rotation key per input byte after the magic, its stored byte being
 * that input byte and its w the byte's value. */
static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d)
{
    size_t count = n - 4;
    ak_clip *clip = ak_clip_add(d, "minor12");
    ak_track *t = clip ? ak_track_add(clip, "root") : NULL;
    ak_key *k = t ? ak_keys_append(t, AK_ROTATION, count) : NULL;
    const unsigned char *stored = k ? ak_doc_store(d, b + 4, count) : NULL;
    if (!stored)
        return ak_fail(j, AK_E_NOMEM, -1, "out of memory");
    for (size_t i = 0; i < count; i++) {
        k[i].tick = (int64_t)i;
        k[i].time = (double)i;
        k[i].v[3] = b[4 + i];
    }
    return ak_keys_set_raw(k, count, stored, 1, 1);
}

static const ak_param params[] = { { "level", AK_PARAM_INT, AK_PARAM_READ, NULL, "1", "unused" },
                                   { NULL, AK_PARAM_STRING, 0, NULL, NULL, NULL } };

static const codec_1_2 codec = { 1, 2, sizeof(codec_1_2), 0, "minor12", "1", "ABI 1.2",
                                 "MIT", "m12", probe, rd, NULL, params };

__attribute__((visibility("default"))) const ak_codec *animkit_codec(void);
__attribute__((visibility("default"))) const ak_codec *animkit_codec(void) { return (const ak_codec *)&codec; }
