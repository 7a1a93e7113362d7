/* test_cli.c - the animkit command: exit codes (sysexits.h), atomic
 * convert, --force, help, and the example plugin through a config. */
#include "testutil.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[PATH_MAX], config[PATH_MAX], out_path[PATH_MAX], err_path[PATH_MAX], exe[PATH_MAX];

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
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(err, 2);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static char *slurp_text(const char *path)
{
    size_t n;
    unsigned char *b = ak_test_slurp(path, &n);
    char *s = realloc(b, n + 1);
    s[n] = '\0';
    return s;
}

static char *output(void) { return slurp_text(out_path); }
static char *errors(void) { return slurp_text(err_path); }

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
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
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

/* A config that loads the built-in anm and ifp plugins from the build tree. */
static const char *builtin_config(void)
{
    char text[3 * PATH_MAX];
    const char *b = getenv("AK_BUILDDIR");
    snprintf(text, sizeof text,
             "[animkit]\nplugin_dir = %s/plugins/anm/.libs\nplugin_dir = %s/plugins/ifp/.libs\n"
             "plugin_dir = %s/plugins/bvh/.libs\n", b, b, b);
    put("builtin.ini", text, strlen(text));
    return path_in_dir("builtin.ini");
}

/* A config that loads the ABI 1.1 test plugin, which declares nothing,
 * and an input for it. */
static const char *old_config(void)
{
    char text[PATH_MAX + 64];
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin minor11]\npath = %s/tests/plugins/.libs/minor11.so\n",
             getenv("AK_BUILDDIR"));
    put("old.ini", text, strlen(text));
    put("x.m11", "M11\n", 4);
    return path_in_dir("old.ini");
}

static void expect_stderr(const char *what)
{
    char *e = errors();
    if (!strstr(e, what))
        ck_abort_msg("stderr lacks \"%s\":\n%s", what, e);
    free(e);
}

START_TEST(declared_parameters_are_checked)
{
    setup();
    const char *cfg = builtin_config();
    char anm[PATH_MAX], out[PATH_MAX];
    snprintf(anm, sizeof anm, "%s/samples/wave.anm", getenv("AK_SRCDIR"));
    snprintf(out, sizeof out, "%s", path_in_dir("w.ifp"));
    /* A typo of anm's fps: no plugin declares it, the closest name is named. */
    ck_assert_int_eq(animkit("--config", cfg, "info", anm, "-p", "fsp=25", NULL), 64);
    expect_stderr("unknown parameter 'fsp'; did you mean 'fps'?");
    /* Ill-typed: anm reads fps as a number. */
    ck_assert_int_eq(animkit("--config", cfg, "info", anm, "-p", "fps=fast", NULL), 64);
    expect_stderr("parameter fps=fast: anm wants a number");
    /* --variant goes to the writer: ifp has four, and the closest is named. */
    ck_assert_int_eq(animkit("--config", cfg, "convert", anm, out, "--variant", "ANP4", NULL), 64);
    expect_stderr("ifp wants one of ANP3|ANP2|ANPK|ANLF; did you mean 'ANP3'?");
    ck_assert_int_eq(access(out, F_OK), -1);
    /* A parameter declared by the other side of a convert is not an error:
     * fps is anm's, variant ifp's. */
    ck_assert_int_eq(animkit("--config", cfg, "convert", anm, out, "--fps", "25", "--variant", "anpk", NULL), 0);
    ck_assert_int_eq(animkit("--config", cfg, "info", out, NULL), 0);
    char *o = output();
    ck_assert_ptr_nonnull(strstr(o, "ifp ANPK"));
    /* wave.anm's 30 frames last 1 s at the default 30 fps, 30 / 25 = 1.2 s at 25. */
    ck_assert_ptr_nonnull(strstr(o, "clip \"wave\": 1.2 s"));
    free(o);
    /* The example akm declares an empty list: nothing is taken. */
    ck_assert_int_eq(animkit("--config", config, "info", path_in_dir("walk.akm"), "-p", "whatever=1", NULL), 64);
    expect_stderr("unknown parameter 'whatever' (akm reading takes: none)");
    /* A plugin built before declarations existed (ABI 1.1) takes anything. */
    ck_assert_int_eq(animkit("--config", old_config(), "info", path_in_dir("x.m11"), "-p", "whatever=1", NULL), 0);
}
END_TEST

