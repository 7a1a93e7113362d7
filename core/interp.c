/* interp.c - values between keys: what writers need when a format keys
 * all channels together and the document does not, and what hosts need to
 * play a clip. */
#include "internal.h"

#include <math.h>
#include <string.h>

void ak_quat_slerp(const double a[4], const double b[4], double u, double out[4])
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double sign = 1.0; /* q and -q are one rotation: take the short way */
    if (d < 0) {
        d = -d;
        sign = -1.0;
    }
    double wa = 1 - u, wb = u;
    if (d < 0.9995) { /* nearly equal quaternions: lerp is exact enough and stable */
        double theta = acos(d), s = sin(theta);
        wa = sin((1 - u) * theta) / s;
        wb = sin(u * theta) / s;
    }
    double len = 0;
    for (int c = 0; c < 4; c++) {
        out[c] = wa * a[c] + wb * sign * b[c];
        len += out[c] * out[c];
    }
    len = sqrt(len);
    if (len > 0)
        for (int c = 0; c < 4; c++)
            out[c] /= len;
}

/* Index of the last key at or before `time`, or -1. */
static long key_at_or_before(const ak_channel *ch, double time)
{
    size_t lo = 0, hi = ch->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ch->keys[mid].time <= time)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

int ak_channel_sample(const ak_channel *ch, ak_channel_kind kind, double time, double out[4])
{
    if (!ch->count || (unsigned)kind >= AK_CHANNELS)
        return 0;
    long i = key_at_or_before(ch, time);
    const ak_key *a = &ch->keys[i < 0 ? 0 : i];
    if (i < 0 || (size_t)i + 1 >= ch->count || kind == AK_VISIBILITY || a->time == time) {
        memcpy(out, a->v, sizeof a->v);
        return 1;
    }
    const ak_key *b = &ch->keys[i + 1];
    double span = b->time - a->time;
    double u = span > 0 ? (time - a->time) / span : 0;
    if (kind == AK_ROTATION) {
        ak_quat_slerp(a->v, b->v, u, out);
        return 1;
    }
    for (int c = 0; c < 4; c++)
        out[c] = a->v[c] + (b->v[c] - a->v[c]) * u;
    return 1;
}
