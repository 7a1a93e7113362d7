#include "testutil.h"
#include "../../plugins/ifp/ifp.h"
START_TEST(t_probe) { ck_assert_int_eq(ifp_codec()->probe((const unsigned char *)"ANP3", 4, NULL), 100); } END_TEST
int main(void) { Suite *s = suite_create("ifp"); TCase *tc = tcase_create("x"); tcase_add_test(tc, t_probe); suite_add_tcase(s, tc); return ak_test_run(s); }