START_TEST(text_errors_show_line_and_column)
{
    setup();
    const char *cfg = builtin_config();
    /* the 'x' is line 7, column 12: two tabs, "OFFSET", a space, "0", a space */
    const char *bad = "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n\tJOINT b\n\t{\n\t\tOFFSET 0 x 0\n";
    put("bad.bvh", bad, strlen(bad));
    ck_assert_int_eq(animkit("--config", cfg, "info", path_in_dir("bad.bvh"), NULL), 65);
    expect_stderr("/bad.bvh:7:12: bvh: error: expected an OFFSET value (a number), found 'x' (at byte 56, 0x38)");
    ck_assert_int_eq((int)(strchr(bad, 'x') - bad), 56);
}
END_TEST

START_TEST(strict_fails_on_model_errors)
{
    setup();
    /* walk.akm with its one quaternion (0, 0, 0, 2): twice unit length. */
    unsigned char bent[sizeof akm_file];
    memcpy(bent, akm_file, sizeof bent);
    bent[sizeof bent - 1] = 0x40;
    bent[sizeof bent - 2] = 0x00;
    put("bent.akm", bent, sizeof bent);
    ck_assert_int_eq(animkit("--config", config, "info", path_in_dir("bent.akm"), NULL), 0);
    ck_assert_int_eq(animkit("--config", config, "--strict", "info", path_in_dir("bent.akm"), NULL), 65);
    expect_stderr("akm: error: clip '', bone 'Root': rotation: 1 quaternions are not unit length (worst norm 2)");
    ck_assert_int_eq(animkit("--config", config, "--strict", "info", path_in_dir("walk.akm"), NULL), 0);
}
END_TEST

START_TEST(formats_lists_parameters)
{
    setup();
    const char *cfg = builtin_config();
    ck_assert_int_eq(animkit("--config", cfg, "formats", "-v", "anm", NULL), 0);
    char *o = output();
    ck_assert_ptr_nonnull(strstr(o, "-p fps=NUMBER (read, default 30)"));
    ck_assert_ptr_nonnull(strstr(o, "-p variant=4.0|6.0|6.1|frmn|frm2|frm3 (write)"));
    ck_assert_ptr_null(strstr(o, "ifp.so")); /* only the plugin asked for */
    free(o);
    ck_assert_int_eq(animkit("--config", cfg, "formats", "-v", NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "-p variant=ANP3|ANP2|ANPK|ANLF (write)"));
    free(o);
    ck_assert_int_eq(animkit("--config", config, "formats", "-v", NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "parameters: none"));
    free(o);
    ck_assert_int_eq(animkit("--config", old_config(), "formats", "-v", NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "parameters: not declared"));
    free(o);
    ck_assert_int_eq(animkit("--config", cfg, "formats", "nosuch", NULL), 64);
    ck_assert_int_eq(animkit("--config", cfg, "formats", "--json", NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "\"params\":[{\"name\":\"fps\",\"type\":\"number\",\"read\":true,\"write\":false,"
                                    "\"default\":\"30\",\"help\":"));
    ck_assert_ptr_nonnull(strstr(o, "{\"name\":\"variant\",\"type\":\"choice\",\"read\":false,\"write\":true,"
                                    "\"choices\":\"ANP3|ANP2|ANPK|ANLF\",\"default\":null,"));
    free(o);
}
END_TEST

/* formats NAME lists that plugin alone, as text and as JSON; a refused
 * plugin is listed with its file and reason in both forms. */
