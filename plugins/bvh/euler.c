/* euler.c - channel names, Euler angles <-> quaternions, and the skeleton
 * digest that tells the writer whether the stored hierarchy text still
 * describes the document. */
#include "bvh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const channel_names[6] = { "Xposition", "Yposition", "Zposition",
                                              "Xrotation", "Yrotation", "Zrotation" };

int bvh_channel_of(const char *name, size_t len)
{
    for (int c = 0; c < 6; c++)
        if (ak_text_is(name, len, channel_names[c]))
            return c;
    return -1;
}

const char *bvh_channel_name(int code) { return channel_names[code]; }

int bvh_parse_channels(const char *text, uint8_t codes[BVH_MAX_CHANNELS])
{
    int n = 0;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        const char *end = p;
        while (*end && *end != ' ')
            end++;
        if (end == p)
            break;
        int c = bvh_channel_of(p, (size_t)(end - p));
        if (c < 0 || n == BVH_MAX_CHANNELS)
            return -1;
        codes[n++] = (uint8_t)c;
        p = end;
    }
    return n;
}

static const double rad_per_deg = M_PI / 180.0;

void bvh_euler_to_quat(const uint8_t *axes, const double *deg, int n, double q[4])
{
    q[0] = q[1] = q[2] = 0;
    q[3] = 1;
    for (int i = 0; i < n; i++) {
        double half = deg[i] * rad_per_deg / 2;
        double r[4] = { 0, 0, 0, cos(half) };
        r[axes[i]] = sin(half);
        ak_quat_mul(q, r, q);
    }
}

void bvh_quat_to_euler(const double q[4], const uint8_t axes[3], double deg[3])
{
    double u[4], m[3][3];
    ak_quat_normalize(q, u);
    ak_quat_to_matrix(u, m);
    int i = axes[0], j = axes[1], k = axes[2];
    /* +1 for the cyclic orders XYZ, YZX, ZXY, -1 for the others. */
    double s = (j == (i + 1) % 3) ? 1 : -1;
    double c2 = sqrt(m[i][i] * m[i][i] + m[i][j] * m[i][j]);
    double a1, a2 = atan2(s * m[i][k], c2), a3;
    if (c2 > 1e-12) {
        a1 = atan2(-s * m[j][k], m[k][k]);
        a3 = atan2(-s * m[i][j], m[i][i]);
    } else { /* gimbal lock: only a1 + a3 (or a1 - a3) is defined; put it all in a1 */
        a1 = atan2(s * m[k][j], m[j][j]);
        a3 = 0;
    }
    deg[0] = a1 / rad_per_deg;
    deg[1] = a2 / rad_per_deg;
    deg[2] = a3 / rad_per_deg;
}

double bvh_quat_to_angle(const double q[4], int axis)
{
    return 2 * atan2(q[axis], q[3]) / rad_per_deg;
}

static uint64_t digest_prop(uint64_t h, const ak_props *props, const char *key)
{
    const ak_prop *p = ak_prop_get(props, key);
    if (p && p->type == AK_PROP_STRING)
        return ak_digest_bytes(h, p->data, p->size + 1);
    return ak_digest_bytes(h, "-", 2);
}

uint64_t bvh_skeleton_digest(const ak_doc *doc)
{
    uint64_t h = AK_DIGEST_START;
    const ak_skeleton *s = &doc->skeleton;
    h = ak_digest_bytes(h, &s->bone_count, sizeof s->bone_count);
    for (size_t i = 0; i < s->bone_count; i++) {
        const ak_bone *b = &s->bones[i];
        h = ak_digest_bytes(h, b->name, strlen(b->name) + 1);
        h = ak_digest_bytes(h, &b->parent, sizeof b->parent);
        h = ak_digest_bytes(h, b->translation, sizeof b->translation);
        h = digest_prop(h, &b->props, BVH_P_CHANNELS);
        h = digest_prop(h, &b->props, BVH_P_END_SITE);
    }
    return h;
}
