/* test_registry.c - loading plugins (a good one and deliberately broken
 * ones built in tests/plugins), refusals, probe scores, ties and
 * priorities, write targets and loss reports. */
#include "testutil.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const ak_codec *animkit_codec(void); /* examples/plugin/akm.c, linked in */

static char dir[PATH_MAX];

static void make_tmpdir(void)
{
    ak_test_tmpdir("registry", dir, sizeof dir);
}

static const char *plugin(const char *name, char *buf, size_t n)
{
    const char *b = getenv("AK_BUILDDIR");
    ck_assert_msg(b != NULL, "AK_BUILDDIR is not set (run through make check)");
    snprintf(buf, n, "%s/tests/plugins/.libs/%s.so", b, name);
    return buf;
}

static const char *write_file(const char *name, const char *text)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    return path;
}

static ak_registry *open_config(const char *text, ak_report *rep)
{
    const char *path = write_file("animkit.ini", text);
    ak_registry_config cfg = { sizeof cfg, 0, path, NULL, NULL, NULL, "/nonexistent" };
    ak_registry *reg = NULL;
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, rep), AK_OK);
    return reg;
}

static const char *refusal(const ak_registry *reg, const char *name)
{
    for (size_t i = 0; i < ak_registry_refused_count(reg); i++)
        if (!strcmp(ak_registry_refused(reg, i)->name, name))
            return ak_registry_refused(reg, i)->reason;
    return NULL;
}

START_TEST(good_plugin_loads)
{
    make_tmpdir();
    char p[PATH_MAX], text[PATH_MAX + 64];
    snprintf(text, sizeof text, "[plugin akm]\npath = %s\npriority = 3\n", plugin("akm", p, sizeof p));
    ak_report rep = { 0 };
    ak_registry *reg = open_config(text, &rep);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    const ak_plugin_info *info = ak_registry_plugin(reg, 0);
    ck_assert_str_eq(info->codec->name, "akm");
    ck_assert_str_eq(info->path, p);
    ck_assert_int_eq(info->priority, 3);
    ck_assert_ptr_eq(ak_registry_find(reg, "akm"), info);
    ck_assert_ptr_null(ak_registry_find(reg, "ifp"));
    ck_assert_uint_eq(ak_registry_refused_count(reg), 0);
    ak_registry_free(reg);
}
END_TEST

