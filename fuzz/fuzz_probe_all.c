/* fuzz_probe_all.c - what `animkit` does without --format: probe every
 * plugin, read with the winner; then convert the document into every
 * format that can write, and read each conversion back with its own
 * reader (a writer must handle documents from other formats). */
#include "fuzz_common.h"

#include <stdint.h>

static ak_registry *reg;
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    reg = fuzz_registry();
    devnull = fopen("/dev/null", "w");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    ak_probe_result pr;
    ak_status st = ak_probe(reg, data, size, NULL, &pr, &rep);
    FUZZ_CHECK(st == AK_OK || st == AK_E_NOFORMAT || st == AK_E_AMBIGUOUS, "probe: %s", ak_status_name(st));
    /* Two plugins both claiming the magic of one file is a probe bug. */
    FUZZ_CHECK(!(st == AK_E_AMBIGUOUS && pr.score >= AK_PROBE_MAGIC), "%s", rep.message);

    ak_options o = { sizeof o, NULL, NULL, NULL, 0, 0 };
    memset(&rep, 0, sizeof rep);
    ak_doc *doc = NULL;
    st = ak_read(reg, data, size, &o, &doc, &rep);
    if (st != AK_OK) {
        FUZZ_CHECK(fuzz_clean_read_error(st) || st == AK_E_NOFORMAT || st == AK_E_AMBIGUOUS,
                   "read ended in %s: %s", ak_status_name(st), rep.message);
        FUZZ_CHECK(doc == NULL, "a failed read handed out a document");
        return 0;
    }
    fuzz_walk(doc, devnull);
    for (size_t i = 0; i < ak_registry_count(reg); i++) {
        const ak_codec *c = ak_registry_plugin(reg, i)->codec;
        /* The per-plugin targets cover same-format writes of what a codec
         * read itself. A container (json) may hand over a document that
         * claims another format, with that format's props and stored key
         * bytes taken from the input: that one is written here too. */
        if (c == pr.codec)
            continue;
        /* A format that holds one clip gets the first clip alone. */
        if (doc->clip_count > 1 && !(c->caps & AK_CAP_MULTI_CLIP)) {
            ak_doc *one = ak_doc_clone(doc);
            FUZZ_CHECK(one != NULL, "clone failed");
            while (one->clip_count > 1)
                ak_clip_remove(one, one->clip_count - 1);
            fuzz_roundtrip(reg, c, one, NULL, 0);
            ak_doc_free(one);
        } else {
            fuzz_roundtrip(reg, c, doc, NULL, 0);
        }
    }
    ak_doc_free(doc);
    return 0;
}
