/* write.c - the glTF writer: nodes (root + bones), the skin, the buffer and
 * the container (.glb or .gltf with a data: URI). Animations: anim.c. */
#include "build.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GLB_MAGIC 0x46546c67u /* "glTF" */
#define GLB_JSON 0x4e4f534au  /* "JSON" */
#define GLB_BIN 0x004e4942u   /* "BIN\0" */

/* Both take `value` over even when they fail (an earlier failure may have
 * left `obj` NULL), so that nothing leaks. */
void gw_set(gw *w, json_t *obj, const char *key, json_t *value)
{
    if (!obj) {
        json_decref(value);
        w->oom = 1;
    } else if (!value || json_object_set_new(obj, key, value) != 0) {
        w->oom = 1;
    }
}

void gw_push(gw *w, json_t *array, json_t *value)
{
    if (!array) {
        json_decref(value);
        w->oom = 1;
    } else if (!value || json_array_append_new(array, value) != 0) {
        w->oom = 1;
    }
}

json_t *gw_float_array(gw *w, const float *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        gw_push(w, a, json_real((double)v[i]));
    return a;
}

json_int_t gw_view(gw *w, const void *data, size_t size)
{
    size_t at = (w->bin_size + 3) & ~(size_t)3;
    size_t need = at + size;
    if (need > w->bin_cap) {
        size_t cap = w->bin_cap ? w->bin_cap : 4096;
        while (cap < need)
            cap *= 2;
        unsigned char *p = ak_job_realloc(w->job, w->bin, cap, 1);
        if (!p)
            return -1;
        w->bin = p;
        w->bin_cap = cap;
    }
    memcpy(w->bin + at, data, size);
    w->bin_size = need;
    json_t *view = json_pack("{s:i,s:I,s:I}", "buffer", 0, "byteOffset", (json_int_t)at, "byteLength", (json_int_t)size);
    gw_push(w, w->views, view);
    return (json_int_t)json_array_size(w->views) - 1;
}

json_int_t gw_float_accessor(gw *w, const float *v, size_t count, int width, int bounds)
{
    static const char *const types[] = { "", "SCALAR", "VEC2", "VEC3", "VEC4" };
    json_int_t view = gw_view(w, v, count * (size_t)width * sizeof(float));
    if (view < 0)
        return -1;
    json_t *acc = json_pack("{s:I,s:i,s:I,s:s}", "bufferView", view, "componentType", 5126, "count",
                            (json_int_t)count, "type", types[width]);
    if (bounds && count) {
        float lo[4], hi[4];
        for (int c = 0; c < width; c++) {
            lo[c] = hi[c] = v[c];
            for (size_t k = 1; k < count; k++) {
                float x = v[k * (size_t)width + (size_t)c];
                lo[c] = x < lo[c] ? x : lo[c];
                hi[c] = x > hi[c] ? x : hi[c];
            }
        }
        gw_set(w, acc, "min", gw_float_array(w, lo, (size_t)width));
        gw_set(w, acc, "max", gw_float_array(w, hi, (size_t)width));
    }
    gw_push(w, w->accessors, acc);
    return (json_int_t)json_array_size(w->accessors) - 1;
}

static json_int_t blob_view(void *user, const unsigned char *data, size_t size)
{
    return gw_view(user, data, size);
}

json_t *gw_props(gw *w, const ak_props *props)
{
    gltf_blobs blobs = { blob_view, w };
    return gltf_props_json(w->job, props, &blobs);
}

json_int_t gw_time_accessor(gw *w, const float *times, size_t count)
{
    size_t bytes = count * sizeof(float);
    uint64_t h = ak_digest_bytes(AK_DIGEST_START, times, bytes);
    for (size_t i = 0; i < w->times_count; i++) {
        const gw_times *t = &w->times[i];
        if (t->hash == h && t->count == count && memcmp(w->bin + t->offset, times, bytes) == 0)
            return t->accessor;
    }
    if (w->times_count == w->times_cap) {
        size_t cap = w->times_cap ? 2 * w->times_cap : 64;
        gw_times *p = ak_job_realloc(w->job, w->times, cap, sizeof *p);
        if (!p)
            return -1;
        w->times = p;
        w->times_cap = cap;
    }
    json_int_t acc = gw_float_accessor(w, times, count, 1, 1);
    if (acc < 0 || w->oom)
        return -1;
    size_t offset = w->bin_size - bytes;
    w->times[w->times_count++] = (gw_times){ h, count, offset, acc };
    return acc;
}

