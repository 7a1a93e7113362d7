/* test_plugin_load.c - what happens before and while a plugin is loaded:
 * the ABI note read from the file (no code of a foreign-ABI plugin runs),
 * the warning for plugins without it, the entry symbol's explanations
 * (hidden, C++-mangled), and the name-collision rule. */
#define _GNU_SOURCE /* dladdr() */
#include "testutil.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

typedef struct msglog {
    char text[16384];
} msglog;

static void collect(void *user, const ak_message *m)
{
    msglog *l = user;
    size_t used = strlen(l->text);
    snprintf(l->text + used, sizeof l->text - used, "%s: %s\n", m->file ? m->file : "-", m->text);
}

static const char *plugin(const char *name)
{
    static char buf[8][PATH_MAX];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, PATH_MAX, "%s/tests/plugins/.libs/%s.so", getenv("AK_BUILDDIR"), name);
    return p;
}

static ak_registry *open_config_flags(const char *text, uint32_t flags, msglog *l)
{
    char ini[PATH_MAX];
    snprintf(ini, sizeof ini, "%s/animkit.ini", dir);
    FILE *fp = fopen(ini, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    ak_registry_config cfg = { sizeof cfg, flags, ini, NULL, collect, l, "/nonexistent" };
    ak_registry *reg = NULL;
    ak_report rep = { 0 };
    ck_assert_msg(ak_registry_open(&cfg, &reg, &rep) == AK_OK, "%s", rep.message);
    return reg;
}

static ak_registry *open_config(const char *text, msglog *l) { return open_config_flags(text, 0, l); }

static const char *refusal(const ak_registry *reg, const char *name)
{
    for (size_t i = 0; i < ak_registry_refused_count(reg); i++)
        if (!strcmp(ak_registry_refused(reg, i)->name, name))
            return ak_registry_refused(reg, i)->reason;
    return NULL;
}

static void copy_plugin(const char *name, const char *to)
{
    size_t n;
    unsigned char *b = ak_test_slurp(plugin(name), &n);
    FILE *fp = fopen(to, "wb");
    ck_assert_ptr_nonnull(fp);
    fwrite(b, 1, n, fp);
    fclose(fp);
    free(b);
    chmod(to, 0644);
}

START_TEST(foreign_abi_never_runs)
{
    ak_test_tmpdir("load", dir, sizeof dir);
    char mark[PATH_MAX + 16], text[4 * PATH_MAX];
    snprintf(mark, sizeof mark, "%s/constructor-ran", dir);
    setenv("AK_TEST_CTOR_MARK", mark, 1);
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin badabi]\npath = %s\n[plugin newminor]\npath = %s\n",
             plugin("badabi"), plugin("newminor"));
    msglog l = { "" };
    ak_registry *reg = open_config(text, &l);
    ck_assert_uint_eq(ak_registry_count(reg), 0);
    const char *why = refusal(reg, "badabi");
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strstr(why, "built for animkit ABI 2.0") && strstr(why, "from its ELF note; none of its code was run"),
                  "%s", why);
    why = refusal(reg, "newminor");
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strstr(why, "from its ELF note"), "%s", why);
    /* Its constructor would have left the mark. */
    ck_assert_msg(access(mark, F_OK) != 0, "badabi's constructor ran");
    ak_registry_free(reg);
}
END_TEST

START_TEST(plugins_without_note_load_with_a_warning)
{
    ak_test_tmpdir("load", dir, sizeof dir);
    char text[4 * PATH_MAX];
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin akm]\npath = %s\n[plugin oldminor]\npath = %s\n"
             "[plugin minor11]\npath = %s\n", plugin("akm"), plugin("oldminor"), plugin("minor11"));
    msglog l = { "" };
    ak_registry *reg = open_config(text, &l);
    ck_assert_uint_eq(ak_registry_count(reg), 3);
    ck_assert_ptr_nonnull(strstr(l.text, "plugin 'oldminor' has no animkit ABI note"));
    ck_assert_ptr_nonnull(strstr(l.text, "plugin 'minor11' has no animkit ABI note"));
    ck_assert_ptr_null(strstr(l.text, "plugin 'akm' has no"));
    ak_registry_free(reg);
}
END_TEST

