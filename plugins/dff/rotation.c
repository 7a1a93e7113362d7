/* rotation.c - the rest rotation of a RenderWare frame matrix.
 *
 * Real files hold slightly sheared frame matrices (axis lengths up to 6 %
 * off, det still 1: the fact sheet's section 2.4), so the matrix is first
 * replaced by its closest rotation (the orthogonal factor of its polar
 * decomposition, by Newton's iteration X <- (X + X^-T) / 2 with determinant
 * scaling) and only then turned into a quaternion (Shepperd's method). */
#include "dff.h"

#include <math.h>

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

/* Newton's iteration for the orthogonal polar factor; a has det > 0, so
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

/* Shepperd: the quaternion of rotation matrix r (r[row][col]), picking the
 * largest of w, x, y, z to divide by. */
static void matrix_quat(const double r[3][3], double q[4])
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

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

int dff_matrix_rotation(const double c[3][3], double q[4], double *error)
{
    double err = 0;
    for (int i = 0; i < 3; i++) {
        err = fmax(err, fabs(dot3(c[i], c[i]) - 1));
        err = fmax(err, fabs(dot3(c[i], c[(i + 1) % 3])));
    }
    *error = err;
    /* Flat or mirrored: det relative to the axis lengths, so that a scaled
     * but sound matrix passes. */
    double x[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            x[i][j] = c[j][i];
    double lengths = sqrt(dot3(c[0], c[0])) * sqrt(dot3(c[1], c[1])) * sqrt(dot3(c[2], c[2]));
    double det = det3(x);
    if (!isfinite(det) || !isfinite(lengths) || !(lengths > 0) || !(det / lengths > 1e-6))
        return 0;
    if (!closest_rotation(x))
        return 0;
    matrix_quat(x, q);
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0.5) || !isfinite(n))
        return 0;
    double sign = q[3] < 0 ? -1.0 : 1.0; /* q and -q are the same rotation: w >= 0 */
    for (int i = 0; i < 4; i++)
        q[i] = sign * q[i] / n;
    return 1;
}