/* ---- bones ---------------------------------------------------------- */

static int same_bone(const ak_track *a, const ak_track *b)
{
    return strcmp(a->bone, b->bone) == 0 && a->has_bone_id == b->has_bone_id &&
           (!a->has_bone_id || a->bone_id == b->bone_id) && a->has_bone_hash == b->has_bone_hash &&
           (!a->has_bone_hash || a->bone_hash == b->bone_hash);
}

size_t gw_bone_nodes(const gw *w) { return w->doc->skeleton.bone_count + w->extra_count; }

json_int_t gw_node_of_track(const gw *w, const ak_track *t)
{
    const ak_skeleton *sk = &w->doc->skeleton;
    if (t->skeleton_bone >= 0 && (size_t)t->skeleton_bone < sk->bone_count)
        return 1 + t->skeleton_bone;
    for (size_t i = 0; i < w->extra_count; i++)
        if (same_bone(w->extra[i].track, t))
            return (json_int_t)(1 + sk->bone_count + i);
    return -1;
}

/* Every bone that tracks name without a skeleton bone, in first-use order. */
static ak_status collect_extra_bones(gw *w)
{
    for (size_t c = 0; c < w->doc->clip_count; c++) {
        const ak_clip *clip = w->doc->clips[c];
        for (size_t i = 0; i < clip->track_count; i++) {
            const ak_track *t = clip->tracks[i];
            json_int_t node = gw_node_of_track(w, t);
            if (node > (json_int_t)w->doc->skeleton.bone_count)
                w->extra[node - 1 - (json_int_t)w->doc->skeleton.bone_count].mirrored |= gltf_track_mirrored(t);
            if (node >= 0)
                continue;
            if (w->extra_count == w->extra_cap) {
                size_t cap = w->extra_cap ? 2 * w->extra_cap : 32;
                gw_bone *p = ak_job_realloc(w->job, w->extra, cap, sizeof *p);
                if (!p)
                    return AK_E_NOMEM;
                w->extra = p;
                w->extra_cap = cap;
            }
            w->extra[w->extra_count].track = t;
            w->extra[w->extra_count++].mirrored = gltf_track_mirrored(t);
        }
    }
    return AK_OK;
}

/* A node name for bones known only by id or hash. */
static json_t *node_name(gw *w, const char *name, int has_id, int32_t id, int has_hash, uint32_t hash)
{
    char buf[32];
    if (!*name) {
        if (has_hash)
            snprintf(buf, sizeof buf, "hash_%08x", (unsigned)hash);
        else if (has_id)
            snprintf(buf, sizeof buf, "bone_%d", (int)id);
        else
            snprintf(buf, sizeof buf, "bone");
        return json_string(buf);
    }
    char *s = gltf_utf8_of_bytes(w->job, name);
    json_t *j = s ? json_string(s) : NULL;
    ak_job_free(w->job, s);
    return j;
}

