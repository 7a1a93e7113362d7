/* plugin.c - the bvh codec descriptor, its parameters and its probe. */
#include "bvh.h"

#include <string.h>

/* "HIERARCHY" after optional whitespace (and a UTF-8 byte order mark). */
static int bvh_probe(const unsigned char *bytes, size_t size, const char *filename)
{
    static const char magic[] = "HIERARCHY";
    size_t i = 0;
    if (size >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < size && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' || bytes[i] == '\n'))
        i++;
    if (size - i >= sizeof magic - 1 && memcmp(bytes + i, magic, sizeof magic - 1) == 0)
        return AK_PROBE_MAGIC;
    if (ak_filename_has_extension(filename, "bvh"))
        return AK_PROBE_EXTENSION;
    return 0;
}

static const ak_param bvh_params[] = {
    { "scale", AK_PARAM_NUMBER, AK_PARAM_READ | AK_PARAM_WRITE, NULL, "1",
      "document lengths per file unit: 0.01 reads a centimetre file in metres (writing divides)" },
    { "fps", AK_PARAM_NUMBER, AK_PARAM_WRITE, NULL, NULL,
      "frames per second to sample at (default: the clip's frame rate, else 30)" },
    { NULL, 0, 0, NULL, NULL, NULL },
};

static const ak_codec bvh_descriptor = {
    AK_ABI_MAJOR,
    AK_ABI_MINOR,
    sizeof(ak_codec),
    AK_CAP_TRANSLATION | AK_CAP_BONE_NAME | AK_CAP_SKELETON,
    "bvh",
    "1.0.0",
    "Biovision Hierarchy motion capture (skeleton and Euler-angle channels), text",
    "MIT",
    "bvh",
    bvh_probe,
    bvh_read,
    bvh_write,
    bvh_params,
};

const ak_codec *bvh_codec(void) { return &bvh_descriptor; }
