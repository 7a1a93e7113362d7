/* test_cli_output.c - what the animkit command prints for hostile or odd
 * documents, and when its output cannot be written: control bytes in
 * names are escaped, JSON stays JSON for NaN and infinite numbers, and a
 * full standard output is exit 74 for every command. */
#include "testutil.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[PATH_MAX], config[PATH_MAX + 16], exe[PATH_MAX];
static const char *out_path;
static char out_file[PATH_MAX + 16];

/* Runs the CLI (NULL-terminated arguments) with stdout to out_path; the
 * exit code. */
static int animkit(const char *first, ...)
{
    const char *argv[32] = { exe, "--config", config };
    int n = 3;
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
    unsigned char *b = ak_test_slurp(out_file, &n);
    char *s = realloc(b, n + 1);
    s[n] = '\0';
    return s;
}

static const char *put(const char *name, const void *bytes, size_t n)
{
    static char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    fwrite(bytes, 1, n, fp);
    fclose(fp);
    return path;
}

/* An akm file: duration (4 bytes), one track named `bone`, one rotation key. */
static const char *akm(const char *name, const unsigned char duration[4], const char *bone)
{
    unsigned char b[512];
    size_t n = 0, len = strlen(bone);
    memcpy(b, "AKM1", 4);
    memcpy(b + 4, duration, 4);
    n = 8;
    b[n++] = 1, b[n++] = 0, b[n++] = 0, b[n++] = 0;
    b[n++] = (unsigned char)len;
    memcpy(b + n, bone, len);
    n += len;
    b[n++] = 1, b[n++] = 0, b[n++] = 0, b[n++] = 0;
    memset(b + n, 0, 16);
    n += 16;
    b[n++] = 0, b[n++] = 0, b[n++] = 0x80, b[n++] = 0x3f; /* w = 1 */
    return put(name, b, n);
}

static const unsigned char one[4] = { 0, 0, 0x80, 0x3f }, nan_bits[4] = { 0, 0, 0xc0, 0x7f },
                           inf_bits[4] = { 0, 0, 0x80, 0x7f };

static void setup(void)
{
    const char *b = getenv("AK_BUILDDIR");
    snprintf(exe, sizeof exe, "%s/cli/animkit", b);
    ak_test_tmpdir("cli-output", dir, sizeof dir);
    snprintf(out_file, sizeof out_file, "%s/stdout.txt", dir);
    out_path = out_file;
    snprintf(config, sizeof config, "%s/animkit.ini", dir);
    char text[PATH_MAX + 64];
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin akm]\npath = %s/tests/plugins/.libs/akm.so\n", b);
    put("animkit.ini", text, strlen(text));
}

START_TEST(control_bytes_are_escaped)
{
    setup();
    const char *file = akm("evil.akm", one, "R\x1b]0;owned\x07\x1b[31m\xc2\x9b" "2J\xe2\x82\xac");
    ck_assert_int_eq(animkit("dump", file, NULL), 0);
    char *o = output();
    ck_assert_msg(strstr(o, "track \"R\\x1b]0;owned\\x07\\x1b[31m\\xc2\\x9b2J\xe2\x82\xac\""), "%s", o);
    for (const char *p = o; *p; p++)
        ck_assert_msg((unsigned char)*p >= 0x20 || *p == '\n', "raw control byte 0x%02x", (unsigned char)*p);
    free(o);
    /* A file name with escapes, shown by info (as path and clip name). */
    const char *named = akm("w\x1b[2Jx.akm", one, "root");
    ck_assert_int_eq(animkit("info", named, NULL), 0);
    o = output();
    ck_assert_msg(strstr(o, "w\\x1b[2Jx.akm: akm AKM1"), "%s", o);
    ck_assert_ptr_null(strchr(o, 0x1b));
    free(o);
}
END_TEST

START_TEST(info_json_has_no_bare_nan)
{
    setup();
    const char *a = akm("nan.akm", nan_bits, "root");
    const char *b_copy = strdup(a);
    const char *b = akm("inf.akm", inf_bits, "root");
    ck_assert_int_eq(animkit("info", "--json", b_copy, b, NULL), 0);
    char *o = output();
    ck_assert_msg(strstr(o, "\"duration\":\"nan\""), "%s", o);
    ck_assert_msg(strstr(o, "\"duration\":\"inf\""), "%s", o);
    ck_assert_msg(!strstr(o, ":nan") && !strstr(o, ":inf") && !strstr(o, ":-nan"), "%s", o);
    free(o);
    free((void *)b_copy);
}
END_TEST

START_TEST(full_stdout_is_exit_74)
{
    setup();
    const char *file = akm("walk.akm", one, "root");
    out_path = "/dev/full";
    ck_assert_int_eq(animkit("info", file, NULL), 74);
    ck_assert_int_eq(animkit("info", "--json", file, NULL), 74);
    ck_assert_int_eq(animkit("dump", file, NULL), 74);
    ck_assert_int_eq(animkit("probe", file, NULL), 74);
    ck_assert_int_eq(animkit("validate", file, NULL), 74);
    ck_assert_int_eq(animkit("formats", NULL), 74);
    ck_assert_int_eq(animkit("--help", NULL), 74);
    ck_assert_int_eq(animkit("--version", NULL), 74);
    out_path = out_file;
    ck_assert_int_eq(animkit("info", file, NULL), 0);
}
END_TEST

START_TEST(clip_selection_beyond_4096_clips)
{
    setup();
    char text[PATH_MAX + 128];
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin json]\npath = %s/plugins/json/.libs/json.so\n",
             getenv("AK_BUILDDIR"));
    put("animkit.ini", text, strlen(text));
    size_t cap = 5000 * 80 + 128, n = 0;
    char *json = malloc(cap);
    n += (size_t)snprintf(json + n, cap - n, "{\"animkit\":1,\"format\":\"json\",\"variant\":\"\",\"clips\":[");
    for (int i = 0; i < 5000; i++)
        n += (size_t)snprintf(json + n, cap - n, "%s{\"name\":\"c%d\",\"duration\":1,\"tracks\":[],\"events\":[]}",
                              i ? "," : "", i);
    n += (size_t)snprintf(json + n, cap - n, "]}");
    char in[PATH_MAX + 16], out[PATH_MAX + 16];
    snprintf(in, sizeof in, "%s", put("many.json", json, n));
    snprintf(out, sizeof out, "%s/one.json", dir);
    free(json);
    ck_assert_int_eq(animkit("convert", in, out, "--clip", "c4999", "--clip", "C17", NULL), 0);
    size_t m;
    unsigned char *b = ak_test_slurp(out, &m);
    char *o = realloc(b, m + 1);
    o[m] = '\0';
    ck_assert_ptr_nonnull(strstr(o, "\"name\":\"c4999\""));
    ck_assert_ptr_nonnull(strstr(o, "\"name\":\"c17\""));
    ck_assert_ptr_null(strstr(o, "\"name\":\"c18\""));
    free(o);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli_output");
    TCase *tc = tcase_create("cli_output");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, control_bytes_are_escaped);
    tcase_add_test(tc, info_json_has_no_bare_nan);
    tcase_add_test(tc, full_stdout_is_exit_74);
    tcase_add_test(tc, clip_selection_beyond_4096_clips);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
