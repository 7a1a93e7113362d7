/* common.c - what the gltf reader and writer share: axes, the rules that
 * turn key times and values into valid float32 glTF data, names, numbers
 * and matrices. */
#include "gltf.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <strings.h>

static const char *const up_names[GLTF_UPS] = { "y", "z", "y-left" };

const char *gltf_up_name(gltf_up up) { return up < GLTF_UPS ? up_names[up] : "y"; }

int gltf_up_of_name(const char *name)
{
    for (int i = 0; i < GLTF_UPS; i++)
        if (strcasecmp(name, up_names[i]) == 0)
            return i;
    return -1;
}

/* Facts from gltf.md section 4b: GTA, GEM are Z up right-handed; Lost Saga
 * is Y up left-handed; Dunia is assumed Z up (unconfirmed). */
gltf_up gltf_up_of_format(const char *format)
{
    static const struct { const char *format; gltf_up up; } table[] = {
        { "ifp", GLTF_UP_Z }, { "anm", GLTF_UP_Z }, { "mab", GLTF_UP_Z }, { "ani", GLTF_UP_Y_LEFT },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (format && strcmp(format, table[i].format) == 0)
            return table[i].up;
    return GLTF_UP_Y;
}

void gltf_up_transform(gltf_up up, float rotation[4], float scale[3])
{
    static const float half = 0.70710677f; /* float32 of sqrt(1/2) */
    rotation[0] = up == GLTF_UP_Z ? -half : 0.0f;
    rotation[1] = rotation[2] = 0.0f;
    rotation[3] = up == GLTF_UP_Z ? half : 1.0f;
    scale[0] = scale[1] = 1.0f;
    scale[2] = up == GLTF_UP_Y_LEFT ? -1.0f : 1.0f;
}

static float clamp_f32(double v)
{
    if (v > FLT_MAX)
        return FLT_MAX;
    if (v < -FLT_MAX)
        return -FLT_MAX;
    return (float)v;
}

size_t gltf_fix_times(const double *times, size_t count, float *out)
{
    size_t fixed = 0;
    for (size_t k = 0; k < count; k++) {
        double t = times[k];
        float f = isnan(t) ? 0.0f : t < 0 ? 0.0f : clamp_f32(t);
        if (k && !(f > out[k - 1]))
            f = nextafterf(out[k - 1], FLT_MAX);
        if (isnan(t) || f != clamp_f32(t))
            fixed++;
        out[k] = f;
    }
    return fixed;
}

int gltf_width(ak_channel_kind kind) { return kind == AK_ROTATION ? 4 : kind == AK_VISIBILITY ? 1 : 3; }

const char *gltf_path_name(ak_channel_kind kind)
{
    switch (kind) {
    case AK_ROTATION: return "rotation";
    case AK_TRANSLATION: return "translation";
    case AK_SCALE: return "scale";
    default: return "pointer";
    }
}

/* The validator allows |q| - 1 up to 0.00769; quaternions further off than
 * this are normalised (and the originals kept). */
#define QUAT_SLACK 0.005

int gltf_fix_value(ak_channel_kind kind, const double *v, float out[4])
{
    int fixed = 0;
    if (kind == AK_VISIBILITY) {
        out[0] = v[0] != 0 ? 1.0f : 0.0f;
        return 0;
    }
    for (int c = 0; c < gltf_width(kind); c++) {
        if (!isfinite(v[c])) {
            out[c] = kind == AK_SCALE ? 1.0f : 0.0f;
            fixed = 1;
        } else {
            out[c] = clamp_f32(v[c]);
            fixed |= out[c] != (float)v[c];
        }
    }
    if (kind == AK_ROTATION && !fixed) {
        double n = sqrt((double)out[0] * out[0] + (double)out[1] * out[1] + (double)out[2] * out[2] +
                        (double)out[3] * out[3]);
        if (fabs(n - 1.0) > QUAT_SLACK) {
            fixed = 1;
            for (int c = 0; c < 4; c++)
                out[c] = n > 1e-12 ? (float)(out[c] / n) : c == 3 ? 1.0f : 0.0f;
        }
    }
    if (kind == AK_ROTATION && fixed && !isfinite(out[0] + out[1] + out[2] + out[3])) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
    }
    return fixed;
}

int gltf_track_mirrored(const ak_track *t)
{
    return t->clip && t->clip->doc && strcmp(t->clip->doc->format, "anm") == 0 &&
           ak_prop_int(&t->props, "anm.mirrored", 0) == 1;
}

