/* plugin.c - the ani codec's descriptor and probe. */
#include "ani.h"

#include <string.h>

int ani_probe(const unsigned char *bytes, size_t size, const char *filename)
{
    if (size >= 4 && memcmp(bytes, "ANI\0", 4) == 0)
        return AK_PROBE_MAGIC;
    /* ".ani" is also the Windows animated cursor (a RIFF file): not ours. */
    if (size >= 4 && memcmp(bytes, "RIFF", 4) == 0)
        return 0;
    return ak_filename_has_extension(filename, "ani") ? AK_PROBE_EXTENSION : 0;
}

static const ak_param ani_params[] = {
    { "variant", AK_PARAM_CHOICE, AK_PARAM_WRITE, "4000|4001|4002", NULL,
      "output version (default: the document's own, else 4000, lossless floats)" },
    { NULL, 0, 0, NULL, NULL, NULL },
};

static const ak_codec codec = {
    AK_ABI_MAJOR,
    AK_ABI_MINOR,
    sizeof(ak_codec),
    AK_CAP_TRANSLATION | AK_CAP_EVENTS | AK_CAP_WEIGHT | AK_CAP_BONE_NAME,
    "ani",
    "1.0.0",
    "io3DEngine (Lost Saga) animation, versions 4000/4001/4002",
    "MIT",
    "ani",
    ani_probe,
    ani_read,
    ani_write,
    ani_params,
};

const ak_codec *ani_codec(void) { return &codec; }
