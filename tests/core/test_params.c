/* test_params.c - declared parameters: the typed getters and their
 * defaults, the core's checks before a codec runs, malformed declarations. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static const ak_param typed_params[] = {
    { "count", AK_PARAM_INT, AK_PARAM_READ, NULL, "7", "an integer" },
    { "loop", AK_PARAM_BOOL, AK_PARAM_READ, NULL, "yes", "a flag" },
    { "scale", AK_PARAM_NUMBER, AK_PARAM_READ, NULL, "2.5", "a number" },
    { "label", AK_PARAM_STRING, AK_PARAM_READ, NULL, NULL, "text without a default" },
    { "mode", AK_PARAM_CHOICE, AK_PARAM_READ | AK_PARAM_WRITE, "fast|exact", "exact", "a choice" },
    { NULL, 0, 0, NULL, NULL, NULL },
};

/* Records what the getters return as clip props. */
static ak_status typed_read(ak_job *job, const unsigned char *b, size_t n, ak_doc *doc)
{
    (void)b; (void)n;
    ak_clip *clip = ak_clip_add(doc, ak_job_param_string(job, "label", "unlabelled"));
    if (!clip)
        return AK_E_NOMEM;
    ak_prop_set_int(doc, &clip->props, "count", ak_job_param_int(job, "count", -1));
    ak_prop_set_int(doc, &clip->props, "loop", ak_job_param_bool(job, "loop", -1));
    ak_prop_set_float(doc, &clip->props, "scale", ak_job_param_number(job, "scale", -1));
    ak_prop_set_string(doc, &clip->props, "mode", ak_job_param_string(job, "mode", "none"));
    /* Undeclared: the fallback, and a malformed value fails the job. */
    ak_prop_set_int(doc, &clip->props, "other", ak_job_param_int(job, "other", 99));
    return AK_OK;
}

static const ak_codec typed = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "typed", "1", "t", "MIT",
                                "typ", NULL, typed_read, NULL, typed_params };

static ak_doc *read_with(const ak_registry *reg, const char *const *params, ak_status want, ak_report *rep)
{
    ak_options o = { sizeof o, "typed", "in.typ", params, 0, 0 };
    ak_doc *doc = NULL;
    memset(rep, 0, sizeof *rep);
    ck_assert_int_eq(ak_read(reg, "x", 1, &o, &doc, rep), want);
    return doc;
}

