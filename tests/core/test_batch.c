/* test_batch.c - the CLI over many files: the corpus to JSON and back with
 * -j 2 equal to one-file conversions, failures counted without stopping
 * the batch, no overwrite without --force, a progress bar only on a
 * terminal (a pseudo-terminal here), 1,100 files in one call in input
 * order, and the edit commands' exit codes and diff output. */
#include "testutil.h"

#include <jansson.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pty.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[PATH_MAX], exe[PATH_MAX], out_path[PATH_MAX], err_path[PATH_MAX];
static const char *in_path; /* the CLI's standard input, when set */

static void setup(void)
{
    const char *b = getenv("AK_BUILDDIR");
    ck_assert_ptr_nonnull(b);
    snprintf(exe, sizeof exe, "%s/cli/animkit", b);
    snprintf(dir, sizeof dir, "/tmp/ak-batch-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(out_path, sizeof out_path, "%s/.stdout", dir);
    snprintf(err_path, sizeof err_path, "%s/.stderr", dir);
}

static void teardown(void)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *in_dir(const char *fmt, ...)
{
    static char buf[8][PATH_MAX];
    static int i;
    i = (i + 1) % 8;
    char rel[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel, sizeof rel, fmt, ap);
    va_end(ap);
    snprintf(buf[i], sizeof buf[i], "%s/%s", dir, rel);
    return buf[i];
}

/* Runs the CLI with argv (NULL-terminated, any length); stdout and stderr
 * go to files. Returns the exit code. */
static int run_argv(const char *const *args)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        if (in_path) {
            int i = open(in_path, O_RDONLY);
            if (i < 0)
                _exit(126);
            dup2(i, 0);
        }
        execv(exe, (char *const *)args);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static int animkit(const char *first, ...)
{
    const char *argv[64] = { exe };
    int n = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 63; a = va_arg(ap, const char *))
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    return run_argv(argv);
}

static char *slurp_text(const char *path)
{
    size_t n;
    unsigned char *b = ak_test_slurp(path, &n);
    char *s = realloc(b, n + 1);
    s[n] = '\0';
    return s;
}

static int same_file(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *x = ak_test_slurp(a, &na), *y = ak_test_slurp(b, &nb);
    int same = ak_test_same_bytes(x, na, y, nb, b);
    free(x);
    free(y);
    return same;
}

static void put_bytes(const char *path, const void *bytes, size_t n)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(bytes, 1, n, fp), n);
    fclose(fp);
}

static const char *const formats[] = { "ifp", "ani", "anm", "mab", "dff" };
static const int writable[] = { 1, 1, 1, 0, 0 };
enum { FORMATS = 5 };

/* in/FORMAT/NAME links to every corpus file of the formats (animations and
 * dff skeletons),
 * plus in/ifp/broken/truncated.ifp (vice.ifp cut short) and
 * in/anm/unreadable.anm (a link to nothing). Returns the good files. */
static int make_tree(const char *corpus)
{
    int good = 0;
    ck_assert_int_eq(mkdir(in_dir("in"), 0777), 0);
    for (int f = 0; f < FORMATS; f++) {
        ck_assert_int_eq(mkdir(in_dir("in/%s", formats[f]), 0777), 0);
        char src[PATH_MAX];
        snprintf(src, sizeof src, "%s/%s", corpus, formats[f]);
        DIR *d = opendir(src);
        ck_assert_ptr_nonnull(d);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char target[PATH_MAX * 2];
            snprintf(target, sizeof target, "%s/%s", src, e->d_name);
            ck_assert_int_eq(symlink(target, in_dir("in/%s/%s", formats[f], e->d_name)), 0);
            good++;
        }
        closedir(d);
    }
    size_t n;
    unsigned char *vice = ak_test_corpus_file("ifp/vice.ifp", &n);
    ck_assert_ptr_nonnull(vice);
    ck_assert_int_eq(mkdir(in_dir("in/ifp/broken"), 0777), 0);
    put_bytes(in_dir("in/ifp/broken/truncated.ifp"), vice, 5000);
    free(vice);
    ck_assert_int_eq(symlink("/nonexistent/animkit-test", in_dir("in/anm/unreadable.anm")), 0);
    return good;
}

static void expect_summary(const char *err, int converted, int failed)
{
    char want[128];
    snprintf(want, sizeof want, "%d converted, %d failed", converted, failed);
    ck_assert_msg(strstr(err, want), "summary '%s' not in:\n%s", want, err);
}

