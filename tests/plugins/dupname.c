/* A plugin that claims the name of the example plugin, akm. */
#include <animkit/plugin.h>

static int probe(const unsigned char *b, size_t n, const char *f) { (void)b; (void)n; (void)f; return 0; }
static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d) { (void)b; (void)n; (void)d; return ak_fail(j, AK_E_DATA, 0, "never"); }

static const ak_codec codec = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "akm", "9", "impostor", "MIT", "akm", probe, rd, NULL, NULL };
AK_PLUGIN_ENTRY(codec);
