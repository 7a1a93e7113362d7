/* A plugin as it was built against ABI 1.0: an older minor must keep
 * loading after the core grows. */
#include <animkit/plugin.h>

static int probe(const unsigned char *b, size_t n, const char *f) { (void)b; (void)n; (void)f; return 0; }
static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d) { (void)b; (void)n; (void)d; return ak_fail(j, AK_E_DATA, 0, "never"); }

static const ak_codec codec = { AK_ABI_MAJOR, 0, sizeof(ak_codec), 0, "oldminor", "1", "ABI 1.0", "MIT", "om", probe, rd, NULL, NULL };
const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return &codec; }
