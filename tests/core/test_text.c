/* test_text.c - the text helpers: the line and token reader (line ends,
 * bounds, errors as FILE:LINE:COLUMN), numbers as text (and the words for
 * the non-finite ones), the plural in ak_need_array's message, and the
 * probes' extension test. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* "txt": lines of "NAME NUMBER NUMBER"; '#' starts a comment line. Each
 * line becomes a track whose first translation key holds the numbers. */
static ak_status txt_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    ak_text t;
    ak_text_init(&t, job, bytes, size);
    ak_clip *clip = ak_clip_add(doc, "txt");
    if (!clip)
        return AK_E_NOMEM;
    while (!ak_text_at_end(&t)) {
        size_t len;
        const char *name = ak_text_token(&t, &len);
        if (!name || name[0] == '#') {
            ak_text_next_line(&t);
            continue;
        }
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)len, name);
        ak_track *tr = ak_track_add(clip, buf);
        ak_key *k = tr ? ak_key_add(tr, AK_TRANSLATION) : NULL;
        if (!k)
            return AK_E_NOMEM;
        if (!ak_text_number(&t, "x", &k->v[0]) || !ak_text_number(&t, "y", &k->v[1]))
            return AK_E_DATA;
        if (ak_text_token(&t, &len)) /* errors point at the token just read */
            return ak_text_fail(&t, AK_E_DATA, "expected the end of the line");
        ak_text_next_line(&t);
    }
    return AK_OK;
}

static const ak_codec txt = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "txt", "1", "t", "MIT", "txt",
                              NULL, txt_read, NULL, NULL };