START_TEST(formats_names_one_plugin_and_the_refused)
{
    setup();
    const char *cfg = builtin_config();
    ck_assert_int_eq(animkit("--config", cfg, "formats", "--json", "anm", NULL), 0);
    char *o = output();
    ck_assert_msg(strstr(o, "\"plugins\":[\n {\"name\":\"anm\",") && !strstr(o, "ifp.so") && !strstr(o, "},\n {"),
                  "%s", o);
    free(o);
    char text[2 * PATH_MAX];
    snprintf(text, sizeof text, "[animkit]\nautoload = no\n[plugin gone]\npath = %s\n", path_in_dir("gone.so"));
    put("gone.ini", text, strlen(text));
    ck_assert_int_eq(animkit("--config", path_in_dir("gone.ini"), "formats", "--json", NULL), 0);
    o = output();
    char want[2 * PATH_MAX];
    snprintf(want, sizeof want, "\"plugins\":[],\n\"refused\":[\n {\"name\":\"gone\",\"file\":\"%s\",\"reason\":\"file not found\"}]}\n",
             path_in_dir("gone.so"));
    ck_assert_msg(strstr(o, want), "%s", o);
    free(o);
    ck_assert_int_eq(animkit("--config", path_in_dir("gone.ini"), "formats", NULL), 0);
    o = output();
    snprintf(want, sizeof want, "\nrefused:\n  gone (%s): file not found\n", path_in_dir("gone.so"));
    ck_assert_msg(strstr(o, want), "%s", o);
    free(o);
}
END_TEST

/* What info and dump print of a clip's rate, a track's weight, a bone
 * known only by its hash and an event, from a document written here:
 * 2955017560 is 0xb021fd58, and the event's BEL byte is printed escaped. */
START_TEST(info_and_dump_show_rate_weight_hash_and_events)
{
    setup();
    static const char doc[] =
        "{\"animkit\":1,\"format\":\"ani\",\"clips\":[{\"name\":\"c\",\"duration\":1.0,\"frame_rate\":25,\"tracks\":["
        "{\"bone\":\"Root\",\"weight\":0.5,\"rotation\":[[0,0,0,0,1]]},"
        "{\"bone\":\"\",\"hash\":2955017560,\"translation\":[[0,1,2,3]]}],"
        "\"events\":[{\"time\":0.5,\"type\":\"sound\",\"info\":\"a\\u0007.wav\"}]}]}";
    put("ev.json", doc, sizeof doc - 1);
    char text[PATH_MAX + 64];
    snprintf(text, sizeof text, "[animkit]\nplugin_dir = %s/plugins/json/.libs\n", getenv("AK_BUILDDIR"));
    put("json.ini", text, strlen(text));
    char cfg[PATH_MAX];
    snprintf(cfg, sizeof cfg, "%s", path_in_dir("json.ini"));
    ck_assert_int_eq(animkit("--config", cfg, "info", "-v", path_in_dir("ev.json"), NULL), 0);
    char *o = output();
    char want[PATH_MAX + 512];
    snprintf(want, sizeof want,
             "%s: ani, 1 clip, 2 tracks, 2 keys, 1 events\n"
             "  bone hashes: 1, resolved to names: 0\n"
             "  clip \"c\": 1 s at 25 fps, 2 tracks, keys: rotation 1 translation 1, 1 events\n"
             "    event 0.5 s: sound a\\x07.wav\n",
             path_in_dir("ev.json"));
    ck_assert_str_eq(o, want);
    free(o);
    ck_assert_int_eq(animkit("--config", cfg, "dump", path_in_dir("ev.json"), NULL), 0);
    o = output();
    ck_assert_msg(strstr(o, "\n  track \"Root\" weight 0.5\n") && strstr(o, "\n  track \"\" hash 0xb021fd58\n") &&
                      strstr(o, "\n  event 0.5 s type \"sound\" info \"a\\x07.wav\"\n"),
                  "%s", o);
    free(o);
    ck_assert_int_eq(animkit("--config", cfg, "dump", "--clip", "c", "--clip", "d", path_in_dir("ev.json"), NULL), 64);
    o = errors();
    ck_assert_msg(strstr(o, "dump takes one --clip"), "%s", o);
    free(o);
}
END_TEST