START_TEST(getters_return_values_and_declared_defaults)
{
    const ak_codec *codecs[] = { &typed, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_report rep;
    ak_doc *doc = read_with(reg, NULL, AK_OK, &rep);
    const ak_props *p = &doc->clips[0]->props;
    ck_assert_str_eq(doc->clips[0]->name, "unlabelled");
    ck_assert_int_eq(ak_prop_get(p, "count")->i, 7);
    ck_assert_int_eq(ak_prop_get(p, "loop")->i, 1);
    ck_assert(ak_prop_get(p, "scale")->f == 2.5);
    ck_assert_str_eq((const char *)ak_prop_get(p, "mode")->data, "exact");
    ck_assert_int_eq(ak_prop_get(p, "other")->i, 99);
    ak_doc_free(doc);

    const char *given[] = { "count=-12", "loop=off", "scale=1e-3", "label=walk", "mode=FAST", NULL };
    doc = read_with(reg, given, AK_OK, &rep);
    p = &doc->clips[0]->props;
    ck_assert_str_eq(doc->clips[0]->name, "walk");
    ck_assert_int_eq(ak_prop_get(p, "count")->i, -12);
    ck_assert_int_eq(ak_prop_get(p, "loop")->i, 0);
    ck_assert(ak_prop_get(p, "scale")->f == 0.001);
    ck_assert_str_eq((const char *)ak_prop_get(p, "mode")->data, "FAST");
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

START_TEST(core_checks_before_the_codec_runs)
{
    const ak_codec *codecs[] = { &typed, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_report rep;
    static const struct { const char *param, *message; } bad[] = {
        { "count=7.5", "parameter count=7.5: typed wants an integer" },
        { "count=99999999999999999999", "wants an integer" },
        { "loop=maybe", "wants yes or no" },
        { "scale=1,5", "wants a number written with '.'" },
        { "scale=", "wants a number" },
        { "mode=exakt", "wants one of fast|exact; did you mean 'exact'?" },
        { "cuont=1", "unknown parameter 'cuont'; did you mean 'count'? (typed reading takes: count, loop, "
                     "scale, label, mode)" },
        { "zzz=1", "unknown parameter 'zzz' (typed" },
        { "novalue", "parameter 'novalue' is not KEY=VALUE" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *params[] = { "count=1", bad[i].param, NULL };
        ak_doc *doc = read_with(reg, params, AK_E_USAGE, &rep);
        ck_assert_ptr_null(doc);
        ck_assert_int_eq(ak_status_exit(rep.status), 64);
        if (!strstr(rep.message, bad[i].message))
            ck_abort_msg("%s: got \"%s\"", bad[i].param, rep.message);
    }
    ak_registry_free(reg);
}
END_TEST

/* A codec that declares nothing gets every parameter unchecked, so its own
 * typed getters are what refuse a malformed value, naming it. */
static ak_status loose_read(ak_job *job, const unsigned char *b, size_t n, ak_doc *doc)
{
    (void)b; (void)n;
    ak_clip *clip = ak_clip_add(doc, "c");
    if (!clip)
        return AK_E_NOMEM;
    ak_prop_set_int(doc, &clip->props, "n", ak_job_param_int(job, "n", 1));
    ak_prop_set_int(doc, &clip->props, "on", ak_job_param_bool(job, "on", 1));
    ak_prop_set_float(doc, &clip->props, "x", ak_job_param_number(job, "x", 1));
    return AK_OK;
}

static const ak_codec loose = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "loose", "1", "t", "MIT",
                                "lse", NULL, loose_read, NULL, NULL };

START_TEST(undeclared_getters_refuse_malformed_values)
{
    const ak_codec *codecs[] = { &loose, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    static const struct { const char *param, *message; } bad[] = {
        { "n=abc", "parameter n=abc is not an integer" },
        { "on=maybe", "parameter on=maybe is not yes or no" },
        { "x=1e", "parameter x=1e is not a number" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *params[] = { bad[i].param, NULL };
        ak_options o = { sizeof o, "loose", "in.lse", params, 0, 0 };
        ak_doc *doc = NULL;
        ak_report rep = { 0 };
        ck_assert_int_eq(ak_read(reg, "x", 1, &o, &doc, &rep), AK_E_USAGE);
        ck_assert_ptr_null(doc);
        if (!strstr(rep.message, bad[i].message))
            ck_abort_msg("%s: got \"%s\"", bad[i].param, rep.message);
    }
    const char *good[] = { "n=-3", "on=no", "x=0.25", NULL };
    ak_options o = { sizeof o, "loose", "in.lse", good, 0, 0 };
    ak_doc *doc = NULL;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_read(reg, "x", 1, &o, &doc, &rep), AK_OK);
    const ak_props *p = &doc->clips[0]->props;
    ck_assert(ak_prop_get(p, "n")->i == -3 && ak_prop_get(p, "on")->i == 0 && ak_prop_get(p, "x")->f == 0.25);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

START_TEST(malformed_declarations_are_refused)
{
    static const ak_param no_choices[] = { { "m", AK_PARAM_CHOICE, AK_PARAM_READ, NULL, NULL, "h" },
                                           { NULL, 0, 0, NULL, NULL, NULL } };
    static const ak_param bad_default[] = { { "n", AK_PARAM_INT, AK_PARAM_READ, NULL, "ten", "h" },
                                            { NULL, 0, 0, NULL, NULL, NULL } };
    static const ak_param bad_name[] = { { "Fps", AK_PARAM_NUMBER, AK_PARAM_READ, NULL, NULL, "h" },
                                         { NULL, 0, 0, NULL, NULL, NULL } };
    static const ak_param no_use[] = { { "n", AK_PARAM_INT, 0, NULL, NULL, "h" }, { NULL, 0, 0, NULL, NULL, NULL } };
    const ak_param *lists[] = { no_choices, bad_default, bad_name, no_use };
    const char *why[] = { "has no choices", "has the default 'ten', which is not an integer",
                          "name not made of [a-z0-9_]", "applies to neither read nor write" };
    const ak_codec *none[] = { NULL };
    for (size_t i = 0; i < 4; i++) {
        ak_registry *reg = ak_test_registry(none);
        ak_codec c = typed;
        c.params = lists[i];
        ak_report rep = { 0 };
        ck_assert_int_eq(ak_registry_add_codec(reg, &c, 0, &rep), AK_E_USAGE);
        if (!strstr(rep.message, why[i]))
            ck_abort_msg("got \"%s\"", rep.message);
        ak_registry_free(reg);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("params");
    TCase *tc = tcase_create("params");
    tcase_add_test(tc, getters_return_values_and_declared_defaults);
    tcase_add_test(tc, core_checks_before_the_codec_runs);
    tcase_add_test(tc, malformed_declarations_are_refused);
    tcase_add_test(tc, undeclared_getters_refuse_malformed_values);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