static json_t *bone_extras(gw *w, json_t *animkit, int has_id, int32_t id, int has_hash, uint32_t hash,
                           const char *name)
{
    json_t *extras = json_object();
    if (has_id)
        gw_set(w, extras, "bone_id", json_integer(id));
    if (has_hash)
        gw_set(w, animkit, "hash", json_integer(hash));
    if (!*name)
        gw_set(w, animkit, "name", json_string(""));
    gw_set(w, extras, "animkit", animkit);
    return extras;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The node of skeleton bone `b`: rest pose as float32 TRS; the exact
 * values in extras where float32 could not hold them. Fills `local`, the
 * matrix of what was written. */
static json_t *skeleton_node(gw *w, const ak_bone *b, double local[16])
{
    json_t *node = json_object();
    float t[4], r[4], s[4];
    double rest[10];
    int fixed = gltf_fix_value(AK_TRANSLATION, b->translation, t) |
                gltf_fix_value(AK_ROTATION, b->rotation, r) | gltf_fix_value(AK_SCALE, b->scale, s);
    int exact = !fixed;
    for (int c = 0; c < 10; c++) {
        rest[c] = c < 3 ? b->translation[c] : c < 7 ? b->rotation[c - 3] : b->scale[c - 7];
        float f = c < 3 ? t[c] : c < 7 ? r[c - 3] : s[c - 7];
        exact &= same_bits((double)f, rest[c]);
    }
    if (fixed)
        ak_warn(w->job, -1, "bone '%s': rest pose not finite or not a unit rotation; written repaired", b->name);
    gw_set(w, node, "name", node_name(w, b->name, b->has_id, b->id, b->has_hash, b->hash));
    gw_set(w, node, "translation", gw_float_array(w, t, 3));
    gw_set(w, node, "rotation", gw_float_array(w, r, 4));
    gw_set(w, node, "scale", gw_float_array(w, s, 3));
    json_t *animkit = json_pack("{s:b}", "skeleton", 1);
    if (!exact) {
        json_t *a = json_array();
        for (int c = 0; c < 10; c++)
            gw_push(w, a, gltf_number(rest[c]));
        gw_set(w, animkit, "rest", a);
    }
    if (b->props.count)
        gw_set(w, animkit, "props", gw_props(w, &b->props));
    gw_set(w, node, "extras", bone_extras(w, animkit, b->has_id, b->id, b->has_hash, b->hash, b->name));
    double dt[3] = { t[0], t[1], t[2] }, dr[4] = { r[0], r[1], r[2], r[3] }, ds[3] = { s[0], s[1], s[2] };
    gltf_trs_matrix(dt, dr, ds, local);
    return node;
}

static json_t *track_node(gw *w, const gw_bone *b)
{
    const ak_track *t = b->track;
    json_t *node = json_object();
    if (b->mirrored)
        gw_set(w, node, "scale", json_pack("[f,f,f]", 1.0, 1.0, -1.0));
    gw_set(w, node, "name", node_name(w, t->bone, t->has_bone_id, t->bone_id, t->has_bone_hash, t->bone_hash));
    gw_set(w, node, "extras", bone_extras(w, json_object(), t->has_bone_id, t->bone_id, t->has_bone_hash,
                                          t->bone_hash, t->bone));
    return node;
}

static void add_child(gw *w, json_int_t parent, json_int_t child)
{
    json_t *node = json_array_get(w->nodes, (size_t)parent);
    json_t *children = json_object_get(node, "children");
    if (!children) {
        children = json_array();
        gw_set(w, node, "children", children);
    }
    gw_push(w, children, json_integer(child));
}

/* Node 0 (the axis), the bones, and the skin with inverse bind matrices. */
static ak_status build_nodes(gw *w, gltf_up up, const char *root_name)
{
    const ak_skeleton *sk = &w->doc->skeleton;
    size_t bones = gw_bone_nodes(w);
    float rot[4], scale[3];
    gltf_up_transform(up, rot, scale);
    json_t *root = json_pack("{s:s}", "name", root_name);
    if (up != GLTF_UP_Y)
        gw_set(w, root, up == GLTF_UP_Z ? "rotation" : "scale",
               up == GLTF_UP_Z ? gw_float_array(w, rot, 4) : gw_float_array(w, scale, 3));
    gw_push(w, w->nodes, root);
    double *world = ak_job_alloc(w->job, bones + 1, 16 * sizeof(double));
    float *ibm = ak_job_alloc(w->job, bones ? bones : 1, 16 * sizeof(float));
    if (!world || !ibm)
        return AK_E_NOMEM;
    const double zero[3] = { 0, 0, 0 }, one[3] = { 1, 1, 1 };
    const double drot[4] = { rot[0], rot[1], rot[2], rot[3] }, dscale[3] = { scale[0], scale[1], scale[2] };
    gltf_trs_matrix(zero, drot, dscale, world);
    for (size_t i = 0; i < bones; i++) {
        double local[16];
        json_int_t parent = 0;
        if (i < sk->bone_count) {
            gw_push(w, w->nodes, skeleton_node(w, &sk->bones[i], local));
            if (sk->bones[i].parent >= 0 && (size_t)sk->bones[i].parent < i)
                parent = 1 + sk->bones[i].parent;
        } else {
            const double q[4] = { 0, 0, 0, 1 }, mirror[3] = { 1, 1, -1 };
            const gw_bone *b = &w->extra[i - sk->bone_count];
            gw_push(w, w->nodes, track_node(w, b));
            gltf_trs_matrix(zero, q, b->mirrored ? mirror : one, local);
        }
        add_child(w, parent, (json_int_t)(i + 1));
        gltf_mat_mul(world + 16 * (size_t)parent, local, world + 16 * (i + 1));
        double inv[16];
        if (!gltf_mat_inverse(world + 16 * (i + 1), inv)) {
            ak_warn(w->job, -1, "bone %zu: its rest pose cannot be inverted (a zero scale); identity bind matrix", i);
            gltf_trs_matrix(zero, (const double[4]){ 0, 0, 0, 1 }, one, inv);
        }
        for (int c = 0; c < 16; c++)
            ibm[16 * i + (size_t)c] = (float)inv[c];
    }
    if (!bones)
        return AK_OK;
    json_int_t view = gw_view(w, ibm, bones * 16 * sizeof(float));
    if (view < 0)
        return AK_E_NOMEM;
    gw_push(w, w->accessors, json_pack("{s:I,s:i,s:I,s:s}", "bufferView", view, "componentType", 5126,
                                       "count", (json_int_t)bones, "type", "MAT4"));
    json_t *joints = json_array();
    for (size_t i = 0; i < bones; i++)
        gw_push(w, joints, json_integer((json_int_t)(i + 1)));
    json_t *skin = json_pack("{s:s,s:I,s:i}", "name", "skeleton", "inverseBindMatrices",
                             (json_int_t)json_array_size(w->accessors) - 1, "skeleton", 0);
    gw_set(w, skin, "joints", joints);
    json_t *skins = json_array();
    gw_push(w, skins, skin);
    gw_set(w, w->root, "skins", skins);
    return AK_OK;
}

/* ---- document and container ------------------------------------------- */

/* asset first, so that a probe finds it at the start of a .gltf. */
static json_t *asset(gw *w, gltf_up up)
{
    char gen[64];
    snprintf(gen, sizeof gen, "animkit %s", ak_version());
    json_t *animkit = json_pack("{s:i,s:s}", "schema", GLTF_EXTRAS_SCHEMA, "up", gltf_up_name(up));
    char *format = gltf_utf8_of_bytes(w->job, w->doc->format);
    char *variant = gltf_utf8_of_bytes(w->job, w->doc->variant);
    gw_set(w, animkit, "format", format ? json_string(format) : NULL);
    gw_set(w, animkit, "variant", variant ? json_string(variant) : NULL);
    if (w->doc->props.count)
        gw_set(w, animkit, "props", gw_props(w, &w->doc->props));
    return json_pack("{s:s,s:s,s:{s:o}}", "version", "2.0", "generator", gen, "extras", "animkit", animkit);
}

static int want_glb(ak_job *job)
{
    const char *c = ak_job_param(job, "container");
    if (c)
        return strcasecmp(c, "gltf") != 0;
    const char *name = ak_job_filename(job);
    const char *dot = name ? strrchr(name, '.') : NULL;
    return !(dot && strcasecmp(dot, ".gltf") == 0);
}

static char *base64(ak_job *job, const unsigned char *p, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static const char prefix[] = "data:application/octet-stream;base64,";
    char *out = ak_job_alloc(job, sizeof prefix + (n + 2) / 3 * 4, 1);
    if (!out)
        return NULL;
    memcpy(out, prefix, sizeof prefix - 1);
    char *o = out + sizeof prefix - 1;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        *o++ = abc[v >> 18 & 63];
        *o++ = abc[v >> 12 & 63];
        *o++ = i + 1 < n ? abc[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? abc[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

static ak_status emit(gw *w, ak_sink *out, int glb)
{
    size_t padded = (w->bin_size + 3) & ~(size_t)3;
    if (padded) {
        json_t *buffer = json_pack("{s:I}", "byteLength", (json_int_t)padded);
        if (!glb) {
            char *uri = base64(w->job, w->bin, padded);
            if (!uri)
                return AK_E_NOMEM;
            gw_set(w, buffer, "uri", json_string(uri));
            ak_job_free(w->job, uri);
        }
        json_t *buffers = json_array();
        gw_push(w, buffers, buffer);
        gw_set(w, w->root, "buffers", buffers);
    }
    if (w->oom)
        return ak_fail(w->job, AK_E_NOMEM, -1, "out of memory building the glTF JSON");
    char *text = json_dumps(w->root, JSON_COMPACT | JSON_REAL_PRECISION(17));
    if (!text)
        return ak_fail(w->job, AK_E_NOMEM, -1, "out of memory writing the glTF JSON");
    size_t n = strlen(text);
    if (!glb) {
        ak_put(out, text, n);
        ak_put(out, "\n", 1);
        free(text);
        return AK_OK;
    }
    size_t json_len = (n + 3) & ~(size_t)3;
    size_t total = 12 + 8 + json_len + (padded ? 8 + padded : 0);
    if (total > UINT32_MAX) {
        free(text);
        return ak_fail(w->job, AK_E_UNSUPPORTED, -1, "the glTF is %zu bytes; a .glb holds at most 4 GiB", total);
    }
    ak_put_u32(out, GLB_MAGIC);
    ak_put_u32(out, 2);
    ak_put_u32(out, (uint32_t)total);
    ak_put_u32(out, (uint32_t)json_len);
    ak_put_u32(out, GLB_JSON);
    ak_put(out, text, n);
    for (size_t i = n; i < json_len; i++)
        ak_put_u8(out, ' ');
    free(text);
    if (padded) {
        ak_put_u32(out, (uint32_t)padded);
        ak_put_u32(out, GLB_BIN);
        ak_put(out, w->bin, w->bin_size);
        ak_put_zeros(out, padded - w->bin_size);
    }
    return AK_OK;
}

static ak_status write_doc(gw *w, ak_sink *out)
{
    const char *upp = ak_job_param(w->job, "up");
    const ak_prop *read_up = ak_prop_get(&w->doc->props, GLTF_P_UP);
    int up = upp ? gltf_up_of_name(upp) : (int)gltf_up_of_format(w->doc->format);
    if (!upp && read_up && read_up->type == AK_PROP_STRING && gltf_up_of_name((const char *)read_up->data) >= 0)
        up = gltf_up_of_name((const char *)read_up->data);
    if (up < 0)
        return ak_fail(w->job, AK_E_USAGE, -1, "up=%s: expected z, y or y-left", upp);
    char stem[128];
    const char *fname = ak_job_filename(w->job);
    if (!fname || !ak_path_stem(fname, stem, sizeof stem))
        snprintf(stem, sizeof stem, "animkit");
    ak_status st = collect_extra_bones(w);
    if (st != AK_OK)
        return st;
    if (!w->doc->skeleton.bone_count && w->extra_count)
        ak_warn(w->job, -1, "no skeleton: %zu bones written as children of the root with the identity rest "
                "pose (give one with --skeleton)", w->extra_count);
    else if (w->extra_count)
        ak_warn(w->job, -1, "%zu bones that tracks name are not in the skeleton: written as children of the "
                "root with the identity rest pose", w->extra_count);
    json_t *a = asset(w, (gltf_up)up);
    gw_set(w, w->root, "asset", a);
    if ((st = build_nodes(w, (gltf_up)up, stem)) != AK_OK || (st = gw_animations(w)) != AK_OK)
        return st;
    if (json_array_size(w->empty_clips))
        gw_set(w, json_object_get(json_object_get(a, "extras"), "animkit"), "clips", json_incref(w->empty_clips));
    gw_set(w, w->root, "scene", json_integer(0));
    gw_set(w, w->root, "scenes", json_pack("[{s:[i]}]", "nodes", 0));
    gw_set(w, w->root, "nodes", json_incref(w->nodes));
    if (json_array_size(w->animations))
        gw_set(w, w->root, "animations", json_incref(w->animations));
    if (json_array_size(w->accessors))
        gw_set(w, w->root, "accessors", json_incref(w->accessors));
    if (json_array_size(w->views)) /* also blobs when there is no accessor */
        gw_set(w, w->root, "bufferViews", json_incref(w->views));
    if (w->visibility) {
        gw_set(w, w->root, "extensionsUsed", json_pack("[s,s]", "KHR_node_visibility", "KHR_animation_pointer"));
    }
    return emit(w, out, want_glb(w->job));
}

ak_status gltf_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    gw w;
    memset(&w, 0, sizeof w);
    w.job = job;
    w.doc = doc;
    w.root = json_object();
    w.nodes = json_array();
    w.accessors = json_array();
    w.views = json_array();
    w.animations = json_array();
    w.empty_clips = json_array();
    ak_status st = (!w.root || !w.nodes || !w.accessors || !w.views || !w.animations || !w.empty_clips)
                       ? ak_fail(job, AK_E_NOMEM, -1, "out of memory")
                       : write_doc(&w, out);
    json_decref(w.root);
    json_decref(w.nodes);
    json_decref(w.accessors);
    json_decref(w.views);
    json_decref(w.animations);
    json_decref(w.empty_clips);
    if (st == AK_OK && ak_sink_failed(out))
        st = ak_fail(job, AK_E_NOMEM, -1, "out of memory");
    if (st != AK_OK && !ak_job_failed(job))
        st = ak_fail(job, st, -1, "cannot write glTF");
    return st;
}