/* ---- --skeleton --------------------------------------------------------- */

/* A config that loads the build tree's ifp, ani and json plugins. */
static void put_real_config(void)
{
    const char *b = getenv("AK_BUILDDIR");
    char text[4 * PATH_MAX];
    snprintf(text, sizeof text,
             "[animkit]\nautoload = no\n[plugin ifp]\npath = %s/plugins/ifp/.libs/ifp.so\n"
             "[plugin ani]\npath = %s/plugins/ani/.libs/ani.so\n[plugin json]\npath = %s/plugins/json/.libs/json.so\n"
             "[plugin dff]\npath = %s/plugins/dff/.libs/dff.so\n",
             b, b, b, b);
    put("real.ini", text, strlen(text));
}

/* The skeleton the tests attach: "ROOT " meets "Root" only case-folded
 * and trimmed, "arm" meets id 22 only by id, "Spare" drives nothing. */
static const char skeleton_json[] =
    "{\"animkit\":1,\"format\":\"test\",\"skeleton\":["
    "{\"name\":\"ROOT \",\"translation\":[0,0,1]},"
    "{\"name\":\"arm\",\"id\":22,\"parent\":0},"
    "{\"name\":\"Spare\",\"parent\":1}]}";
static const char *const skel_names[] = { "ROOT ", "arm", "Spare" };
static const int skel_ids[] = { -1, 22, -1 }; /* -1: no id */

static int folded_same(const char *a, const char *b)
{
    while (*a == ' ')
        a++;
    while (*b == ' ')
        b++;
    size_t na = strlen(a), nb = strlen(b);
    while (na && a[na - 1] == ' ')
        na--;
    while (nb && b[nb - 1] == ' ')
        nb--;
    return na == nb && strncasecmp(a, b, na) == 0;
}

/* Reads `sample` with the library and counts, by the rules spelled out
 * again here, how many of its tracks the skeleton above takes; the name
 * of the last unmatched track goes to `unmatched`. */
static size_t expected_matches(const char *sample, size_t *tracks, char *unmatched, size_t size)
{
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_SEARCH, path_in_dir("real.ini"), NULL, NULL, NULL, NULL };
    ak_registry *reg;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
    ak_doc *doc;
    ck_assert_int_eq(ak_read_file(reg, sample, NULL, &doc, &rep), AK_OK);
    const ak_clip *clip = doc->clips[0];
    size_t matched = 0;
    for (size_t t = 0; t < clip->track_count; t++) {
        const ak_track *tr = clip->tracks[t];
        int hit = 0;
        for (int b = 0; b < 3; b++)
            hit |= (tr->has_bone_id && skel_ids[b] == tr->bone_id) || folded_same(tr->bone, skel_names[b]);
        matched += hit;
        if (!hit)
            snprintf(unmatched, size, "%s", tr->bone);
    }
    *tracks = clip->track_count;
    ak_doc_free(doc);
    ak_registry_free(reg);
    return matched;
}

