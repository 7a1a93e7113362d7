/* test_config.c - the INI config: search order, keys, syntax errors with
 * file:line, unknown keys, bad values, missing files. */
#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char dir[PATH_MAX];

static void make_tmpdir(void)
{
    ak_test_tmpdir("config", dir, sizeof dir);
}

static const char *write_at(const char *relative, const char *text)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, relative);
    for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    return path;
}

typedef struct msglog {
    char text[4096];
    int warnings;
} msglog;

static void collect(void *user, const ak_message *m)
{
    msglog *l = user;
    size_t used = strlen(l->text);
    snprintf(l->text + used, sizeof l->text - used, "%s\n", m->text);
    if (m->severity == AK_WARNING)
        l->warnings++;
}

static ak_status open_with(const char *path, ak_registry **reg, ak_report *rep, msglog *l)
{
    ak_registry_config cfg = { sizeof cfg, 0, path, NULL, collect, l, "/nonexistent" };
    return ak_registry_open(&cfg, reg, rep);
}

START_TEST(good_config_is_read)
{
    make_tmpdir();
    const char *path = write_at("etc/animkit.ini", "; a comment\n[animkit]\nplugin_dir = plugins:/opt/x\n"
                                                   "autoload = no\nbone_names = bones.txt\n");
    ak_registry *reg;
    ak_report rep = { 0 };
    msglog l = { "", 0 };
    ck_assert_int_eq(open_with(path, &reg, &rep, &l), AK_OK);
    ck_assert_int_eq(l.warnings, 0);
    ck_assert_str_eq(ak_registry_config_path(reg), path);
    char expect[PATH_MAX];
    snprintf(expect, sizeof expect, "%s/etc/bones.txt", dir);
    ck_assert_str_eq(ak_registry_bone_names(reg), expect);
    ck_assert_uint_eq(ak_registry_count(reg), 0);
    ak_registry_free(reg);
}
END_TEST

START_TEST(syntax_error_names_file_and_line)
{
    make_tmpdir();
    const char *path = write_at("a.ini", "[animkit]\nautoload = yes\nthis line has no equals sign\n");
    ak_registry *reg = (ak_registry *)1;
    ak_report rep = { 0 };
    msglog l = { "", 0 };
    ck_assert_int_eq(open_with(path, &reg, &rep, &l), AK_E_CONFIG);
    ck_assert_ptr_null(reg);
    char expect[PATH_MAX + 32];
    snprintf(expect, sizeof expect, "%s:3: syntax error", path);
    ck_assert_ptr_nonnull(strstr(rep.message, expect));
    ck_assert_int_eq(ak_status_exit(rep.status), 78);
}
END_TEST

START_TEST(unclosed_section_is_a_syntax_error)
{
    make_tmpdir();
    const char *path = write_at("a.ini", "\n\n[animkit\n");
    ak_registry *reg;
    ak_report rep = { 0 };
    msglog l = { "", 0 };
    ck_assert_int_eq(open_with(path, &reg, &rep, &l), AK_E_CONFIG);
    ck_assert_ptr_nonnull(strstr(rep.message, "a.ini:3: syntax error"));
}
END_TEST

START_TEST(long_lines_are_named_and_plugin_dir_appends)
{
    make_tmpdir();
    char text[1024];
    snprintf(text, sizeof text, "[animkit]\nautoload = no\nplugin_dir = /%0250d\n", 0);
    const char *path = write_at("long.ini", text);
    ak_registry *reg;
    ak_report rep = { 0 };
    msglog l = { "", 0 };
    ck_assert_int_eq(open_with(path, &reg, &rep, &l), AK_E_CONFIG);
    ck_assert_ptr_nonnull(strstr(rep.message, "long.ini:3: line longer than"));
    /* Several plugin_dir lines add up: a plugin named by file name is
     * found in the second folder. */
    write_at("d2/x.so", "not really a plugin");
    path = write_at("multi.ini", "[animkit]\nautoload = no\nplugin_dir = d1\nplugin_dir = d2\n[plugin x]\nenabled = yes\n");
    ak_report rep2 = { 0 };
    ck_assert_int_eq(open_with(path, &reg, &rep2, &l), AK_OK);
    ck_assert_uint_eq(ak_registry_refused_count(reg), 1);
    char expect[PATH_MAX];
    snprintf(expect, sizeof expect, "%s/d2/x.so", dir);
    ck_assert_str_eq(ak_registry_refused(reg, 0)->path, expect);
    ck_assert_ptr_nonnull(strstr(ak_registry_refused(reg, 0)->reason, "cannot be loaded as a shared object"));
    ak_registry_free(reg);
}
END_TEST

