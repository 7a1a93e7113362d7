/* plugin.c - the anm codec descriptor and probe. */
#include "anm.h"

#include <string.h>

static int anm_probe(const unsigned char *bytes, size_t size, const char *filename)
{
    if (size >= 4 && memcmp(bytes, "EANM", 4) == 0)
        return AK_PROBE_MAGIC;
    if (ak_filename_has_extension(filename, "anm"))
        return 10; /* many engines use .anm: a weak guess only */
    return 0;
}

static const ak_param anm_params[] = {
    { "fps", AK_PARAM_NUMBER, AK_PARAM_READ, NULL, ANM_TEXT(ANM_FPS_ASSUMED),
      "frames per second of the file's frame numbers (.anm stores none)" },
    { "fps", AK_PARAM_NUMBER, AK_PARAM_WRITE, NULL, NULL,
      "frames per second to write frame numbers at (default: the rate read, else " ANM_TEXT(ANM_FPS_ASSUMED) ")" },
    { "variant", AK_PARAM_CHOICE, AK_PARAM_WRITE, "4.0|6.0|6.1|frmn|frm2|frm3", NULL,
      "output version (4.0 writes FRMN, 6.0/6.1 FRM2) or frame chunk (default: the document's own, else 6.0)" },
    { NULL, 0, 0, NULL, NULL, NULL },
};

static const ak_codec anm_descriptor = {
    AK_ABI_MAJOR,
    AK_ABI_MINOR,
    sizeof(ak_codec),
    AK_CAP_TRANSLATION | AK_CAP_VISIBILITY | AK_CAP_BONE_NAME | AK_CAP_SCALE,
    "anm",
    "1.0.0",
    "GEM engine animation (EANM 4.0 FRMN, 6.0/6.1 FRM2, FRM3): Men of War, Gates of Hell",
    "MIT",
    "anm",
    anm_probe,
    anm_read,
    anm_write,
    anm_params,
};

const ak_codec *anm_codec(void) { return &anm_descriptor; }
