/* test_trust.c - which plugin and config files may be used: owner and
 * mode of the file and of every folder on its resolved path, symbolic
 * links, /tmp, relative XDG_CONFIG_HOME, and the development escape hatch.
 * Cases needing another user's files run only as root (chown to 65534). */
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

typedef struct msglog {
    char text[8192];
} msglog;

static void collect(void *user, const ak_message *m)
{
    msglog *l = user;
    size_t used = strlen(l->text);
    snprintf(l->text + used, sizeof l->text - used, "%s\n", m->text);
}

/* A trusted folder under the build tree; 0 (after SKIP) when the build
 * tree itself is not trusted, since nothing can then be shown trusted. */
static int trusted_tmpdir(void)
{
    unsetenv("ANIMKIT_UNSAFE_PLUGINS");
    ak_test_tmpdir("trust", dir, sizeof dir);
    if (getenv("ANIMKIT_UNSAFE_PLUGINS")) {
        ak_test_skip("the build tree is not trusted, so trust cases cannot be set up");
        return 0;
    }
    return 1;
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
    size_t n;
    unsigned char *b = ak_test_slurp(from, &n);
    FILE *fp = fopen(to, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(b, 1, n, fp), n);
    fclose(fp);
    free(b);
    ck_assert_int_eq(chmod(to, mode), 0);
}

static void akm_copy(const char *to)
{
    char src[PATH_MAX];
    snprintf(src, sizeof src, "%s/tests/plugins/.libs/akm.so", getenv("AK_BUILDDIR"));
    copy_file(src, to, 0644);
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    ck_assert_int_eq(chmod(path, 0644), 0);
}

/* Opens a registry whose config (in the trusted folder) names `plugin`. */
static ak_registry *open_naming(const char *plugin, unsigned flags, msglog *l)
{
    char ini[PATH_MAX], text[PATH_MAX + 64];
    snprintf(ini, sizeof ini, "%s/animkit.ini", dir);
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin akm]\npath = %s\n", plugin);
    write_text(ini, text);
    ak_registry_config cfg = { sizeof cfg, flags, ini, NULL, collect, l, "/nonexistent" };
    ak_registry *reg = NULL;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
    return reg;
}

static const char *refusal_of(const ak_registry *reg)
{
    ck_assert_uint_eq(ak_registry_refused_count(reg), 1);
    return ak_registry_refused(reg, 0)->reason;
}

START_TEST(trusted_folder_loads)
{
    if (!trusted_tmpdir())
        return;
    char so[PATH_MAX];
    snprintf(so, sizeof so, "%s/akm.so", dir);
    akm_copy(so);
    msglog l = { "" };
    ak_registry *reg = open_naming(so, 0, &l);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    ck_assert_ptr_null(strstr(l.text, "trust checks are off"));
    ak_registry_free(reg);
}
END_TEST

START_TEST(plugin_below_tmp_is_refused)
{
    if (!trusted_tmpdir())
        return;
    /* Our own 0700 folder, but below /tmp (mode 1777): others may replace
     * names in /tmp, so the path is not safe. */
    char tmp[] = "/tmp/ak-trust-XXXXXX", so[PATH_MAX];
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    snprintf(so, sizeof so, "%s/akm.so", tmp);
    akm_copy(so);
    msglog l = { "" };
    ak_registry *reg = open_naming(so, 0, &l);
    ck_assert_uint_eq(ak_registry_count(reg), 0);
    const char *why = refusal_of(reg);
    ck_assert_msg(strstr(why, "folder /tmp is writable by others") && strstr(why, "sticky") &&
                      strstr(why, "chmod go-w /tmp"), "%s", why);
    ak_registry_free(reg);
    /* The escape hatch loads it, and says so. */
    msglog l2 = { "" };
    reg = open_naming(so, AK_REG_UNSAFE_PLUGINS, &l2);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    ck_assert_ptr_nonnull(strstr(l2.text, "trust checks are off"));
    ak_registry_free(reg);
    setenv("ANIMKIT_UNSAFE_PLUGINS", "1", 1);
    msglog l3 = { "" };
    reg = open_naming(so, 0, &l3);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    ck_assert_ptr_nonnull(strstr(l3.text, "ANIMKIT_UNSAFE_PLUGINS=1"));
    ak_registry_free(reg);
    unsetenv("ANIMKIT_UNSAFE_PLUGINS");
    /* A symbolic link in the trusted folder does not make it safe: the
     * resolved path is what counts. */
    char link[PATH_MAX];
    snprintf(link, sizeof link, "%s/link.so", dir);
    ck_assert_int_eq(symlink(so, link), 0);
    msglog l4 = { "" };
    reg = open_naming(link, 0, &l4);
    ck_assert_uint_eq(ak_registry_count(reg), 0);
    why = refusal_of(reg);
    ck_assert_msg(strstr(why, "folder /tmp is writable by others"), "%s", why);
    ak_registry_free(reg);
    unlink(link);
    unlink(so);
    rmdir(tmp);
}
END_TEST