START_TEST(broken_plugins_are_refused_and_skipped)
{
    make_tmpdir();
    char text[8192] = "", p[PATH_MAX];
    const char *names[] = { "akm", "oldminor", "minor11", "minor12", "minor13", "minor14", "minor15", "minor16", "badabi", "newminor", "nosym", "small", "dupname" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "[plugin %s]\npath = %s\n", names[i],
                 plugin(names[i], p, sizeof p));
    }
    write_file("notso.so", "this is not an ELF file\n");
    strcat(text, "[plugin notso]\npath = ./notso.so\n[plugin missing]\npath = /nonexistent/missing.so\n");
    /* A copy of the good plugin that anyone may overwrite. */
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s/open.so", dir);
    size_t n;
    unsigned char *so = ak_test_slurp(plugin("akm", p, sizeof p), &n);
    FILE *fp = fopen(copy, "wb");
    fwrite(so, 1, n, fp);
    fclose(fp);
    free(so);
    chmod(copy, 0666);
    strcat(text, "[plugin open]\npath = open.so\n");
    /* only a bare file name is looked up in plugin_dir; "open.so" has no slash */
    strcat(text, "[animkit]\nplugin_dir = .\nautoload = no\n");
    ak_report rep = { 0 };
    ak_registry *reg = open_config(text, &rep);
    /* Older minors load (and a 1.1 plugin's scratch memory works); everything
     * else is refused. */
    ck_assert_uint_eq(ak_registry_count(reg), 8);
    ck_assert_str_eq(ak_registry_plugin(reg, 0)->codec->name, "akm");
    ck_assert_str_eq(ak_registry_plugin(reg, 1)->codec->name, "oldminor");
    ck_assert_uint_eq(ak_registry_plugin(reg, 1)->codec->abi_minor, 0);
    ck_assert_str_eq(ak_registry_plugin(reg, 2)->codec->name, "minor11");
    ck_assert_uint_eq(ak_registry_plugin(reg, 2)->codec->abi_minor, 1);
    {
        ak_options opt = { sizeof opt, NULL, "x.m11", NULL, 0, 0 };
        ak_doc *doc = NULL;
        ak_report r11 = { 0 };
        ck_assert_int_eq(ak_read(reg, "M11\nabc", 7, &opt, &doc, &r11), AK_OK);
        ck_assert_str_eq(doc->clips[0]->tracks[0]->bone, "root");
        ck_assert_int_eq(doc->clips[0]->tracks[0]->skeleton_bone, -1);
        ak_doc_free(doc);
    }
    /* A 1.2 plugin (bulk keys, declared parameters) reads under a later core. */
    ck_assert_str_eq(ak_registry_plugin(reg, 3)->codec->name, "minor12");
    ck_assert_uint_eq(ak_registry_plugin(reg, 3)->codec->abi_minor, 2);
    {
        const char *params[] = { "level=2", NULL };
        ak_options opt = { sizeof opt, NULL, "x.m12", params, 0, 0 };
        ak_doc *doc = NULL;
        ak_report r12 = { 0 };
        ck_assert_int_eq(ak_read(reg, "M12\n\x05\x07", 6, &opt, &doc, &r12), AK_OK);
        const ak_channel *rot = &doc->clips[0]->tracks[0]->channel[AK_ROTATION];
        ck_assert_uint_eq(rot->count, 2);
        ck_assert(rot->keys[1].v[3] == 7.0 && rot->keys[1].raw[0] == 7);
        ck_assert_int_eq(ak_key_changed(&rot->keys[0]), 0);
        ak_doc_free(doc);
        const char *bad[] = { "level=x", NULL };
        opt.params = bad;
        ck_assert_int_eq(ak_read(reg, "M12\n\x05", 5, &opt, &doc, &r12), AK_E_USAGE);
    }
    /* A 1.3 plugin reads under a later core, and in full when an outline is
     * asked for: it never asked ak_job_outline(). */
    ck_assert_str_eq(ak_registry_plugin(reg, 4)->codec->name, "minor13");
    ck_assert_uint_eq(ak_registry_plugin(reg, 4)->codec->abi_minor, 3);
    {
        ak_options opt = { sizeof opt, NULL, "x.m13", NULL, 0, AK_READ_OUTLINE };
        ak_doc *doc = NULL;
        ak_report r13 = { 0 };
        ck_assert_int_eq(ak_read(reg, "M13\n\x05\x07\x09", 7, &opt, &doc, &r13), AK_OK);
        ck_assert_int_eq(ak_doc_outline(doc), 0);
        const ak_track *t = doc->clips[0]->tracks[0];
        ck_assert_uint_eq(t->channel[AK_TRANSLATION].count, 3);
        ck_assert(t->channel[AK_TRANSLATION].keys[2].v[0] == 9.0);
        ck_assert_uint_eq(t->outline_keys[AK_TRANSLATION], 0);
        ak_doc_stats s;
        ak_doc_stats_get(doc, &s);
        ck_assert_uint_eq(s.keys[AK_TRANSLATION], 3);
        ak_doc_free(doc);
    }
    /* A 1.4 plugin reads under a later core, in full and as an outline. */
    ck_assert_str_eq(ak_registry_plugin(reg, 5)->codec->name, "minor14");
    ck_assert_uint_eq(ak_registry_plugin(reg, 5)->codec->abi_minor, 4);
    for (int outline = 0; outline < 2; outline++) {
        ak_options opt = { sizeof opt, NULL, "x.m14", NULL, 0, outline ? AK_READ_OUTLINE : 0 };
        ak_doc *doc = NULL;
        ak_report r14 = { 0 };
        ck_assert_int_eq(ak_read(reg, "M14\nxy", 6, &opt, &doc, &r14), AK_OK);
        ck_assert_int_eq(ak_doc_outline(doc), outline);
        ck_assert_uint_eq(doc->clips[0]->track_count, 2);
        const ak_track *t = doc->clips[0]->tracks[1];
        ck_assert_str_eq(t->bone, "by");
        if (outline) {
            ck_assert_uint_eq(t->outline_keys[AK_TRANSLATION], 1);
            ck_assert_uint_eq(t->channel[AK_TRANSLATION].count, 0);
        } else {
            ck_assert_uint_eq(t->channel[AK_TRANSLATION].count, 1);
            ck_assert(t->channel[AK_TRANSLATION].keys[0].v[0] == 'y');
        }
        ak_doc_free(doc);
    }
    /* A 1.5 plugin (names from the input, a channel's keys at a time) reads
     * under a later core. */
    ck_assert_str_eq(ak_registry_plugin(reg, 6)->codec->name, "minor15");
    ck_assert_uint_eq(ak_registry_plugin(reg, 6)->codec->abi_minor, 5);
    {
        ak_options opt = { sizeof opt, NULL, "x.m15", NULL, 0, 0 };
        ak_doc *doc = NULL;
        ak_report r15 = { 0 };
        ck_assert_int_eq(ak_read(reg, "M15\npq", 6, &opt, &doc, &r15), AK_OK);
        ck_assert_uint_eq(doc->clips[0]->track_count, 2);
        const ak_track *t = doc->clips[0]->tracks[1];
        ck_assert_str_eq(t->bone, "q");
        ck_assert_uint_eq(t->channel[AK_ROTATION].count, 1);
        ck_assert(t->channel[AK_TRANSLATION].keys[0].v[0] == 'q');
        ck_assert_int_eq(t->channel[AK_TRANSLATION].keys[0].raw[0], 'q');
        ck_assert_uint_eq(ak_keys_unchanged(t->channel[AK_ROTATION].keys, 1), 1);
        ak_doc_free(doc);
    }
    /* A 1.6 plugin (a track's keys in one block, stored bytes cleared by
     * the core before it fills them) reads under the 1.7 core. */
    ck_assert_str_eq(ak_registry_plugin(reg, 7)->codec->name, "minor16");
    ck_assert_uint_eq(ak_registry_plugin(reg, 7)->codec->abi_minor, 6);
    {
        ak_options opt = { sizeof opt, NULL, "x.m16", NULL, 0, 0 };
        ak_doc *doc = NULL;
        ak_report r16 = { 0 };
        ck_assert_int_eq(ak_read(reg, "M16\npq", 6, &opt, &doc, &r16), AK_OK);
        ck_assert_uint_eq(doc->clips[0]->track_count, 2);
        const ak_track *t = doc->clips[0]->tracks[1];
        ck_assert_str_eq(t->bone, "q");
        ck_assert_ptr_eq(t->channel[AK_TRANSLATION].keys, t->channel[AK_ROTATION].keys + 1);
        ck_assert(t->channel[AK_TRANSLATION].keys[0].v[0] == 'q' && t->channel[AK_ROTATION].keys[0].v[3] == 1);
        ck_assert_int_eq(t->channel[AK_TRANSLATION].keys[0].raw[0], 'q');
        ck_assert_ptr_eq(t->channel[AK_TRANSLATION].keys[0].raw, t->channel[AK_ROTATION].keys[0].raw + 1);
        ck_assert_uint_eq(ak_keys_unchanged(t->channel[AK_ROTATION].keys, 1), 1);
        ck_assert_uint_eq(ak_keys_unchanged(t->channel[AK_TRANSLATION].keys, 1), 1);
        const ak_prop *bp = ak_prop_get(&t->props, "b");
        ck_assert(bp && bp->type == AK_PROP_BYTES && bp->size == 1 && bp->data[0] == 'q' && bp->data[1] == 0);
        ak_doc_free(doc);
    }
    const char *why;
    char expect[128];
    ck_assert_ptr_nonnull(why = refusal(reg, "badabi"));
    snprintf(expect, sizeof expect, "built for animkit ABI 2.0, but this animkit has ABI %d.%d", AK_ABI_MAJOR,
             AK_ABI_MINOR);
    ck_assert_ptr_nonnull(strstr(why, expect));
    ck_assert_ptr_nonnull(why = refusal(reg, "newminor"));
    snprintf(expect, sizeof expect, "ABI %d.%d", AK_ABI_MAJOR, AK_ABI_MINOR + 1);
    ck_assert_ptr_nonnull(strstr(why, expect));
    ck_assert_ptr_nonnull(why = refusal(reg, "nosym"));
    ck_assert_ptr_nonnull(strstr(why, "no entry symbol 'animkit_codec'"));
    ck_assert_ptr_nonnull(why = refusal(reg, "small"));
    ck_assert_ptr_nonnull(strstr(why, "descriptor is 24 bytes"));
    ck_assert_ptr_nonnull(why = refusal(reg, "dupname"));
    ck_assert_ptr_nonnull(strstr(why, "already taken"));
    ck_assert_ptr_nonnull(why = refusal(reg, "notso"));
    ck_assert_ptr_nonnull(strstr(why, "cannot be loaded as a shared object"));
    ck_assert_ptr_nonnull(why = refusal(reg, "missing"));
    ck_assert_ptr_nonnull(strstr(why, "file not found"));
    ck_assert_ptr_nonnull(why = refusal(reg, "open"));
    ck_assert_ptr_nonnull(strstr(why, "writable by other users"));
    ck_assert_uint_eq(ak_registry_refused_count(reg), 8);
    ak_registry_free(reg);
}
END_TEST

