/* test_binio.c - the bounds-checked reader and the output sink. */
#include "testutil.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct last {
    char text[512];
    int64_t offset;
    int errors;
} last;

static void keep(void *user, const ak_message *m)
{
    last *l = user;
    if (m->severity != AK_ERROR)
        return;
    l->errors++;
    l->offset = m->offset;
    snprintf(l->text, sizeof l->text, "%s", m->text);
}

/* A codec whose read runs a scripted check, so the reader runs inside a
 * real job exactly as plugins use it. */
static int (*script)(ak_reader *r);

static ak_status scripted_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    (void)doc;
    ak_reader r;
    ak_reader_init(&r, job, bytes, size);
    return script(&r) ? AK_OK : AK_E_DATA;
}

static const ak_codec scripted = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "scripted", "1", "t",
                                   "MIT", "x", NULL, scripted_read, NULL, NULL };

static ak_status run(int (*fn)(ak_reader *), const unsigned char *bytes, size_t size, last *l)
{
    const ak_codec *codecs[] = { &scripted, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    script = fn;
    memset(l, 0, sizeof *l);
    ak_report rep = { 0 };
    rep.on_message = keep;
    rep.user = l;
    ak_options o = { sizeof o, "scripted", "in.bin", NULL, 0, 0 };
    ak_doc *doc = NULL;
    ak_status st = ak_read(reg, bytes, size, &o, &doc, &rep);
    ak_doc_free(doc);
    ak_registry_free(reg);
    return st;
}

static const unsigned char bytes[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00, 0x00, 0x80, 0x3f };

static int reads_little_endian(ak_reader *r)
{
    ck_assert_uint_eq(ak_u8(r), 0x01);
    ck_assert_uint_eq(ak_u16(r), 0x0302);
    ck_assert_uint_eq(ak_u32(r), 0x07060504);
    ck_assert_int_eq(ak_i16(r), (int16_t)0x0008);
    ck_assert_uint_eq(r->pos, 9);
    ck_assert_int_eq(ak_seek(r, 8, "float"), 1);
    ck_assert(ak_f32(r) == 1.0f);
    ck_assert_uint_eq(ak_remaining(r), 0);
    return !r->failed;
}

START_TEST(little_endian_values)
{
    last l;
    ck_assert_int_eq(run(reads_little_endian, bytes, sizeof bytes, &l), AK_OK);
    ck_assert_int_eq(l.errors, 0);
}
END_TEST

static int overruns_once(ak_reader *r)
{
    ak_skip(r, 10, "header");
    uint32_t v = ak_u32(r); /* only 2 bytes left */
    ck_assert_uint_eq(v, 0);
    ck_assert(r->failed);
    ck_assert_uint_eq(r->pos, 10);
    ck_assert_uint_eq(ak_u8(r), 0); /* sticky: no second error */
    ck_assert_ptr_null(ak_bytes(r, 1, "x"));
    return 0;
}

START_TEST(overrun_fails_with_offset)
{
    last l;
    ck_assert_int_eq(run(overruns_once, bytes, sizeof bytes, &l), AK_E_DATA);
    ck_assert_int_eq(l.errors, 1);
    ck_assert_int_eq(l.offset, 10);
    ck_assert_ptr_nonnull(strstr(l.text, "truncated 32-bit value"));
}
END_TEST

/* The inline forms in plugin.h against the exported readers: the same
 * pointer, value, position and failure for every window, start, length
 * and prior failure (readers without a job, so that nothing is reported). */
static void same_reader(const ak_reader *a, const ak_reader *b)
{
    ck_assert_uint_eq(a->pos, b->pos);
    ck_assert_int_eq(a->failed, b->failed);
    ck_assert_uint_eq(ak_left(a), ak_remaining(b));
}

START_TEST(inline_readers_match_exported)
{
    size_t cases = 0, overruns = 0;
    for (size_t size = 0; size <= sizeof bytes; size++)
        for (size_t pos = 0; pos <= size + 2; pos++) /* pos > size: a window a plugin moved past */
            for (int failed = 0; failed < 2; failed++)
                for (size_t n = 0; n <= sizeof bytes + 1; n++) {
                    ak_reader base = { bytes, size, pos, NULL, failed };
                    ak_reader a = base, b = base;
                    ck_assert_ptr_eq(ak_take(&a, n, "x"), ak_bytes(&b, n, "x"));
                    same_reader(&a, &b);
                    overruns += (size_t)b.failed;
                    a = b = base;
                    ck_assert_uint_eq(ak_take_u8(&a, "byte"), ak_u8(&b));
                    same_reader(&a, &b);
                    a = b = base;
                    ck_assert_uint_eq(ak_take_u16(&a, "16-bit value"), ak_u16(&b));
                    same_reader(&a, &b);
                    a = b = base;
                    ck_assert_uint_eq(ak_take_u32(&a, "32-bit value"), ak_u32(&b));
                    same_reader(&a, &b);
                    cases++;
                }
    ck_assert_uint_gt(overruns, 0);
    ck_assert_uint_gt(cases - overruns, 0);
}
END_TEST

static int overruns_inline(ak_reader *r)
{
    ak_take(r, 10, "header");
    ck_assert_uint_eq(ak_take_u32(r, "32-bit value"), 0); /* only 2 bytes left */
    ck_assert_ptr_null(ak_take(r, 1, "x"));               /* sticky: no second error */
    return 0;
}

START_TEST(inline_overrun_reports_as_exported)
{
    last inl, exp;
    ck_assert_int_eq(run(overruns_inline, bytes, sizeof bytes, &inl), AK_E_DATA);
    ck_assert_int_eq(run(overruns_once, bytes, sizeof bytes, &exp), AK_E_DATA);
    ck_assert_int_eq(inl.errors, 1);
    ck_assert_int_eq(inl.offset, exp.offset);
    ck_assert_str_eq(inl.text, exp.text);
}
END_TEST

static int rejects_huge_count(ak_reader *r)
{
    ck_assert_int_eq(ak_need_array(r, 3, 4, "keys"), 1);      /* 12 bytes: fits exactly */
    ck_assert_int_eq(ak_need_array(r, 0xFFFFFFFFu, 20, "keys"), 0);
    return 0;
}

START_TEST(need_array_checks_count_against_bytes)
{
    last l;
    ck_assert_int_eq(run(rejects_huge_count, bytes, sizeof bytes, &l), AK_E_DATA);
    ck_assert_ptr_nonnull(strstr(l.text, "count of keys is 4294967295"));
    ck_assert_int_eq(l.offset, 0);
}
END_TEST

static int sub_reader_is_a_window(ak_reader *r)
{
    ak_skip(r, 2, "a");
    ak_reader sub = ak_sub(r, 4, "chunk");
    ck_assert_uint_eq(r->pos, 6);
    ck_assert_uint_eq(ak_remaining(&sub), 4);
    ck_assert_uint_eq(ak_u32(&sub), 0x06050403);
    ak_u8(&sub); /* past the window: fails with the absolute offset */
    ck_assert(sub.failed);
    return 0;
}

START_TEST(sub_reader_window)
{
    last l;
    ck_assert_int_eq(run(sub_reader_is_a_window, bytes, sizeof bytes, &l), AK_E_DATA);
    ck_assert_int_eq(l.offset, 6);
}
END_TEST

static int seek_checks_range(ak_reader *r)
{
    ck_assert_int_eq(ak_seek(r, 12, "end"), 1);
    ck_assert_int_eq(ak_seek(r, 13, "section offset"), 0);
    return 0;
}

START_TEST(seek_past_end_fails)
{
    last l;
    ck_assert_int_eq(run(seek_checks_range, bytes, sizeof bytes, &l), AK_E_DATA);
    ck_assert_ptr_nonnull(strstr(l.text, "section offset points to offset 13"));
}
END_TEST

/* A codec that writes through every sink helper. */
static ak_status sink_write(ak_job *job, const ak_doc *doc, ak_sink *s)
{
    (void)job;
    (void)doc;
    ak_put(s, "AB", 2);
    ak_put_u8(s, 0xFE);
    ak_put_u16(s, 0x1234);
    size_t at = ak_sink_size(s);
    ak_put_u32(s, 0);
    ak_put_i16(s, -2);
    ak_put_i32(s, -1);
    ak_put_f32(s, -0.0f);
    ak_put_u64(s, 0x0102030405060708ull);
    ak_put_zeros(s, 2);
    ak_sink_patch_u32(s, at, 0xCAFEBABE);
    if (ak_sink_patch_u32(s, ak_sink_size(s) - 2, 1)) /* would run past the end */
        return AK_E_DATA;
    for (int i = 0; i < 5000; i++) /* grows past the first block */
        ak_put_u8(s, (uint8_t)i);
    return AK_OK;
}

static const ak_codec sinker = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), AK_CAP_MULTI_CLIP, "sinker",
                                 "1", "t", "MIT", "snk", NULL, NULL, sink_write, NULL };

