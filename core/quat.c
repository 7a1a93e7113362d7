/* quat.c - quaternion and rotation-matrix arithmetic that several plugins
 * need (conventions in animkit.h, above ak_quat_mul).
 *
 * ak_quat_from_matrix() first replaces the matrix by its closest rotation
 * (the orthogonal factor of its polar decomposition, by Newton's iteration
 * X <- (X + X^-T) / 2 with determinant scaling): files hold slightly
 * sheared or scaled matrices (RenderWare frames up to 6 % off), and
 * reading the quaternion straight off such a matrix gives a non-unit,
 * skewed rotation. Then Shepperd's method, which divides by the largest of
 * w, x, y, z. */
#include "internal.h"

#include <math.h>
#include <string.h>

void ak_quat_mul(const double a[4], const double b[4], double out[4])
{
    double r[4] = {
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    };
    memcpy(out, r, sizeof r);
}

int ak_quat_normalize(const double in[4], double out[4])
{
    double n = in[0] * in[0] + in[1] * in[1] + in[2] * in[2] + in[3] * in[3];
    if (!isfinite(n) || n < 1e-30) {
        out[0] = out[1] = out[2] = 0.0;
        out[3] = 1.0;
        return 0;
    }
    n = sqrt(n);
    for (int i = 0; i < 4; i++)
        out[i] = in[i] / n;
    return 1;
}

void ak_quat_to_matrix(const double q[4], double m[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0][0] = 1 - 2 * (y * y + z * z);
    m[0][1] = 2 * (x * y - z * w);
    m[0][2] = 2 * (x * z + y * w);
    m[1][0] = 2 * (x * y + z * w);
    m[1][1] = 1 - 2 * (x * x + z * z);
    m[1][2] = 2 * (y * z - x * w);
    m[2][0] = 2 * (x * z - y * w);
    m[2][1] = 2 * (y * z + x * w);
    m[2][2] = 1 - 2 * (x * x + y * y);
}

static double det3(const double a[3][3])
{
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}

/* The cofactor matrix of a: a^-T = cof(a) / det(a). */
static void cofactors(const double a[3][3], double c[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            c[i][j] = a[i1][j1] * a[i2][j2] - a[i1][j2] * a[i2][j1];
        }
}

/* Newton's iteration for the orthogonal polar factor; x has det > 0, so
 * the factor is a proper rotation. Returns 0 if it does not settle. */
static int closest_rotation(double x[3][3])
{
    for (int it = 0; it < 100; it++) {
        double det = det3(x);
        if (!(det > 0) || !isfinite(det))
            return 0;
        double c[3][3];
        cofactors(x, c);
        double g = cbrt(det); /* scales x to det 1, which speeds up far-off matrices */
        double change = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double next = 0.5 * (x[i][j] / g + c[i][j] * g / det);
                change = fmax(change, fabs(next - x[i][j]));
                x[i][j] = next;
            }
        if (change < 1e-14)
            return 1;
    }
    return 0;
}

/* Shepperd: the (not yet normalised) quaternion of rotation matrix r. */
static void shepperd(const double r[3][3], double q[4])
{
    double tr = r[0][0] + r[1][1] + r[2][2];
    if (tr > 0) {
        double s = 2 * sqrt(tr + 1);
        q[3] = s / 4;
        q[0] = (r[2][1] - r[1][2]) / s;
        q[1] = (r[0][2] - r[2][0]) / s;
        q[2] = (r[1][0] - r[0][1]) / s;
    } else if (r[0][0] >= r[1][1] && r[0][0] >= r[2][2]) {
        double s = 2 * sqrt(1 + r[0][0] - r[1][1] - r[2][2]);
        q[3] = (r[2][1] - r[1][2]) / s;
        q[0] = s / 4;
        q[1] = (r[0][1] + r[1][0]) / s;
        q[2] = (r[0][2] + r[2][0]) / s;
    } else if (r[1][1] >= r[2][2]) {
        double s = 2 * sqrt(1 + r[1][1] - r[0][0] - r[2][2]);
        q[3] = (r[0][2] - r[2][0]) / s;
        q[0] = (r[0][1] + r[1][0]) / s;
        q[1] = s / 4;
        q[2] = (r[1][2] + r[2][1]) / s;
    } else {
        double s = 2 * sqrt(1 + r[2][2] - r[0][0] - r[1][1]);
        q[3] = (r[1][0] - r[0][1]) / s;
        q[0] = (r[0][2] + r[2][0]) / s;
        q[1] = (r[1][2] + r[2][1]) / s;
        q[2] = s / 4;
    }
}

static double column_length(const double m[3][3], int c)
{
    return sqrt(m[0][c] * m[0][c] + m[1][c] * m[1][c] + m[2][c] * m[2][c]);
}

static int no_rotation(double q[4])
{
    q[0] = q[1] = q[2] = 0.0;
    q[3] = 1.0;
    return 0;
}

int ak_quat_from_matrix(const double m[3][3], double q[4])
{
    /* Flat or mirrored: det relative to the axis lengths, so that a scaled
     * but sound matrix passes. */
    double lengths = column_length(m, 0) * column_length(m, 1) * column_length(m, 2);
    double det = det3(m);
    if (!isfinite(det) || !isfinite(lengths) || !(lengths > 0) || !(det / lengths > 1e-6))
        return no_rotation(q);
    double x[3][3];
    memcpy(x, m, sizeof x);
    if (!closest_rotation(x))
        return no_rotation(q);
    shepperd(x, q);
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0.5) || !isfinite(n))
        return no_rotation(q);
    double sign = q[3] < 0 ? -1.0 : 1.0; /* q and -q are the same rotation: w >= 0 */
    for (int i = 0; i < 4; i++)
        q[i] = sign * q[i] / n;
    return 1;
}