START_TEST(autoload_and_disable)
{
    make_tmpdir();
    char p[PATH_MAX], text[PATH_MAX + 512];
    plugin("akm", p, sizeof p);
    *strrchr(p, '/') = '\0';
    /* The folder holds every test plugin; disabling the broken ones by name
     * leaves akm and rival. */
    snprintf(text, sizeof text,
             "[animkit]\nplugin_dir = %s\n[plugin badabi]\nenabled = no\n[plugin newminor]\nenabled = no\n"
             "[plugin nosym]\nenabled = no\n[plugin small]\nenabled = no\n[plugin dupname]\nenabled = no\n"
             "[plugin rival]\nenabled = no\n[plugin oldminor]\nenabled = no\n[plugin minor11]\nenabled = no\n[plugin minor12]\nenabled = no\n[plugin minor13]\nenabled = no\n[plugin minor14]\nenabled = no\n[plugin minor15]\nenabled = no\n[plugin minor16]\nenabled = no\n"
             "[plugin hidden]\nenabled = no\n[plugin mangled]\nenabled = no\n[plugin hiddenok]\nenabled = no\n",
             p);
    ak_report rep = { 0 };
    ak_registry *reg = open_config(text, &rep);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    ck_assert_str_eq(ak_registry_plugin(reg, 0)->codec->name, "akm");
    ck_assert_uint_eq(ak_registry_refused_count(reg), 0);
    ak_registry_free(reg);
}
END_TEST

