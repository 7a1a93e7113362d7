#include "testutil.h"
#include "../../plugins/anm/anm.h"
START_TEST(t_probe) { ck_assert_int_eq(anm_codec()->probe((const unsigned char *)"EANM", 4, NULL), 100); } END_TEST
int main(void) { Suite *s = suite_create("anm"); TCase *tc = tcase_create("x"); tcase_add_test(tc, t_probe); suite_add_tcase(s, tc); return ak_test_run(s); }