START_TEST(skeleton_option)
{
    setup();
    put_real_config();
    put("skel.json", skeleton_json, strlen(skeleton_json));
    char cfg[PATH_MAX], skel[PATH_MAX], ifp[PATH_MAX], ani[PATH_MAX], want[512], unmatched[256] = "";
    snprintf(cfg, sizeof cfg, "%s", path_in_dir("real.ini")); /* path_in_dir's buffers rotate */
    snprintf(skel, sizeof skel, "%s", path_in_dir("skel.json"));
    snprintf(ifp, sizeof ifp, "%s/samples/wave.ifp", getenv("AK_SRCDIR"));
    snprintf(ani, sizeof ani, "%s/samples/wave.ani", getenv("AK_SRCDIR"));

    /* ifp tracks carry ids: Root by folded name, R UpperArm by id 22. */
    size_t tracks, m = expected_matches(ifp, &tracks, unmatched, sizeof unmatched);
    ck_assert_uint_eq(m, 2); /* the sample's three tracks, one without a bone */
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", skel, "info", ifp, NULL), 0);
    char *o = output();
    snprintf(want, sizeof want, "    skeleton: 3 bones, %zu of %zu tracks matched\n", m, tracks);
    ck_assert_msg(strstr(o, want), "want '%s' in:\n%s", want, o);
    free(o);
    ck_assert_int_eq(animkit("--config", cfg, "-s", skel, "-v", "info", ifp, NULL), 0);
    o = output();
    snprintf(want, sizeof want, "      unmatched track: \"%s\"\n", unmatched);
    ck_assert_msg(strstr(o, want), "want '%s' in:\n%s", want, o);
    ck_assert_ptr_nonnull(strstr(o, "      bone without a track: \"Spare\"\n"));
    ck_assert_ptr_null(strstr(o, "bone without a track: \"arm\""));
    free(o);
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", skel, "info", "--json", ifp, NULL), 0);
    o = output();
    snprintf(want, sizeof want, "\"skeleton\":{\"bones\":3,\"tracks_matched\":%zu,\"tracks_unmatched\":[\"%s\"]}", m,
             unmatched);
    ck_assert_msg(strstr(o, want), "want '%s' in:\n%s", want, o);
    free(o);

    /* ani tracks have names only: only Root matches. */
    m = expected_matches(ani, &tracks, unmatched, sizeof unmatched);
    ck_assert_uint_eq(m, 1);
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", skel, "info", ani, NULL), 0);
    o = output();
    snprintf(want, sizeof want, "    skeleton: 3 bones, %zu of %zu tracks matched\n", m, tracks);
    ck_assert_msg(strstr(o, want), "want '%s' in:\n%s", want, o);
    free(o);

    /* The skeleton file itself: the bone tree, indented by depth. */
    ck_assert_int_eq(animkit("--config", cfg, "info", skel, NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "  skeleton: 3 bones\n"));
    ck_assert_ptr_nonnull(strstr(o, "\n    \"ROOT \": at (0, 0, 1) rotation (0, 0, 0, 1)\n"));
    ck_assert_ptr_nonnull(strstr(o, "\n      \"arm\" id 22: at (0, 0, 0)"));
    ck_assert_ptr_nonnull(strstr(o, "\n        \"Spare\": at"));
    free(o);

    /* dump --json carries the attached skeleton; converted into json it
     * stays, and the tracks are matched again when that file is read. */
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", skel, "dump", "--json", ifp, NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "\"skeleton\":[\n  {\"name\":\"ROOT \",\"parent\":-1,\"translation\":[0,0,1]"));
    free(o);
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", skel, "convert", ifp, path_in_dir("w.json"), NULL), 0);
    ck_assert_int_eq(animkit("--config", cfg, "info", path_in_dir("w.json"), NULL), 0);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "    skeleton: 3 bones, 2 of 3 tracks matched\n"));
    free(o);
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", skel, "convert", ifp, path_in_dir("w.ani"), NULL), 0);

    /* validate checks the attached skeleton too. */
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", skel, "validate", ifp, NULL), 0);
    static const char dup[] = "{\"animkit\":1,\"skeleton\":[{\"name\":\"a\",\"id\":1},{\"name\":\"b\",\"id\":1}]}";
    put("dup.json", dup, strlen(dup));
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", path_in_dir("dup.json"), "validate", ifp, NULL), 65);
    o = output();
    ck_assert_ptr_nonnull(strstr(o, "INVALID, 1 error"));
    free(o);

    /* A skeleton file that is missing, unreadable, or has no skeleton. */
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", path_in_dir("none.json"), "info", ifp, NULL), 66);
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", path_in_dir("junk.bin"), "info", ifp, NULL), 65);
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", ani, "info", ifp, NULL), 65);
    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", NULL), 64);
}
END_TEST

