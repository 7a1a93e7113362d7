/* plugin.c - the json codec descriptor and its probe. */
#include "json.h"

#include <string.h>

static size_t skip_ws(const unsigned char *b, size_t size, size_t i)
{
    while (i < size && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
        i++;
    return i;
}

/* `{"animkit":` after optional whitespace (also between the tokens). */
static int json_probe(const unsigned char *bytes, size_t size, const char *filename)
{
    static const char key[] = "\"animkit\"";
    size_t i = skip_ws(bytes, size, 0);
    if (i < size && bytes[i] == '{') {
        i = skip_ws(bytes, size, i + 1);
        if (size - i >= sizeof key - 1 && memcmp(bytes + i, key, sizeof key - 1) == 0) {
            i = skip_ws(bytes, size, i + sizeof key - 1);
            if (i < size && bytes[i] == ':')
                return AK_PROBE_MAGIC;
        }
    }
    if (ak_filename_has_extension(filename, "json"))
        return AK_PROBE_EXTENSION;
    return 0;
}

/* None: every parameter given to it is checked (and unknown). */
static const ak_param json_params[] = { { NULL, 0, 0, NULL, NULL, NULL } };

static const ak_codec json_descriptor = {
    AK_ABI_MAJOR,
    AK_ABI_MINOR,
    sizeof(ak_codec),
    AK_CAP_MULTI_CLIP | AK_CAP_TRANSLATION | AK_CAP_SCALE | AK_CAP_VISIBILITY | AK_CAP_EVENTS |
        AK_CAP_BONE_ID | AK_CAP_BONE_HASH | AK_CAP_WEIGHT | AK_CAP_BONE_NAME | AK_CAP_ANY_FORMAT |
        AK_CAP_SKELETON,
    "json",
    "1.0.0",
    "animkit's own JSON form (schema 1): every field, stored bytes and ticks, for editing by hand",
    "MIT",
    "json",
    json_probe,
    json_read,
    json_write,
    json_params,
};

const ak_codec *json_codec(void) { return &json_descriptor; }
