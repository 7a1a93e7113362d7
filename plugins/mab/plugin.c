/* plugin.c - the mab codec descriptor and its probe. */
#include "mab.h"

#include <math.h>
#include <string.h>

const char *mab_version_name(unsigned version)
{
    switch (version) {
    case MAB_V_FC2: return "Far Cry 2";
    case MAB_V_FC3: return "Far Cry 3";
    case MAB_V_FC3BD: return "Far Cry 3 Blood Dragon";
    case MAB_V_FC4: return "Far Cry 4";
    case MAB_V_PRIMAL: return "Far Cry Primal";
    case MAB_V_FC5: return "Far Cry 5 / New Dawn";
    case MAB_V_WD1: return "Watch Dogs";
    case MAB_V_WD2: return "Watch Dogs 2";
    case MAB_V_WDL: return "Watch Dogs Legion";
    default: return NULL;
    }
}

/* 'aNi' or 'aNp' at `off`. */
static int anim_tag_at(const unsigned char *b, size_t n, size_t off)
{
    return off + 3 <= n && b[off] == 'a' && b[off + 1] == 'N' && (b[off + 2] == 'i' || b[off + 2] == 'p');
}

/* FC3: the duration is finite and the section table points inside. */
static int fc3_plausible(const unsigned char *b, size_t n)
{
    if (n < 0xEC)
        return 0;
    float d = ak_bits_f32(ak_load_u32(b + 0xC4));
    if (!isfinite(d) || d < 0.0f || d > 1.0e6f)
        return 0;
    for (size_t i = 0; i < 9; i++) {
        uint32_t v = ak_load_u32(b + 0xC8 + 4 * i);
        if (v != 0 && (v < 0xDC || (uint64_t)v + 0x10 > n))
            return 0;
    }
    return 1;
}

static int probe(const unsigned char *b, size_t n, const char *filename)
{
    int ext = ak_filename_has_extension(filename, "mab");
    int weak = ext ? 40 : 10; /* a known version word alone */
    if (n < 16)
        return ext ? AK_PROBE_EXTENSION : 0;
    unsigned v = ak_load_u16(b);
    switch (v) {
    case MAB_V_WDL:
    case MAB_V_WD2:
        return anim_tag_at(b, n, 0x20) ? AK_PROBE_MAGIC : weak;
    case MAB_V_WD1:
        return anim_tag_at(b, n, 0x14) ? AK_PROBE_MAGIC : weak;
    case MAB_V_FC4:
        return anim_tag_at(b, n, 0x18) ? AK_PROBE_MAGIC : weak;
    case MAB_V_FC5: {
        unsigned bones;
        return mab_fc5_find_block(b, n, 65536, &bones) != (size_t)-1 ? AK_PROBE_MAGIC : weak;
    }
    case MAB_V_FC2:
        return n >= 0x84 && memcmp(b + 0x80, "AnD\x1A", 4) == 0 ? AK_PROBE_MAGIC : weak;
    case MAB_V_FC3:
    case MAB_V_FC3BD:
        return fc3_plausible(b, n) ? 60 : weak;
    case MAB_V_PRIMAL:
        return weak;
    default:
        return ext ? AK_PROBE_EXTENSION : 0;
    }
}

/* None: bone names come from the host's dictionary (--bones). */
static const ak_param mab_params[] = { { NULL, 0, 0, NULL, NULL, NULL } };

static const ak_codec codec = {
    AK_ABI_MAJOR,
    AK_ABI_MINOR,
    sizeof(ak_codec),
    AK_CAP_TRANSLATION | AK_CAP_BONE_HASH | AK_CAP_BONE_ID,
    "mab",
    "0.1.0",
    "Dunia / Disrupt skeletal animation (Far Cry 2-5, Watch Dogs 1, 2, Legion), read only",
    "MIT",
    "mab",
    probe,
    mab_read,
    NULL,
    mab_params,
};

const ak_codec *mab_codec(void) { return &codec; }