START_TEST(corpus_to_json_and_back_in_parallel)
{
    char corpus[PATH_MAX];
    if (!ak_test_corpus("ifp", corpus, sizeof corpus)) {
        ak_test_skip("corpus not found (set AK_CORPUS)");
        return;
    }
    *strrchr(corpus, '/') = '\0';
    int good = make_tree(corpus);

    int rc = animkit("convert", "-r", "-j", "2", in_dir("in"), "-o", in_dir("json"), "--to", "json", NULL);
    char *err = slurp_text(err_path);
    ck_assert_int_eq(rc, 66); /* the worst: the unreadable file (65 for the truncated one) */
    expect_summary(err, good, 2);
    ck_assert_msg(strstr(err, "truncated.ifp"), "%s", err);
    ck_assert_msg(strstr(err, "unreadable.anm"), "%s", err);
    free(err);

    /* Each batch output equals the one-file conversion of its input. */
    for (int f = 0; f < FORMATS; f++) {
        char src[PATH_MAX];
        snprintf(src, sizeof src, "%s/%s", corpus, formats[f]);
        DIR *d = opendir(src);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char stem[NAME_MAX + 1];
            snprintf(stem, sizeof stem, "%s", e->d_name);
            *strrchr(stem, '.') = '\0';
            const char *single = in_dir("single.json");
            unlink(single);
            ck_assert_int_eq(animkit("convert", in_dir("in/%s/%s", formats[f], e->d_name), single, NULL), 0);
            ck_assert(same_file(single, in_dir("json/%s/%s.json", formats[f], stem)));
            if (!writable[f])
                continue;
            /* ...and back: the JSON to the format, by batch and one by one. */
            const char *one = in_dir("single.%s", formats[f]);
            unlink(one);
            ck_assert_int_eq(animkit("convert", in_dir("json/%s/%s.json", formats[f], stem), one, NULL), 0);
            ck_assert(same_file(in_dir("in/%s/%s", formats[f], e->d_name), one));
        }
        closedir(d);
        if (writable[f]) {
            ck_assert_int_eq(animkit("convert", "-j", "2", in_dir("json/%s", formats[f]), "-o",
                                     in_dir("back/%s", formats[f]), "--to", formats[f], NULL), 0);
            d = opendir(src);
            while ((e = readdir(d)))
                if (e->d_name[0] != '.')
                    ck_assert(same_file(in_dir("in/%s/%s", formats[f], e->d_name),
                                        in_dir("back/%s/%s", formats[f], e->d_name)));
            closedir(d);
        }
    }

    /* A file and its JSON are the same animation (diff across formats). */
    ck_assert_int_eq(animkit("diff", in_dir("in/ifp/vice.ifp"), in_dir("json/ifp/vice.json"), NULL), 0);
    ck_assert_int_eq(animkit("diff", in_dir("in/anm/frm2_horse_44bones_168frames_eat.anm"),
                             in_dir("json/anm/frm2_horse_44bones_168frames_eat.json"), NULL), 0);

    /* Single-clip files merged into one JSON package and split again come
     * back byte for byte. */
    const char *anm1 = "frm2_286frames_e75_open_driver", *anm2 = "frm2_64bones_hmmwv_body_r";
    ck_assert_int_eq(animkit("merge", in_dir("in/anm/%s.anm", anm1), in_dir("in/anm/%s.anm", anm2), "-o",
                             in_dir("pack.json"), NULL), 0);
    ck_assert_int_eq(animkit("split", in_dir("pack.json"), "--to", "anm", "-o", in_dir("unpacked"), NULL), 0);
    ck_assert(same_file(in_dir("in/anm/%s.anm", anm1), in_dir("unpacked/%s.anm", anm1)));
    ck_assert(same_file(in_dir("in/anm/%s.anm", anm2), in_dir("unpacked/%s.anm", anm2)));

    /* Existing outputs stay: every file fails with 73 until --force. */
    struct stat before;
    ck_assert_int_eq(stat(in_dir("json/ifp/deagle.json"), &before), 0);
    rc = animkit("convert", "-r", in_dir("in/ifp"), "-o", in_dir("json/ifp"), "--to", "json", "--json", NULL);
    ck_assert_int_eq(rc, 73);
    char *out = slurp_text(out_path);
    int lines = 0, refused = 0;
    for (char *p = out; (p = strchr(p, '\n')); p++)
        lines++;
    for (char *p = out; (p = strstr(p, "\"exit\":73")); p++)
        refused++;
    ck_assert_int_eq(lines, 11); /* one JSON object per file: 10 corpus files + truncated */
    ck_assert_int_eq(refused, 10);
    ck_assert_msg(strstr(out, "{\"input\":") && strstr(out, "\"status\":\"failed\""), "%s", out);
    free(out);
    struct stat after;
    ck_assert_int_eq(stat(in_dir("json/ifp/deagle.json"), &after), 0);
    ck_assert(before.st_mtim.tv_sec == after.st_mtim.tv_sec && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
    rc = animkit("convert", "-r", "--force", in_dir("in/ifp"), "-o", in_dir("json/ifp"), "--to", "json", NULL);
    ck_assert_int_eq(rc, 65);
    err = slurp_text(err_path);
    expect_summary(err, 10, 1);
    free(err);
}
END_TEST

/* The smallest ANP3 package: one animation, one bone, one type-3 frame. */
static void tiny_ifp_bone(const char *path, int frame, const char *bone, int id)
{
    unsigned char b[36 + 36 + 36 + 10] = { 'A', 'N', 'P', '3' };
    size_t n = sizeof b;
    b[4] = (unsigned char)(n - 8);
    memcpy(b + 8, "pkg", 3);
    b[32] = 1;
    snprintf((char *)b + 36, 24, "clip%d", frame);
    b[36 + 24] = 1;   /* bones */
    b[36 + 28] = 10;  /* frame-data bytes */
    b[36 + 32] = 1;   /* flags */
    memcpy(b + 72, bone, strlen(bone) < 23 ? strlen(bone) : 23);
    b[72 + 24] = 3;   /* frame type */
    b[72 + 28] = 1;   /* frames */
    for (int i = 0; i < 4; i++) /* bone id, little-endian */
        b[72 + 32 + i] = (unsigned char)((unsigned)id >> (8 * i));
    b[108 + 7] = 0x10; /* qw = 0x1000 / 4096 = 1 */
    b[108 + 8] = (unsigned char)(frame % 50);
    put_bytes(path, b, n);
}

static void tiny_ifp(const char *path, int frame) { tiny_ifp_bone(path, frame, "Root", 0); }

