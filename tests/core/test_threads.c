/* test_threads.c - one registry shared by many threads: reads and writes
 * run at once must give exactly what a single thread gives. Uses the
 * example codec, and every plugin of the build tree on corpus files when
 * the corpus is present. */
#include "testutil.h"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 6
#define ROUNDS 20
#define MAX_INPUTS 16

const ak_codec *animkit_codec(void); /* examples/plugin/akm.c */

typedef struct input {
    const char *name;
    unsigned char *bytes;
    size_t size;
    unsigned char *expect; /* single-threaded write of what was read, or NULL */
    size_t expect_size;
    size_t tracks;
} input;

static input inputs[MAX_INPUTS];
static int input_count;
static const ak_registry *shared;

static unsigned char *read_and_write(const input *in, size_t *size, size_t *tracks)
{
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, NULL, in->name, NULL, 0, 0 };
    if (ak_read(shared, in->bytes, in->size, &o, &doc, &rep) != AK_OK)
        return NULL;
    ak_doc_stats s;
    ak_doc_stats_get(doc, &s);
    *tracks = s.tracks;
    unsigned char *out = NULL;
    *size = 0;
    ak_options w = { sizeof w, doc->format, NULL, NULL, 0, 0 };
    const ak_plugin_info *p = ak_registry_find(shared, doc->format);
    if (p && p->codec->write) {
        ak_report wrep = { 0 };
        if (ak_write(shared, doc, &w, &out, size, &wrep) != AK_OK)
            out = NULL;
    }
    ak_doc_free(doc);
    return out;
}

static void *worker(void *arg)
{
    long failures = 0;
    (void)arg;
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < input_count; i++) {
            size_t n = 0, tracks = 0;
            unsigned char *out = read_and_write(&inputs[i], &n, &tracks);
            if (tracks != inputs[i].tracks || (inputs[i].expect && (n != inputs[i].expect_size ||
                                                                   memcmp(out, inputs[i].expect, n) != 0)))
                failures++;
            ak_buffer_free(shared, out);
        }
    return (void *)failures;
}

static void add_input(const char *name, unsigned char *bytes, size_t size)
{
    if (input_count == MAX_INPUTS)
        return;
    input *in = &inputs[input_count];
    in->name = name;
    in->bytes = bytes;
    in->size = size;
    in->expect = read_and_write(in, &in->expect_size, &in->tracks);
    input_count++;
}

static void add_corpus(const char *relative, int rounds_ok)
{
    char buf[PATH_MAX];
    const char *path = ak_test_corpus(relative, buf, sizeof buf);
    if (!path || !rounds_ok)
        return;
    size_t n;
    unsigned char *b = ak_test_slurp(path, &n);
    add_input(strdup(relative), b, n);
}

static ak_registry *open_build_tree_registry(void)
{
    const char *b = getenv("AK_BUILDDIR");
    ck_assert_ptr_nonnull(b);
    char text[4096];
    int n = snprintf(text, sizeof text, "[animkit]\n");
    const char *names[] = { "ifp", "ani", "anm", "mab" };
    for (int i = 0; i < 4; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "plugin_dir = %s/plugins/%s/.libs\n", b, names[i]);
    char path[PATH_MAX];
    ak_test_tmpdir("threads", path, sizeof path - 16);
    strcat(path, "/XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    ak_registry_config cfg = { sizeof cfg, 0, path, NULL, NULL, NULL, NULL };
    ak_registry *reg;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
    unlink(path);
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_registry_add_codec(reg, animkit_codec(), 0, &rep2), AK_OK);
    return reg;
}

START_TEST(shared_registry_is_reentrant)
{
    ak_registry *reg = open_build_tree_registry();
    shared = reg;
    static unsigned char akm_file[] = { 'A', 'K', 'M', '1', 0, 0, 0x80, 0x3f, 1, 0, 0, 0, 4, 'R', 'o', 'o',
                                        't', 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0,
                                        0xf3, 0x04, 0x35, 0x3f, 0xf3, 0x04, 0x35, 0x3f };
    add_input("walk.akm", akm_file, sizeof akm_file);
    ck_assert_ptr_nonnull(inputs[0].expect);
    ck_assert(ak_test_same_bytes(akm_file, sizeof akm_file, inputs[0].expect, inputs[0].expect_size, "akm"));
    int before = input_count;
    add_corpus("ifp/weapc.ifp", ak_registry_find(reg, "ifp") != NULL);
    add_corpus("ifp/camera.ifp", ak_registry_find(reg, "ifp") != NULL);
    add_corpus("ani/lights_camera_action_100fps_w_music.ani", ak_registry_find(reg, "ani") != NULL);
    add_corpus("anm/frm2_64bones_hmmwv_body_r.anm", ak_registry_find(reg, "anm") != NULL);
    add_corpus("mab/wdl_trained-idle_mplyr_000f_norm_nowep.mab", ak_registry_find(reg, "mab") != NULL);
    if (input_count == before)
        ak_test_skip("threads: no corpus or no game plugins built; only the example codec ran");
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker, NULL), 0);
    long failures = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        failures += (long)r;
    }
    ck_assert_int_eq(failures, 0);
    printf("threads: %d threads x %d rounds x %d inputs agreed with the single-threaded result\n", THREADS,
           ROUNDS, input_count);
    for (int i = 0; i < input_count; i++)
        ak_buffer_free(reg, inputs[i].expect);
    /* The threads handed each other the freed documents' blocks (ABI 1.3). */
    if (input_count > before)
        ck_assert_uint_gt(ak_registry_trim(reg), 0);
    ak_registry_free(reg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, shared_registry_is_reentrant);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