static unsigned char akm_file[] = { 'A', 'K', 'M', '1', 0, 0, 0x80, 0x3f, 1, 0, 0, 0, 4, 'R', 'o', 'o', 't',
                                    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3f };

START_TEST(probe_tie_is_ambiguous_and_priority_breaks_it)
{
    make_tmpdir();
    char a[PATH_MAX], b[PATH_MAX], text[2 * PATH_MAX + 128];
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin akm]\npath = %s\n[plugin rival]\npath = %s\n",
             plugin("akm", a, sizeof a), plugin("rival", b, sizeof b));
    ak_report rep = { 0 };
    ak_registry *reg = open_config(text, &rep);
    ck_assert_uint_eq(ak_registry_count(reg), 2);
    ak_probe_result pr;
    ck_assert_int_eq(ak_probe(reg, akm_file, sizeof akm_file, "x.akm", &pr, &rep), AK_E_AMBIGUOUS);
    ck_assert_int_eq(pr.score, 100);
    ck_assert_ptr_nonnull(strstr(rep.message, "'akm' and 'rival' both score 100"));
    ak_doc *doc = NULL;
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_test_try_read(reg, akm_file, sizeof akm_file, "x.akm", &doc, &rep2), AK_E_AMBIGUOUS);
    /* --format breaks the tie */
    ak_options o = { sizeof o, "akm", "x.akm", NULL, 0, 0 };
    ak_report rep3 = { 0 };
    ck_assert_int_eq(ak_read(reg, akm_file, sizeof akm_file, &o, &doc, &rep3), AK_OK);
    ck_assert_str_eq(doc->format, "akm");
    ck_assert_str_eq(doc->clips[0]->tracks[0]->bone, "Root");
    ak_doc_free(doc);
    ak_registry_free(reg);
    /* and so does a priority */
    snprintf(text, sizeof text,
             "[animkit]\nautoload = no\n[plugin akm]\npath = %s\n[plugin rival]\npath = %s\npriority = 5\n", a, b);
    reg = open_config(text, &rep);
    ak_report rep4 = { 0 };
    ck_assert_int_eq(ak_probe(reg, akm_file, sizeof akm_file, "x.akm", &pr, &rep4), AK_OK);
    ck_assert_str_eq(pr.codec->name, "rival");
    ak_registry_free(reg);
}
END_TEST