START_TEST(unknown_keys_warn_with_line)
{
    make_tmpdir();
    const char *path = write_at("a.ini", "[animkit]\nautoload = no\n\nfrobnicate = 1\n[plugin x]\nenabled = no\n"
                                         "colour = red\n[elsewhere]\nk = v\n");
    ak_registry *reg;
    ak_report rep = { 0 };
    msglog l = { "", 0 };
    ck_assert_int_eq(open_with(path, &reg, &rep, &l), AK_OK);
    ck_assert_int_eq(l.warnings, 3);
    ck_assert_ptr_nonnull(strstr(l.text, "a.ini:4: unknown key 'frobnicate' in [animkit]"));
    ck_assert_ptr_nonnull(strstr(l.text, "a.ini:7: unknown key 'colour' in [plugin x]"));
    ck_assert_ptr_nonnull(strstr(l.text, "a.ini:9: key 'k' in unknown section [elsewhere]"));
    ak_registry_free(reg);
}
END_TEST

START_TEST(bad_values_are_errors)
{
    make_tmpdir();
    const char *path = write_at("a.ini", "[plugin x]\npriority = high\n");
    ak_registry *reg;
    ak_report rep = { 0 };
    msglog l = { "", 0 };
    ck_assert_int_eq(open_with(path, &reg, &rep, &l), AK_E_CONFIG);
    ck_assert_ptr_nonnull(strstr(rep.message, "a.ini:2: priority must be an integer, not 'high'"));
    path = write_at("b.ini", "[plugin x]\nenabled = perhaps\n");
    ak_report rep2 = { 0 };
    ck_assert_int_eq(open_with(path, &reg, &rep2, &l), AK_E_CONFIG);
    ck_assert_ptr_nonnull(strstr(rep2.message, "b.ini:2: enabled must be yes or no"));
    path = write_at("c.ini", "[animkit]\n\nautoload = sometimes\n");
    ak_report rep3 = { 0 };
    ck_assert_int_eq(open_with(path, &reg, &rep3, &l), AK_E_CONFIG);
    ck_assert_msg(strstr(rep3.message, "c.ini:3: autoload must be yes or no, not 'sometimes'"), "%s", rep3.message);
}
END_TEST

START_TEST(missing_explicit_config_is_an_error)
{
    ak_registry *reg;
    ak_report rep = { 0 };
    msglog l = { "", 0 };
    ck_assert_int_eq(open_with("/nonexistent/animkit.ini", &reg, &rep, &l), AK_E_CONFIG);
    ck_assert_ptr_nonnull(strstr(rep.message, "cannot open config file"));
}
END_TEST

static const char *found_config(void)
{
    ak_registry_config cfg = { sizeof cfg, 0, NULL, NULL, NULL, NULL, "/nonexistent" };
    static ak_registry *reg;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
    static char path[PATH_MAX];
    const char *p = ak_registry_config_path(reg);
    snprintf(path, sizeof path, "%s", p ? p : "(none)");
    ak_registry_free(reg);
    return path;
}

START_TEST(search_order)
{
    make_tmpdir();
    const char *env = write_at("env.ini", "[animkit]\n");
    char env_path[PATH_MAX];
    snprintf(env_path, sizeof env_path, "%s", env);
    write_at("xdg/animkit/animkit.ini", "[animkit]\n");
    write_at("home/.config/animkit/animkit.ini", "[animkit]\n");
    char xdg[PATH_MAX], home[PATH_MAX], expect[PATH_MAX];
    snprintf(xdg, sizeof xdg, "%s/xdg", dir);
    snprintf(home, sizeof home, "%s/home", dir);
    setenv("ANIMKIT_CONFIG", env_path, 1);
    setenv("XDG_CONFIG_HOME", xdg, 1);
    setenv("HOME", home, 1);
    ck_assert_str_eq(found_config(), env_path);
    unsetenv("ANIMKIT_CONFIG");
    snprintf(expect, sizeof expect, "%s/animkit/animkit.ini", xdg);
    ck_assert_str_eq(found_config(), expect);
    unsetenv("XDG_CONFIG_HOME");
    snprintf(expect, sizeof expect, "%s/.config/animkit/animkit.ini", home);
    ck_assert_str_eq(found_config(), expect);
    snprintf(home, sizeof home, "%s/nohome", dir);
    setenv("HOME", home, 1);
    /* Then the system config (if installed) or the built-in default. */
    const char *last = found_config();
    ck_assert(strcmp(last, "(none)") == 0 || strstr(last, "/animkit/animkit.ini") != NULL);
    ck_assert_ptr_null(strstr(last, dir));
}
END_TEST

START_TEST(env_config_that_is_missing_fails)
{
    setenv("ANIMKIT_CONFIG", "/nonexistent/x.ini", 1);
    ak_registry_config cfg = { sizeof cfg, 0, NULL, NULL, NULL, NULL, "/nonexistent" };
    ak_registry *reg;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_E_CONFIG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, good_config_is_read);
    tcase_add_test(tc, syntax_error_names_file_and_line);
    tcase_add_test(tc, unclosed_section_is_a_syntax_error);
    tcase_add_test(tc, long_lines_are_named_and_plugin_dir_appends);
    tcase_add_test(tc, unknown_keys_warn_with_line);
    tcase_add_test(tc, bad_values_are_errors);
    tcase_add_test(tc, missing_explicit_config_is_an_error);
    tcase_add_test(tc, search_order);
    tcase_add_test(tc, env_config_that_is_missing_fails);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
