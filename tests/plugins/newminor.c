/* A plugin built against a newer minor ABI than this core provides. */
#include <animkit/plugin.h>

static int probe(const unsigned char *b, size_t n, const char *f) { (void)b; (void)n; (void)f; return 0; }
static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d) { (void)b; (void)n; (void)d; return ak_fail(j, AK_E_DATA, 0, "never"); }

static const ak_codec codec = { AK_ABI_MAJOR, AK_ABI_MINOR + 1, sizeof(ak_codec), 0, "newminor", "1", "newer minor", "MIT", "nm", probe, rd, NULL, NULL };
/* The note as the macro of a newer header would write it. */
AK_PLUGIN_NOTE_(AK_ABI_MAJOR, AK_ABI_MINOR + 1)
const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return &codec; }
