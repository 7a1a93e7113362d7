/* test_linear.c - input-size-to-time sweeps: each operation is timed at
 * sizes n, 2n and 4n, and the time must grow about linearly. The test
 * asserts a ratio, never an absolute time: 4x the work may take at most
 * 8x the time (linear gives about 4, n log n about 4.5, quadratic 16).
 * CPU time of this process, best of three, keeps other load out. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef void (*work_fn)(size_t n);

static double best_of_three(work_fn work, size_t n)
{
    double best = 1e30;
    for (int i = 0; i < 3; i++) {
        double t0 = cpu_seconds();
        work(n);
        double t = cpu_seconds() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

static void assert_linear(const char *what, work_fn work, size_t n)
{
    double t1 = best_of_three(work, n), t2 = best_of_three(work, 2 * n), t4 = best_of_three(work, 4 * n);
    printf("%s: n=%zu %.4f s, 2n %.4f s, 4n %.4f s (ratio 4n/n %.2f)\n", what, n, t1, t2, t4, t4 / t1);
    /* Below a millisecond the clock's grain dominates: the work is
     * trivially fast then, which is what the test wants to show. */
    if (t4 < 0.001)
        return;
    ck_assert_msg(t4 / (t1 > 1e-4 ? t1 : 1e-4) < 8, "%s grows faster than linear: %.4f s -> %.4f s", what, t1, t4);
}

/* n distinct properties on one clip, then each looked up again by
 * setting it once more (a JSON file of many props does this). */
static void set_props(size_t n)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "c");
    char key[32];
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            snprintf(key, sizeof key, "key.%zu", i);
            ck_assert_int_eq(ak_prop_set_int(doc, &clip->props, key, (int64_t)i), AK_OK);
        }
    ck_assert_uint_eq(clip->props.count, n);
    ck_assert_int_eq(ak_prop_int(&clip->props, "key.7", -1), 7);
    ak_doc_free(doc);
}

START_TEST(props_are_linear) { assert_linear("props", set_props, 8000); }
END_TEST

/* n hashed tracks named from a dictionary of n names (the last of which
 * match, so a scan would go far). */
static void name_bones(size_t n)
{
    char **names = malloc(n * sizeof *names);
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "c");
    for (size_t i = 0; i < n; i++) {
        names[i] = malloc(32);
        snprintf(names[i], 32, "Bip01 Bone %zu", i);
    }
    for (size_t i = 0; i < n; i++) {
        ak_track *t = ak_track_add(clip, "");
        t->has_bone_hash = 1;
        t->bone_hash = ak_crc32(names[n - 1 - i], strlen(names[n - 1 - i]));
    }
    ck_assert_uint_eq(ak_doc_name_bones(doc, (const char *const *)names, n), n);
    ck_assert_str_eq(clip->tracks[0]->bone, names[n - 1]);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    ak_doc_free(doc);
}

START_TEST(bone_naming_is_linear) { assert_linear("bone naming", name_bones, 2000); }
END_TEST

START_TEST(first_name_of_a_hash_wins)
{
    /* Two dictionary entries with one hash: the first in the file wins, as
     * before. (A CRC-32 collision pair would be needed for different
     * names; the same name twice shows the order rule.) */
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "c");
    ak_track *t = ak_track_add(clip, "");
    t->has_bone_hash = 1;
    t->bone_hash = ak_crc32("Head", 4);
    const char *names[] = { "Neck", "Head", "Head" };
    ck_assert_uint_eq(ak_doc_name_bones(doc, names, 3), 1);
    ck_assert_str_eq(t->bone, "Head");
    ck_assert_uint_eq(ak_crc32("123456789", 9), 0xCBF43926u); /* the check value of CRC-32 */
    ak_doc_free(doc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("linear");
    TCase *tc = tcase_create("linear");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, props_are_linear);
    tcase_add_test(tc, bone_naming_is_linear);
    tcase_add_test(tc, first_name_of_a_hash_wins);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
