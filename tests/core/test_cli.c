/* test_cli.c - the animkit command: exit codes (sysexits.h), atomic
 * convert, --force, help, and the example plugin through a config. */
#include "testutil.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[PATH_MAX], config[PATH_MAX], out_path[PATH_MAX], exe[PATH_MAX];

/* Runs the CLI with the arguments (NULL-terminated); stdout goes to
 * out_path. Returns the exit code. */
static int animkit(const char *first, ...)
{
    const char *argv[32] = { exe };
    int n = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 31; a = va_arg(ap, const char *))
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static char *output(void)
{
    size_t n;
    unsigned char *b = ak_test_slurp(out_path, &n);
    char *s = realloc(b, n + 1);
    s[n] = '\0';
    return s;
}

static const char *path_in_dir(const char *name)
{
    static char buf[4][PATH_MAX];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
    return buf[i];
}

static void put(const char *name, const void *bytes, size_t n)
{
    FILE *fp = fopen(path_in_dir(name), "wb");
    ck_assert_ptr_nonnull(fp);
    fwrite(bytes, 1, n, fp);
    fclose(fp);
}

static const unsigned char akm_file[] = { 'A', 'K', 'M', '1', 0, 0, 0x80, 0x3f, 1, 0, 0, 0, 4, 'R', 'o', 'o',
                                          't', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                          0, 0, 0x80, 0x3f };

static void setup(void)
{
    const char *b = getenv("AK_BUILDDIR");
    ck_assert_ptr_nonnull(b);
    snprintf(exe, sizeof exe, "%s/cli/animkit", b);
    ak_test_tmpdir("cli", dir, sizeof dir);
    snprintf(out_path, sizeof out_path, "%s/stdout.txt", dir);
    snprintf(config, sizeof config, "%s/animkit.ini", dir);
    char text[PATH_MAX + 64];
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin akm]\npath = %s/tests/plugins/.libs/akm.so\n", b);
    put("animkit.ini", text, strlen(text));
    put("walk.akm", akm_file, sizeof akm_file);
    put("short.akm", akm_file, 20);
    put("junk.bin", "junkjunk", 8);
    put("broken.ini", "[animkit\n", 9);
}

START_TEST(usage_errors_exit_64)
{
    setup();
    ck_assert_int_eq(animkit(NULL), 64);
    ck_assert_int_eq(animkit("frobnicate", NULL), 64);
    ck_assert_int_eq(animkit("--no-such-option", "formats", NULL), 64);
    ck_assert_int_eq(animkit("--config", config, "convert", path_in_dir("walk.akm"), NULL), 64);
    ck_assert_int_eq(animkit("--config", config, "--fps", "fast", "info", path_in_dir("walk.akm"), NULL), 64);
    ck_assert_int_eq(animkit("--help", NULL), 0);
    char *o = output();
    ck_assert_ptr_nonnull(strstr(o, "usage: animkit"));
    free(o);
    ck_assert_int_eq(animkit("convert", "--help", NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "usage: animkit convert IN OUT"));
    free(o);
    ck_assert_int_eq(animkit("--version", NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "animkit 0."));
    free(o);
}
END_TEST

START_TEST(input_errors)
{
    setup();
    ck_assert_int_eq(animkit("--config", config, "info", path_in_dir("absent.akm"), NULL), 66);
    ck_assert_int_eq(animkit("--config", config, "info", path_in_dir("short.akm"), NULL), 65);
    ck_assert_int_eq(animkit("--config", config, "info", path_in_dir("junk.bin"), NULL), 65);
    ck_assert_int_eq(animkit("--config", config, "probe", path_in_dir("junk.bin"), NULL), 65);
    ck_assert_int_eq(animkit("--config", path_in_dir("broken.ini"), "formats", NULL), 78);
    ck_assert_int_eq(animkit("--config", path_in_dir("absent.ini"), "formats", NULL), 78);
    ck_assert_int_eq(animkit("--config", config, "--format", "nosuch", "info", path_in_dir("walk.akm"), NULL), 64);
}
END_TEST

START_TEST(formats_probe_info_dump)
{
    setup();
    ck_assert_int_eq(animkit("--config", config, "formats", NULL), 0);
    char *o = output();
    ck_assert_ptr_nonnull(strstr(o, "akm "));
    ck_assert_ptr_nonnull(strstr(o, "akm.so"));
    free(o);
    ck_assert_int_eq(animkit("--config", config, "formats", "--json", NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "\"name\":\"akm\""));
    ck_assert_ptr_nonnull(strstr(o, "\"read\":true,\"write\":true"));
    free(o);
    ck_assert_int_eq(animkit("--config", config, "probe", path_in_dir("walk.akm"), NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "walk.akm: akm (score 100)"));
    free(o);
    ck_assert_int_eq(animkit("--config", config, "info", path_in_dir("walk.akm"), NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "akm AKM1, 1 clip, 1 tracks, 1 keys, 0 events"));
    free(o);
    ck_assert_int_eq(animkit("--config", config, "dump", "--json", path_in_dir("walk.akm"), NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "{\"animkit\":1,\"format\":\"akm\",\"variant\":\"AKM1\""));
    ck_assert_ptr_nonnull(strstr(o, "\"rotation\":[[0,0,0,0,1]]"));
    free(o);
    ck_assert_int_eq(animkit("--config", config, "validate", path_in_dir("walk.akm"), NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "valid, 0 errors, 0 warnings"));
    free(o);
}
END_TEST

START_TEST(convert_is_atomic_and_needs_force)
{
    setup();
    char in[PATH_MAX], out[PATH_MAX];
    snprintf(in, sizeof in, "%s", path_in_dir("walk.akm"));
    snprintf(out, sizeof out, "%s", path_in_dir("copy.akm"));
    ck_assert_int_eq(animkit("--config", config, "convert", in, out, NULL), 0);
    size_t a, b;
    unsigned char *x = ak_test_slurp(in, &a), *y = ak_test_slurp(out, &b);
    ck_assert(ak_test_same_bytes(x, a, y, b, "akm round trip"));
    free(y);
    put("copy.akm", "precious", 8);
    ck_assert_int_eq(animkit("--config", config, "convert", in, out, NULL), 73);
    y = ak_test_slurp(out, &b);
    ck_assert(b == 8 && memcmp(y, "precious", 8) == 0);
    free(y);
    ck_assert_int_eq(animkit("--config", config, "convert", in, out, "--force", NULL), 0);
    y = ak_test_slurp(out, &b);
    ck_assert(ak_test_same_bytes(x, a, y, b, "forced rewrite"));
    free(x);
    free(y);
    ck_assert_int_eq(animkit("--config", config, "convert", in, path_in_dir("no/dir/x.akm"), NULL), 73);
    ck_assert_int_eq(animkit("--config", config, "convert", in, path_in_dir("x.unknown"), NULL), 64);
    ck_assert_int_eq(animkit("--config", config, "convert", in, path_in_dir("y.akm"), "--clip", "nope", NULL), 65);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, usage_errors_exit_64);
    tcase_add_test(tc, input_errors);
    tcase_add_test(tc, formats_probe_info_dump);
    tcase_add_test(tc, convert_is_atomic_and_needs_force);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
