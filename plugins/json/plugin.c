/* plugin.c - the json codec descriptor and its probe. */
#include "json.h"

#include <string.h>
#include <strings.h>

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
    if (filename) {
        const char *dot = strrchr(filename, '.');
        const char *slash = strrchr(filename, '/');
        if (dot && (!slash || dot > slash) && strcasecmp(dot + 1, "json") == 0)
            return AK_PROBE_EXTENSION;
    }
    return 0;
}

uint64_t json_key_check(int64_t tick, double time, const double *v, int width)
{
    double vals[6];
    int n = 0;
    vals[n++] = time;
    for (int c = 0; c < width && c < 4; c++)
        vals[n++] = v[c];
    uint64_t h = 0xcbf29ce484222325ull;
    uint64_t words[6];
    words[0] = (uint64_t)tick;
    for (int i = 0; i < n; i++) {
        if (vals[i] != vals[i])
            words[i + 1] = 0x7ff8000000000000ull;
        else
            memcpy(&words[i + 1], &vals[i], sizeof words[i + 1]);
    }
    for (int w = 0; w <= n; w++)
        for (int i = 0; i < 8; i++) {
            h ^= (words[w] >> (8 * i)) & 0xffu;
            h *= 0x100000001b3ull;
        }
    return h;
}

static const ak_codec json_descriptor = {
    AK_ABI_MAJOR,
    AK_ABI_MINOR,
    sizeof(ak_codec),
    AK_CAP_MULTI_CLIP | AK_CAP_TRANSLATION | AK_CAP_SCALE | AK_CAP_VISIBILITY | AK_CAP_EVENTS |
        AK_CAP_BONE_ID | AK_CAP_BONE_HASH | AK_CAP_WEIGHT | AK_CAP_BONE_NAME,
    "json",
    "1.0.0",
    "animkit's own JSON form (schema 1): every field, stored bytes and ticks, for editing by hand",
    "MIT",
    "json",
    json_probe,
    json_read,
    json_write,
};

const ak_codec *json_codec(void) { return &json_descriptor; }