static ak_status noop_read(ak_job *job, const unsigned char *b, size_t n, ak_doc *doc)
{
    (void)job; (void)b; (void)n;
    return ak_clip_add(doc, "x") ? AK_OK : AK_E_NOMEM;
}
static const ak_codec by_ext = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "byext", "1", "t", "MIT",
                                 "bx,byx", NULL, noop_read, NULL, NULL };

/* A careless reader: keys out of order, or a quaternion twice unit length. */
static ak_status careless_read(ak_job *job, const unsigned char *b, size_t n, ak_doc *doc)
{
    (void)job;
    ak_clip *clip = ak_clip_add(doc, "c");
    ak_track *t = clip ? ak_track_add(clip, "bone") : NULL;
    ak_key *k1 = t ? ak_key_add(t, AK_ROTATION) : NULL;
    if (!k1)
        return AK_E_NOMEM;
    clip->duration = 1;
    k1->time = 0.5;
    if (n && b[0] == 'q') {
        k1->v[3] = 2;
        return AK_OK;
    }
    ak_key *k2 = ak_key_add(t, AK_ROTATION);
    if (!k2)
        return AK_E_NOMEM;
    k2->time = 0.25;
    return AK_OK;
}
static const ak_codec careless = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "careless", "1", "t",
                                   "MIT", "cl", NULL, careless_read, NULL, NULL };

START_TEST(strict_reads_fail_on_model_errors)
{
    const ak_codec *codecs[] = { &careless, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    for (int quat = 0; quat < 2; quat++) {
        const char *input = quat ? "q" : "t";
        ak_options lax = { sizeof lax, "careless", "in.cl", NULL, 0, 0 };
        ak_options strict = { sizeof strict, "careless", "in.cl", NULL, 0, AK_READ_STRICT };
        ak_doc *doc = NULL;
        ak_report rep = { 0 };
        ck_assert_int_eq(ak_read(reg, input, 1, &lax, &doc, &rep), AK_OK);
        ak_doc_free(doc);
        /* An options struct from before the flags field never reads it. */
        ak_options old = strict;
        old.struct_size = offsetof(ak_options, flags);
        ck_assert_int_eq(ak_read(reg, input, 1, &old, &doc, &rep), AK_OK);
        ak_doc_free(doc);
        ak_report rep2 = { 0 };
        ck_assert_int_eq(ak_read(reg, input, 1, &strict, &doc, &rep2), AK_E_DATA);
        ck_assert_ptr_null(doc);
        const char *want = quat ? "in.cl: careless: error: clip 'c', bone 'bone': rotation: 1 quaternions are not "
                                  "unit length (worst norm 2)"
                                : "in.cl: careless: error: clip 'c', bone 'bone': rotation key 1 has time 0.25 s, "
                                  "before the key ahead of it";
        ck_assert_str_eq(rep2.message, want);
    }
    ak_registry_free(reg);
}
END_TEST

START_TEST(extension_alone_scores_low)
{
    const ak_codec *codecs[] = { animkit_codec(), &by_ext, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_probe_result pr;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_probe(reg, "zzzz", 4, "dir.v2/file.BYX", &pr, &rep), AK_OK);
    ck_assert_str_eq(pr.codec->name, "byext");
    ck_assert_int_eq(pr.score, AK_PROBE_EXTENSION);
    /* magic beats extension */
    ck_assert_int_eq(ak_probe(reg, akm_file, sizeof akm_file, "file.bx", &pr, &rep), AK_OK);
    ck_assert_str_eq(pr.codec->name, "akm");
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_probe(reg, "zzzz", 4, "file.txt", &pr, &rep2), AK_E_NOFORMAT);
    ck_assert_ptr_nonnull(strstr(rep2.message, "no plugin recognises this file"));
    ak_registry_free(reg);
}
END_TEST

