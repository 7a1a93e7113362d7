/* A plugin built for an ABI major this core does not speak. Its note says
 * so, and the core must refuse it from the note alone: its constructor,
 * which leaves a file at $AK_TEST_CTOR_MARK, must never run. */
#include <animkit/plugin.h>

#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void ran(void)
{
    const char *mark = getenv("AK_TEST_CTOR_MARK");
    FILE *fp = mark ? fopen(mark, "w") : NULL;
    if (fp)
        fclose(fp);
}

AK_PLUGIN_NOTE_(AK_ABI_MAJOR + 1, 0)

static int probe(const unsigned char *b, size_t n, const char *f) { (void)b; (void)n; (void)f; return 0; }
static ak_status rd(ak_job *j, const unsigned char *b, size_t n, ak_doc *d) { (void)b; (void)n; (void)d; return ak_fail(j, AK_E_DATA, 0, "never"); }

static const ak_codec codec = { AK_ABI_MAJOR + 1, 0, sizeof(ak_codec), 0, "badabi", "1", "wrong ABI", "MIT", "bad", probe, rd, NULL, NULL };
const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return &codec; }
