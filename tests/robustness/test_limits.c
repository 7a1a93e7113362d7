/* test_limits.c - bounded resources: a read whose counts ask for a huge
 * document must stop at the core's memory cap (AK_READ_ALLOC_FACTOR times
 * the input plus AK_READ_ALLOC_BASE for everything but keys, key arrays
 * apart up to AK_READ_KEY_FACTOR times the input plus AK_READ_KEY_BASE; or
 * ak_options.max_alloc for all) with AK_E_LIMIT or AK_E_DATA, never
 * exhaust memory; inflated counts in real inputs must end cleanly, quickly
 * and within the cap; and every corpus file reads within the default cap. */
#include "robust.h"

#ifdef AK_HAVE_IFP
#include "../../plugins/ifp/ifp.h"
#endif

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- a greedy codec that trusts its counts --------------------------------
 * "GRDY", u8 mode, u32 n. It does what a careless reader of a run-length or
 * "repeat n times" field would do: it builds n things without asking
 * ak_need_array, so only the core's cap stands between it and the memory
 * of the machine. */
enum { GRD_KEYS, GRD_RESERVE, GRD_TRACKS, GRD_CLIPS, GRD_EVENTS, GRD_PROPS, GRD_SCRATCH, GRD_GROW, GRD_MODES,
       GRD_NAMES = GRD_MODES /* needs a text after the header: not in the 9-byte sweep */ };

static int grd_probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "GRDY", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

static ak_status grd_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    ak_reader r;
    ak_reader_init(&r, job, bytes, size);
    ak_skip(&r, 4, "magic");
    uint8_t mode = ak_u8(&r);
    uint32_t n = ak_u32(&r);
    if (r.failed)
        return AK_E_DATA;
    ak_clip *clip = ak_clip_add(doc, "greedy");
    if (!clip)
        return AK_E_NOMEM;
    ak_track *track = ak_track_add(clip, "bone");
    if (!track)
        return AK_E_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        switch (mode) {
        case GRD_KEYS:
            if (!ak_key_add(track, AK_TRANSLATION))
                return AK_E_NOMEM;
            break;
        case GRD_RESERVE: {
            /* Reserve returns AK_E_NOMEM when refused; the job knows why. */
            ak_status st = ak_channel_reserve(track, AK_ROTATION, n);
            return st != AK_OK ? st : ak_fail(job, AK_E_DATA, 5, "reserve of %u keys passed", (unsigned)n);
        }
        case GRD_TRACKS:
            if (!ak_track_add(clip, "a bone with a longish name, copied for every track"))
                return AK_E_NOMEM;
            break;
        case GRD_CLIPS:
            if (!ak_clip_add(doc, "clip"))
                return AK_E_NOMEM;
            break;
        case GRD_EVENTS:
            if (!ak_event_add(clip, i, "type", "info"))
                return AK_E_NOMEM;
            break;
        case GRD_PROPS:
            /* Replacing a prop keeps the old bytes in the arena. */
            if (ak_prop_set_bytes(doc, &track->props, "p", bytes, size) != AK_OK)
                return AK_E_NOMEM;
            break;
        case GRD_NAMES:
            /* Every track named by the whole text after the header. */
            if (!memchr(bytes + 9, 0, size - 9))
                return ak_fail(job, AK_E_DATA, 9, "no name");
            if (!ak_track_add(clip, (const char *)bytes + 9))
                return AK_E_NOMEM;
            break;
        case GRD_SCRATCH:
            /* Working memory, never given back: the job frees it. */
            if (!ak_job_alloc(job, 1, 65536))
                return AK_E_NOMEM;
            break;
        case GRD_GROW: {
            static const size_t step = 1u << 20;
            void *grown = ak_job_realloc(job, NULL, 1, step);
            for (uint32_t k = 2; grown && k <= n; k++) {
                void *more = ak_job_realloc(job, grown, k, step);
                if (!more)
                    return AK_E_NOMEM; /* `grown` is still the job's and is freed with it */
                grown = more;
            }
            return grown ? ak_fail(job, AK_E_DATA, 5, "%u MiB of scratch passed", (unsigned)n) : AK_E_NOMEM;
        }
        default:
            return ak_fail(job, AK_E_UNSUPPORTED, 4, "mode %u", mode);
        }
    }
    return AK_OK;
}

