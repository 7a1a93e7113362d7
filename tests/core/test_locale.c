/* test_locale.c - a host that switches to a comma-decimal locale
 * (setlocale(LC_ALL, "de_DE.UTF-8"), as a GUI application does with "")
 * must get the same numbers from animkit as one in the C locale. */
#include "testutil.h"
#include "../../plugins/anm/anm.h"
#include "../../plugins/json/json.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const locale_name = "de_DE.UTF-8";

static ak_registry *registry(void)
{
    const ak_codec *codecs[] = { anm_codec(), json_codec(), NULL };
    return ak_test_registry(codecs);
}

static ak_doc *read_wave(const ak_registry *reg, const char *const *params, ak_report *rep)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/samples/wave.anm", getenv("AK_SRCDIR"));
    ak_options o = { sizeof o, "anm", path, params, 0, 0 };
    ak_doc *doc = NULL;
    memset(rep, 0, sizeof *rep);
    ak_read_file(reg, path, &o, &doc, rep);
    return doc;
}

static void keep_norm_message(void *user, const ak_message *msg)
{
    if (strstr(msg->text, "worst norm"))
        ak_message_format(msg, user, 1024);
}

START_TEST(host_locale_is_really_comma)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%g", 0.5);
    ck_assert_str_eq(buf, "0,5"); /* else the tests below prove nothing */
    ck_assert_str_eq(localeconv()->decimal_point, ",");
}
END_TEST

START_TEST(numbers_keep_the_point)
{
    char buf[32];
    ak_format_number(29.97, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "29.97");
    ak_format_number(1.0 / 3, 3, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.333");
    double d = 0;
    ck_assert_uint_eq(ak_parse_number("29.97", 5, &d), 5);
    ck_assert(d == 2997 / 100.0);
    ck_assert_uint_eq(ak_parse_number("29,97", 5, &d), 2); /* the comma is not a decimal point */
}
END_TEST

START_TEST(fps_parameter_and_json_dump)
{
    ak_registry *reg = registry();
    ak_report rep;
    const char *params[] = { "fps=29.97", NULL };
    ak_doc *doc = read_wave(reg, params, &rep);
    ck_assert_msg(doc != NULL, "%s", rep.message);
    /* wave.anm has 30 frames (1 s at the default 30 fps). */
    double want = 30 / 29.97;
    ck_assert(fabs(doc->clips[0]->duration - want) < 1e-12);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(ak_doc_write_json(doc, NULL, 0, f), AK_OK);
    fclose(f);
    const char *dur = strstr(text, "\"duration\":");
    ck_assert_ptr_nonnull(dur);
    dur += strlen("\"duration\":");
    double back = 0;
    size_t n = ak_parse_number(dur, strlen(dur), &back);
    ck_assert_uint_gt(n, 2);
    ck_assert(dur[n] == ',');
    ck_assert(back == doc->clips[0]->duration);
    ck_assert_ptr_nonnull(strstr(text, "\"duration\":1.001001001001001"));
    /* The whole dump is what a host in the C locale gets. */
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t old = uselocale(c);
    char *c_text = NULL;
    size_t c_len = 0;
    f = open_memstream(&c_text, &c_len);
    ck_assert_int_eq(ak_doc_write_json(doc, NULL, 0, f), AK_OK);
    fclose(f);
    uselocale(old);
    freelocale(c);
    ck_assert_str_eq(text, c_text);
    free(c_text);
    free(text);

    /* The JSON plugin reads its own output back to the same values. */
    ak_options w = { sizeof w, "json", "x.json", NULL, 0, 0 };
    unsigned char *bytes;
    size_t size;
    ck_assert_int_eq(ak_write(reg, doc, &w, &bytes, &size, &rep), AK_OK);
    ak_doc *again = NULL;
    ak_options r = { sizeof r, "json", "x.json", NULL, 0, 0 };
    ck_assert_int_eq(ak_read(reg, bytes, size, &r, &again, &rep), AK_OK);
    ck_assert(again->clips[0]->duration == doc->clips[0]->duration);
    const ak_channel *a = &doc->clips[0]->tracks[0]->channel[AK_ROTATION];
    const ak_channel *b = &again->clips[0]->tracks[0]->channel[AK_ROTATION];
    ck_assert_uint_eq(a->count, b->count);
    for (size_t k = 0; k < a->count; k++)
        ck_assert(a->keys[k].time == b->keys[k].time && a->keys[k].v[0] == b->keys[k].v[0] &&
                  a->keys[k].v[3] == b->keys[k].v[3]);
    ak_buffer_free(reg, bytes);
    ak_doc_free(again);

    /* A malformed value is still refused, and messages print '.' too. */
    const char *comma[] = { "fps=29,97", NULL };
    ck_assert_ptr_null(read_wave(reg, comma, &rep));
    ck_assert_int_eq(rep.status, AK_E_USAGE);
    doc->clips[0]->tracks[0]->channel[AK_ROTATION].keys[0].v[3] = 2.5;
    doc->clips[0]->tracks[0]->channel[AK_ROTATION].keys[0].v[0] = 0;
    doc->clips[0]->tracks[0]->channel[AK_ROTATION].keys[0].v[1] = 0;
    doc->clips[0]->tracks[0]->channel[AK_ROTATION].keys[0].v[2] = 0;
    char seen[1024] = "";
    ak_report vr = { 0 };
    vr.on_message = keep_norm_message;
    vr.user = seen;
    ak_doc_validate(doc, "x", &vr);
    ck_assert_ptr_nonnull(strstr(seen, "(worst norm 2.5)"));
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

int main(void)
{
    if (!setlocale(LC_ALL, locale_name)) {
        if (getenv("AK_REQUIRE_DE_LOCALE")) {
            fprintf(stderr, "FAIL: the locale %s is missing (CI installs it)\n", locale_name);
            return 1;
        }
        ak_test_skip("the locale de_DE.UTF-8 is not installed (locale-gen or localedef -i de_DE -f UTF-8)");
        return 77;
    }
    Suite *s = suite_create("locale");
    TCase *tc = tcase_create("locale");
    tcase_add_test(tc, host_locale_is_really_comma);
    tcase_add_test(tc, numbers_keep_the_point);
    tcase_add_test(tc, fps_parameter_and_json_dump);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