START_TEST(plugins_of_earlier_minors_with_the_note_load_without_a_warning)
{
    ak_test_tmpdir("load", dir, sizeof dir);
    char text[6 * PATH_MAX];
    snprintf(text, sizeof text,
             "[animkit]\nautoload = no\n[plugin minor12]\npath = %s\n[plugin minor13]\npath = %s\n"
             "[plugin minor14]\npath = %s\n[plugin minor15]\npath = %s\n[plugin minor16]\npath = %s\n",
             plugin("minor12"), plugin("minor13"), plugin("minor14"), plugin("minor15"), plugin("minor16"));
    msglog l = { "" };
    ak_registry *reg = open_config(text, &l);
    ck_assert_uint_eq(ak_registry_count(reg), 5);
    ck_assert_uint_eq(ak_registry_plugin(reg, 0)->codec->abi_minor, 2);
    ck_assert_uint_eq(ak_registry_plugin(reg, 1)->codec->abi_minor, 3);
    ck_assert_uint_eq(ak_registry_plugin(reg, 2)->codec->abi_minor, 4);
    ck_assert_uint_eq(ak_registry_plugin(reg, 3)->codec->abi_minor, 5);
    ck_assert_uint_eq(ak_registry_plugin(reg, 4)->codec->abi_minor, 6);
    ck_assert_int_eq(AK_ABI_MINOR, 7); /* 1.6 is the previous minor */
    ck_assert_ptr_null(strstr(l.text, "minor12"));
    ck_assert_ptr_null(strstr(l.text, "minor13"));
    ck_assert_ptr_null(strstr(l.text, "minor14"));
    ck_assert_ptr_null(strstr(l.text, "minor15"));
    ck_assert_ptr_null(strstr(l.text, "minor16"));
    ak_registry_free(reg);
}
END_TEST

/* AK_REG_KEEP_LOADED: the plugin's code and descriptor stay mapped after
 * ak_registry_free(); without it they are unloaded. */
START_TEST(keep_loaded_leaves_plugins_mapped)
{
    ak_test_tmpdir("load", dir, sizeof dir);
    char text[2 * PATH_MAX];
    msglog l = { "" };
    Dl_info di;
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin rival]\npath = %s\n", plugin("rival"));
    ak_registry *reg = open_config(text, &l);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    const ak_codec *codec = ak_registry_plugin(reg, 0)->codec;
    ck_assert_int_ne(dladdr(codec, &di), 0);
    ak_registry_free(reg);
    ck_assert_int_eq(dladdr(codec, &di), 0);
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin akm]\npath = %s\n", plugin("akm"));
    reg = open_config_flags(text, AK_REG_KEEP_LOADED, &l);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    codec = ak_registry_plugin(reg, 0)->codec;
    ak_registry_free(reg);
    ck_assert_int_ne(dladdr(codec, &di), 0);
    ck_assert_str_eq(codec->name, "akm");
}
END_TEST

START_TEST(entry_refusals_say_why)
{
    ak_test_tmpdir("load", dir, sizeof dir);
    char text[4 * PATH_MAX];
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin hidden]\npath = %s\n[plugin mangled]\npath = %s\n"
             "[plugin nosym]\npath = %s\n[plugin hiddenok]\npath = %s\n",
             plugin("hidden"), plugin("mangled"), plugin("nosym"), plugin("hiddenok"));
    msglog l = { "" };
    ak_registry *reg = open_config(text, &l);
    /* -fvisibility=hidden with AK_PLUGIN_ENTRY loads and reads. */
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    ck_assert_str_eq(ak_registry_plugin(reg, 0)->codec->name, "hiddenok");
    ak_options o = { sizeof o, NULL, "x.hok", NULL, 0, 0 };
    ak_doc *doc = NULL;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_read(reg, "HOK1", 4, &o, &doc, &rep), AK_OK);
    ck_assert_str_eq(doc->clips[0]->name, "hiddenok");
    ak_doc_free(doc);
    const char *why = refusal(reg, "hidden");
    ck_assert_msg(why && strstr(why, "it exists but is hidden") && strstr(why, "AK_PLUGIN_ENTRY"), "%s", why);
    why = refusal(reg, "mangled");
    ck_assert_msg(why && strstr(why, "found '_Z13animkit_codecv' instead, a C++-mangled name"), "%s", why);
    why = refusal(reg, "nosym");
    ck_assert_msg(why && strstr(why, "no entry symbol 'animkit_codec' (declare it with AK_PLUGIN_ENTRY()"), "%s", why);
    ak_registry_free(reg);
}
END_TEST

