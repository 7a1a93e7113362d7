/* placeholder codec to prove the build template */
#include "ifp.h"
#include <string.h>
static int probe(const unsigned char *b, size_t n, const char *f) { (void)f; return n >= 4 && !memcmp(b, "ANP3", 4) ? AK_PROBE_MAGIC : 0; }
static ak_status rd(ak_job *job, const unsigned char *b, size_t n, ak_doc *doc) { (void)b; (void)n; (void)doc; return ak_fail(job, AK_E_UNSUPPORTED, 0, "not yet"); }
static const ak_codec codec = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "ifp", "0.0.1", "GTA", "MIT", "ifp", probe, rd, NULL };
const ak_codec *ifp_codec(void) { return &codec; }
