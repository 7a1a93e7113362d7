/* plugin.c - the dff codec descriptor and its probe. */
#include "dff.h"

#include <string.h>

/* 1 if a chunk header of `type` starts at `at` and its body fits in `end`. */
static int chunk_at(const unsigned char *b, size_t at, size_t end, uint32_t type, size_t *body_end)
{
    if (at > end || end - at < DFF_HEADER || ak_load_u32(b + at) != type)
        return 0;
    uint32_t size = ak_load_u32(b + at + 4);
    if (size > end - at - DFF_HEADER)
        return 0;
    *body_end = at + DFF_HEADER + size;
    return 1;
}

/* A Clump (after an optional UV Animation Dictionary) that fits the file,
 * with a RenderWare 3 stamp, whose first children are a Struct and a
 * Frame List that fit the Clump. */
static int looks_like_clump(const unsigned char *b, size_t size)
{
    size_t at = 0, end;
    if (chunk_at(b, 0, size, DFF_UVANIMDICT, &end))
        at = end;
    size_t clump_end, struct_end, list_end;
    if (!chunk_at(b, at, size, DFF_CLUMP, &clump_end))
        return 0;
    uint32_t version = dff_stamp_version(ak_load_u32(b + at + 8));
    if (version < 0x30000u || version > 0x3FFFFu)
        return 0;
    at += DFF_HEADER;
    if (!chunk_at(b, at, clump_end, DFF_STRUCT, &struct_end) || struct_end - at - DFF_HEADER < 4)
        return 0;
    return chunk_at(b, struct_end, clump_end, DFF_FRAMELIST, &list_end);
}

static int dff_probe(const unsigned char *bytes, size_t size, const char *filename)
{
    if (looks_like_clump(bytes, size))
        return AK_PROBE_MAGIC;
    if (ak_filename_has_extension(filename, "dff"))
        return AK_PROBE_EXTENSION;
    return 0;
}

/* None: every parameter given to it is checked (and unknown). */
static const ak_param dff_params[] = { { NULL, 0, 0, NULL, NULL, NULL } };

static const ak_codec dff_descriptor = {
    AK_ABI_MAJOR,
    AK_ABI_MINOR,
    sizeof(ak_codec),
    AK_CAP_SKELETON | AK_CAP_BONE_ID | AK_CAP_BONE_NAME,
    "dff",
    "1.0.0",
    "GTA III / Vice City / San Andreas RenderWare models (skeleton only, read-only)",
    "MIT",
    "dff",
    dff_probe,
    dff_read,
    NULL,
    dff_params,
};

const ak_codec *dff_codec(void) { return &dff_descriptor; }
