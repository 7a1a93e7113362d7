/* plugin.c - the gltf codec descriptor and its probe. */
#define _GNU_SOURCE /* memmem */
#include "gltf.h"

#include <string.h>

/* How far into a .gltf text the probe looks for the "asset" key. */
#define PROBE_WINDOW 65536u
/* A JSON object that names an "asset": surely glTF, a little less sure
 * than a magic number. */
#define PROBE_GLTF_TEXT 80

static int gltf_probe(const unsigned char *bytes, size_t size, const char *filename)
{
    if (size >= 12 && memcmp(bytes, "glTF", 4) == 0 && ak_load_u32(bytes + 4) == 2)
        return AK_PROBE_MAGIC;
    size_t i = 0;
    while (i < size && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\n' || bytes[i] == '\r'))
        i++;
    if (i < size && bytes[i] == '{' &&
        memmem(bytes, size < PROBE_WINDOW ? size : PROBE_WINDOW, "\"asset\"", 7))
        return PROBE_GLTF_TEXT;
    if (ak_filename_has_extension(filename, "glb") || ak_filename_has_extension(filename, "gltf"))
        return AK_PROBE_EXTENSION;
    return 0;
}

static const ak_param gltf_params[] = {
    { "container", AK_PARAM_CHOICE, AK_PARAM_WRITE, "glb|gltf", NULL,
      "binary .glb or .gltf with the buffer embedded (default: the output's extension)" },
    { "up", AK_PARAM_CHOICE, AK_PARAM_WRITE, "z|y|y-left", NULL,
      "the game's up axis, turned into glTF's +Y by the root node (default: the format's own)" },
    { "up", AK_PARAM_CHOICE, AK_PARAM_READ, "z|y|y-left", NULL,
      "the up axis to turn back to, for a glTF that animkit did not write (default: z)" },
    { NULL, 0, 0, NULL, NULL, NULL },
};

static const ak_codec gltf_descriptor = {
    AK_ABI_MAJOR,
    AK_ABI_MINOR,
    sizeof(ak_codec),
    AK_CAP_MULTI_CLIP | AK_CAP_TRANSLATION | AK_CAP_SCALE | AK_CAP_VISIBILITY | AK_CAP_EVENTS |
        AK_CAP_BONE_ID | AK_CAP_BONE_HASH | AK_CAP_WEIGHT | AK_CAP_BONE_NAME | AK_CAP_ANY_FORMAT |
        AK_CAP_SKELETON,
    "gltf",
    "1.0.0",
    "glTF 2.0 (.glb, .gltf): skeletons as node trees, clips as animations, exact data in extras",
    "MIT",
    "glb,gltf",
    gltf_probe,
    gltf_read,
    gltf_write,
    gltf_params,
};

const ak_codec *gltf_codec(void) { return &gltf_descriptor; }