uint64_t gltf_channel_digest(const ak_channel *ch, ak_channel_kind kind)
{
    uint64_t h = AK_DIGEST_START;
    for (size_t k = 0; k < ch->count; k++) {
        uint64_t d = ak_key_digest(&ch->keys[k], kind);
        unsigned char bytes[8]; /* little-endian, whatever the host's order */
        for (int i = 0; i < 8; i++)
            bytes[i] = (unsigned char)(d >> (8 * i));
        h = ak_digest_bytes(h, bytes, sizeof bytes);
    }
    return h;
}

char *gltf_utf8_of_bytes(ak_job *job, const char *bytes)
{
    size_t n = strlen(bytes);
    char *out = ak_job_alloc(job, 2 * n + 1, 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)bytes; *p; p++) {
        if (*p < 0x80) {
            out[o++] = (char)*p;
        } else {
            out[o++] = (char)(0xc0 | (*p >> 6));
            out[o++] = (char)(0x80 | (*p & 0x3f));
        }
    }
    out[o] = '\0';
    return out;
}

char *gltf_bytes_of_utf8(ak_job *job, const char *utf8)
{
    size_t n = strlen(utf8);
    char *out = ak_job_alloc(job, n + 1, 1);
    if (!out)
        return NULL;
    const unsigned char *p = (const unsigned char *)utf8;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if ((p[i] == 0xc2 || p[i] == 0xc3) && i + 1 < n && (p[i + 1] & 0xc0) == 0x80) {
            out[o++] = (char)(((p[i] & 0x1f) << 6) | (p[i + 1] & 0x3f));
            i++;
        } else {
            out[o++] = (char)p[i];
        }
    }
    out[o] = '\0';
    return out;
}

json_t *gltf_number(double v)
{
    if (!isfinite(v)) { /* the core's word for it, which ak_parse_nonfinite() reads back */
        char word[8];
        ak_format_number(v, 0, word, sizeof word);
        return json_string(word);
    }
    return json_real(v);
}

int gltf_number_value(const json_t *j, double *out)
{
    if (json_is_real(j)) {
        *out = json_real_value(j);
        return 1;
    }
    if (json_is_integer(j)) {
        *out = (double)json_integer_value(j);
        return 1;
    }
    return json_is_string(j) && ak_parse_nonfinite(json_string_value(j), out);
}

json_t *gltf_hex(ak_job *job, const unsigned char *data, size_t size)
{
    static const char digits[] = "0123456789abcdef";
    char *s = ak_job_alloc(job, 2 * size + 1, 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < size; i++) {
        s[2 * i] = digits[data[i] >> 4];
        s[2 * i + 1] = digits[data[i] & 15];
    }
    json_t *j = json_stringn(s, 2 * size);
    ak_job_free(job, s);
    return j;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long gltf_hex_decode(const char *hex, unsigned char *out)
{
    size_t n = strlen(hex);
    if (n % 2)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return (long)(n / 2);
}

void gltf_trs_matrix(const double t[3], const double q[4], const double s[3], double m[16])
{
    double r[3][3];
    ak_quat_to_matrix(q, r);
    for (int col = 0; col < 3; col++) {
        for (int row = 0; row < 3; row++)
            m[col * 4 + row] = r[row][col] * s[col];
        m[col * 4 + 3] = 0;
    }
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
}

void gltf_mat_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            double sum = 0;
            for (int k = 0; k < 4; k++)
                sum += a[k * 4 + row] * b[col * 4 + k];
            r[col * 4 + row] = sum;
        }
    memcpy(out, r, sizeof r);
}

int gltf_mat_inverse(const double m[16], double out[16])
{
    /* Inverse of the 3x3 part by cofactors, then the translation. */
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    if (!isfinite(det) || fabs(det) < 1e-300)
        return 0;
    double inv[9] = {
        (e * i - f * h) / det, -(d * i - f * g) / det, (d * h - e * g) / det,
        -(b * i - c * h) / det, (a * i - c * g) / det, -(a * h - b * g) / det,
        (b * f - c * e) / det, -(a * f - c * d) / det, (a * e - b * d) / det,
    };
    /* inv[r * 3 + c] is cofactor (r, c) / det; the inverse is its transpose. */
    double r[16];
    for (int col = 0; col < 3; col++) {
        for (int row = 0; row < 3; row++)
            r[col * 4 + row] = inv[col * 3 + row];
        r[col * 4 + 3] = 0;
    }
    for (int row = 0; row < 3; row++)
        r[12 + row] = -(r[row] * m[12] + r[4 + row] * m[13] + r[8 + row] * m[14]);
    r[15] = 1;
    memcpy(out, r, sizeof r);
    return 1;
}