START_TEST(config_wins_over_autoload)
{
    ak_test_tmpdir("load", dir, sizeof dir);
    char autodir[PATH_MAX + 8], so[PATH_MAX + 16], text[4 * PATH_MAX];
    snprintf(autodir, sizeof autodir, "%s/auto", dir);
    mkdir(autodir, 0755);
    snprintf(so, sizeof so, "%s/akm.so", autodir);
    copy_plugin("akm", so);
    /* dupname calls itself akm; named in the config it wins over the
     * autoloaded akm.so, and the section's other name is reported. */
    snprintf(text, sizeof text, "[animkit]\nplugin_dir = %s\n[plugin impostor]\npath = %s\n", autodir,
             plugin("dupname"));
    msglog l = { "" };
    ak_registry *reg = open_config(text, &l);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    ck_assert_str_eq(ak_registry_plugin(reg, 0)->codec->version, "9");
    const char *why = refusal(reg, "akm");
    char expect[3 * PATH_MAX];
    snprintf(expect, sizeof expect, "the name 'akm' is already taken by %s (named in the config), which is used",
             plugin("dupname"));
    ck_assert_msg(why && strstr(why, expect), "%s", why);
    ck_assert_ptr_nonnull(strstr(l.text, "config section [plugin impostor] loads a plugin that calls itself 'akm'"));
    ak_registry_free(reg);
}
END_TEST

START_TEST(own_name_wins_among_autoloaded_and_equals_are_both_named)
{
    ak_test_tmpdir("load", dir, sizeof dir);
    char autodir[PATH_MAX + 8], a[PATH_MAX + 16], b[PATH_MAX + 16], text[4 * PATH_MAX];
    snprintf(autodir, sizeof autodir, "%s/auto", dir);
    mkdir(autodir, 0755);
    /* aaa.so (loaded first, in name order) calls itself akm, as akm.so does:
     * akm.so, named as it calls itself, is used. */
    snprintf(a, sizeof a, "%s/aaa.so", autodir);
    snprintf(b, sizeof b, "%s/akm.so", autodir);
    copy_plugin("dupname", a);
    copy_plugin("akm", b);
    snprintf(text, sizeof text, "[animkit]\nplugin_dir = %s\n", autodir);
    msglog l = { "" };
    ak_registry *reg = open_config(text, &l);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    ck_assert_str_eq(ak_registry_plugin(reg, 0)->path, b);
    ck_assert_str_eq(ak_registry_plugin(reg, 0)->codec->version, "1.0.0");
    ck_assert_uint_eq(ak_registry_refused_count(reg), 1);
    const ak_refused_plugin *r = ak_registry_refused(reg, 0);
    ck_assert_str_eq(r->path, a);
    char expect[3 * PATH_MAX];
    snprintf(expect, sizeof expect, "the name 'akm' is also taken by %s (autoloaded as its own name), which is used", b);
    ck_assert_msg(strstr(r->reason, expect), "%s", r->reason);
    ak_registry_free(reg);
    /* Two sections of equal standing: the first is used, both are named. */
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin akm]\npath = %s\n[plugin other]\npath = %s\n", b, a);
    msglog l2 = { "" };
    reg = open_config(text, &l2);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    ck_assert_str_eq(ak_registry_plugin(reg, 0)->path, b);
    const char *why = refusal(reg, "other");
    snprintf(expect, sizeof expect, "the name 'akm' is already taken by %s (named in the config), which is used; "
             "both have equal standing", b);
    ck_assert_msg(why && strstr(why, expect), "%s", why);
    ck_assert_str_eq(ak_registry_refused(reg, 0)->path, a);
    ak_registry_free(reg);
}
END_TEST

