/* plugin.c - the ifp codec descriptor and its probe. */
#include "ifp.h"

#include <string.h>

static int ifp_probe(const unsigned char *bytes, size_t size, const char *filename)
{
    if (size >= 4 && ifp_variant_of((const char *)bytes) >= 0)
        return AK_PROBE_MAGIC;
    if (ak_filename_has_extension(filename, "ifp"))
        return AK_PROBE_EXTENSION;
    return 0;
}

static const ak_param ifp_params[] = {
    { "variant", AK_PARAM_CHOICE, AK_PARAM_WRITE, "ANP3|ANP2|ANPK|ANLF", NULL,
      "output variant (default: the document's own, else ANP3)" },
    { NULL, 0, 0, NULL, NULL, NULL },
};

static const ak_codec ifp_descriptor = {
    AK_ABI_MAJOR,
    AK_ABI_MINOR,
    sizeof(ak_codec),
    AK_CAP_MULTI_CLIP | AK_CAP_TRANSLATION | AK_CAP_SCALE | AK_CAP_BONE_ID | AK_CAP_BONE_NAME,
    "ifp",
    "1.0.0",
    "GTA III / Vice City / San Andreas animation packages (ANP3, ANP2, ANPK, ANLF)",
    "MIT",
    "ifp",
    ifp_probe,
    ifp_read,
    ifp_write,
    ifp_params,
};

const ak_codec *ifp_codec(void) { return &ifp_descriptor; }
