/* test_dtoa.c - the shortest round-trip formatter (core/dtoa.c): millions
 * of random doubles and floats read back exactly (strtod/strtof are the
 * independent judge) with no shorter digit string that would, and known
 * texts of the edge cases. */
#include "testutil.h"

#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x853C49E6748FEA9Bull;

static uint64_t next64(void)
{
    rng ^= rng << 13; /* xorshift64 */
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Significant digits in a formatted number: from the first non-zero digit
 * to the last (zeros at either end only place the point). */
static int digit_count(const char *s)
{
    int first = -1, last = -1, i = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        if (*s != '0') {
            if (first < 0)
                first = i;
            last = i;
        }
        i++;
    }
    return first < 0 ? 0 : last - first + 1;
}

static void check_double(double v)
{
    char buf[AK_SHORTEST_MAX], shorter[64];
    size_t len = ak_shortest_double(v, buf);
    ck_assert_uint_eq(len, strlen(buf));
    double back = strtod(buf, NULL);
    ck_assert_msg(memcmp(&back, &v, sizeof v) == 0, "%a printed as %s reads back as %a", v, buf, back);
    int n = digit_count(buf);
    if (n > 1) {
        /* The nearest number with one digit fewer must not read back. */
        snprintf(shorter, sizeof shorter, "%.*e", n - 2, v);
        ck_assert_msg(strtod(shorter, NULL) != v, "%a printed as %s but %s reads back too", v, buf, shorter);
    }
}

static void check_float(float v)
{
    char buf[AK_SHORTEST_MAX], shorter[64];
    ak_shortest_float(v, buf);
    float back = strtof(buf, NULL);
    ck_assert_msg(memcmp(&back, &v, sizeof v) == 0, "%a (float) printed as %s reads back as %a", (double)v, buf,
                  (double)back);
    int n = digit_count(buf);
    if (n > 1) {
        snprintf(shorter, sizeof shorter, "%.*e", n - 2, (double)v);
        ck_assert_msg(strtof(shorter, NULL) != v, "%a (float) printed as %s but %s reads back too", (double)v, buf,
                      shorter);
    }
}

START_TEST(known_texts)
{
    static const struct {
        double v;
        const char *text;
    } d[] = {
        { 0.0, "0" },
        { -0.0, "-0" },
        { 1.0, "1" },
        { 0.1, "0.1" },
        { 0.5, "0.5" },
        { -2.5, "-2.5" },
        { 1.0 / 3.0, "0.3333333333333333" },
        { 100.0, "100" },
        { 1e14, "100000000000000" },
        { 1e15, "1e+15" },
        { 1e15 + 1, "1.000000000000001e+15" },
        { 999999999999999.0, "999999999999999" },
        { 123456789012345.6, "123456789012345.6" },
        { 1e16, "1e+16" },
        { 1e21, "1e+21" },
        { 1e23, "1e+23" },
        { 0.0001, "0.0001" },
        { 0.00001, "1e-05" },
        { 1.5e-300, "1.5e-300" },
        { 5e-324, "5e-324" },                     /* the smallest subnormal */
        { 1e-323, "1e-323" },                     /* 2 x the smallest */
        { 2.2250738585072009e-308, "2.225073858507201e-308" }, /* the largest subnormal */
        { DBL_MIN, "2.2250738585072014e-308" },
        { DBL_MAX, "1.7976931348623157e+308" },
        { 9007199254740993.0, "9.007199254740992e+15" }, /* 2^53 + 1 is not a double */
        { (double)0.70710677f, "0.7071067690849304" }, /* float32-exact value as a double */
        { (double)0.1f, "0.10000000149011612" },
        { 4096.0 / 4096.0 - 1.0 / 4096.0, "0.999755859375" },
    };
    char buf[AK_SHORTEST_MAX];
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        ak_shortest_double(d[i].v, buf);
        ck_assert_msg(strcmp(buf, d[i].text) == 0, "%a: %s, expected %s", d[i].v, buf, d[i].text);
        check_double(d[i].v);
    }
    static const struct {
        float v;
        const char *text;
    } f[] = {
        { 0.1f, "0.1" },
        { 0.70710677f, "0.70710677" },
        { 1.0f / 3.0f, "0.33333334" },
        { 16777216.0f, "16777216" },
        { 1e-45f, "1e-45" }, /* the smallest subnormal */
        { FLT_MIN, "1.1754944e-38" },
        { FLT_MAX, "3.4028235e+38" },
        { -0.0f, "-0" },
        { 1e15f, "1e+15" },
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        ak_shortest_float(f[i].v, buf);
        ck_assert_msg(strcmp(buf, f[i].text) == 0, "%a (float): %s, expected %s", (double)f[i].v, buf, f[i].text);
        check_float(f[i].v);
    }
    ak_shortest_double(NAN, buf);
    ck_assert_str_eq(buf, "nan");
    ak_shortest_double(-INFINITY, buf);
    ck_assert_str_eq(buf, "-inf");
    ak_shortest_float(INFINITY, buf);
    ck_assert_str_eq(buf, "inf");
}
END_TEST