/* Every in-tree plugin is built with AK_PLUGIN_ENTRY: none runs code
 * before its ABI is known, and none makes the CLI warn on every run. */
START_TEST(in_tree_plugins_carry_the_note)
{
    ak_test_tmpdir("load", dir, sizeof dir);
    char base[PATH_MAX], text[16384] = "[animkit]\n";
    snprintf(base, sizeof base, "%s/plugins", getenv("AK_BUILDDIR"));
    DIR *d = opendir(base);
    ck_assert_ptr_nonnull(d);
    int folders = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "plugin_dir = %s/%s/.libs\n", base, e->d_name);
        folders++;
    }
    closedir(d);
    msglog l = { "" };
    ak_registry *reg = open_config(text, &l);
    ck_assert_int_ge(folders, 5);
    ck_assert_uint_eq(ak_registry_count(reg), (size_t)folders);
    ck_assert_uint_eq(ak_registry_refused_count(reg), 0);
    ck_assert_msg(strstr(l.text, "has no animkit ABI note") == NULL, "%s", l.text);
    ak_registry_free(reg);
}
END_TEST

/* Loading goes through /proc/self/fd/N, a name the loader remembers after
 * N is closed and reused: registries opened while others live, and after
 * some are freed, must each get the objects their config names. */
START_TEST(registries_side_by_side_get_their_own_plugins)
{
    ak_test_tmpdir("load", dir, sizeof dir);
    const char *orders[3][3] = { { "akm", "rival", "hiddenok" }, { "hiddenok", "akm", "rival" },
                                 { "rival", "hiddenok", "akm" } };
    ak_registry *live[6] = { NULL };
    for (int round = 0; round < 6; round++) {
        const char *const *names = orders[round % 3];
        char text[4 * PATH_MAX];
        snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin %s]\npath = %s\n[plugin %s]\npath = %s\n"
                 "[plugin %s]\npath = %s\n", names[0], plugin(names[0]), names[1], plugin(names[1]), names[2],
                 plugin(names[2]));
        msglog l = { "" };
        live[round] = open_config(text, &l);
        ck_assert_msg(ak_registry_count(live[round]) == 3, "round %d: %s", round, l.text);
        for (size_t i = 0; i < 3; i++) {
            const ak_plugin_info *p = ak_registry_plugin(live[round], i);
            ck_assert_str_eq(p->codec->name, names[i]);
            ck_assert_str_eq(p->path, plugin(names[i]));
        }
        if (round == 2) { /* free two: their descriptor numbers are reused */
            ak_registry_free(live[0]);
            ak_registry_free(live[1]);
            live[0] = live[1] = NULL;
        }
    }
    for (int i = 0; i < 6; i++)
        ak_registry_free(live[i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plugin_load");
    TCase *tc = tcase_create("plugin_load");
    tcase_add_test(tc, foreign_abi_never_runs);
    tcase_add_test(tc, plugins_without_note_load_with_a_warning);
    tcase_add_test(tc, plugins_of_earlier_minors_with_the_note_load_without_a_warning);
    tcase_add_test(tc, entry_refusals_say_why);
    tcase_add_test(tc, keep_loaded_leaves_plugins_mapped);
    tcase_add_test(tc, config_wins_over_autoload);
    tcase_add_test(tc, own_name_wins_among_autoloaded_and_equals_are_both_named);
    tcase_add_test(tc, in_tree_plugins_carry_the_note);
    tcase_add_test(tc, registries_side_by_side_get_their_own_plugins);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