static const ak_codec grd_codec = {
    AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), AK_CAP_MULTI_CLIP, "grd", "1.0.0", "greedy test reader",
    "MIT", "grd", grd_probe, grd_read, NULL,
    NULL,
};

static unsigned char grd_input[9];

static void grd_build(uint8_t mode, uint32_t n)
{
    memcpy(grd_input, "GRDY", 4);
    grd_input[4] = mode;
    for (int i = 0; i < 4; i++)
        grd_input[5 + i] = (unsigned char)(n >> (8 * i));
}

/* Each greedy mode with a count that would need gigabytes: the read fails
 * with AK_E_LIMIT once the document reaches the default cap, and the most
 * memory held at once stays within it. */
START_TEST(t_default_cap)
{
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { &grd_codec, NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    long base = st.live;
    int mode = _i;
    grd_build((uint8_t)mode, 0xFFFFFFFFu);
    size_t limit = sizeof grd_input * AK_READ_ALLOC_FACTOR + AK_READ_ALLOC_BASE;
    if (mode == GRD_KEYS || mode == GRD_RESERVE) /* key arrays have their own allowance */
        limit += sizeof grd_input * AK_READ_KEY_FACTOR + AK_READ_KEY_BASE;
    rb_alloc_arm(&st, 0);
    size_t base_bytes = st.live_bytes;
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, "grd", "huge.grd", NULL, 0, 0 };
    ak_status s = ak_read(reg, grd_input, sizeof grd_input, &o, &doc, &rep);
    ck_assert_msg(s == AK_E_LIMIT, "mode %d: status %s (%s), want %s", mode, ak_status_name(s), rep.message,
                  ak_status_name(AK_E_LIMIT));
    ck_assert_int_eq(rep.status, AK_E_LIMIT);
    ck_assert(doc == NULL);
    ck_assert_msg(st.peak_bytes - base_bytes <= limit + 65536, "mode %d: %zu bytes held at once, the cap is %zu",
                  mode, st.peak_bytes - base_bytes, limit);
    ck_assert_int_eq(st.live, base);
    printf("greedy mode %d: stopped at %zu bytes (cap %zu): %s\n", mode, st.peak_bytes, limit, rep.text);
    ak_registry_free(reg);
}
END_TEST

/* The default bound for an input of n bytes: everything but keys, and
 * key arrays apart. */
static size_t default_bound(size_t n, size_t key_bytes)
{
    size_t keys = n * AK_READ_KEY_FACTOR + AK_READ_KEY_BASE;
    return n * AK_READ_ALLOC_FACTOR + AK_READ_ALLOC_BASE + (key_bytes < keys ? key_bytes : keys);
}

/* Data copied from a large input (a property holding the whole input, or
 * a track named by all of it, on every pass; stored bytes and mesh blobs
 * are copied the same way)
 * stops at AK_READ_ALLOC_FACTOR times the input, not at the key allowance:
 * 4 MiB of input may no longer become a gigabyte of document. */
START_TEST(t_copies_bounded)
{
    static const uint8_t shapes[] = { GRD_PROPS, GRD_NAMES };
    uint8_t shape = shapes[_i];
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { &grd_codec, NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    size_t n = 4u << 20;
    unsigned char *big = malloc(n);
    ck_assert(big != NULL);
    memset(big, 'a', n - 1);
    big[n - 1] = 0;
    grd_build(shape, 1000); /* 1000 copies of 4 MiB would be 4 GiB */
    memcpy(big, grd_input, sizeof grd_input);
    rb_alloc_arm(&st, 0);
    size_t base_bytes = st.live_bytes;
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, "grd", "copies.grd", NULL, 0, 0 };
    ck_assert_int_eq(ak_read(reg, big, n, &o, &doc, &rep), AK_E_LIMIT);
    size_t held = st.peak_bytes - base_bytes;
    size_t bound = default_bound(n, 0);
    ck_assert_msg(held <= bound + 65536, "%zu bytes held, the bound is %zu", held, bound);
    printf("%s copied from a %zu-byte input stopped at %zu bytes (%.1f x the input; bound %zu): %s\n",
           shape == GRD_PROPS ? "properties" : "track names", n, held, (double)held / (double)n, bound, rep.text);
    free(big);
    ak_registry_free(reg);
    ck_assert_int_eq(st.live, 0);
}
END_TEST