static ak_status read_txt(const char *text, ak_doc **doc, ak_report *rep)
{
    const ak_codec *codecs[] = { &txt, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_options o = { sizeof o, "txt", "in.txt", NULL, 0, 0 };
    memset(rep, 0, sizeof *rep);
    /* A copy without a terminator, so that ASan sees any read past the end. */
    size_t n = strlen(text);
    unsigned char *copy = malloc(n ? n : 1);
    memcpy(copy, text, n);
    ak_status st = ak_read(reg, copy, n, &o, doc, rep);
    free(copy);
    ak_registry_free(reg);
    return st;
}

START_TEST(lines_and_tokens_with_every_line_end)
{
    static const char *const inputs[] = {
        "a 1 2\nb 3.5 -4e1\n# note\n\nc .25 +6",        /* LF, no final line end */
        "a 1 2\r\nb 3.5 -4e1\r\n# note\r\n\r\nc .25 +6\r\n", /* CR LF */
        "a\t1  2\rb 3.5\t-4e1\r# note\r\rc .25 +6\r",        /* lone CR, tabs */
    };
    for (size_t i = 0; i < 3; i++) {
        ak_doc *doc;
        ak_report rep;
        ck_assert_int_eq(read_txt(inputs[i], &doc, &rep), AK_OK);
        ak_clip *c = doc->clips[0];
        ck_assert_uint_eq(c->track_count, 3);
        ck_assert_str_eq(c->tracks[2]->bone, "c");
        const double want[3][2] = { { 1, 2 }, { 3.5, -40 }, { 0.25, 6 } };
        for (size_t k = 0; k < 3; k++) {
            ck_assert(c->tracks[k]->channel[AK_TRANSLATION].keys[0].v[0] == want[k][0]);
            ck_assert(c->tracks[k]->channel[AK_TRANSLATION].keys[0].v[1] == want[k][1]);
        }
        ak_doc_free(doc);
    }
}
END_TEST

START_TEST(errors_carry_line_and_column)
{
    /* Line 7, column 12: "bone_seven " is 11 bytes, the bad number follows. */
    const char *text = "a 1 2\nb 1 2\n# c\nd 1 2\r\n\ne 1 2\nbone_seven 1,5 2\n";
    ak_doc *doc = NULL;
    ak_report rep;
    ck_assert_int_eq(read_txt(text, &doc, &rep), AK_E_DATA);
    ck_assert_ptr_null(doc);
    ck_assert_str_eq(rep.message, "in.txt:7:12: txt: error: expected x (a number), found '1,5' (at byte 41, 0x29)");
    ck_assert_int_eq(rep.offset, strstr(text, "1,5") - text);
    /* A missing number points at the end of its line, the column after "f 1". */
    ck_assert_int_eq(read_txt("f 1\n", &doc, &rep), AK_E_DATA);
    ck_assert_str_eq(rep.message, "in.txt:1:4: txt: error: expected y (a number), found the end of the line (at byte 3, 0x3)");
    /* Control bytes in a shown token are masked. */
    ck_assert_int_eq(read_txt("g 1 \x1b]0;x\x07\n", &doc, &rep), AK_E_DATA);
    ck_assert_ptr_nonnull(strstr(rep.message, "found '?]0;x?'"));
    ck_assert_int_eq(read_txt("h 1 2 3\n", &doc, &rep), AK_E_DATA);
    ck_assert_ptr_nonnull(strstr(rep.message, "in.txt:1:7: txt: error: expected the end of the line"));
}
END_TEST

START_TEST(reader_stays_in_bounds)
{
    unsigned char *b = malloc(3);
    memcpy(b, "ab ", 3);
    ak_text t;
    ak_text_init(&t, NULL, b, 3);
    size_t len;
    const char *w = ak_text_word(&t, &len);
    ck_assert(ak_text_is(w, len, "ab"));
    ck_assert_ptr_null(ak_text_word(&t, &len));
    ck_assert_ptr_null(ak_text_line(&t, &len));
    ck_assert(ak_text_at_end(&t));
    /* expect at the end fails without a job and then everything is sticky */
    ak_text_init(&t, NULL, b, 2);
    ck_assert_int_eq(ak_text_expect(&t, "ab"), 1);
    ck_assert_int_eq(ak_text_expect(&t, "cd"), 0);
    ck_assert(t.failed);
    ak_text_init(&t, NULL, b, 3);
    double d = 7;
    ck_assert_int_eq(ak_text_number(&t, "n", &d), 0);
    ck_assert(d == 7);
    ck_assert_ptr_null(ak_text_token(&t, &len));
    free(b);
}
END_TEST

/* Digits of the mantissa without leading and trailing zeros. */
static int significant_digits(const char *text)
{
    char d[40];
    int n = 0;
    for (const char *p = text; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && (n || *p != '0'))
            d[n++] = *p;
    while (n && d[n - 1] == '0')
        n--;
    return n;
}

START_TEST(numbers_as_text)
{
    double d = -1;
    ck_assert_uint_eq(ak_parse_number("29.97fps", 8, &d), 5);
    ck_assert(d == 29.97);
    ck_assert_uint_eq(ak_parse_number("-.5e-3", 6, &d), 6);
    ck_assert(d == -0.0005);
    ck_assert_uint_eq(ak_parse_number("1e", 2, &d), 1); /* an exponent needs digits */
    ck_assert(d == 1);
    static const char *const bad[] = { "", ".", "-", "e5", "inf", "nan", "0x10", " 1", "1e999" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = 3;
        ck_assert_uint_eq(ak_parse_number(bad[i], strlen(bad[i]), &d), bad[i][0] == '0' ? 1 : 0);
        ck_assert(bad[i][0] == '0' || d == 3);
    }
    /* "12" of "123" only: the size is respected without a terminator. */
    ck_assert_uint_eq(ak_parse_number("123", 2, &d), 2);
    ck_assert(d == 12);
    /* Whole numbers take a path of their own: the same value as strtod,
     * the sign of -0 included, up to 15 digits and past them. */
    static const char *const whole[] = { "0", "-0", "+7", "30", "-42", "999999999999999", "-999999999999999",
                                         "1234567890123456", "9007199254740993", "00012" };
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        ck_assert_uint_eq(ak_parse_number(whole[i], strlen(whole[i]), &d), strlen(whole[i]));
        double want = strtod(whole[i], NULL);
        ck_assert(d == want && signbit(d) == signbit(want));
    }
    unsigned long long state = 88172645463325252ull;
    for (int i = 0; i < 100000; i++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        char text[32];
        int len = snprintf(text, sizeof text, "%s%llu", (state & 1) ? "-" : "",
                           (state >> 1) % (1ull << (state % 60 + 1)));
        ck_assert_uint_eq(ak_parse_number(text, (size_t)len, &d), (size_t)len);
        ck_assert(d == strtod(text, NULL));
    }

    char buf[32];
    static const struct { double v; int digits; const char *text; } fmt[] = {
        { 0.1, 0, "0.1" }, { 1.0 / 3, 0, "0.3333333333333333" }, { 1e21, 0, "1e+21" }, { -2.5, 0, "-2.5" },
        { 0.1f, 0, "0.10000000149011612" } /* as Python's repr */, { 5e-324, 0, "5e-324" }, { 1.0 / 3, 4, "0.3333" },
        { 123456, 3, "1.23e+05" }, { NAN, 0, "nan" }, { -INFINITY, 0, "-inf" }, { 100, 0, "100" },
    };
    for (size_t i = 0; i < sizeof fmt / sizeof fmt[0]; i++) {
        int n = ak_format_number(fmt[i].v, fmt[i].digits, buf, sizeof buf);
        ck_assert_str_eq(buf, fmt[i].text);
        ck_assert_int_eq(n, (int)strlen(fmt[i].text));
    }
    /* Shortest round trip: every value reads back exactly, with no digit to spare. */
    unsigned long long bits = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 20000; i++) {
        bits = bits * 6364136223846793005ull + 1442695040888963407ull;
        double v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            continue;
        int n = ak_format_number(v, 0, buf, sizeof buf);
        double back;
        ck_assert_uint_eq(ak_parse_number(buf, (size_t)n, &back), (size_t)n);
        ck_assert(back == v);
        /* the fewest digits that read back, found by trying them all */
        char fewest[40];
        for (int p = 1; p <= 17; p++) {
            snprintf(fewest, sizeof fewest, "%.*g", p, v);
            if (strtod(fewest, NULL) == v)
                break;
        }
        ck_assert_int_eq(significant_digits(buf), significant_digits(fewest));
    }
}
END_TEST

