/* accessor.c - accessor data as floats: every component type, normalised
 * integers, interleaved buffer views (byteStride), sparse substitution.
 * Every offset, count and stride is checked against the buffer it points
 * into before anything is allocated or read. */
#include "gltf.h"

#include <math.h>
#include <string.h>

typedef struct acc_ctx {
    ak_job *job;
    const gltf_data *g;
    char where[64];
} acc_ctx;

static ak_status bad(acc_ctx *a, const char *fmt, const char *field)
{
    return ak_fail(a->job, AK_E_DATA, -1, fmt, a->where, field);
}

/* An integer field in [lo, hi]; absent = fallback (or an error when the
 * fallback is below lo). */
static int int_field(acc_ctx *a, const json_t *obj, const char *field, json_int_t fallback, json_int_t lo,
                     json_int_t hi, json_int_t *out)
{
    const json_t *v = json_object_get(obj, field);
    if (!v) {
        if (fallback < lo) {
            bad(a, "%s.%s: missing", field);
            return 0;
        }
        *out = fallback;
        return 1;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        bad(a, "%s.%s: not an integer in range", field);
        return 0;
    }
    *out = json_integer_value(v);
    return 1;
}

static size_t component_size(json_int_t type)
{
    switch (type) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
    default: return 0;
    }
}

static double component(const unsigned char *p, json_int_t type, int normalized)
{
    switch (type) {
    case 5120: { double v = (int8_t)p[0]; return normalized ? fmax(v / 127.0, -1.0) : v; }
    case 5121: return normalized ? p[0] / 255.0 : p[0];
    case 5122: { double v = (int16_t)ak_load_u16(p); return normalized ? fmax(v / 32767.0, -1.0) : v; }
    case 5123: return normalized ? ak_load_u16(p) / 65535.0 : ak_load_u16(p);
    case 5125: return ak_load_u32(p);
    default: return ak_bits_f32(ak_load_u32(p));
    }
}

/* The bytes of buffer view `index` from `offset` on, checked to hold
 * `count` elements of `elem` bytes spaced `stride` apart. */
static const unsigned char *view_bytes(acc_ctx *a, json_int_t index, json_int_t offset, size_t count,
                                       size_t elem, size_t *stride)
{
    const json_t *views = json_object_get(a->g->root, "bufferViews");
    const json_t *view = json_array_get(views, (size_t)index);
    if (!json_is_object(view)) {
        bad(a, "%s.%s: no such buffer view", "bufferView");
        return NULL;
    }
    /* The view's own fields are named by its path: several accessors may share it. */
    acc_ctx v = { a->job, a->g, "" };
    snprintf(v.where, sizeof v.where, "bufferViews[%lld]", (long long)index);
    json_int_t buffer, voff, vlen, vstride;
    if (!int_field(&v, view, "buffer", -1, 0, INT32_MAX, &buffer) ||
        !int_field(&v, view, "byteOffset", 0, 0, INT64_MAX, &voff) ||
        !int_field(&v, view, "byteLength", -1, 1, INT64_MAX, &vlen) ||
        !int_field(&v, view, "byteStride", 0, 0, 252, &vstride))
        return NULL;
    if ((size_t)buffer >= a->g->buffer_count || !a->g->buffers[buffer]) {
        bad(a, "%s.%s: its buffer is missing or was not loaded", "bufferView");
        return NULL;
    }
    size_t bsize = a->g->buffer_sizes[buffer];
    if ((uint64_t)voff > bsize || (uint64_t)vlen > bsize - (size_t)voff) {
        bad(a, "%s.%s: buffer view lies outside its buffer", "bufferView");
        return NULL;
    }
    *stride = vstride ? (size_t)vstride : elem;
    if (*stride < elem) {
        bad(a, "%s.%s: byteStride is smaller than an element", "bufferView");
        return NULL;
    }
    /* offset + stride * (count - 1) + elem <= vlen, without overflow */
    size_t len = (size_t)vlen;
    if ((uint64_t)offset > len || elem > len - (size_t)offset ||
        (count > 1 && (count - 1) > (len - (size_t)offset - elem) / *stride)) {
        bad(a, "%s.%s: accessor runs past the end of its buffer view", "count");
        return NULL;
    }
    return a->g->buffers[buffer] + voff + offset;
}

const unsigned char *gltf_view_bytes(ak_job *job, const gltf_data *g, json_int_t view, size_t *size,
                                     const char *where)
{
    acc_ctx a = { job, g, "" };
    snprintf(a.where, sizeof a.where, "%.60s", where);
    const json_t *v = json_array_get(json_object_get(g->root, "bufferViews"), (size_t)view);
    json_int_t len;
    if (view < 0 || !json_is_object(v)) {
        ak_fail(job, AK_E_DATA, -1, "%s.bufferView: no such buffer view", a.where);
        return NULL;
    }
    if (!int_field(&a, v, "byteLength", -1, 1, INT64_MAX, &len))
        return NULL;
    size_t stride;
    *size = (size_t)len;
    return view_bytes(&a, view, 0, 1, (size_t)len, &stride);
}

