/* quat.c - the engine's quaternion packers (QComp), in float32.
 *
 * Every expression below is evaluated in float (C11 with FLT_EVAL_METHOD 0
 * on the targets we build for, no contraction in ISO mode), so that words
 * match the engine bit for bit. Facts: /work/shared/formats/ani.md §7-§10. */
#include "ani.h"

#include <math.h>

/* (int)f as SSE's cvttss2si does it: truncation, and 0x80000000 for NaN or
 * values out of range (where C leaves the cast undefined). */
static int32_t trunc_int(float f)
{
    if (!(f > -2147483648.0f && f < 2147483648.0f))
        return INT32_MIN;
    return (int32_t)f;
}

void ani_quat_normalize(const float in[4], float out[4])
{
    float len = sqrtf(in[0] * in[0] + in[1] * in[1] + in[2] * in[2] + in[3] * in[3]);
    for (int i = 0; i < 4; i++)
        out[i] = len != 0.0f ? in[i] / len : 0.0f;
}

uint32_t ani_encode_4001(const float q[4])
{
    float n[4];
    ani_quat_normalize(q, n);
    /* The largest |component|; ties keep the lower index. */
    int m = 0;
    for (int i = 1; i < 4; i++)
        if (fabsf(n[i]) > fabsf(n[m]))
            m = i;
    if (n[m] < 0.0f)
        for (int i = 0; i < 4; i++)
            n[i] = -n[i];
    uint32_t word = (uint32_t)m << 30;
    int shift = 20;
    for (int i = 0; i < 4; i++) {
        if (i == m)
            continue;
        int32_t v = trunc_int(((n[i] + 1.0f) * 0.5f) * 1023.0f);
        if (v < 0)
            v = 0;
        if (v > 1023)
            v = 1023;
        word |= (uint32_t)v << shift;
        shift -= 10;
    }
    return word;
}

void ani_decode_4001(uint32_t word, float q[4])
{
    int m = (int)(word >> 30);
    float f[3];
    for (int j = 0; j < 3; j++)
        f[j] = ((float)((word >> (20 - 10 * j)) & 1023u) / 1023.0f) * 2.0f - 1.0f;
    int j = 0;
    for (int i = 0; i < 4; i++)
        if (i != m)
            q[i] = f[j++];
    /* No clamp: a square sum above 1 gives NaN, as in the engine. */
    q[m] = sqrtf(1.0f - (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]));
}

/* (DWORD)(int)f, then max(0, min(n, 65535)) on the unsigned value. */
static uint32_t field16(float f)
{
    uint32_t n = (uint32_t)trunc_int(f);
    return n < 65535u ? n : 65535u;
}

void ani_encode_4002(const float q[4], uint32_t *word1, uint32_t *word2)
{
    float n[4];
    ani_quat_normalize(q, n);
    if (n[3] < 0.0f)
        for (int i = 0; i < 4; i++)
            n[i] = -n[i];
    uint32_t v[4];
    for (int i = 0; i < 3; i++)
        v[i] = field16(((n[i] + 1.0f) * 0.5f) * 65535.0f);
    v[3] = field16(n[3] * 65535.0f);
    *word1 = v[0] << 16 | v[1];
    *word2 = v[2] << 16 | v[3];
}

void ani_decode_4002(uint32_t word1, uint32_t word2, float q[4])
{
    const float k = 1.0f / 65535.0f; /* bits 37800080: multiplied, not divided */
    q[0] = ((float)(word1 >> 16) * k) * 2.0f - 1.0f;
    q[1] = ((float)(word1 & 0xFFFFu) * k) * 2.0f - 1.0f;
    q[2] = ((float)(word2 >> 16) * k) * 2.0f - 1.0f;
    q[3] = (float)(word2 & 0xFFFFu) * k;
}

size_t ani_rotation_size(int version)
{
    switch (version) {
    case ANI_V_FLOAT: return 16;
    case ANI_V_SMALL3: return 4;
    case ANI_V_8BYTES: return 8;
    default: return 0;
    }
}
