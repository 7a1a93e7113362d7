/* test_quat.c - ak_quat_mul, ak_quat_normalize, ak_quat_to_matrix and
 * ak_quat_from_matrix against matrices built here from axis and angle
 * (Rodrigues' formula), not through the code under test. */
#include "testutil.h"

#include <math.h>
#include <string.h>

/* Rotation by `angle` (radians) about the axis k (made unit here):
 * R = cos I + sin [k]x + (1 - cos) k k^T, column vectors. */
static void rodrigues(const double axis[3], double angle, double r[3][3])
{
    double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    double k[3] = { axis[0] / len, axis[1] / len, axis[2] / len };
    double c = cos(angle), s = sin(angle);
    double cross[3][3] = { { 0, -k[2], k[1] }, { k[2], 0, -k[0] }, { -k[1], k[0], 0 } };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[i][j] = (i == j ? c : 0) + s * cross[i][j] + (1 - c) * k[i] * k[j];
}

/* The quaternion of the same rotation: (k sin(angle/2), cos(angle/2)). */
static void axis_angle(const double axis[3], double angle, double q[4])
{
    double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (int i = 0; i < 3; i++)
        q[i] = axis[i] / len * sin(angle / 2);
    q[3] = cos(angle / 2);
}

static void mat_mul(const double a[3][3], const double b[3][3], double out[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
}

static void ck_matrix(const double a[3][3], const double b[3][3], double tol)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            ck_assert_msg(fabs(a[i][j] - b[i][j]) <= tol, "[%d][%d]: %.17g vs %.17g", i, j, a[i][j], b[i][j]);
}

/* Equal as rotations: q or -q. */
static void ck_same_rotation(const double a[4], const double b[4], double tol)
{
    double plus = 0, minus = 0;
    for (int i = 0; i < 4; i++) {
        plus = fmax(plus, fabs(a[i] - b[i]));
        minus = fmax(minus, fabs(a[i] + b[i]));
    }
    ck_assert_msg(fmin(plus, minus) <= tol, "(%.17g %.17g %.17g %.17g) vs (%.17g %.17g %.17g %.17g)", a[0], a[1], a[2],
                  a[3], b[0], b[1], b[2], b[3]);
}

static const double axes[][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 1, 2, 3 }, { -0.3, 0.8, -0.1 }, { 1, 1, 0 } };
static const double angles[] = { 0.0, 0.1, 1.0, M_PI / 2, 2.5, M_PI, 4.0, -1.2 };
#define N_AXES (sizeof axes / sizeof axes[0])
#define N_ANGLES (sizeof angles / sizeof angles[0])

START_TEST(hamilton_products)
{
    /* i j = k, j k = i, k i = j, j i = -k, i i = -1. */
    const double i[4] = { 1, 0, 0, 0 }, j[4] = { 0, 1, 0, 0 }, k[4] = { 0, 0, 1, 0 };
    double out[4];
    ak_quat_mul(i, j, out);
    ck_assert(out[0] == 0 && out[1] == 0 && out[2] == 1 && out[3] == 0);
    ak_quat_mul(j, k, out);
    ck_assert(out[0] == 1 && out[1] == 0 && out[2] == 0 && out[3] == 0);
    ak_quat_mul(k, i, out);
    ck_assert(out[0] == 0 && out[1] == 1 && out[2] == 0 && out[3] == 0);
    ak_quat_mul(j, i, out);
    ck_assert(out[0] == 0 && out[1] == 0 && out[2] == -1 && out[3] == 0);
    ak_quat_mul(i, i, out);
    ck_assert(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == -1);
    /* out may be either input. */
    double a[4] = { 0, 0, 1, 0 }, b[4] = { 1, 0, 0, 0 };
    ak_quat_mul(a, b, a);
    ck_assert(a[0] == 0 && a[1] == 1 && a[2] == 0 && a[3] == 0);
    double c[4] = { 0, 0, 1, 0 }, d[4] = { 1, 0, 0, 0 };
    ak_quat_mul(c, d, d);
    ck_assert(d[0] == 0 && d[1] == 1 && d[2] == 0 && d[3] == 0);
}
END_TEST

START_TEST(matrix_of_axis_angle)
{
    /* z by 90 degrees takes x to y: column 0 is (0, 1, 0). */
    double qz[4], m[3][3];
    axis_angle(axes[2], M_PI / 2, qz);
    ak_quat_to_matrix(qz, m);
    ck_assert(fabs(m[0][0]) < 1e-15 && fabs(m[1][0] - 1) < 1e-15 && fabs(m[2][0]) < 1e-15);
    ck_assert(fabs(m[0][1] + 1) < 1e-15 && fabs(m[1][1]) < 1e-15); /* y goes to -x */
    for (size_t a = 0; a < N_AXES; a++)
        for (size_t n = 0; n < N_ANGLES; n++) {
            double q[4], want[3][3], got[3][3];
            axis_angle(axes[a], angles[n], q);
            rodrigues(axes[a], angles[n], want);
            ak_quat_to_matrix(q, got);
            ck_matrix(got, want, 1e-15);
        }
}
END_TEST

