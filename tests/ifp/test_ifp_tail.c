/* test_ifp_tail.c - zero padding after the last animation is kept as its
 * length, not copied: a read's memory does not grow with it (a 2 GB file
 * of an ANP3 header and zeros took 4 GB), and the file still writes back
 * byte for byte. */
#include "testutil.h"
#include "../../plugins/ifp/ifp.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(zero_tail_costs_no_memory)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/samples/wave.ifp", getenv("AK_SRCDIR"));
    size_t n;
    unsigned char *plain = ak_test_slurp(path, &n);
    size_t pad = 8u << 20;
    unsigned char *padded = calloc(1, n + pad);
    memcpy(padded, plain, n);
    const ak_codec *codecs[] = { ifp_codec(), NULL };
    ak_registry *reg = ak_test_registry(codecs);
    /* A cap the plain file reads under, far below the padding's size. */
    ak_options o = { sizeof o, "ifp", "wave.ifp", NULL, 1u << 20, 0 };
    ak_doc *doc = NULL;
    ak_report rep = { 0 };
    ck_assert_msg(ak_read(reg, plain, n, &o, &doc, &rep) == AK_OK, "%s", rep.message);
    ak_doc_free(doc);
    ak_report rep2 = { 0 };
    ck_assert_msg(ak_read(reg, padded, n + pad, &o, &doc, &rep2) == AK_OK, "%s", rep2.message);
    ck_assert_int_eq(ak_prop_int(&doc->props, IFP_P_TAIL_ZEROS, -1), (int64_t)pad);
    ck_assert_ptr_null(ak_prop_get(&doc->props, IFP_P_TAIL));
    size_t m;
    unsigned char *out = ak_test_write(reg, doc, "ifp", &m);
    ck_assert(ak_test_same_bytes(padded, n + pad, out, m, "padded round trip"));
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    /* A tail that is not all zero is still kept byte for byte. */
    padded[n + 5] = 0x42;
    ak_options big = { sizeof big, "ifp", "wave.ifp", NULL, 0, 0 };
    ak_report rep3 = { 0 };
    ck_assert_msg(ak_read(reg, padded, n + pad, &big, &doc, &rep3) == AK_OK, "%s", rep3.message);
    ck_assert_ptr_nonnull(ak_prop_get(&doc->props, IFP_P_TAIL));
    out = ak_test_write(reg, doc, "ifp", &m);
    ck_assert(ak_test_same_bytes(padded, n + pad, out, m, "stale tail round trip"));
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(plain);
    free(padded);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ifp_tail");
    TCase *tc = tcase_create("ifp_tail");
    tcase_add_test(tc, zero_tail_costs_no_memory);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
