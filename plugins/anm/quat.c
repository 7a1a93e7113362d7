/* quat.c - orientation conversions between the file and the model.
 *
 * Model: Hamilton quaternion (x, y, z, w) rotating bone space into parent
 * space, column-vector convention (v' = R v).
 *
 * Sheet §7: with the standard quaternion -> matrix formula R(x, y, z, w),
 * the row-major D3D matrix M of FRMN/MDL (row vectors, v' = v M) equals
 * R(x, y, z, -sqrt(1 - s)) = R(x, y, z, +sqrt(1 - s))^T. Reading M
 * column-vector style (M^T) therefore gives the rotation of the model
 * quaternion q = (x, y, z, +sqrt(1 - s)): FRM2/FRM3 floats keep x, y, z and
 * rebuild w >= 0; FRMN matrices convert through M^T. Both paths give the
 * same model quaternion for the same pose.
 */
#include "anm.h"

#include <math.h>

int anm_quat_to_xyz(const double q[4], float xyz[3])
{
    double u[4];
    int ok = ak_quat_normalize(q, u);
    double sign = u[3] < 0.0 ? -1.0 : 1.0;
    for (int i = 0; i < 3; i++)
        xyz[i] = (float)(sign * u[i]);
    return ok;
}

static void colmat_to_quat(const double c[3][3], double q[4])
{
    double t = c[0][0] + c[1][1] + c[2][2];
    double x, y, z, w;
    if (t > 0) {
        double s = sqrt(t + 1.0) * 2.0;
        w = 0.25 * s;
        x = (c[2][1] - c[1][2]) / s;
        y = (c[0][2] - c[2][0]) / s;
        z = (c[1][0] - c[0][1]) / s;
    } else if (c[0][0] > c[1][1] && c[0][0] > c[2][2]) {
        double s = sqrt(1.0 + c[0][0] - c[1][1] - c[2][2]) * 2.0;
        w = (c[2][1] - c[1][2]) / s;
        x = 0.25 * s;
        y = (c[0][1] + c[1][0]) / s;
        z = (c[0][2] + c[2][0]) / s;
    } else if (c[1][1] > c[2][2]) {
        double s = sqrt(1.0 + c[1][1] - c[0][0] - c[2][2]) * 2.0;
        w = (c[0][2] - c[2][0]) / s;
        x = (c[0][1] + c[1][0]) / s;
        y = 0.25 * s;
        z = (c[1][2] + c[2][1]) / s;
    } else {
        double s = sqrt(1.0 + c[2][2] - c[0][0] - c[1][1]) * 2.0;
        w = (c[1][0] - c[0][1]) / s;
        x = (c[0][2] + c[2][0]) / s;
        y = (c[1][2] + c[2][1]) / s;
        z = 0.25 * s;
    }
    double in[4] = { x, y, z, w };
    ak_quat_normalize(in, q);
    if (q[3] < 0)
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
}

int anm_matrix_decode(const float m[9], double q[4], double scale[3], int *mirrored)
{
    double r[3][3];
    *mirrored = 0;
    for (int i = 0; i < 3; i++) {
        double len = 0.0;
        for (int j = 0; j < 3; j++) {
            r[i][j] = m[i * 3 + j];
            len += r[i][j] * r[i][j];
        }
        len = sqrt(len);
        scale[i] = len;
        if (!isfinite(len) || len < 1e-12) {
            q[0] = q[1] = q[2] = 0.0;
            q[3] = 1.0;
            scale[0] = scale[1] = scale[2] = 1.0;
            return 0;
        }
        for (int j = 0; j < 3; j++)
            r[i][j] /= len;
    }
    double det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) -
                 r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) +
                 r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
    if (det < 0) {
        /* §8 mirroring: row 2 of the row-major matrix negated after the
         * rotation; undo it to get the rotation. */
        *mirrored = 1;
        for (int j = 0; j < 3; j++)
            r[2][j] = -r[2][j];
    }
    /* Column-vector matrix = M^T. */
    double c[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            c[i][j] = r[j][i];
    colmat_to_quat(c, q);
    return 1;
}

void anm_matrix_encode(const double q[4], const double scale[3], int mirrored, float m[9])
{
    double u[4], c[3][3];
    ak_quat_normalize(q, u);
    ak_quat_to_matrix(u, c);
    for (int i = 0; i < 3; i++) {
        double f = scale[i] * (mirrored && i == 2 ? -1.0 : 1.0);
        for (int j = 0; j < 3; j++)
            m[i * 3 + j] = (float)(c[j][i] * f + 0.0); /* M = R^T: row i = column i; no -0 */
    }
}