START_TEST(group_writable_folder_is_named)
{
    if (!trusted_tmpdir())
        return;
    char sub[PATH_MAX], so[PATH_MAX + 16];
    snprintf(sub, sizeof sub, "%s/shared", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    ck_assert_int_eq(chmod(sub, 0775), 0);
    snprintf(so, sizeof so, "%s/akm.so", sub);
    akm_copy(so);
    msglog l = { "" };
    ak_registry *reg = open_naming(so, 0, &l);
    ck_assert_uint_eq(ak_registry_count(reg), 0);
    const char *why = refusal_of(reg);
    char expect[PATH_MAX + 64];
    snprintf(expect, sizeof expect, "folder %s is writable by its group (mode 0775)", sub);
    ck_assert_msg(strstr(why, expect) != NULL, "%s", why);
    ak_registry_free(reg);
}
END_TEST

START_TEST(config_below_tmp_is_refused)
{
    if (!trusted_tmpdir())
        return;
    char tmp[] = "/tmp/ak-trust-XXXXXX", ini[PATH_MAX];
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    snprintf(ini, sizeof ini, "%s/animkit.ini", tmp);
    write_text(ini, "[animkit]\nautoload = no\n");
    ak_registry_config cfg = { sizeof cfg, 0, ini, NULL, NULL, NULL, "/nonexistent" };
    ak_registry *reg = NULL;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_E_CONFIG);
    ck_assert_msg(strstr(rep.message, "folder /tmp is writable by others"), "%s", rep.message);
    /* and a group-writable config file itself */
    snprintf(ini, sizeof ini, "%s/open.ini", dir);
    write_text(ini, "[animkit]\nautoload = no\n");
    chmod(ini, 0664);
    cfg.config_file = ini;
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep2), AK_E_CONFIG);
    ck_assert_msg(strstr(rep2.message, "writable by other users (mode 664)"), "%s", rep2.message);
    unlink(ini);
    snprintf(ini, sizeof ini, "%s/animkit.ini", tmp);
    unlink(ini);
    rmdir(tmp);
}
END_TEST

/* A plugin or config path naming a FIFO or a folder is refused as not a
 * regular file; opening the FIFO must not wait for a writer. */
START_TEST(fifo_and_folder_are_refused)
{
    if (!trusted_tmpdir())
        return;
    char fifo[PATH_MAX], folder[PATH_MAX];
    snprintf(fifo, sizeof fifo, "%s/pipe.so", dir);
    snprintf(folder, sizeof folder, "%s/folder.so", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(mkdir(folder, 0700), 0);
    const char *paths[] = { fifo, folder };
    for (int i = 0; i < 2; i++) {
        msglog l = { "" };
        ak_registry *reg = open_naming(paths[i], 0, &l);
        ck_assert_uint_eq(ak_registry_count(reg), 0);
        const char *why = refusal_of(reg);
        ck_assert_msg(strstr(why, "not a regular file"), "%s: %s", paths[i], why);
        ak_registry_free(reg);
    }
    ak_registry_config cfg = { sizeof cfg, 0, fifo, NULL, NULL, NULL, "/nonexistent" };
    ak_registry *reg = NULL;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_E_CONFIG);
    ck_assert_msg(strstr(rep.message, "not a regular file"), "%s", rep.message);
    unlink(fifo);
    rmdir(folder);
}
END_TEST