START_TEST(thousand_files_in_one_call_in_order)
{
    enum { FILES = 1100 };
    ck_assert_int_eq(mkdir(in_dir("many"), 0777), 0);
    const char **argv = calloc(FILES + 8, sizeof *argv);
    int n = 0;
    argv[n++] = exe;
    argv[n++] = "info";
    argv[n++] = "-j";
    argv[n++] = "2";
    static char names[FILES][PATH_MAX];
    for (int i = 0; i < FILES; i++) {
        snprintf(names[i], sizeof names[i], "%s/many/f%04d.ifp", dir, i);
        tiny_ifp(names[i], i);
        argv[n++] = names[i];
    }
    argv[n] = NULL;
    /* More arguments than the old fixed limit, in one process. */
    ck_assert_int_eq(run_argv(argv), 0);
    char *out = slurp_text(out_path);
    char *p = out;
    for (int i = 0; i < FILES; i++) {
        char want[PATH_MAX + 32];
        snprintf(want, sizeof want, "%s: ifp ANP3, 1 clip", names[i]);
        ck_assert_msg(!strncmp(p, want, strlen(want)), "line for file %d: %.80s", i, p);
        p = strchr(p, '\n') + 1;                              /* the file line */
        ck_assert(!strncmp(p, "  clip \"clip", 12));
        p = strchr(p, '\n') + 1;                              /* its clip line */
    }
    ck_assert(*p == '\0');
    free(out);
    free(argv);
    /* The folder form, converted with two threads. */
    ck_assert_int_eq(animkit("convert", "-j", "2", in_dir("many"), "-o", in_dir("many-json"), "--to", "json", NULL), 0);
    char *err = slurp_text(err_path);
    expect_summary(err, FILES, 0);
    free(err);
    ck_assert_int_eq(animkit("validate", "-j", "2", in_dir("many-json"), NULL), 0);
    out = slurp_text(out_path);
    ck_assert(strstr(out, "many-json/f1099.json: valid, 0 errors, 0 warnings\n"));
    ck_assert(strstr(out, "f0000.json: valid") < strstr(out, "f0001.json: valid"));
    free(out);
}
END_TEST

/* Runs the CLI with stderr on a pseudo-terminal; returns what it showed. */
static char *run_on_terminal(const char *const *args)
{
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int o = open("/dev/null", O_WRONLY);
        dup2(o, 1);
        execv(exe, (char *const *)args);
        _exit(127);
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        ssize_t got = read(master, buf + n, cap - n - 1);
        if (got <= 0)
            break; /* EIO once the child has closed the terminal */
        n += (size_t)got;
        if (n + 1 >= cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = '\0';
    close(master);
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return buf;
}

START_TEST(two_inputs_one_output_refused)
{
    ck_assert_int_eq(mkdir(in_dir("c"), 0777), 0);
    tiny_ifp(in_dir("c/walk.ifp"), 1);
    ck_assert_int_eq(mkdir(in_dir("c/sub"), 0777), 0);
    tiny_ifp(in_dir("c/sub/walk.ifp"), 2);
    /* walk.ifp given twice (once through its folder): one output path. */
    ck_assert_int_eq(animkit("convert", "-r", "--force", in_dir("c/sub"), in_dir("c/walk.ifp"), "-o", in_dir("cj"),
                             "--to", "json", NULL), 73);
    char *err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "is also the output of") && strstr(err, "1 converted, 1 failed"), "%s", err);
    free(err);
    /* Mirrored folders keep them apart. */
    ck_assert_int_eq(animkit("convert", "-r", in_dir("c"), "-o", in_dir("cj2"), "--to", "json", NULL), 0);
    struct stat st;
    ck_assert_int_eq(stat(in_dir("cj2/walk.json"), &st), 0);
    ck_assert_int_eq(stat(in_dir("cj2/sub/walk.json"), &st), 0);
}
END_TEST

/* A clip from elsewhere whose bone has another name and no id: renamed,
 * then given the id of San Andreas' skeleton (a .dff model). The expected
 * id is the one SA's own ped.ifp stores for that bone. */
