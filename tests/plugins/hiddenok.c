/* Built with -fvisibility=hidden like hidden.c, but with AK_PLUGIN_ENTRY:
 * it must load, without the no-note warning. */
#include <animkit/plugin.h>

#include <string.h>

static int probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "HOK1", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d)
{
    (void)b; (void)n;
    return ak_clip_add(d, "hiddenok") ? AK_OK : ak_fail(j, AK_E_NOMEM, -1, "out of memory");
}

static const ak_codec codec = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "hiddenok", "1",
                                "entry macro under -fvisibility=hidden", "MIT", "hok", probe, rd, NULL, NULL };
AK_PLUGIN_ENTRY(codec);