/* Every bit pattern class: random bits (all exponents alike), values near
 * 1 (where animation data lives), subnormals, and powers of two and ten
 * with their neighbours (where intervals are uneven or digits flip). */
START_TEST(random_doubles)
{
    for (int i = 0; i < 1000000; i++) {
        uint64_t b = next64();
        double v;
        switch (i & 3) {
        case 0: break;
        case 1: b = (b & 0x800FFFFFFFFFFFFFull) | ((uint64_t)(1023 - 20 + (int)((b >> 52) % 40)) << 52); break;
        case 2: b &= 0x800FFFFFFFFFFFFFull; break; /* subnormal */
        default: b &= 0xFFF0000000000003ull; break;  /* power of two and neighbours */
        }
        memcpy(&v, &b, sizeof v);
        if (isfinite(v))
            check_double(v);
    }
    for (int e = -323; e <= 308; e++) {
        double p = strtod((char[16]){ 0 }, NULL);
        char t[16];
        snprintf(t, sizeof t, "1e%d", e);
        p = strtod(t, NULL);
        check_double(p);
        check_double(nextafter(p, 0));
        check_double(nextafter(p, INFINITY));
    }
}
END_TEST

/* Values with few fractional bits, as the game formats store them (x /
 * 4096, x / 1024, halves...), which take a short exact path: every x / 2^s
 * for s up to 24 over a window of x, and scaled up and down. */
START_TEST(short_dyadic_values)
{
    for (int s = 1; s <= 24; s++)
        for (int64_t x = -40000; x <= 40000; x += (s > 12 ? 7 : 1))
            check_double(ldexp((double)x, -s));
    for (int i = 0; i < 200000; i++) {
        uint64_t r = next64();
        check_double(ldexp((double)(int64_t)(r >> 12), -(int)(r % 64))); /* up to 52 significant bits */
        check_double(ldexp((double)(int32_t)r, (int)(r >> 58) - 40));
    }
    char buf[AK_SHORTEST_MAX];
    ak_shortest_double(2896.0 / 4096.0, buf);
    ck_assert_str_eq(buf, "0.70703125");
    ak_shortest_double(-1.0 / 4096.0, buf);
    ck_assert_str_eq(buf, "-0.000244140625");
    ak_shortest_double(123456789.0 / 1024.0, buf);
    ck_assert_str_eq(buf, "120563.2705078125");
}
END_TEST

START_TEST(random_floats)
{
    for (int i = 0; i < 1000000; i++) {
        uint32_t b = (uint32_t)next64();
        if (i & 1)
            b = (b & 0x807FFFFFu) | ((uint32_t)(127 - 10 + (int)((b >> 23) % 20)) << 23);
        float v;
        memcpy(&v, &b, sizeof v);
        if (isfinite(v))
            check_float(v);
    }
    /* Every float with a low exponent and the 2^24 boundary, exhaustively
     * over a few mantissa windows. */
    for (uint32_t b = 0; b < 200000; b++) {
        float v;
        uint32_t bits[3] = { b, 0x4B800000u - 100000u + b, 0x3F800000u - 100000u + b };
        for (int j = 0; j < 3; j++) {
            memcpy(&v, &bits[j], sizeof v);
            check_float(v);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dtoa");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, known_texts);
    tcase_add_test(tc, random_doubles);
    tcase_add_test(tc, short_dyadic_values);
    tcase_add_test(tc, random_floats);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