START_TEST(bones_from_a_skeleton)
{
    char dff[PATH_MAX], ped[PATH_MAX];
    if (!ak_test_corpus("dff/ped_80.dff", dff, sizeof dff) || !ak_test_corpus("ifp/ped_cretaceous.ifp", ped, sizeof ped)) {
        ak_test_skip("corpus dff/ped_80.dff or ifp/ped_cretaceous.ifp not found");
        return;
    }
    ck_assert_int_eq(animkit("dump", "--clip", "walk_civi", ped, NULL), 0);
    char *out = slurp_text(out_path);
    char *at = strstr(out, "track \" R Calf\" id ");
    ck_assert_ptr_nonnull(at);
    int want = atoi(at + strlen("track \" R Calf\" id "));
    ck_assert_int_gt(want, 0);
    free(out);

    tiny_ifp_bone(in_dir("other.ifp"), 2, "Bip01 R Calf", -1);
    ck_assert_int_eq(animkit("bones", in_dir("other.ifp"), "Bip01 R Calf= R Calf", "--skeleton", dff, "-o",
                             in_dir("sa.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("dump", in_dir("sa.ifp"), NULL), 0);
    out = slurp_text(out_path);
    char line[64];
    snprintf(line, sizeof line, "track \" R Calf\" id %d\n", want);
    ck_assert_msg(strstr(out, line), "want '%s' in:\n%s", line, out);
    free(out);
    /* Without the skeleton the id stays -1: the skeleton gave it. */
    ck_assert_int_eq(animkit("bones", in_dir("other.ifp"), "Bip01 R Calf= R Calf", "-o", in_dir("sa2.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("dump", in_dir("sa2.ifp"), NULL), 0);
    out = slurp_text(out_path);
    ck_assert_msg(strstr(out, "track \" R Calf\" id -1\n"), "%s", out);
    free(out);
    /* A file without a skeleton is refused. */
    ck_assert_int_eq(animkit("bones", in_dir("other.ifp"), "--skeleton", ped, "-o", in_dir("sa3.ifp"), NULL), 65);
}
END_TEST

START_TEST(progress_only_on_a_terminal)
{
    ck_assert_int_eq(mkdir(in_dir("p"), 0777), 0);
    for (int i = 0; i < 40; i++)
        tiny_ifp(in_dir("p/a%02d.ifp", i), i);
    const char *args[] = { exe, "convert", "-j", "2", in_dir("p"), "-o", in_dir("p1"), "--to", "json", NULL };
    char *tty = run_on_terminal(args);
    ck_assert_msg(strstr(tty, "40/40 files") && strstr(tty, "MB/s") && strstr(tty, "ETA"), "%s", tty);
    ck_assert(strstr(tty, "40 converted, 0 failed, 0 with warnings"));
    free(tty);
    ck_assert_int_eq(animkit("convert", "-j", "2", in_dir("p"), "-o", in_dir("p2"), "--to", "json", NULL), 0);
    char *err = slurp_text(err_path);
    ck_assert_str_eq(err, "40 converted, 0 failed, 0 with warnings\n");
    free(err);
}
END_TEST

/* Every kind of difference `diff` prints, with the values worked out from
 * the two documents below: B's clip lasts 1 s longer, Root has one
 * rotation key fewer, Gone and New are each in one file only, the third
 * bone's z moves by 3.5 - 3 = 0.5, and A's one event is not in B. The
 * third bone's name holds a quote and a control byte, which are printed
 * escaped so that a file cannot drive the terminal. */
START_TEST(diff_prints_every_kind_of_difference)
{
    static const char a[] =
        "{\"animkit\":1,\"format\":\"ifp\",\"clips\":[{\"name\":\"c\",\"duration\":1.0,\"tracks\":["
        "{\"bone\":\"Root\",\"rotation\":[[0,0,0,0,1],[1,0,0,0,1]]},"
        "{\"bone\":\"Gone\",\"translation\":[[0,0,0,0]]},"
        "{\"bone\":\"Q\\\"\\u0001\",\"translation\":[[0,1,2,3]]}],"
        "\"events\":[{\"time\":0.5,\"type\":\"sound\",\"info\":\"a.wav\"}]}]}";
    static const char b[] =
        "{\"animkit\":1,\"format\":\"ifp\",\"clips\":[{\"name\":\"c\",\"duration\":2.0,\"tracks\":["
        "{\"bone\":\"Root\",\"rotation\":[[0,0,0,0,1]]},"
        "{\"bone\":\"New\",\"translation\":[[0,0,0,0]]},"
        "{\"bone\":\"Q\\\"\\u0001\",\"translation\":[[0,1,2,3.5]]}]}]}";
    put_bytes(in_dir("a.json"), a, sizeof a - 1);
    put_bytes(in_dir("b.json"), b, sizeof b - 1);
    static const char z_line[] =
        "clip \"c\" bone \"Q\\x22\\x01\" translation: key 0 z differs by 0.5 (the largest difference of this channel)\n";
    char want[1024];
    snprintf(want, sizeof want,
             "clip \"c\": durations differ by 1 s\n"
             "clip \"c\" bone \"Root\" rotation: 2 keys in A, 1 in B\n"
             "clip \"c\" bone \"Gone\": track only in A\n"
             "%s"
             "clip \"c\" bone \"New\": track only in B\n"
             "clip \"c\": events differ (1 in A, 0 in B)\n",
             z_line);
    ck_assert_int_eq(animkit("diff", in_dir("a.json"), in_dir("b.json"), NULL), 1);
    char *out = slurp_text(out_path);
    ck_assert_str_eq(out, want);
    free(out);
    /* The tolerance is inclusive: 0.5 apart is the same at --tol 0.5. */
    ck_assert_int_eq(animkit("diff", "--tol", "0.49", in_dir("a.json"), in_dir("b.json"), NULL), 1);
    out = slurp_text(out_path);
    ck_assert_ptr_nonnull(strstr(out, z_line));
    free(out);
    ck_assert_int_eq(animkit("diff", "--tol", "0.5", in_dir("a.json"), in_dir("b.json"), NULL), 1);
    out = slurp_text(out_path);
    ck_assert_msg(!strstr(out, "differs by") && strstr(out, "2 keys in A, 1 in B"), "%s", out);
    free(out);
    /* Usage and input errors, with their sysexits codes. */
    ck_assert_int_eq(animkit("diff", in_dir("a.json"), NULL), 64);
    ck_assert_int_eq(animkit("diff", "--tol", "-1", in_dir("a.json"), in_dir("b.json"), NULL), 64);
    ck_assert_int_eq(animkit("diff", "--tol", "x", in_dir("a.json"), in_dir("b.json"), NULL), 64);
    ck_assert_int_eq(animkit("diff", in_dir("a.json"), in_dir("none.json"), NULL), 66);
}
END_TEST

/* The time of key `k` of the first track's rotation in clip `c` of an
 * animkit JSON file. */
static double rotation_time(const char *path, size_t c, size_t k)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    ck_assert_msg(root != NULL, "%s: %s", path, jerr.text);
    json_t *clip = json_array_get(json_object_get(root, "clips"), c);
    json_t *key = json_array_get(json_object_get(json_array_get(json_object_get(clip, "tracks"), 0), "rotation"), k);
    ck_assert_msg(json_is_number(json_array_get(key, 0)), "%s: clip %zu has no rotation key %zu", path, c, k);
    double t = json_number_value(json_array_get(key, 0));
    json_decref(root);
    return t;
}

/* retime --clip changes the clips it names and no other; a clip that is
 * not there, or a trim outside a clip, writes nothing. */
START_TEST(retime_only_the_clips_named)
{
    static const char two[] =
        "{\"animkit\":1,\"format\":\"ifp\",\"clips\":["
        "{\"name\":\"c1\",\"duration\":1.0,\"tracks\":[{\"bone\":\"Root\",\"rotation\":[[0,0,0,0,1],[1,0,0,0,1]]}]},"
        "{\"name\":\"c2\",\"duration\":1.0,\"tracks\":[{\"bone\":\"Root\",\"rotation\":[[0,0,0,0,1],[1,0,0,0,1]]}]}]}";
    put_bytes(in_dir("two.json"), two, sizeof two - 1);
    ck_assert_int_eq(animkit("retime", in_dir("two.json"), "--clip", "c2", "--speed", "0.5", "-o", in_dir("slow.json"),
                             NULL), 0);
    ck_assert_double_eq(rotation_time(in_dir("slow.json"), 0, 1), 1.0); /* c1 as it was */
    ck_assert_double_eq(rotation_time(in_dir("slow.json"), 1, 1), 2.0); /* c2 at half speed: 1 s / 0.5 */
    ck_assert_int_eq(animkit("retime", in_dir("two.json"), "--clip", "nope", "--speed", "0.5", "-o", in_dir("x.json"),
                             NULL), 65);
    char *err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "no clip named 'nope'"), "%s", err);
    free(err);
    ck_assert_int_eq(access(in_dir("x.json"), F_OK), -1);
    ck_assert_int_eq(animkit("retime", in_dir("two.json"), "--clip", "c1", "--trim", "5:6", "-o", in_dir("x.json"), NULL),
                     64);
    err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "clip 'c1': cannot retime it that way"), "%s", err);
    free(err);
    ck_assert_int_eq(access(in_dir("x.json"), F_OK), -1);
}
END_TEST

/* retime --reverse from the command line: a clip of 1 s with keys at 0
 * and 0.25 s plays them backwards, the second first, at 1 - 0.25 = 0.75
 * and 1 - 0 = 1 s. */
START_TEST(retime_reverse_from_the_command_line)
{
    static const char one[] = "{\"animkit\":1,\"format\":\"ifp\",\"clips\":[{\"name\":\"c\",\"duration\":1.0,\"tracks\":["
                              "{\"bone\":\"Root\",\"rotation\":[[0,0,0,0,1],[0.25,0,0,0.6,0.8]]}]}]}";
    put_bytes(in_dir("one.json"), one, sizeof one - 1);
    ck_assert_int_eq(animkit("retime", in_dir("one.json"), "--reverse", "-o", in_dir("rev.json"), NULL), 0);
    ck_assert_double_eq(rotation_time(in_dir("rev.json"), 0, 0), 0.75);
    ck_assert_double_eq(rotation_time(in_dir("rev.json"), 0, 1), 1.0);
    json_error_t jerr;
    json_t *root = json_load_file(in_dir("rev.json"), 0, &jerr);
    ck_assert_ptr_nonnull(root);
    json_t *first = json_array_get(
        json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(root, "clips"), 0), "tracks"), 0),
                        "rotation"),
        0);
    ck_assert_double_eq(json_number_value(json_array_get(first, 3)), 0.6); /* the 0.25 s key's z */
    json_decref(root);
}
END_TEST