START_TEST(relative_xdg_config_home_is_ignored)
{
    if (!trusted_tmpdir())
        return;
    /* A config in ./animkit/ that would fail to parse: read, it would make
     * the open fail. */
    char sub[PATH_MAX + 16], ini[PATH_MAX + 32];
    snprintf(sub, sizeof sub, "%s/animkit", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    snprintf(ini, sizeof ini, "%s/animkit.ini", sub);
    write_text(ini, "this is not ini\n");
    ck_assert_int_eq(chdir(dir), 0);
    unsetenv("ANIMKIT_CONFIG");
    setenv("XDG_CONFIG_HOME", ".", 1);
    setenv("HOME", "animkit", 1); /* relative too */
    ak_registry_config cfg = { sizeof cfg, 0, NULL, NULL, NULL, NULL, "/nonexistent" };
    ak_registry *reg = NULL;
    ak_report rep = { 0 };
    ck_assert_msg(ak_registry_open(&cfg, &reg, &rep) == AK_OK, "%s", rep.message);
    const char *used = ak_registry_config_path(reg);
    ck_assert_msg(!used || !strstr(used, "./animkit"), "read %s", used);
    ak_registry_free(reg);
    /* The same file reached by an absolute XDG_CONFIG_HOME is read. */
    setenv("XDG_CONFIG_HOME", dir, 1);
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep2), AK_E_CONFIG);
}
END_TEST

START_TEST(other_owner_is_refused_as_root)
{
    if (geteuid() != 0) {
        ak_test_skip("ownership cases need root (they chown files to uid 65534)");
        return;
    }
    if (!trusted_tmpdir())
        return;
    char so[PATH_MAX];
    snprintf(so, sizeof so, "%s/akm.so", dir);
    akm_copy(so);
    ck_assert_int_eq(chown(so, 65534, 65534), 0);
    msglog l = { "" };
    ak_registry *reg = open_naming(so, 0, &l);
    ck_assert_uint_eq(ak_registry_count(reg), 0);
    const char *why = refusal_of(reg);
    ck_assert_msg(strstr(why, "belongs to uid 65534, not to root or to you") && strstr(why, "chown"), "%s", why);
    ak_registry_free(reg);
    /* Mode 0644 in a folder another user owns: refused too. */
    char sub[PATH_MAX], so2[PATH_MAX + 16];
    snprintf(sub, sizeof sub, "%s/theirs", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    snprintf(so2, sizeof so2, "%s/akm.so", sub);
    akm_copy(so2);
    ck_assert_int_eq(chown(sub, 65534, 65534), 0);
    msglog l2 = { "" };
    reg = open_naming(so2, 0, &l2);
    ck_assert_uint_eq(ak_registry_count(reg), 0);
    char expect[PATH_MAX + 32];
    snprintf(expect, sizeof expect, "folder %s belongs to uid 65534", sub);
    why = refusal_of(reg);
    ck_assert_msg(strstr(why, expect) != NULL, "%s", why);
    ak_registry_free(reg);
    /* The escape hatch skips the owner checks. */
    msglog l3 = { "" };
    reg = open_naming(so, AK_REG_UNSAFE_PLUGINS, &l3);
    ck_assert_uint_eq(ak_registry_count(reg), 1);
    ak_registry_free(reg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trust");
    TCase *tc = tcase_create("trust");
    tcase_add_test(tc, trusted_folder_loads);
    tcase_add_test(tc, plugin_below_tmp_is_refused);
    tcase_add_test(tc, group_writable_folder_is_named);
    tcase_add_test(tc, config_below_tmp_is_refused);
    tcase_add_test(tc, fifo_and_folder_are_refused);
    tcase_add_test(tc, relative_xdg_config_home_is_ignored);
    tcase_add_test(tc, other_owner_is_refused_as_root);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