#ifdef AK_HAVE_IFP
/* Issue 16, item 9, scaled down: an ANP3 header followed by 64 MiB of zeros
 * (2 GB took 4.2 GB once); then the same with a tail that is not zero and
 * is kept byte for byte. Either way the read holds at most about one copy
 * of the input besides the input, far inside the bound. */
START_TEST(t_zero_tail)
{
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { ifp_codec(), NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    size_t n = 64u << 20;
    unsigned char *bytes = calloc(1, n);
    ck_assert(bytes != NULL);
    memcpy(bytes, "ANP3", 4);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            memset(bytes + 64, 0x5A, n - 64);
        rb_alloc_arm(&st, 0);
        size_t base_bytes = st.live_bytes;
        ak_report rep = { 0 };
        ak_doc *doc = NULL;
        ak_options o = { sizeof o, "ifp", "zeros.ifp", NULL, 0, 0 };
        ak_status s = ak_read(reg, bytes, n, &o, &doc, &rep);
        ck_assert_msg(s == AK_OK || rb_clean_error(s), "pass %d: %s", pass, ak_status_name(s));
        size_t held = st.peak_bytes - base_bytes;
        size_t allowed = pass == 0 ? (16u << 20) : n + (32u << 20); /* the arena's first block is up to 8 MiB */
        ck_assert_msg(held <= allowed, "pass %d: %zu bytes held for a %zu-byte input", pass, held, n);
        ck_assert_uint_le(held, default_bound(n, 0));
        printf("ANP3 + %s tail of %zu bytes: %s, %zu bytes held (%.3f x the input)\n", pass ? "a non-zero" : "a zero",
               n, ak_status_name(s), held, (double)held / (double)n);
        ak_doc_free(doc);
    }
    free(bytes);
    ak_registry_free(reg);
    ck_assert_int_eq(st.live, 0);
}
END_TEST
#endif

/* Every corpus file of every linked plugin reads under the default cap;
 * the most memory held at once, against the input, is printed per format
 * (README, Security, quotes these numbers). */
START_TEST(t_corpus_ratio)
{
    size_t count;
    const rb_plugin *p = &rb_plugins(&count)[_i];
    char dir[4096];
    if (!ak_test_corpus(p->name, dir, sizeof dir)) {
        ak_test_skip("corpus folder not found (set AK_CORPUS)");
        return;
    }
    DIR *d = opendir(dir);
    ck_assert(d != NULL);
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { p->codec, NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    double worst = 0, worst_big = 0;
    const char *worst_name = "-";
    char worst_buf[256] = "-";
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s", p->name, e->d_name);
        size_t n;
        unsigned char *bytes = ak_test_corpus_file(rel, &n);
        ck_assert(bytes != NULL);
        rb_alloc_arm(&st, 0);
        size_t base_bytes = st.live_bytes;
        ak_report rep = { 0 };
        ak_doc *doc = NULL;
        ak_options o = { sizeof o, p->name, rel, NULL, 0, 0 };
        ak_status s = ak_read(reg, bytes, n, &o, &doc, &rep);
        ck_assert_msg(s == AK_OK, "%s: %s", rel, rep.message);
        size_t held = st.peak_bytes - base_bytes;
        size_t key_bytes = 0;
        for (size_t c = 0; c < doc->clip_count; c++)
            for (size_t t = 0; t < doc->clips[c]->track_count; t++)
                for (int k = 0; k < AK_CHANNELS; k++)
                    key_bytes += doc->clips[c]->tracks[t]->channel[k].count * sizeof(ak_key);
        /* counted twice; arrays that grew by doubling have up to twice
         * the room and keep their old copies: up to 8 x */
        ck_assert_msg(held <= default_bound(n, 8 * key_bytes), "%s: %zu bytes held", rel, held);
        double ratio = (double)held / (double)n;
        if (ratio > worst)
            worst = ratio;
        if (n > 65536 && ratio > worst_big) {
            worst_big = ratio;
            snprintf(worst_buf, sizeof worst_buf, "%s", e->d_name);
            worst_name = worst_buf;
        }
        files++;
        ak_doc_free(doc);
        free(bytes);
    }
    closedir(d);
    printf("%s: %d corpus files read under the default cap; peak memory / input: worst %.1f x, "
           "worst over 64 KiB %.1f x (%s)\n", p->name, files, worst, worst_big, worst_name);
    ak_registry_free(reg);
    ck_assert_int_eq(st.live, 0);
}
END_TEST

