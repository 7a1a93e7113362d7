/* test_binio.c - the bounds-checked reader and the output sink. */
#include "testutil.h"

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
                                   "MIT", "x", NULL, scripted_read, NULL };

static ak_status run(int (*fn)(ak_reader *), const unsigned char *bytes, size_t size, last *l)
{
    const ak_codec *codecs[] = { &scripted, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    script = fn;
    memset(l, 0, sizeof *l);
    ak_report rep = { 0 };
    rep.on_message = keep;
    rep.user = l;
    ak_options o = { sizeof o, "scripted", "in.bin", NULL, 0 };
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
                                 "1", "t", "MIT", "snk", NULL, NULL, sink_write };

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

int main(void)
{
    Suite *s = suite_create("binio");
    TCase *tc = tcase_create("binio");
    tcase_add_test(tc, little_endian_values);
    tcase_add_test(tc, overrun_fails_with_offset);
    tcase_add_test(tc, need_array_checks_count_against_bytes);
    tcase_add_test(tc, sub_reader_window);
    tcase_add_test(tc, seek_past_end_fails);
    tcase_add_test(tc, sink_writes_little_endian);
    tcase_add_test(tc, float_bits_round_trip);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