/* Probes that count the times they were shown a file name. "watch" and
 * "watch2" claim "WAT1" by magic; "weak" makes a little of "WK" bytes and
 * more of them in a .wk file, as the mab probe does of a version word. */
static int named_asks;

static int watch_probe(const unsigned char *b, size_t n, const char *f)
{
    named_asks += f != NULL;
    if (n >= 4 && memcmp(b, "WAT1", 4) == 0)
        return AK_PROBE_MAGIC;
    return ak_filename_has_extension(f, "wat") ? AK_PROBE_EXTENSION : 0;
}

static int weak_probe(const unsigned char *b, size_t n, const char *f)
{
    named_asks += f != NULL;
    if (n < 2 || memcmp(b, "WK", 2) != 0)
        return 0;
    return ak_filename_has_extension(f, "wk") ? 40 : 10;
}

static const ak_codec watch = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "watch", "1", "t", "MIT",
                                "wat", watch_probe, noop_read, NULL, NULL };
static const ak_codec watch2 = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "watch2", "1", "t", "MIT",
                                 "wat", watch_probe, noop_read, NULL, NULL };
static const ak_codec weak = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "weak", "1", "t", "MIT",
                               "wk", weak_probe, noop_read, NULL, NULL };

/* Probes are asked without the file name first; only when no codec
 * claims the bytes by magic alone are they asked again with it. */
START_TEST(probes_see_the_name_only_without_a_lone_magic_match)
{
    const ak_codec *codecs[] = { animkit_codec(), &watch, &weak, &by_ext, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_probe_result pr;
    ak_report rep = { 0 };
    /* akm's magic alone: nobody is shown the name, not even a codec
     * whose extension it carries */
    named_asks = 0;
    ck_assert_int_eq(ak_probe(reg, akm_file, sizeof akm_file, "x.wat", &pr, &rep), AK_OK);
    ck_assert_str_eq(pr.codec->name, "akm");
    ck_assert_int_eq(pr.score, AK_PROBE_MAGIC);
    ck_assert_int_eq(named_asks, 0);
    /* no magic: everyone again with the name, the extension decides */
    ck_assert_int_eq(ak_probe(reg, "zzzz", 4, "x.wat", &pr, &rep), AK_OK);
    ck_assert_str_eq(pr.codec->name, "watch");
    ck_assert_int_eq(pr.score, AK_PROBE_EXTENSION);
    ck_assert_int_eq(named_asks, 2);
    /* a weak guess from the bytes that the name makes surer */
    ck_assert_int_eq(ak_probe(reg, "WKzz", 4, "x.wk", &pr, &rep), AK_OK);
    ck_assert_str_eq(pr.codec->name, "weak");
    ck_assert_int_eq(pr.score, 40);
    ck_assert_int_eq(ak_probe(reg, "WKzz", 4, NULL, &pr, &rep), AK_OK);
    ck_assert_int_eq(pr.score, 10);
    /* extension-only codecs (no probe) still score by the name */
    ck_assert_int_eq(ak_probe(reg, "zzzz", 4, "x.bx", &pr, &rep), AK_OK);
    ck_assert_str_eq(pr.codec->name, "byext");
    ak_registry_free(reg);

    /* two magic matches: asked again with the name, and still a tie */
    const ak_codec *rivals[] = { &watch, &watch2, NULL };
    reg = ak_test_registry(rivals);
    named_asks = 0;
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_probe(reg, "WAT1", 4, "x.wat", &pr, &rep2), AK_E_AMBIGUOUS);
    ck_assert_int_eq(pr.score, AK_PROBE_MAGIC);
    ck_assert_int_eq(named_asks, 2);
    ck_assert_ptr_nonnull(strstr(rep2.message, "ambiguous format"));
    ak_registry_free(reg);
}
END_TEST