/* "-" is standard input or output. The bytes alone decide the format (no
 * name to probe); a same-format write to "-" gives the file back byte for
 * byte; a terminal or an empty input is refused, and so are --in-place
 * over standard input and a batch convert through it. */
START_TEST(dash_is_standard_input_and_output)
{
    char ifp[PATH_MAX], anm[PATH_MAX];
    snprintf(ifp, sizeof ifp, "%s/samples/wave.ifp", getenv("AK_SRCDIR"));
    snprintf(anm, sizeof anm, "%s/samples/wave.anm", getenv("AK_SRCDIR"));
    in_path = ifp;
    ck_assert_int_eq(animkit("info", "-", NULL), 0);
    char *out = slurp_text(out_path);
    /* wave.ifp: 3 tracks, 31 keys each of 3 rotations and 1 translation. */
    ck_assert_msg(!strncmp(out, "-: ifp ANP3, 1 clip, 3 tracks, 124 keys, 0 events\n", 50), "%s", out);
    free(out);
    ck_assert_int_eq(animkit("diff", "-", ifp, NULL), 0);
    ck_assert_int_eq(animkit("probe", "-", NULL), 0);
    out = slurp_text(out_path);
    ck_assert_str_eq(out, "-: ifp (score 100)\n");
    free(out);
    in_path = anm;
    ck_assert_int_eq(animkit("convert", "-", "-", NULL), 0); /* the document's own format */
    ck_assert(same_file(anm, out_path));
    in_path = NULL;
    ck_assert_int_eq(animkit("convert", ifp, "-", NULL), 0);
    ck_assert(same_file(ifp, out_path));
    ck_assert_int_eq(animkit("convert", ifp, "-", "--to", "json", NULL), 0);
    ck_assert_int_eq(rename(out_path, in_dir("w.json")), 0);
    ck_assert_int_eq(animkit("convert", in_dir("w.json"), in_dir("w.ifp"), NULL), 0);
    ck_assert(same_file(ifp, in_dir("w.ifp")));
    ck_assert_int_eq(access(in_dir("-"), F_OK), -1);
    ck_assert_int_eq(access("-", F_OK), -1); /* no file named "-" anywhere */

    in_path = "/dev/null";
    ck_assert_int_eq(animkit("info", "-", NULL), 65);
    char *err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "animkit: -: error: no plugin recognises this file"), "%s", err);
    free(err);
    in_path = ifp;
    ck_assert_int_eq(animkit("rename", "-", "wave", "w2", "--in-place", NULL), 64);
    ck_assert_int_eq(animkit("convert", "-", "-o", in_dir("out"), "--to", "json", NULL), 64);
    ck_assert_int_eq(animkit("rename", "-", "wave", "w2", "-o", "-", NULL), 0);
    ck_assert_int_eq(animkit("split", "-", "-o", "-", NULL), 64); /* a folder of files */
    ck_assert_int_eq(access("-", F_OK), -1);
    int master, slave;
    ck_assert_int_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
    in_path = ttyname(slave);
    ck_assert_ptr_nonnull(in_path);
    ck_assert_int_eq(animkit("info", "-", NULL), 66);
    err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "standard input is a terminal"), "%s", err);
    free(err);
    /* Nor are a file's bytes written to a terminal. */
    in_path = NULL;
    char saved[PATH_MAX];
    snprintf(saved, sizeof saved, "%s", out_path);
    snprintf(out_path, sizeof out_path, "%s", ttyname(slave));
    ck_assert_int_eq(animkit("convert", ifp, "-", NULL), 64);
    snprintf(out_path, sizeof out_path, "%s", saved);
    err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "standard output is a terminal"), "%s", err);
    free(err);
    close(slave);
    close(master);
}
END_TEST

