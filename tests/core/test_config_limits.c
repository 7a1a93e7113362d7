/* test_config_limits.c - config and plugin folders at their size limits:
 * more than 256 plugins in a folder, a plugin path too long to resolve, and
 * folder lists too long to hold are reported or ignored whole, never cut
 * or silently replaced by something else. */
#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

static void write_file(const char *path, const void *bytes, size_t n)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(bytes, 1, n, fp), n);
    fclose(fp);
    chmod(path, 0644);
}

static void copy_akm(const char *to)
{
    char src[PATH_MAX];
    snprintf(src, sizeof src, "%s/tests/plugins/.libs/akm.so", getenv("AK_BUILDDIR"));
    size_t n;
    unsigned char *b = ak_test_slurp(src, &n);
    write_file(to, b, n);
    free(b);
}

static ak_registry *open_file(const char *ini, const char *default_path, ak_report *rep)
{
    ak_registry_config cfg = { sizeof cfg, 0, ini, NULL, NULL, NULL, default_path };
    ak_registry *reg = NULL;
    ck_assert_msg(ak_registry_open(&cfg, &reg, rep) == AK_OK, "%s", rep->message);
    return reg;
}

START_TEST(autoload_sees_every_file)
{
    ak_test_tmpdir("cfglimits", dir, sizeof dir);
    char sub[PATH_MAX + 8], path[PATH_MAX + 32], ini[PATH_MAX + 16], text[PATH_MAX + 64];
    snprintf(sub, sizeof sub, "%s/many", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    for (int i = 0; i < 300; i++) {
        snprintf(path, sizeof path, "%s/p%03d.so", sub, i);
        write_file(path, "not an ELF file", 15);
    }
    snprintf(ini, sizeof ini, "%s/animkit.ini", dir);
    snprintf(text, sizeof text, "[animkit]\nplugin_dir = %s\n", sub);
    write_file(ini, text, strlen(text));
    ak_report rep = { 0 };
    ak_registry *reg = open_file(ini, NULL, &rep);
    /* Every one is looked at (and refused): none past 256 is skipped. */
    ck_assert_uint_eq(ak_registry_refused_count(reg), 300);
    ck_assert_str_eq(ak_registry_refused(reg, 299)->name, "p299");
    ak_registry_free(reg);
}
END_TEST

START_TEST(too_long_plugin_path_is_refused_not_replaced)
{
    ak_test_tmpdir("cfglimits", dir, sizeof dir);
    /* A config folder so deep that a relative plugin path from it does not
     * fit PATH_MAX. */
    char deep[PATH_MAX], name[201];
    memset(name, 'd', 200);
    name[200] = '\0';
    snprintf(deep, sizeof deep, "%s", dir);
    while (strlen(deep) + 201 <= 3950) {
        size_t used = strlen(deep);
        snprintf(deep + used, sizeof deep - used, "/%s", name);
        ck_assert_int_eq(mkdir(deep, 0755), 0);
    }
    size_t used = strlen(deep); /* one last folder: exactly 4000 bytes */
    snprintf(deep + used, sizeof deep - used, "/%.*s", (int)(4000 - used - 1), name);
    ck_assert_int_eq(mkdir(deep, 0755), 0);
    ck_assert_uint_eq(strlen(deep), 4000);
    char plugins[PATH_MAX + 16], so[PATH_MAX + 32], ini[PATH_MAX + 16], text[1024];
    snprintf(plugins, sizeof plugins, "%s/p", dir);
    ck_assert_int_eq(mkdir(plugins, 0755), 0);
    snprintf(so, sizeof so, "%s/akm.so", plugins);
    copy_akm(so); /* what the old fallback, NAME.so in plugin_dir, would load */
    snprintf(ini, sizeof ini, "%s/a.ini", deep);
    char rel[190];
    memset(rel, 'r', sizeof rel - 1);
    rel[sizeof rel - 1] = '\0';
    memcpy(rel, "x/", 2);
    snprintf(text, sizeof text, "[animkit]\nautoload = no\nplugin_dir = %s\n[plugin akm]\npath = %s\n", plugins, rel);
    write_file(ini, text, strlen(text));
    ak_report rep = { 0 };
    ak_registry *reg = open_file(ini, NULL, &rep);
    ck_assert_uint_eq(ak_registry_count(reg), 0);
    ck_assert_uint_eq(ak_registry_refused_count(reg), 1);
    ck_assert_msg(strstr(ak_registry_refused(reg, 0)->reason, "its path (line 5) is too long"), "%s",
                  ak_registry_refused(reg, 0)->reason);
    ak_registry_free(reg);
}
END_TEST

START_TEST(too_long_folder_list_is_not_cut)
{
    ak_test_tmpdir("cfglimits", dir, sizeof dir);
    char sub[PATH_MAX + 16], so[PATH_MAX + 32];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    snprintf(so, sizeof so, "%s/akm.so", sub);
    copy_akm(so);
    /* Empty entries, then a folder whose name, cut at 4095 bytes, would be
     * exactly `sub`: the list must be dropped, not cut there. */
    size_t len = strlen(sub), colons = 4095 - len;
    char *list = malloc(colons + len + 16);
    memset(list, ':', colons);
    snprintf(list + colons, len + 16, "%s-not-this", sub);
    ak_report rep = { 0 };
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_SEARCH, NULL, NULL, NULL, NULL, list };
    ak_registry *reg = NULL;
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
    ck_assert_uint_eq(ak_registry_count(reg), 0);
    ak_registry_free(reg);
    /* Without the tail the same folder is used: the setup is right. */
    list[colons + len] = '\0';
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    ak_registry_free(reg);
    free(list);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config_limits");
    TCase *tc = tcase_create("config_limits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, autoload_sees_every_file);
    tcase_add_test(tc, too_long_plugin_path_is_refused_not_replaced);
    tcase_add_test(tc, too_long_folder_list_is_not_cut);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
