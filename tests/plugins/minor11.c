/* A plugin as it was built against ABI 1.1: its descriptor ends at `write`
 * and it takes scratch memory, the one thing 1.1 added. It must keep
 * loading and working after the core grows. */
#include <animkit/plugin.h>

#include <string.h>

/* The 1.1 descriptor, spelled out so that later growth of ak_codec does not
 * change what this plugin hands the core. */
typedef struct codec_1_1 {
    uint32_t abi_major, abi_minor, struct_size, caps;
    const char *name, *version, *description, *license, *extensions;
    int (*probe)(const unsigned char *, size_t, const char *);
    ak_status (*read)(ak_job *, const unsigned char *, size_t, ak_doc *);
    ak_status (*write)(ak_job *, const ak_doc *, ak_sink *);
} codec_1_1;

static int probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "M11\n", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d)
{
    (void)b;
    char *scratch = ak_job_alloc(j, n, 1);
    if (!scratch)
        return AK_E_NOMEM;
    ak_clip *clip = ak_clip_add(d, "minor11");
    if (!clip || !ak_track_add(clip, "root"))
        return ak_fail(j, AK_E_NOMEM, -1, "out of memory");
    return AK_OK;
}

static const codec_1_1 codec = { AK_ABI_MAJOR, 1, sizeof(codec_1_1), 0, "minor11", "1", "ABI 1.1",
                                 "MIT", "m11", probe, rd, NULL };
const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return (const ak_codec *)&codec; }