START_TEST(edit_commands_write_safely_and_diff_exits)
{
    tiny_ifp(in_dir("a.ifp"), 4);
    tiny_ifp(in_dir("b.ifp"), 6); /* the same but for the key's time */
    ck_assert_int_eq(animkit("diff", in_dir("a.ifp"), in_dir("a.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("diff", in_dir("a.ifp"), in_dir("b.ifp"), NULL), 1);
    char *out = slurp_text(out_path);
    /* b's clip is named clip6: a's clip4 is gone, clip6 added. */
    ck_assert_msg(strstr(out, "clip \"clip4\": only in A") && strstr(out, "clip \"clip6\": only in B"), "%s", out);
    free(out);
    ck_assert_int_eq(animkit("rename", in_dir("b.ifp"), "clip6", "clip4", "-o", in_dir("c.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("diff", in_dir("a.ifp"), in_dir("c.ifp"), NULL), 1);
    out = slurp_text(out_path);
    ck_assert_msg(strstr(out, "clip \"clip4\" bone \"Root\" rotation: key 0 time differs by 0.0333333333"), "%s", out);
    free(out);
    ck_assert_int_eq(animkit("diff", "--tol", "0.05", in_dir("a.ifp"), in_dir("c.ifp"), NULL), 0);
    /* Same name: refused without --force; edits need -o or --in-place. */
    ck_assert_int_eq(animkit("rename", in_dir("b.ifp"), "clip6", "x", "-o", in_dir("c.ifp"), NULL), 73);
    ck_assert_int_eq(animkit("rename", in_dir("b.ifp"), "clip6", "x", NULL), 64);
    ck_assert_int_eq(animkit("rename", in_dir("b.ifp"), "nope", "x", "--in-place", NULL), 65);
    ck_assert_int_eq(animkit("rename", in_dir("b.ifp"), "clip6", "x", "--in-place", NULL), 0);
    ck_assert_int_eq(animkit("info", in_dir("b.ifp"), NULL), 0);
    out = slurp_text(out_path);
    ck_assert_msg(strstr(out, "clip \"x\""), "%s", out);
    free(out);
    /* Retime through the CLI: half speed doubles the key's time. */
    ck_assert_int_eq(animkit("retime", in_dir("a.ifp"), "--speed", "0.5", "-o", in_dir("slow.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("dump", "--ticks", in_dir("slow.ifp"), NULL), 0);
    out = slurp_text(out_path);
    ck_assert_msg(strstr(out, "[8]"), "%s", out); /* tick 4 -> 8 */
    free(out);
    ck_assert_int_eq(animkit("retime", in_dir("a.ifp"), "--speed", "0", "-o", in_dir("bad.ifp"), NULL), 64);
    ck_assert_int_eq(animkit("retime", in_dir("a.ifp"), "--speed", "0.7", "-o", in_dir("odd.ifp"), NULL), 0);
    char *err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "1 key time falls between its ticks (1/60 s)"), "%s", err); /* 4 / 0.7 ticks */
    free(err);

    /* merge then split gives the inputs back byte for byte. */
    tiny_ifp(in_dir("b.ifp"), 6);
    ck_assert_int_eq(animkit("merge", in_dir("a.ifp"), in_dir("b.ifp"), "-o", in_dir("m.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("split", in_dir("m.ifp"), "-o", in_dir("parts"), NULL), 0);
    ck_assert(same_file(in_dir("a.ifp"), in_dir("parts/clip4.ifp")));
    ck_assert(same_file(in_dir("b.ifp"), in_dir("parts/clip6.ifp")));
    ck_assert_int_eq(animkit("split", in_dir("m.ifp"), "-o", in_dir("parts"), NULL), 73);
    /* replace through the CLI, in place. */
    ck_assert_int_eq(animkit("replace", in_dir("m.ifp"), in_dir("a.ifp"), "--clip", "clip4", "--as", "CLIP6",
                             "--in-place", NULL), 0);
    ck_assert_int_eq(animkit("diff", in_dir("m.ifp"), in_dir("m.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("dump", "--ticks", in_dir("m.ifp"), NULL), 0);
    out = slurp_text(out_path);
    ck_assert_msg(strstr(out, "clip \"clip6\"") && !strstr(out, "[6]"), "%s", out); /* clip4's keys, clip6's name */
    free(out);
    /* bones: pairs and a map file. */
    FILE *map = fopen(in_dir("map.txt"), "w");
    fputs("# VC to SA\nRoot= Root\n", map);
    fclose(map);
    ck_assert_int_eq(animkit("bones", in_dir("a.ifp"), "--map", in_dir("map.txt"), "-o", in_dir("bn.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("dump", in_dir("bn.ifp"), NULL), 0);
    out = slurp_text(out_path);
    ck_assert_msg(strstr(out, "track \" Root\""), "%s", out);
    free(out);
    ck_assert_int_eq(animkit("bones", in_dir("a.ifp"), "Root", "-o", in_dir("bn2.ifp"), NULL), 64);
    /* A map with CR LF line ends and a blank line; then one whose third
     * line is no pair (65, naming the line); then none at all (66). No
     * output is written by a refused map. */
    map = fopen(in_dir("crlf.txt"), "w");
    fputs("# comment\r\n\r\nRoot=Hips\r\n", map);
    fclose(map);
    ck_assert_int_eq(animkit("bones", in_dir("a.ifp"), "--map", in_dir("crlf.txt"), "-o", in_dir("bn3.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("dump", in_dir("bn3.ifp"), NULL), 0);
    out = slurp_text(out_path);
    ck_assert_msg(strstr(out, "track \"Hips\" "), "%s", out); /* no CR kept in the name */
    free(out);
    map = fopen(in_dir("bad.txt"), "w");
    fputs("Root=Hips\n\nnonsense\n", map);
    fclose(map);
    ck_assert_int_eq(animkit("bones", in_dir("a.ifp"), "--map", in_dir("bad.txt"), "-o", in_dir("bn4.ifp"), NULL), 65);
    err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "bad.txt:3: want OLD=NEW"), "%s", err);
    free(err);
    ck_assert_int_eq(animkit("bones", in_dir("a.ifp"), "--map", in_dir("none.txt"), "-o", in_dir("bn4.ifp"), NULL), 66);
    ck_assert_int_eq(access(in_dir("bn4.ifp"), F_OK), -1);
}
END_TEST

/* remove, retime --fps and --trim through the CLI, and the usage errors of
 * the edit commands; a refused edit leaves its input as it was. */
START_TEST(edit_commands_remove_retime_and_refuse)
{
    tiny_ifp(in_dir("a.ifp"), 4);
    tiny_ifp(in_dir("b.ifp"), 6);
    ck_assert_int_eq(animkit("merge", in_dir("a.ifp"), in_dir("b.ifp"), "-o", in_dir("m.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("merge", in_dir("a.ifp"), in_dir("b.ifp"), "-o", in_dir("m2.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("remove", in_dir("m.ifp"), "CLIP4", "-o", in_dir("r.ifp"), NULL), 0);
    ck_assert(same_file(in_dir("b.ifp"), in_dir("r.ifp"))); /* names match case-insensitively */
    ck_assert_int_eq(animkit("remove", in_dir("m.ifp"), "clip4", "nope", "--in-place", NULL), 65);
    char *err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "no clip named 'nope'"), "%s", err);
    free(err);
    ck_assert(same_file(in_dir("m2.ifp"), in_dir("m.ifp")));
    ck_assert_int_eq(animkit("remove", in_dir("m.ifp"), "--in-place", NULL), 64);
    ck_assert_int_eq(animkit("rename", in_dir("m.ifp"), "clip4", "x", "-o", in_dir("x.ifp"), "--in-place", NULL), 64);
    ck_assert(same_file(in_dir("m2.ifp"), in_dir("m.ifp")));

    /* wave.ifp: 1 s, three tracks of rotations and one of translations,
     * a key every 1/30 s. At 10 fps each channel has keys at 0, 0.1 ... 1:
     * 11. Trimmed to 0.25-0.75 s, the keys at k/30 inside (k = 8 ... 22)
     * and one at each end: 17. */
    char wave[PATH_MAX];
    snprintf(wave, sizeof wave, "%s/samples/wave.ifp", getenv("AK_SRCDIR"));
    ck_assert_int_eq(animkit("retime", wave, "--fps", "10", "-o", in_dir("w10.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("info", in_dir("w10.ifp"), NULL), 0);
    char *out = slurp_text(out_path);
    ck_assert_msg(strstr(out, "1 s, 3 tracks, keys: rotation 33 translation 11"), "%s", out);
    free(out);
    ck_assert_int_eq(animkit("retime", wave, "--trim", "0.25:0.75", "-o", in_dir("wt.ifp"), NULL), 0);
    ck_assert_int_eq(animkit("info", in_dir("wt.ifp"), NULL), 0);
    out = slurp_text(out_path);
    ck_assert_msg(strstr(out, "0.5 s, 3 tracks, keys: rotation 51 translation 17"), "%s", out);
    free(out);
    /* --fps is the rate to resample to, not the one the anm reader assumes
     * (30, -p fps=N): wave.anm's two rotation tracks, 31 keys each over its
     * 1 s, get 11 keys each (read at 10 fps it would last 3 s and keep 31). */
    snprintf(wave, sizeof wave, "%s/samples/wave.anm", getenv("AK_SRCDIR"));
    ck_assert_int_eq(animkit("retime", wave, "--fps", "10", "-o", in_dir("w10.anm"), NULL), 0);
    ck_assert_int_eq(animkit("info", in_dir("w10.anm"), NULL), 0);
    out = slurp_text(out_path);
    ck_assert_msg(strstr(out, "clip \"w10\": 1 s, 3 tracks, keys: rotation 22 "), "%s", out);
    free(out);
    static const char *const bad[][2] = {
        { "--trim", "0.5" }, { "--trim", "0.75:0.25" }, { "--trim", "-1:0.5" }, { "--fps", "0" }, { "--fps", "x" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(animkit("retime", wave, bad[i][0], bad[i][1], "-o", in_dir("bad.ifp"), NULL) == 64, "%s %s",
                      bad[i][0], bad[i][1]);
    ck_assert_int_eq(animkit("retime", wave, "-o", in_dir("bad.ifp"), NULL), 64); /* nothing to do */
    ck_assert_int_ne(access(in_dir("bad.ifp"), F_OK), 0);
}
END_TEST

/* --bones FILE names tracks known only by a hash: one name a line (CR LF
 * and blank lines allowed), hashed with CRC-32. The hashes here are
 * zlib.crc32() of the names, computed outside animkit. */
START_TEST(bone_names_from_a_dictionary)
{
    static const char json[] =
        "{\"animkit\":1,\"clips\":[{\"name\":\"c\",\"duration\":1,\"tracks\":["
        "{\"bone\":\"\",\"hash\":3688860866,\"rotation\":[[0,0,0,0,1]]},"  /* Bip01_Spine */
        "{\"bone\":\"\",\"hash\":1,\"rotation\":[[0,0,0,0,1]]},"           /* no name has it */
        "{\"bone\":\"\",\"hash\":3455696694,\"rotation\":[[0,0,0,0,1]]}]}]}"; /* Bip01 L Hand */
    static const char names[] = "Bip01_Spine\r\n\r\nBip01 L Hand\nnobody\n";
    put_bytes(in_dir("h.json"), json, sizeof json - 1);
    put_bytes(in_dir("names.txt"), names, sizeof names - 1);
    ck_assert_int_eq(animkit("dump", "--bones", in_dir("names.txt"), in_dir("h.json"), NULL), 0);
    char *out = slurp_text(out_path);
    ck_assert_msg(strstr(out, "track \"Bip01_Spine\" hash 0xdbdf8cc2") && strstr(out, "track \"\" hash 0x00000001") &&
                      strstr(out, "track \"Bip01 L Hand\" hash 0xcdf9bf36"),
                  "%s", out);
    free(out);
    ck_assert_int_eq(animkit("dump", "--bones", in_dir("none.txt"), in_dir("h.json"), NULL), 66);
    char *err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "cannot open the bone-name dictionary"), "%s", err);
    free(err);
}
END_TEST

/* --json output holds a failed file too, as valid JSON a toolchain can
 * parse: info one array, validate one object a line. And the refusals of
 * batch use, each with its exit code. */
START_TEST(json_output_of_failures_and_batch_refusals)
{
    char wave[PATH_MAX];
    snprintf(wave, sizeof wave, "%s/samples/wave.ifp", getenv("AK_SRCDIR"));
    put_bytes(in_dir("bad.ifp"), "ANP3garbage", 11); /* the package name runs past the end at byte 8 */
    ck_assert_int_eq(animkit("info", "--json", wave, in_dir("bad.ifp"), NULL), 65);
    char *out = slurp_text(out_path);
    json_error_t jerr;
    json_t *all = json_loads(out, 0, &jerr);
    ck_assert_msg(json_is_array(all) && json_array_size(all) == 2, "%s: %s", jerr.text, out);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(all, 0), "format")), "ifp");
    json_t *bad = json_array_get(all, 1);
    ck_assert_int_eq(json_integer_value(json_object_get(bad, "exit")), 65);
    const char *error = json_string_value(json_object_get(bad, "error"));
    ck_assert_msg(error && strstr(error, "bad.ifp: ifp: error: ") && strstr(error, "(at byte 8, 0x8)"), "%s", out);
    json_decref(all);
    free(out);

    ck_assert_int_eq(animkit("validate", "--json", wave, in_dir("bad.ifp"), NULL), 65);
    out = slurp_text(out_path);
    char *second = strchr(out, '\n');
    ck_assert_ptr_nonnull(second);
    *second++ = '\0';
    json_t *ok = json_loads(out, 0, &jerr), *failed = json_loads(second, 0, &jerr);
    ck_assert_msg(ok && failed, "%s", jerr.text);
    ck_assert(json_is_true(json_object_get(ok, "valid")) && json_integer_value(json_object_get(ok, "exit")) == 0);
    ck_assert(json_is_false(json_object_get(failed, "valid")));
    ck_assert_int_eq(json_integer_value(json_object_get(failed, "errors")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(failed, "exit")), 65);
    ck_assert_msg(strstr(json_string_value(json_object_get(failed, "message")), "(at byte 8, 0x8)"), "%s", second);
    json_decref(ok);
    json_decref(failed);
    free(out);

    ck_assert_int_eq(animkit("dump", "--clip", "nope", wave, NULL), 65);
    char *err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "no clip named 'nope'"), "%s", err);
    free(err);
    ck_assert_int_eq(mkdir(in_dir("empty"), 0777), 0);
    ck_assert_int_eq(animkit("info", in_dir("empty"), NULL), 66);
    ck_assert_int_eq(animkit("convert", wave, wave, "-o", in_dir("outdir"), NULL), 64); /* no --to */
    ck_assert_int_eq(animkit("convert", "--clip", "wave", wave, wave, "-o", in_dir("o2"), "--to", "json", NULL), 64);
    ck_assert_int_eq(animkit("convert", wave, "-o", in_dir("bad.ifp/sub"), "--to", "json", NULL), 73);
    err = slurp_text(err_path);
    ck_assert_msg(strstr(err, "cannot create the folder"), "%s", err);
    free(err);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("batch");
    TCase *tc = tcase_create("batch");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, corpus_to_json_and_back_in_parallel);
    tcase_add_test(tc, thousand_files_in_one_call_in_order);
    tcase_add_test(tc, progress_only_on_a_terminal);
    tcase_add_test(tc, two_inputs_one_output_refused);
    tcase_add_test(tc, bones_from_a_skeleton);
    tcase_add_test(tc, edit_commands_write_safely_and_diff_exits);
    tcase_add_test(tc, diff_prints_every_kind_of_difference);
    tcase_add_test(tc, retime_only_the_clips_named);
    tcase_add_test(tc, retime_reverse_from_the_command_line);
    tcase_add_test(tc, dash_is_standard_input_and_output);
    tcase_add_test(tc, edit_commands_remove_retime_and_refuse);
    tcase_add_test(tc, bone_names_from_a_dictionary);
    tcase_add_test(tc, json_output_of_failures_and_batch_refusals);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