START_TEST(sink_writes_little_endian)
{
    const ak_codec *codecs[] = { &sinker, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_doc *doc = ak_doc_new();
    size_t n;
    unsigned char *out = ak_test_write(reg, doc, "sinker", &n);
    const unsigned char expect[] = { 'A', 'B', 0xFE, 0x34, 0x12, 0xBE, 0xBA, 0xFE, 0xCA, 0xFE, 0xFF,
                                     0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0x80, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0 };
    ck_assert_uint_eq(n, sizeof expect + 5000);
    ck_assert_int_eq(memcmp(out, expect, sizeof expect), 0);
    ck_assert_uint_eq(out[sizeof expect + 4999], (unsigned char)4999);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

START_TEST(float_bits_round_trip)
{
    ck_assert_uint_eq(ak_f32_bits(-0.0f), 0x80000000u);
    ck_assert_uint_eq(ak_f32_bits(ak_bits_f32(0x7FC00001u)), 0x7FC00001u); /* NaN payload kept */
    const unsigned char p[4] = { 0x00, 0x00, 0x80, 0x3F };
    ck_assert(ak_bits_f32(ak_load_u32(p)) == 1.0f);
    ck_assert_uint_eq(ak_load_u16(p + 2), 0x3F80);
}
END_TEST

/* ---- scratch memory ---------------------------------------------------------- */

/* Counts the blocks a registry's allocator holds. */
static long live_blocks;

static ak_registry *counting_registry(const ak_codec *codec)
{
    ak_allocator counting = ak_test_counting_allocator(&live_blocks); /* the registry keeps a copy */
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS, NULL, &counting, NULL, NULL, NULL };
    ak_registry *reg = NULL;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
    ck_assert_int_eq(ak_registry_add_codec(reg, codec, 0, &rep), AK_OK);
    return reg;
}

/* Zeroed, aligned, kept across growth; `a` is left for the job to free.
 * Blocks larger than the few KiB a job has on the stack, so that each
 * comes from the allocator. */
static int scratch_semantics(ak_reader *r)
{
    ak_job *job = r->job;
    long before = live_blocks;
    unsigned char *a = ak_job_alloc(job, 10000, 1);
    ck_assert_ptr_nonnull(a);
    for (int i = 0; i < 10000; i++)
        ck_assert_uint_eq(a[i], 0);
    memset(a, 0xAB, 10000);
    double *b = ak_job_alloc(job, 2000, sizeof *b);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq((uintptr_t)b % alignof(max_align_t), 0);
    ck_assert(b[0] == 0.0 && b[1999] == 0.0);
    ck_assert_int_eq(live_blocks, before + 2);
    a = ak_job_realloc(job, a, 50000, 1);
    ck_assert_ptr_nonnull(a);
    for (int i = 0; i < 50000; i++)
        ck_assert_uint_eq(a[i], i < 10000 ? 0xAB : 0);
    ak_job_free(job, NULL);
    ak_job_free(job, b);
    ck_assert_int_eq(live_blocks, before + 1);
    void *empty = ak_job_alloc(job, 0, 8); /* a valid pointer, like malloc(1) */
    ck_assert_ptr_nonnull(empty);
    ck_assert(!ak_job_failed(job));
    return 1;
}

/* Small blocks come from the job's stack buffer: no allocator call, the
 * same guarantees (zeroed, aligned, contents kept when resized in place or
 * moved, to the heap too when a block outgrows the buffer). Then a random
 * run of allocations, resizes and frees, every live block checked after
 * each step against the byte it was filled with. */
static int scratch_small_semantics(ak_reader *r)
{
    ak_job *job = r->job;
    long before = live_blocks;
    unsigned char *a = ak_job_alloc(job, 100, 1);
    unsigned char *b = ak_job_alloc(job, 24, 1);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq((uintptr_t)a % alignof(max_align_t), 0);
    ck_assert_uint_eq((uintptr_t)b % alignof(max_align_t), 0);
    for (int i = 0; i < 100; i++)
        ck_assert_uint_eq(a[i], 0);
    memset(a, 0x11, 100);
    memset(b, 0x22, 24);
    ck_assert_int_eq(live_blocks, before);
    unsigned char *b2 = ak_job_realloc(job, b, 200, 1); /* the last block: grows where it is */
    ck_assert_ptr_eq(b2, b);
    for (int i = 0; i < 200; i++)
        ck_assert_uint_eq(b2[i], i < 24 ? 0x22 : 0);
    unsigned char *a2 = ak_job_realloc(job, a, 300, 1); /* not the last: moves */
    ck_assert_ptr_nonnull(a2);
    ck_assert_ptr_ne(a2, a);
    for (int i = 0; i < 300; i++)
        ck_assert_uint_eq(a2[i], i < 100 ? 0x11 : 0);
    ck_assert_int_eq(live_blocks, before);
    unsigned char *big = ak_job_realloc(job, b2, 100000, 1); /* past the buffer: to the heap */
    ck_assert_ptr_nonnull(big);
    ck_assert_int_eq(live_blocks, before + 1);
    for (int i = 0; i < 100000; i++)
        ck_assert_uint_eq(big[i], i < 24 ? 0x22 : 0);
    ak_job_free(job, big);
    ck_assert_int_eq(live_blocks, before);

    enum { SLOTS = 12 };
    unsigned char *p[SLOTS] = { 0 };
    size_t n[SLOTS] = { 0 };
    uint32_t seed = 12345;
    for (int step = 0; step < 3000; step++) {
        seed = seed * 1103515245u + 12345u;
        int slot = (int)(seed >> 16) % SLOTS;
        size_t size = 1 + (seed >> 4) % 3000;
        unsigned char fill = (unsigned char)(slot + 1);
        if (!p[slot]) {
            p[slot] = ak_job_alloc(job, size, 1);
            ck_assert_ptr_nonnull(p[slot]);
            for (size_t i = 0; i < size; i++)
                ck_assert_uint_eq(p[slot][i], 0);
        } else if (seed & 0x100) {
            unsigned char *q = ak_job_realloc(job, p[slot], size, 1);
            ck_assert_ptr_nonnull(q);
            for (size_t i = 0; i < size; i++)
                ck_assert_uint_eq(q[i], i < n[slot] ? fill : 0);
            p[slot] = q;
        } else {
            ak_job_free(job, p[slot]);
            p[slot] = NULL;
            continue;
        }
        n[slot] = size;
        memset(p[slot], fill, size);
        for (int s = 0; s < SLOTS; s++)
            for (size_t i = 0; p[s] && i < n[s]; i++)
                ck_assert_uint_eq(p[s][i], (unsigned char)(s + 1));
    }
    ck_assert(!ak_job_failed(job));
    return 1; /* what is still live goes with the job */
}

static int scratch_overflow(ak_reader *r)
{
    ck_assert_ptr_null(ak_job_alloc(r->job, SIZE_MAX / 2, 4));
    ck_assert(ak_job_failed(r->job));
    return 0;
}

static int scratch_over_limit(ak_reader *r)
{
    unsigned char *p = ak_job_alloc(r->job, 1000, 1);
    ck_assert_ptr_nonnull(p);
    p[999] = 1;
    ck_assert_ptr_null(ak_job_realloc(r->job, p, 1u << 20, 1)); /* over the caller's 64 KiB */
    ck_assert_uint_eq(p[999], 1); /* still the caller's */
    return 0;
}

/* Runs `fn` as a read through a registry that counts the allocator's live
 * blocks: whatever scratch it leaves must go with the job. */
static void read_counted(int (*fn)(ak_reader *))
{
    ak_registry *reg = counting_registry(&scripted);
    long base = live_blocks;
    script = fn;
    ak_options o = { sizeof o, "scripted", "in.bin", NULL, 0, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ck_assert_int_eq(ak_read(reg, bytes, sizeof bytes, &o, &doc, &rep), AK_OK);
    ak_doc_free(doc);
    ck_assert_int_eq(live_blocks, base);
    ak_registry_free(reg);
    ck_assert_int_eq(live_blocks, 0);
}

START_TEST(scratch_is_zeroed_kept_and_freed_by_the_job)
{
    read_counted(scratch_semantics);
}
END_TEST

START_TEST(small_scratch_comes_from_the_stack)
{
    read_counted(scratch_small_semantics);
}
END_TEST

START_TEST(scratch_failures_fail_the_job)
{
    last l;
    ck_assert_int_eq(run(scratch_overflow, bytes, sizeof bytes, &l), AK_E_LIMIT);
    ck_assert_ptr_nonnull(strstr(l.text, "scratch buffer"));
    /* Scratch counts against the same limit as the document. */
    ak_registry *reg = counting_registry(&scripted);
    long base = live_blocks;
    script = scratch_over_limit;
    ak_options o = { sizeof o, "scripted", "in.bin", NULL, 65536, 0 };
    memset(&l, 0, sizeof l);
    ak_report rep = { 0 };
    rep.on_message = keep;
    rep.user = &l;
    ak_doc *doc = NULL;
    ck_assert_int_eq(ak_read(reg, bytes, sizeof bytes, &o, &doc, &rep), AK_E_LIMIT);
    ck_assert_ptr_null(doc);
    ck_assert_ptr_nonnull(strstr(l.text, "65536 bytes"));
    ck_assert_int_eq(live_blocks, base);
    ak_registry_free(reg);
}
END_TEST

/* A writer's scratch: from the registry's allocator, gone after the write. */
static ak_status hoarding_write(ak_job *job, const ak_doc *doc, ak_sink *s)
{
    (void)doc;
    for (int i = 0; i < 10; i++)
        if (!ak_job_alloc(job, 4096, 1))
            return AK_E_NOMEM;
    ak_put_u8(s, 7);
    return AK_OK;
}

static const ak_codec hoarder = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), AK_CAP_MULTI_CLIP, "hoarder",
                                  "1", "t", "MIT", "hd", NULL, NULL, hoarding_write, NULL };