START_TEST(add_codec_checks_descriptor)
{
    const ak_codec *codecs[] = { animkit_codec(), NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_add_codec(reg, animkit_codec(), 0, &rep), AK_E_USAGE);
    ck_assert_ptr_nonnull(strstr(rep.message, "already taken"));
    /* Each broken descriptor is refused, saying why, and nothing is added. */
    ak_codec bad[6];
    for (int i = 0; i < 6; i++) {
        bad[i] = *animkit_codec();
        bad[i].name = "other";
    }
    bad[0].name = "Bad Name";
    bad[1].description = NULL;
    bad[2].read = NULL;
    bad[2].write = NULL;
    bad[3].struct_size = (uint32_t)offsetof(ak_codec, write); /* ends before the 1.0 fields do */
    bad[4].abi_major = AK_ABI_MAJOR + 1;
    bad[5].abi_minor = AK_ABI_MINOR + 1; /* newer than this library */
    static const char *const why[] = {
        "its name is empty, longer than 31 bytes, or not made of [a-z0-9_]",
        "its descriptor lacks a version, description, licence or extension list",
        "it can neither read nor write",
        "smaller than the",
        "built for animkit ABI",
        "built for animkit ABI",
    };
    for (int i = 0; i < 6; i++) {
        ak_report r = { 0 };
        ck_assert_int_eq(ak_registry_add_codec(reg, &bad[i], 0, &r), AK_E_USAGE);
        ck_assert_msg(strstr(r.message, "codec refused: ") && strstr(r.message, why[i]), "%d: %s", i, r.message);
    }
    ak_report r = { 0 };
    ck_assert_int_eq(ak_registry_add_codec(reg, NULL, 0, &r), AK_E_USAGE);
    ck_assert_msg(strstr(r.message, "returned no descriptor"), "%s", r.message);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    ak_registry_free(reg);
}
END_TEST

/* A codec that only reads .akm files, at a higher priority than akm. */
static const ak_codec akm_reader = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "akmreader", "1", "t", "MIT",
                                     "akm", NULL, noop_read, NULL, NULL };

/* A write by extension goes to a codec that writes, even when one that
 * only reads claims the extension at a higher priority, in either order of
 * registration. */
START_TEST(write_by_extension_skips_readers_whatever_their_priority)
{
    for (int order = 0; order < 2; order++) {
        ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS, NULL, NULL, NULL, NULL, NULL };
        ak_registry *reg = NULL;
        ak_report rep = { 0 };
        ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
        const ak_codec *first = order ? &akm_reader : animkit_codec(), *second = order ? animkit_codec() : &akm_reader;
        ck_assert_int_eq(ak_registry_add_codec(reg, first, first == &akm_reader ? 5 : 0, &rep), AK_OK);
        ck_assert_int_eq(ak_registry_add_codec(reg, second, second == &akm_reader ? 5 : 0, &rep), AK_OK);
        ak_doc *doc = ak_doc_new();
        ak_clip_add(doc, "walk");
        ak_options o = { sizeof o, NULL, "walk.akm", NULL, 0, 0 };
        unsigned char *bytes;
        size_t n;
        ck_assert_msg(ak_write(reg, doc, &o, &bytes, &n, &rep) == AK_OK, "order %d: %s", order, rep.message);
        ck_assert_int_eq(memcmp(bytes, "AKM1", 4), 0);
        ak_buffer_free(reg, bytes);
        ak_doc_free(doc);
        ak_registry_free(reg);
    }
}
END_TEST

