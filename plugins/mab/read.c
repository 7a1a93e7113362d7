/* read.c - the read entry: version dispatch, the clip, props helpers. */
#include "mab.h"

#include <string.h>

ak_status mab_oom(mab_ctx *c)
{
    if (ak_job_failed(c->job))
        return AK_E_NOMEM;
    return ak_fail(c->job, AK_E_NOMEM, -1, "out of memory (or over the document memory limit)");
}

int mab_prop_int(mab_ctx *c, ak_props *props, const char *key, int64_t v)
{
    if (ak_prop_set_int(c->doc, props, key, v) == AK_OK)
        return 1;
    mab_oom(c);
    return 0;
}

int mab_prop_float(mab_ctx *c, ak_props *props, const char *key, double v)
{
    if (ak_prop_set_float(c->doc, props, key, v) == AK_OK)
        return 1;
    mab_oom(c);
    return 0;
}

int mab_prop_bytes(mab_ctx *c, ak_props *props, const char *key, size_t off, size_t n)
{
    if (off > c->size || n > c->size - off)
        return ak_fail(c->job, AK_E_DATA, (int64_t)off, "%s: %zu bytes do not fit in the file", key, n),
               0;
    if (ak_prop_set_bytes(c->doc, props, key, c->bytes + off, n) == AK_OK)
        return 1;
    mab_oom(c);
    return 0;
}

int mab_prop_string(mab_ctx *c, ak_props *props, const char *key, const char *v)
{
    if (ak_prop_set_string(c->doc, props, key, v) == AK_OK)
        return 1;
    mab_oom(c);
    return 0;
}

ak_status mab_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    mab_ctx c = { job, bytes, size, doc, NULL };
    ak_reader r;
    ak_reader_init(&r, job, bytes, size);
    if (!ak_need(&r, 16, "16-byte .mab wrapper"))
        return AK_E_DATA;
    unsigned version = ak_u16(&r);
    const char *name = mab_version_name(version);
    if (!name)
        return ak_fail(job, AK_E_UNSUPPORTED, 0, "unknown .mab version 0x%04X", version);
    if (version == MAB_V_PRIMAL)
        return ak_fail(job, AK_E_UNSUPPORTED, 0,
                       "%s .mab (version 0x%04X) is not supported: its layout is not documented", name,
                       version);
    char cname[256];
    ak_path_stem(ak_job_filename(job), cname, sizeof cname);
    c.clip = ak_clip_add(doc, cname);
    if (!c.clip)
        return mab_oom(&c);
    if (!mab_prop_int(&c, &doc->props, "version", version) || !mab_prop_string(&c, &doc->props, "game", name))
        return AK_E_NOMEM;
    switch (version) {
    case MAB_V_FC2:
    case MAB_V_FC3:
    case MAB_V_FC3BD:
        return mab_read_family_s(&c, version);
    default:
        return mab_read_family_d(&c, version);
    }
}
