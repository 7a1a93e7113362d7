/* rotation.c - the rest rotation of a RenderWare frame matrix.
 *
 * Real files hold slightly sheared frame matrices (axis lengths up to 6 %
 * off, det still 1: the fact sheet's section 2.4), so the rotation is the
 * closest one (ak_quat_from_matrix), and how far the matrix was from a
 * rotation is measured here for the reader's warning. */
#include "dff.h"

#include <math.h>

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

int dff_matrix_rotation(const double c[3][3], double q[4], double *error)
{
    double err = 0;
    for (int i = 0; i < 3; i++) {
        err = fmax(err, fabs(dot3(c[i], c[i]) - 1));
        err = fmax(err, fabs(dot3(c[i], c[(i + 1) % 3])));
    }
    *error = err;
    double x[3][3]; /* c[i] is column i; the core wants x[row][col] */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            x[i][j] = c[j][i];
    return ak_quat_from_matrix(x, q);
}