static ak_status apply_sparse(acc_ctx *a, const json_t *sparse, size_t count, int width, json_int_t ctype,
                              int normalized, float *out)
{
    json_int_t n, iview, ioff, itype, vview, voff;
    const json_t *idx = json_object_get(sparse, "indices"), *val = json_object_get(sparse, "values");
    acc_ctx in_idx = *a, in_val = *a;
    snprintf(a->where + strlen(a->where), sizeof a->where - strlen(a->where), ".sparse");
    snprintf(in_idx.where, sizeof in_idx.where, "%s.indices", a->where);
    snprintf(in_val.where, sizeof in_val.where, "%s.values", a->where);
    if (!json_is_object(idx) || !json_is_object(val))
        return ak_fail(a->job, AK_E_DATA, -1, "%s: needs indices and values", a->where);
    if (!int_field(a, sparse, "count", -1, 1, (json_int_t)count, &n) ||
        !int_field(&in_idx, idx, "bufferView", -1, 0, INT32_MAX, &iview) ||
        !int_field(&in_idx, idx, "byteOffset", 0, 0, INT64_MAX, &ioff) ||
        !int_field(&in_idx, idx, "componentType", -1, 5121, 5125, &itype) ||
        !int_field(&in_val, val, "bufferView", -1, 0, INT32_MAX, &vview) ||
        !int_field(&in_val, val, "byteOffset", 0, 0, INT64_MAX, &voff))
        return AK_E_DATA;
    size_t isize = component_size(itype), csize = component_size(ctype), istride, vstride;
    if (itype == 5122 || !isize)
        return bad(&in_idx, "%s.%s: index type must be unsigned", "componentType");
    const unsigned char *ip = view_bytes(&in_idx, iview, ioff, (size_t)n, isize, &istride);
    const unsigned char *vp = ip ? view_bytes(&in_val, vview, voff, (size_t)n, csize * (size_t)width, &vstride) : NULL;
    if (!vp)
        return AK_E_DATA;
    int64_t last = -1;
    for (size_t i = 0; i < (size_t)n; i++) {
        const unsigned char *p = ip + i * isize; /* indices are tightly packed */
        int64_t k = isize == 1 ? p[0] : isize == 2 ? ak_load_u16(p) : (int64_t)ak_load_u32(p);
        if (k <= last || (uint64_t)k >= count)
            return bad(a, "%s.%s: indices must increase and stay below count", "indices");
        last = k;
        for (int c = 0; c < width; c++)
            out[(size_t)k * (size_t)width + (size_t)c] =
                (float)component(vp + i * csize * (size_t)width + (size_t)c * csize, ctype, normalized);
    }
    return AK_OK;
}

ak_status gltf_accessor_floats(ak_job *job, const gltf_data *g, json_int_t index, int width, float **out,
                               size_t *count)
{
    static const char *const types[] = { "", "SCALAR", "VEC2", "VEC3", "VEC4" };
    acc_ctx a = { job, g, "" };
    snprintf(a.where, sizeof a.where, "accessors[%lld]", (long long)index);
    const json_t *acc = json_array_get(json_object_get(g->root, "accessors"), (size_t)index);
    if (index < 0 || !json_is_object(acc))
        return ak_fail(job, AK_E_DATA, -1, "%s: no such accessor", a.where);
    json_int_t n, ctype, view = -1, offset;
    const json_t *type = json_object_get(acc, "type");
    if (!json_is_string(type) || strcmp(json_string_value(type), types[width]) != 0)
        return ak_fail(job, AK_E_DATA, -1, "%s.type: expected %s", a.where, types[width]);
    if (!int_field(&a, acc, "count", -1, 1, INT32_MAX, &n) ||
        !int_field(&a, acc, "componentType", -1, 5120, 5126, &ctype) ||
        !int_field(&a, acc, "byteOffset", 0, 0, INT64_MAX, &offset) ||
        (json_object_get(acc, "bufferView") && !int_field(&a, acc, "bufferView", -1, 0, INT32_MAX, &view)))
        return AK_E_DATA;
    size_t csize = component_size(ctype), stride = 0;
    if (!csize || ctype == 5124)
        return ak_fail(job, AK_E_DATA, -1, "%s.componentType: %lld is not a glTF type", a.where, (long long)ctype);
    int normalized = json_is_true(json_object_get(acc, "normalized"));
    const unsigned char *p = NULL;
    if (view >= 0 && !(p = view_bytes(&a, view, offset, (size_t)n, csize * (size_t)width, &stride)))
        return AK_E_DATA;
    /* Without a buffer view (zeros plus sparse) nothing bounds the count but
     * the read's memory cap, which ak_job_alloc enforces. */
    float *v = ak_job_alloc(job, (size_t)n, (size_t)width * sizeof(float));
    if (!v)
        return AK_E_NOMEM;
    for (size_t k = 0; p && k < (size_t)n; k++)
        for (int c = 0; c < width; c++)
            v[k * (size_t)width + (size_t)c] = (float)component(p + k * stride + (size_t)c * csize, ctype, normalized);
    const json_t *sparse = json_object_get(acc, "sparse");
    if (sparse) {
        ak_status st = json_is_object(sparse) ? apply_sparse(&a, sparse, (size_t)n, width, ctype, normalized, v)
                                              : ak_fail(job, AK_E_DATA, -1, "%s.sparse: not an object", a.where);
        if (st != AK_OK) {
            ak_job_free(job, v);
            return st;
        }
    }
    *out = v;
    *count = (size_t)n;
    return AK_OK;
}
