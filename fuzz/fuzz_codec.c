/* fuzz_codec.c - one plugin, built once per plugin with -DFUZZ_PLUGIN=name:
 * probe, read (the format forced, as `--format` does), walk the document,
 * write it in the same format, read the written bytes back and write them
 * again: the second write must equal the first. Then every key is marked
 * edited and the document is written in each of the format's variants, so
 * that the encoders run too (an untouched key re-emits its stored bytes),
 * and each output must read back. */
#include "fuzz_common.h"

#include <stdint.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define STR2(a) #a
#define STR(a) STR2(a)

static ak_registry *reg;
static const ak_codec *codec;
static FILE *devnull;

/* The writer's `variant=` values (see each plugin's write.c). */
static const char *const *variants_of(const char *plugin)
{
    static const char *const ifp[] = { "ANP3", "ANP2", "ANPK", "ANLF", NULL };
    static const char *const ani[] = { "4000", "4001", "4002", NULL };
    static const char *const anm[] = { "4.0", "6.0", "6.1", "frm3", NULL };
    static const char *const none[] = { NULL };
    return !strcmp(plugin, "ifp") ? ifp : !strcmp(plugin, "ani") ? ani : !strcmp(plugin, "anm") ? anm : none;
}

/* Encoding from the values alone, into every variant. Small documents
 * only: they reach the same code at a fraction of the cost. */
static void reencode(ak_doc *doc)
{
    ak_doc_stats stats;
    ak_doc_stats_get(doc, &stats);
    size_t keys = 0;
    for (int c = 0; c < AK_CHANNELS; c++)
        keys += stats.keys[c];
    if (!codec->write || keys > 2000)
        return;
    for (size_t c = 0; c < doc->clip_count; c++)
        for (size_t t = 0; t < doc->clips[c]->track_count; t++)
            for (int ch = 0; ch < AK_CHANNELS; ch++) {
                ak_channel *chan = &doc->clips[c]->tracks[t]->channel[ch];
                for (size_t k = 0; k < chan->count; k++)
                    ak_key_touch(&chan->keys[k]);
            }
    fuzz_roundtrip(reg, codec, doc, NULL, 0);
    for (const char *const *v = variants_of(codec->name); *v; v++) {
        char param[32];
        snprintf(param, sizeof param, "variant=%s", *v);
        const char *params[] = { param, NULL };
        fuzz_roundtrip(reg, codec, doc, params, 0);
    }
}

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
    ak_options o = { sizeof o, codec->name, name, NULL, 0, 0 };
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
    fuzz_roundtrip(reg, codec, doc, NULL, 1);
    /* A container (json) restores the format whose data it carries: write
     * that format too, trusting nothing of the props and stored bytes. */
    if (strcmp(doc->format, codec->name) != 0) {
        const ak_plugin_info *target = ak_registry_find(reg, doc->format);
        if (target && target->codec->write && (doc->clip_count <= 1 || (target->codec->caps & AK_CAP_MULTI_CLIP)))
            fuzz_roundtrip(reg, target->codec, doc, NULL, 0);
    }
    if (strcmp(doc->format, codec->name) == 0)
        reencode(doc);
    ak_doc_free(doc);
    return 0;
}
