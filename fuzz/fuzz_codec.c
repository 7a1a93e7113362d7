/* fuzz_codec.c - one plugin, built once per plugin with -DFUZZ_PLUGIN=name:
 * probe, read (the format forced, as `--format` does), walk the document,
 * write it in the same format, read the written bytes back and write them
 * again: the second write must equal the first. */
#include "fuzz_common.h"

#include <stdint.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define STR2(a) #a
#define STR(a) STR2(a)

static ak_registry *reg;
static const ak_codec *codec;
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    reg = fuzz_registry();
    codec = CAT(FUZZ_PLUGIN, _codec)();
    devnull = fopen("/dev/null", "w");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char name[64];
    snprintf(name, sizeof name, "fuzz.%s", STR(FUZZ_PLUGIN));
    if (codec->probe) {
        int s1 = codec->probe(data, size, NULL);
        int s2 = codec->probe(data, size, name);
        FUZZ_CHECK(s1 >= 0 && s1 <= 100 && s2 >= 0 && s2 <= 100, "probe scores %d, %d out of range", s1, s2);
    }
    ak_options o = { sizeof o, codec->name, name, NULL, 0 };
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    ak_doc *doc = NULL;
    ak_status st = ak_read(reg, data, size, &o, &doc, &rep);
    if (st != AK_OK) {
        FUZZ_CHECK(fuzz_clean_read_error(st), "read ended in %s: %s", ak_status_name(st), rep.message);
        FUZZ_CHECK(rep.status == st && rep.text[0], "read failed (%s) without a report", ak_status_name(st));
        FUZZ_CHECK(doc == NULL, "a failed read handed out a document");
        return 0;
    }
    fuzz_walk(doc, devnull);
    fuzz_roundtrip(reg, codec, doc, 1);
    /* A container (json) restores the format whose data it carries: write
     * that format too, trusting nothing of the props and stored bytes. */
    if (strcmp(doc->format, codec->name) != 0) {
        const ak_plugin_info *target = ak_registry_find(reg, doc->format);
        if (target && target->codec->write && (doc->clip_count <= 1 || (target->codec->caps & AK_CAP_MULTI_CLIP)))
            fuzz_roundtrip(reg, target->codec, doc, 0);
    }
    ak_doc_free(doc);
    return 0;
}