START_TEST(write_reports_losses_and_picks_by_extension)
{
    const ak_codec *codecs[] = { animkit_codec(), NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_doc *doc = ak_doc_new();
    ak_doc_set_format(doc, "ifp", "ANP3");
    ak_clip *clip = ak_clip_add(doc, "walk");
    ak_track *t = ak_track_add(clip, "Pelvis");
    t->has_bone_id = 1;
    ak_key_add(t, AK_ROTATION);
    ak_key_add(t, AK_TRANSLATION);
    ak_key_add(t, AK_TRANSLATION);
    ak_event_add(clip, 0, "a", "b");
    /* Without data of its own format nothing format-specific is lost. */
    ak_test_said w0 = { "" };
    ak_report rep0 = { ak_test_collect, &w0, AK_OK, 0, "", "", "", 0 };
    ak_options o0 = { sizeof o0, "akm", NULL, NULL, 0, 0 };
    unsigned char *b0;
    size_t n0;
    ck_assert_int_eq(ak_write(reg, doc, &o0, &b0, &n0, &rep0), AK_OK);
    ck_assert_ptr_null(strstr(w0.text, "specific to the ifp format"));
    ak_buffer_free(reg, b0);
    ak_prop_set_int(doc, &clip->props, "ifp.flags", 1);
    ak_test_said w = { "" };
    ak_report rep = { ak_test_collect, &w, AK_OK, 0, "", "", "", 0 };
    ak_options o = { sizeof o, NULL, "out/walk.AKM", NULL, 0, 0 };
    unsigned char *bytes;
    size_t n;
    ck_assert_int_eq(ak_write(reg, doc, &o, &bytes, &n, &rep), AK_OK);
    ck_assert_ptr_nonnull(strstr(w.text, "2 translation keys will be dropped: akm cannot store them"));
    ck_assert_ptr_nonnull(strstr(w.text, "1 events will be dropped"));
    ck_assert_ptr_nonnull(strstr(w.text, "1 bone ids will be dropped"));
    ck_assert_ptr_nonnull(strstr(w.text, "specific to the ifp format"));
    ck_assert_uint_eq(n, 4 + 4 + 4 + 1 + 6 + 4 + 20);
    ak_buffer_free(reg, bytes);
    /* two clips cannot go into a one-clip format */
    ak_clip_add(doc, "run");
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_write(reg, doc, &o, &bytes, &n, &rep2), AK_E_USAGE);
    ck_assert_ptr_nonnull(strstr(rep2.message, "exactly one clip"));
    /* an unknown extension without --to is a usage error */
    ak_options o2 = { sizeof o2, NULL, "walk.xyz", NULL, 0, 0 };
    ak_report rep3 = { 0 };
    ck_assert_int_eq(ak_write(reg, doc, &o2, &bytes, &n, &rep3), AK_E_USAGE);
    ck_assert_ptr_nonnull(strstr(rep3.message, "--to"));
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("registry");
    TCase *tc = tcase_create("registry");
    tcase_add_test(tc, good_plugin_loads);
    tcase_add_test(tc, broken_plugins_are_refused_and_skipped);
    tcase_add_test(tc, autoload_and_disable);
    tcase_add_test(tc, probe_tie_is_ambiguous_and_priority_breaks_it);
    tcase_add_test(tc, extension_alone_scores_low);
    tcase_add_test(tc, probes_see_the_name_only_without_a_lone_magic_match);
    tcase_add_test(tc, strict_reads_fail_on_model_errors);
    tcase_add_test(tc, add_codec_checks_descriptor);
    tcase_add_test(tc, write_reports_losses_and_picks_by_extension);
    tcase_add_test(tc, write_by_extension_skips_readers_whatever_their_priority);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
