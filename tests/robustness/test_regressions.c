/* test_regressions.c - every input that once broke a fuzz target
 * (tests/robustness/crashes/) and every fuzz seed (fuzz/seeds/) goes
 * through every linked plugin the way the fuzz targets drive them: read
 * (forced and probed), same-format write, read of the written bytes, and a
 * second write that must equal the first. Nothing may crash, leak or end
 * in anything but a clean status. */
#include "robust.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static long files_run;

/* Read with `codec`; if that works, write and check the round trip. */
static void drive(const ak_registry *reg, const ak_codec *codec, const unsigned char *bytes, size_t size,
                  const char *label)
{
    ak_options o = { sizeof o, codec->name, label, NULL, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_status st = ak_read(reg, bytes, size, &o, &doc, &rep);
    ck_assert_msg(st == AK_OK || rb_clean_error(st), "%s with %s: status %s: %s", label, codec->name,
                  ak_status_name(st), rep.message);
    if (st != AK_OK) {
        ck_assert_msg(rep.status == st && rep.text[0], "%s with %s: error without a message", label, codec->name);
        ck_assert(doc == NULL);
        return;
    }
    ak_doc_stats stats;
    ak_doc_stats_get(doc, &stats);
    ak_doc_validate(doc, label, NULL);
    /* A container (json) restores the format its data came from: that
     * format's writer must cope with whatever props and bytes it carries. */
    const ak_plugin_info *claimed = strcmp(doc->format, codec->name) ? ak_registry_find(reg, doc->format) : NULL;
    if (claimed && claimed->codec->write) {
        ak_options c = { sizeof c, claimed->codec->name, NULL, NULL, 0 };
        unsigned char *conv = NULL;
        size_t nc = 0;
        memset(&rep, 0, sizeof rep);
        st = ak_write(reg, doc, &c, &conv, &nc, &rep);
        ck_assert_msg(st == AK_OK || (st != AK_E_NOMEM && rep.text[0]), "%s as %s: %s", label,
                      claimed->codec->name, rep.message);
        if (st == AK_OK) {
            ak_doc *back = NULL;
            memset(&rep, 0, sizeof rep);
            ak_options cr = { sizeof cr, claimed->codec->name, "converted", NULL, 0 };
            st = ak_read(reg, conv, nc, &cr, &back, &rep);
            ck_assert_msg(st == AK_OK, "%s as %s does not read back: %s", label, claimed->codec->name, rep.message);
            ak_doc_free(back);
        }
        ak_buffer_free(reg, conv);
    }
    if (!codec->write) {
        ak_doc_free(doc);
        return;
    }
    unsigned char *out1 = NULL, *out2 = NULL;
    size_t n1 = 0, n2 = 0;
    memset(&rep, 0, sizeof rep);
    ak_options w = { sizeof w, codec->name, NULL, NULL, 0 };
    st = ak_write(reg, doc, &w, &out1, &n1, &rep);
    ak_doc_free(doc);
    if (st != AK_OK) {
        ck_assert_msg(st != AK_E_NOMEM && rep.text[0], "%s with %s: write: %s", label, codec->name, rep.message);
        return;
    }
    memset(&rep, 0, sizeof rep);
    doc = NULL;
    st = ak_read(reg, out1, n1, &o, &doc, &rep);
    ck_assert_msg(st == AK_OK, "%s with %s: its own output does not read back: %s", label, codec->name,
                  rep.message);
    memset(&rep, 0, sizeof rep);
    st = ak_write(reg, doc, &w, &out2, &n2, &rep);
    ck_assert_msg(st == AK_OK, "%s with %s: the second write failed: %s", label, codec->name, rep.message);
    ck_assert_msg(ak_test_same_bytes(out1, n1, out2, n2, label), "%s with %s: write(read(write(x))) differs",
                  label, codec->name);
    ak_buffer_free(reg, out1);
    ak_buffer_free(reg, out2);
    ak_doc_free(doc);
}

static void run_file(const ak_registry *reg, const char *path)
{
    size_t n;
    unsigned char *bytes = ak_test_slurp(path, &n);
    for (size_t i = 0; i < ak_registry_count(reg); i++)
        drive(reg, ak_registry_plugin(reg, i)->codec, bytes, n, path);
    /* Probed, as `animkit` does without --format. */
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_status st = ak_test_try_read(reg, bytes, n, path, &doc, &rep);
    ck_assert_msg(st == AK_OK || rb_clean_error(st) || st == AK_E_NOFORMAT || st == AK_E_AMBIGUOUS,
                  "%s probed: %s", path, rep.message);
    ak_doc_free(doc);
    free(bytes);
    files_run++;
}

/* Every regular file under `dir`, one level of subfolders deep. */
static void run_dir(const ak_registry *reg, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[4096];
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && count < 4096;)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "README") != 0)
            names[count++] = strdup(e->d_name);
    closedir(d);
    for (size_t i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode) && depth > 0)
                run_dir(reg, path, depth - 1);
            else if (S_ISREG(st.st_mode))
                run_file(reg, path);
        }
        free(names[i]);
    }
}

static ak_registry *all_codecs(void)
{
    size_t count;
    const rb_plugin *p = rb_plugins(&count);
    const ak_codec *codecs[18]; /* tst, every plugin (at most 16), NULL */
    size_t n = 0;
    codecs[n++] = rb_tst_codec();
    for (size_t i = 0; i < count; i++)
        codecs[n++] = p[i].codec;
    codecs[n] = NULL;
    return ak_test_registry(codecs);
}

START_TEST(t_crashes)
{
    const char *src = getenv("AK_SRCDIR");
    if (!src) {
        ak_test_skip("AK_SRCDIR is not set (run through make check)");
        return;
    }
    ak_registry *reg = all_codecs();
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/robustness/crashes", src);
    files_run = 0;
    run_dir(reg, dir, 0);
    snprintf(dir, sizeof dir, "%s/fuzz/seeds", src);
    run_dir(reg, dir, 1);
    printf("regressions: %ld inputs through %zu codecs\n", files_run, ak_registry_count(reg));
    ak_registry_free(reg);
}
END_TEST

/* The driver itself catches a broken round trip: a synthetic file with
 * trailing bytes reads, and its rewrite (without them) still round-trips. */
START_TEST(t_driver)
{
    ak_registry *reg = all_codecs();
    size_t n;
    unsigned char *bytes = rb_tst_build(2, 2, 3, &n);
    drive(reg, rb_tst_codec(), bytes, n, "tst");
    unsigned char *longer = malloc(n + 3);
    memcpy(longer, bytes, n);
    memcpy(longer + n, "xyz", 3);
    drive(reg, rb_tst_codec(), longer, n + 3, "tst+3");
    for (size_t cut = 0; cut < n; cut += 7)
        drive(reg, rb_tst_codec(), bytes, cut, "tst truncated");
    free(longer);
    free(bytes);
    ak_registry_free(reg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("regressions");
    TCase *tc = tcase_create("inputs");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, t_driver);
    tcase_add_test(tc, t_crashes);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