START_TEST(writer_scratch_is_freed_by_the_job)
{
    ak_registry *reg = counting_registry(&hoarder);
    long base = live_blocks;
    ak_doc *doc = ak_doc_new();
    unsigned char *out = NULL;
    size_t n = 0;
    ak_options o = { sizeof o, "hoarder", NULL, NULL, 0, 0 };
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_write(reg, doc, &o, &out, &n, &rep), AK_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(live_blocks, base + 1); /* only the output */
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
    ck_assert_int_eq(live_blocks, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("binio");
    TCase *tc = tcase_create("binio");
    tcase_add_test(tc, little_endian_values);
    tcase_add_test(tc, overrun_fails_with_offset);
    tcase_add_test(tc, inline_readers_match_exported);
    tcase_add_test(tc, inline_overrun_reports_as_exported);
    tcase_add_test(tc, need_array_checks_count_against_bytes);
    tcase_add_test(tc, sub_reader_window);
    tcase_add_test(tc, seek_past_end_fails);
    tcase_add_test(tc, sink_writes_little_endian);
    tcase_add_test(tc, float_bits_round_trip);
    tcase_add_test(tc, scratch_is_zeroed_kept_and_freed_by_the_job);
    tcase_add_test(tc, small_scratch_comes_from_the_stack);
    tcase_add_test(tc, scratch_failures_fail_the_job);
    tcase_add_test(tc, writer_scratch_is_freed_by_the_job);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
