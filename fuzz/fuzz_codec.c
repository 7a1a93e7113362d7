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

/* The outline of the same bytes (AK_READ_OUTLINE): the same outcome as
 * the full read (unless either hit the memory cap, which only the full
 * read's keys count against), the same statistics, and no write of it. */
static void check_outline(ak_options *o, const uint8_t *data, size_t size, ak_status full_st, const ak_doc *full)
{
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    ak_doc *ol = NULL;
    o->flags = AK_READ_OUTLINE;
    ak_status st = ak_read(reg, data, size, o, &ol, &rep);
    o->flags = 0;
    if (st != AK_E_LIMIT && full_st != AK_E_LIMIT)
        FUZZ_CHECK(st == full_st, "the outline read ended in %s, the full read in %s", ak_status_name(st),
                   ak_status_name(full_st));
    if (st == AK_OK && full_st == AK_OK) {
        ak_doc_stats a, b;
        ak_doc_stats_get(full, &a);
        ak_doc_stats_get(ol, &b);
        FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0, "the outline counts %zu clips, %zu tracks, %zu rotations; the "
                   "full read %zu, %zu, %zu", b.clips, b.tracks, b.keys[0], a.clips, a.tracks, a.keys[0]);
        if (ak_doc_outline(ol) && codec->write) {
            unsigned char *out = NULL;
            size_t n = 0;
            ak_report wrep;
            memset(&wrep, 0, sizeof wrep);
            ak_options w = { sizeof w, codec->name, o->filename, NULL, 0, 0 };
            FUZZ_CHECK(ak_write(reg, ol, &w, &out, &n, &wrep) == AK_E_USAGE && !out, "an outline was written");
        }
    }
    ak_doc_free(ol);
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
        /* ak_probe asks without the name first and lets a lone magic match stand */
        FUZZ_CHECK((s1 == AK_PROBE_MAGIC) == (s2 == AK_PROBE_MAGIC),
                   "probe scores %d without the name and %d with it: a magic match must not depend on it", s1, s2);
    }
    ak_options o = { sizeof o, codec->name, name, NULL, 0, 0 };
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    ak_doc *doc = NULL;
    ak_status st = ak_read(reg, data, size, &o, &doc, &rep);
    check_outline(&o, data, size, st, doc);
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