/* A real model and a real animation (skipped without the corpus): each
 * clip's line says as many matches as the rules, applied here to the two
 * documents, find. */
START_TEST(skeleton_option_corpus)
{
    char dff[PATH_MAX], ifp[PATH_MAX], cfg[PATH_MAX];
    if (!ak_test_corpus("dff/ped_167.dff", dff, sizeof dff) ||
        !ak_test_corpus("ifp/ped_cretaceous.ifp", ifp, sizeof ifp)) {
        printf("SKIP: corpus dff/ped_167.dff or ifp/ped_cretaceous.ifp not found\n");
        return;
    }
    setup();
    put_real_config();
    snprintf(cfg, sizeof cfg, "%s", path_in_dir("real.ini"));
    ak_registry_config rc = { sizeof rc, AK_REG_NO_SEARCH, cfg, NULL, NULL, NULL, NULL };
    ak_registry *reg;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&rc, &reg, &rep), AK_OK);
    ak_doc *model, *anim;
    ck_assert_int_eq(ak_read_file(reg, dff, NULL, &model, &rep), AK_OK);
    ck_assert_int_eq(ak_read_file(reg, ifp, NULL, &anim, &rep), AK_OK);
    ck_assert_uint_gt(model->skeleton.bone_count, 30);

    ck_assert_int_eq(animkit("--config", cfg, "--skeleton", dff, "info", ifp, NULL), 0);
    char *o = output(), *at = o;
    size_t total = 0, matched_all = 0, walk_tracks = 0, walk_matched = 0;
    for (size_t c = 0; c < anim->clip_count; c++) {
        const ak_clip *clip = anim->clips[c];
        size_t matched = 0;
        for (size_t t = 0; t < clip->track_count; t++) {
            const ak_track *tr = clip->tracks[t];
            int hit = 0;
            for (size_t b = 0; b < model->skeleton.bone_count && !hit; b++) {
                const ak_bone *bone = &model->skeleton.bones[b];
                hit = (tr->has_bone_id && bone->has_id && bone->id == tr->bone_id) ||
                      (tr->bone[0] && folded_same(tr->bone, bone->name));
            }
            matched += hit;
        }
        char want[128];
        snprintf(want, sizeof want, "    skeleton: %zu bones, %zu of %zu tracks matched\n",
                 model->skeleton.bone_count, matched, clip->track_count);
        at = strstr(at, want);
        ck_assert_msg(at != NULL, "clip %zu (%s): want '%s'", c, clip->name, want);
        at += strlen(want);
        total += clip->track_count;
        matched_all += matched;
        if (strcasecmp(clip->name, "walk_civi") == 0) {
            walk_tracks = clip->track_count;
            walk_matched = matched;
        }
    }
    printf("INFO: ped_167.dff on ped_cretaceous.ifp: %zu of %zu tracks matched\n", matched_all, total);
    ck_assert_uint_gt(walk_tracks, 0);
    ck_assert_uint_eq(walk_matched, walk_tracks); /* the example: every track of walk_civi */
    free(o);
    ak_doc_free(model);
    ak_doc_free(anim);
    ak_registry_free(reg);
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
    tcase_add_test(tc, declared_parameters_are_checked);
    tcase_add_test(tc, formats_lists_parameters);
    tcase_add_test(tc, formats_names_one_plugin_and_the_refused);
    tcase_add_test(tc, info_and_dump_show_rate_weight_hash_and_events);
    tcase_add_test(tc, strict_fails_on_model_errors);
    tcase_add_test(tc, text_errors_show_line_and_column);
    tcase_add_test(tc, skeleton_option);
    tcase_add_test(tc, skeleton_option_corpus);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
