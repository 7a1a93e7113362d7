/* bits.c - LSB-first bit reading (mab_bits_get is inline in mab.h) and the quaternion arithmetic of the
 * .mab fact sheet (sections 6 and 7). */
#include "mab.h"

#include <math.h>

void mab_bits_init(mab_bits *b, const unsigned char *data, size_t size)
{
    b->data = data;
    b->size = size;
    b->pos = 0;
    b->over = 0;
}

/* The engine's table (sheet section 6), about 1 / (2^b - 1). */
const double mab_slope_table[17] = {
    0.0,           0.0,           0.33333334,    0.14285715,     0.06666667,     0.032258064,
    0.015873017,   0.0078740157,  0.0039215689,  0.0019569471,   0.00097751711,  0.00048851978,
    0.00024420026, 0.00012208521, 0.000061038882, 0.000030518509, 0.000015259022,
};

void mab_quat48(const unsigned char *p, int w2_signed, double q[4])
{
    const double k = 4.315969e-05, c0 = 0.7071068;
    unsigned w0 = ak_load_u16(p), w1 = ak_load_u16(p + 2), w2 = ak_load_u16(p + 4);
    double a = (double)(w0 & 0x7FFFu) * k - c0;
    double b = (double)(w1 & 0x7FFFu) * k - c0;
    double c = (w2_signed ? (double)(int16_t)w2 : (double)w2) * k - c0;
    double s = 1.0 - a * a - b * b - c * c;
    double r = s > 0.0 ? sqrt(s) : 0.0;
    switch ((w0 >> 15) | ((w1 >> 15) << 1)) {
    case 0: q[0] = r, q[1] = a, q[2] = b, q[3] = c; break;
    case 1: q[0] = a, q[1] = r, q[2] = b, q[3] = c; break;
    case 2: q[0] = a, q[1] = b, q[2] = r, q[3] = c; break;
    default: q[0] = a, q[1] = b, q[2] = c, q[3] = r; break;
    }
}
