/* A second reader of "AKM1" files with the same score as akm, to make a
 * probe tie; it reads nothing else. */
#include <animkit/plugin.h>

#include <string.h>

static int probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "AKM1", 4) == 0 ? AK_PROBE_MAGIC : 0;
}
static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d)
{
    (void)b; (void)n;
    ak_clip *c = ak_clip_add(d, "rival");
    return c ? AK_OK : ak_fail(j, AK_E_NOMEM, -1, "out of memory");
}

static const ak_codec codec = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "rival", "1", "ties with akm", "MIT", "rv", probe, rd, NULL, NULL };
AK_PLUGIN_ENTRY(codec);