/* A caller's max_alloc is honoured both ways. */
START_TEST(t_max_alloc)
{
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { &grd_codec, rb_tst_codec(), NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    grd_build(GRD_KEYS, 1000000);
    ak_options o = { sizeof o, "grd", "keys.grd", NULL, 100000, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    rb_alloc_arm(&st, 0);
    size_t base_bytes = st.live_bytes;
    ck_assert_int_eq(ak_read(reg, grd_input, sizeof grd_input, &o, &doc, &rep), AK_E_LIMIT);
    ck_assert_uint_le(st.peak_bytes - base_bytes, 100000 + 65536);
    /* 1000 keys fit in 1 MiB */
    grd_build(GRD_KEYS, 1000);
    o.max_alloc = 1u << 20;
    memset(&rep, 0, sizeof rep);
    ck_assert_msg(ak_read(reg, grd_input, sizeof grd_input, &o, &doc, &rep) == AK_OK, "%s", rep.message);
    ck_assert_uint_eq(doc->clips[0]->tracks[0]->channel[AK_TRANSLATION].count, 1000);
    ak_doc_free(doc);
    /* A well-formed file over a small cap: LIMIT, not a crash or DATA. */
    size_t n;
    unsigned char *bytes = rb_tst_build(2, 4, 100, &n);
    ak_options t = { sizeof t, "tst", "x.tst", NULL, 4096, 0 };
    memset(&rep, 0, sizeof rep);
    ck_assert_int_eq(ak_read(reg, bytes, n, &t, &doc, &rep), AK_E_LIMIT);
    t.max_alloc = 0; /* the default */
    memset(&rep, 0, sizeof rep);
    ck_assert_msg(ak_read(reg, bytes, n, &t, &doc, &rep) == AK_OK, "%s", rep.message);
    ak_doc_free(doc);
    free(bytes);
    ak_registry_free(reg);
    ck_assert_int_eq(st.live, 0);
}
END_TEST

/* A count that cannot fit the bytes left is refused before any allocation
 * by ak_need_array: AK_E_DATA with the offset of the count. */
START_TEST(t_need_array)
{
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { rb_tst_codec(), NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    size_t n;
    unsigned char *bytes = rb_tst_build(1, 1, 2, &n);
    /* "TST1", clips (4), name len 5 "clip0", duration, tracks at 14 */
    ck_assert_uint_eq(bytes[8], 5);
    static const uint32_t counts[] = { 0x10000, 0x7FFFFFFF, 0xFFFFFFFF };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        for (int b = 0; b < 4; b++)
            bytes[18 + b] = (unsigned char)(counts[i] >> (8 * b));
        ak_report rep = { 0 };
        ak_doc *doc = NULL;
        rb_alloc_arm(&st, 0);
        ak_status s = ak_test_try_read(reg, bytes, n, "count.tst", &doc, &rep);
        ck_assert_msg(s == AK_E_DATA, "count %u: %s", (unsigned)counts[i], ak_status_name(s));
        ck_assert_int_eq(rep.offset, 22);
        ck_assert_msg(strstr(rep.text, "tracks") != NULL, "%s", rep.text);
        ck_assert_uint_lt(st.max_block, 65536);
    }
    free(bytes);
    ak_registry_free(reg);
}
END_TEST

/* ---- inflated counts in real inputs ------------------------------------------ */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void store(unsigned char *p, uint32_t v, int width)
{
    for (int b = 0; b < width; b++)
        p[b] = (unsigned char)(v >> (8 * b));
}

/* Overwrites 16- and 32-bit fields near the start (where headers and counts
 * live) and at evenly spread places further in with huge values; every read
 * must end in AK_OK or a clean error, quickly, within the cap it was given.
 * The number of reads shrinks with the input's size (about 64 MiB parsed
 * per input) so the program stays quick under the sanitizers. */
static void inflate_sweep(const ak_codec *codec, const unsigned char *orig, size_t size, const char *label)
{
    rb_alloc st = { 0 };
    const ak_codec *codecs[] = { codec, NULL };
    ak_registry *reg = rb_registry(&st, codecs);
    unsigned char *bytes = malloc(size);
    ck_assert(bytes != NULL);
    size_t cap = size * 16 + (4u << 20);
    ak_options o = { sizeof o, codec->name, label, NULL, cap, 0 };
    static const uint32_t vals[] = { 0xFFFFFFFFu, 0x7FFFFFFFu, 0x01000000u, 0xFFFFu };
    static const int widths[] = { 4, 4, 4, 2 };
    size_t reads_budget = (64u << 20) / (size ? size : 1);
    reads_budget = reads_budget < 200 ? 200 : reads_budget > 1600 ? 1600 : reads_budget;
    size_t positions = reads_budget / 4;
    size_t head = size < 256 ? size : 256;
    size_t head_step = head / (positions / 2) + 1;
    size_t far_count = positions - head / head_step;
    size_t far_step = size > head ? (size - head) / (far_count ? far_count : 1) + 1 : size + 1;
    long reads = 0, ok = 0, limit = 0;
    double worst = 0;
    for (size_t off = 0; off + 2 <= size; off += off < head ? head_step : far_step) {
        for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
            if (off + (size_t)widths[v] > size)
                continue;
            memcpy(bytes, orig, size);
            store(bytes + off, vals[v], widths[v]);
            ak_report rep = { 0 };
            ak_doc *doc = NULL;
            rb_alloc_arm(&st, 0);
            long base = st.live;
            size_t base_bytes = st.live_bytes;
            double t0 = now();
            ak_status s = ak_read(reg, bytes, size, &o, &doc, &rep);
            double dt = now() - t0;
            reads++;
            if (dt > worst)
                worst = dt;
            ck_assert_msg(s == AK_OK || s == AK_E_DATA || s == AK_E_UNSUPPORTED || s == AK_E_LIMIT,
                          "%s: %d-bit 0x%x at %zu: status %s: %s", label, widths[v] * 8, (unsigned)vals[v], off,
                          ak_status_name(s), rep.message);
            ck_assert_msg(s == AK_OK || rep.status == s, "%s: report/status mismatch at %zu", label, off);
            ck_assert_msg(st.peak_bytes - base_bytes <= cap + 65536, "%s: 0x%x at %zu: %zu bytes held, cap %zu",
                          label, (unsigned)vals[v], off, st.peak_bytes - base_bytes, cap);
            ck_assert_msg(dt < 10.0, "%s: 0x%x at %zu: the read took %.1f s", label, (unsigned)vals[v], off, dt);
            ok += s == AK_OK;
            limit += s == AK_E_LIMIT;
            ak_doc_free(doc);
            ck_assert_int_eq(st.live, base);
        }
    }
    printf("%s: %ld reads with inflated fields: %ld ok, %ld over the %zu-byte cap, the rest bad data; "
           "slowest %.3f s\n", label, reads, ok, limit, cap, worst);
    free(bytes);
    ak_registry_free(reg);
}

START_TEST(t_inflate_tst)
{
    size_t n;
    unsigned char *bytes = rb_tst_build(2, 3, 5, &n);
    inflate_sweep(rb_tst_codec(), bytes, n, "tst");
    free(bytes);
}
END_TEST

START_TEST(t_inflate_plugins)
{
    size_t count;
    const rb_plugin *p = &rb_plugins(&count)[_i];
    char label[256], why[1024];
    size_t n;
    unsigned char *bytes = rb_plugin_input(p, &n, label, sizeof label, why, sizeof why);
    if (!bytes) {
        ak_test_skip(why);
        return;
    }
    inflate_sweep(p->codec, bytes, n, label);
    free(bytes);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("limits");
    TCase *tc = tcase_create("cap");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, t_default_cap, 0, GRD_MODES);
    tcase_add_test(tc, t_max_alloc);
    tcase_add_loop_test(tc, t_copies_bounded, 0, 2);
#ifdef AK_HAVE_IFP
    tcase_add_test(tc, t_zero_tail);
#endif
    tcase_add_test(tc, t_need_array);
    tcase_add_test(tc, t_inflate_tst);
    suite_add_tcase(s, tc);
    size_t count;
    rb_plugins(&count);
    if (count) {
        TCase *tp = tcase_create("plugins");
        tcase_set_timeout(tp, 600);
        tcase_add_loop_test(tp, t_inflate_plugins, 0, (int)count);
        tcase_add_loop_test(tp, t_corpus_ratio, 0, (int)count);
        suite_add_tcase(s, tp);
    }
    return ak_test_run(s);
}