/* ak_parse_nonfinite() reads back exactly the words ak_format_number()
 * writes for NaN and the infinities, and nothing else. */
START_TEST(nonfinite_words_read_back)
{
    static const double values[] = { NAN, INFINITY, -INFINITY };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char buf[32];
        ak_format_number(values[i], 0, buf, sizeof buf);
        double back = 0;
        ck_assert_int_eq(ak_parse_nonfinite(buf, &back), 1);
        ck_assert(isnan(values[i]) ? isnan(back) : back == values[i]);
    }
    static const char *const other[] = { "", "NaN", "Inf", "+inf", "-nan", "infinity", "nan ", " inf", "-Inf",
                                         "0", "1e999", "null" };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        double d = 7;
        ck_assert_msg(ak_parse_nonfinite(other[i], &d) == 0, "'%s' taken for a number", other[i]);
        ck_assert(d == 7);
    }
}
END_TEST

/* Reads a count of one-byte items that cannot fit. */
static ak_status counted_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    (void)doc;
    ak_reader r;
    ak_reader_init(&r, job, bytes, size);
    ak_u8(&r);
    return ak_need_array(&r, 5, 1, "names") ? AK_OK : AK_E_DATA;
}

START_TEST(need_array_says_byte_once)
{
    static const ak_codec counted = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "counted", "1", "t", "MIT",
                                      "cnt", NULL, counted_read, NULL, NULL };
    const ak_codec *codecs[] = { &counted, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_options o = { sizeof o, "counted", "in.cnt", NULL, 0, 0 };
    ak_doc *doc;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_read(reg, "xy", 2, &o, &doc, &rep), AK_E_DATA);
    ck_assert_ptr_nonnull(strstr(rep.text, "count of names is 5, but at 1 byte each they cannot fit in the 1 byte left"));
    ak_registry_free(reg);
}
END_TEST

/* The rule as the probes wrote it out before, with the C library's
 * searches: the last '.', after the last '/', then the rest without case. */
static int extension_by_search(const char *name, const char *ext)
{
    const char *dot = strrchr(name, '.');
    const char *slash = strrchr(name, '/');
    return dot && (!slash || dot > slash) && strcasecmp(dot + 1, ext) == 0;
}

START_TEST(filename_extension_as_the_probes_define_it)
{
    ck_assert(ak_filename_has_extension("walk.ifp", "ifp"));
    ck_assert(ak_filename_has_extension("dir/WALK.IFP", "ifp"));
    ck_assert(ak_filename_has_extension("a.b/c.Json", "JSON"));
    ck_assert(ak_filename_has_extension(".anm", "anm")); /* a name that is only the extension */
    ck_assert(!ak_filename_has_extension(NULL, "ifp"));
    ck_assert(!ak_filename_has_extension("", "ifp"));
    ck_assert(!ak_filename_has_extension("ifp", "ifp"));
    ck_assert(!ak_filename_has_extension("a.ifp/walk", "ifp"));
    ck_assert(!ak_filename_has_extension("a.ifpx", "ifp"));
    ck_assert(!ak_filename_has_extension("a.if", "ifp"));
    ck_assert(!ak_filename_has_extension("a.ifp.bak", "ifp"));
    ck_assert(!ak_filename_has_extension("a.gltf", "glb"));
    /* Letters only are folded: '@' (0x40) and '`' (0x60) are not a pair. */
    ck_assert(!ak_filename_has_extension("a.@", "`"));
    /* Every name of up to six characters over a small alphabet, against
     * the searching form: the same answer for each. */
    static const char alphabet[] = { 'a', 'N', '.', '/', 'x' };
    static const char *const exts[] = { "an", "AN", "a", "", "anx" };
    char name[8];
    size_t checked = 0;
    for (size_t len = 0; len <= 6; len++) {
        size_t combos = 1;
        for (size_t i = 0; i < len; i++)
            combos *= sizeof alphabet;
        for (size_t c = 0; c < combos; c++) {
            size_t v = c;
            for (size_t i = 0; i < len; i++, v /= sizeof alphabet)
                name[i] = alphabet[v % sizeof alphabet];
            name[len] = '\0';
            for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++, checked++)
                ck_assert_msg(ak_filename_has_extension(name, exts[e]) == extension_by_search(name, exts[e]),
                              "'%s' with '%s'", name, exts[e]);
        }
    }
    ck_assert_uint_eq(checked, 5 * (1 + 5 + 25 + 125 + 625 + 3125 + 15625));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("text");
    tcase_add_test(tc, lines_and_tokens_with_every_line_end);
    tcase_add_test(tc, errors_carry_line_and_column);
    tcase_add_test(tc, reader_stays_in_bounds);
    tcase_add_test(tc, numbers_as_text);
    tcase_add_test(tc, nonfinite_words_read_back);
    tcase_add_test(tc, need_array_says_byte_once);
    tcase_add_test(tc, filename_extension_as_the_probes_define_it);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