START_TEST(product_is_sequential_rotation)
{
    /* R(a b) = R(a) R(b): rotate by b first, then by a. */
    for (size_t a = 0; a < N_AXES; a++)
        for (size_t n = 0; n < N_ANGLES; n++) {
            size_t b = (a + 1 + n) % N_AXES;
            double qa[4], qb[4], qab[4], ra[3][3], rb[3][3], want[3][3], got[3][3];
            axis_angle(axes[a], angles[n], qa);
            axis_angle(axes[b], angles[(n + 3) % N_ANGLES], qb);
            rodrigues(axes[a], angles[n], ra);
            rodrigues(axes[b], angles[(n + 3) % N_ANGLES], rb);
            mat_mul(ra, rb, want);
            ak_quat_mul(qa, qb, qab);
            ak_quat_to_matrix(qab, got);
            ck_matrix(got, want, 1e-14);
        }
}
END_TEST

START_TEST(normalize)
{
    double q[4] = { 0, 0, 3, 4 }, out[4];
    ck_assert_int_eq(ak_quat_normalize(q, out), 1);
    ck_assert(out[0] == 0 && out[1] == 0 && fabs(out[2] - 0.6) < 1e-16 && fabs(out[3] - 0.8) < 1e-16);
    ck_assert_int_eq(ak_quat_normalize(q, q), 1); /* in place */
    ck_assert(fabs(q[2] - 0.6) < 1e-16 && fabs(q[3] - 0.8) < 1e-16);
    const double zero[4] = { 0, 0, 0, 0 }, inf[4] = { INFINITY, 0, 0, 1 }, nan_q[4] = { 0, NAN, 0, 1 },
                 tiny[4] = { 1e-16, 0, 0, 0 };
    const double *bad[] = { zero, inf, nan_q, tiny };
    for (int i = 0; i < 4; i++) {
        double o[4] = { 9, 9, 9, 9 };
        ck_assert_int_eq(ak_quat_normalize(bad[i], o), 0);
        ck_assert(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 1);
    }
}
END_TEST

START_TEST(matrix_round_trips)
{
    for (size_t a = 0; a < N_AXES; a++)
        for (size_t n = 0; n < N_ANGLES; n++) {
            double q[4], r[3][3], back[4], again[3][3];
            axis_angle(axes[a], angles[n], q);
            rodrigues(axes[a], angles[n], r);
            ck_assert_int_eq(ak_quat_from_matrix(r, back), 1);
            ck_assert_msg(back[3] >= 0, "w %g", back[3]);
            ck_assert(fabs(back[0] * back[0] + back[1] * back[1] + back[2] * back[2] + back[3] * back[3] - 1) < 1e-15);
            ck_same_rotation(back, q, 1e-15);
            if (q[3] > 1e-9) /* the sign is free only for a half turn */
                for (int c = 0; c < 4; c++)
                    ck_assert(fabs(back[c] - q[c]) < 1e-15);
            ak_quat_to_matrix(back, again);
            ck_matrix(again, r, 1e-15);
        }
}
END_TEST

START_TEST(sheared_and_scaled_give_the_closest_rotation)
{
    /* M = R S with S symmetric positive definite is M's polar
     * decomposition, so R is the rotation closest to M. */
    const double s[3][3] = { { 1.05, 0.02, -0.03 }, { 0.02, 0.94, 0.01 }, { -0.03, 0.01, 1.0 } };
    const double scale[3][3] = { { 2, 0, 0 }, { 0, 0.5, 0 }, { 0, 0, 3 } };
    for (size_t a = 0; a < N_AXES; a++) {
        double q[4], r[3][3], m[3][3], got[4];
        axis_angle(axes[a], angles[(a + 2) % N_ANGLES], q);
        if (q[3] < 0)
            for (int c = 0; c < 4; c++)
                q[c] = -q[c];
        rodrigues(axes[a], angles[(a + 2) % N_ANGLES], r);
        mat_mul(r, s, m);
        ck_assert_int_eq(ak_quat_from_matrix(m, got), 1);
        ck_same_rotation(got, q, 1e-13);
        ck_assert(got[3] >= 0);
        mat_mul(r, scale, m); /* per-axis scale: columns of different lengths */
        ck_assert_int_eq(ak_quat_from_matrix(m, got), 1);
        ck_same_rotation(got, q, 1e-13);
        ck_assert(got[3] >= 0);
    }
}
END_TEST

START_TEST(no_rotation_gives_zero_and_identity)
{
    const double zero[3][3] = { { 0 } };
    const double mirror[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, -1 } };
    const double flat[3][3] = { { 1, 0, 1 }, { 0, 1, 1 }, { 0, 0, 0 } };
    const double nan_m[3][3] = { { 1, 0, 0 }, { 0, NAN, 0 }, { 0, 0, 1 } };
    const double inf_m[3][3] = { { INFINITY, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
    const double (*bad[])[3] = { zero, mirror, flat, nan_m, inf_m };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double q[4] = { 9, 9, 9, 9 };
        ck_assert_msg(ak_quat_from_matrix(bad[i], q) == 0, "matrix %zu", i);
        ck_assert(q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 1);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("quat");
    TCase *tc = tcase_create("quat");
    tcase_add_test(tc, hamilton_products);
    tcase_add_test(tc, matrix_of_axis_angle);
    tcase_add_test(tc, product_is_sequential_rotation);
    tcase_add_test(tc, normalize);
    tcase_add_test(tc, matrix_round_trips);
    tcase_add_test(tc, sheared_and_scaled_give_the_closest_rotation);
    tcase_add_test(tc, no_rotation_gives_zero_and_identity);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
