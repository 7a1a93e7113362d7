/* test_gltf.c - the gltf codec: the hand-made document through .glb and
 * .gltf and back unchanged, the times the writer makes valid (checked
 * against float32 arithmetic done here), the container's layout and
 * min/max at the float32 extremes, every accessor form of the spec
 * (normalised integers, byteStride, sparse, STEP, CUBICSPLINE), a file
 * shaped like Blender's export, an edit detected in a corpus export, and
 * bad input refused with its JSON path or byte offset. */
#include "testutil.h"
#include "../../plugins/gltf/gltf.h"
#include "handmade.h"

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const ak_codec *ifp_codec(void);

static ak_registry *registry(void)
{
    const ak_codec *codecs[] = { ifp_codec(), gltf_codec(), NULL };
    return ak_test_registry(codecs);
}

static unsigned char *write_as(ak_registry *reg, const ak_doc *doc, const char *name, size_t *n, unsigned *warnings)
{
    ak_options o = { sizeof o, "gltf", name, NULL, 0, 0 };
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    unsigned char *out = NULL;
    ck_assert_msg(ak_write(reg, doc, &o, &out, n, &rep) == AK_OK, "%s", rep.message);
    if (warnings)
        *warnings = rep.warnings;
    return out;
}

static ak_status read_with(ak_registry *reg, const void *bytes, size_t n, const char *const *params, ak_doc **doc,
                           ak_report *rep)
{
    ak_options o = { sizeof o, "gltf", "test.glb", params, 0, 0 };
    memset(rep, 0, sizeof *rep);
    return ak_read(reg, bytes, n, &o, doc, rep);
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void same_props(const ak_props *a, const ak_props *b)
{
    ck_assert_uint_eq(a->count, b->count);
    for (size_t i = 0; i < a->count; i++) {
        ck_assert_str_eq(a->items[i].key, b->items[i].key);
        ck_assert_int_eq(a->items[i].type, b->items[i].type);
        ck_assert_uint_eq(a->items[i].size, b->items[i].size);
        ck_assert(a->items[i].size == 0 || memcmp(a->items[i].data, b->items[i].data, a->items[i].size) == 0);
        ck_assert(a->items[i].i == b->items[i].i && same_bits(a->items[i].f, b->items[i].f));
    }
}

/* Everything of the model, bit for bit. */
static void same_doc(const ak_doc *a, const ak_doc *b)
{
    ck_assert_str_eq(a->format, b->format);
    ck_assert_str_eq(a->variant, b->variant);
    same_props(&a->props, &b->props);
    ck_assert_uint_eq(a->clip_count, b->clip_count);
    for (size_t c = 0; c < a->clip_count; c++) {
        const ak_clip *x = a->clips[c], *y = b->clips[c];
        ck_assert_str_eq(x->name, y->name);
        ck_assert(same_bits(x->duration, y->duration) && same_bits(x->tick_rate, y->tick_rate) &&
                  same_bits(x->frame_rate, y->frame_rate));
        same_props(&x->props, &y->props);
        ck_assert_uint_eq(x->event_count, y->event_count);
        for (size_t e = 0; e < x->event_count; e++) {
            ck_assert(same_bits(x->events[e].time, y->events[e].time));
            ck_assert_str_eq(x->events[e].type, y->events[e].type);
            ck_assert_str_eq(x->events[e].info, y->events[e].info);
        }
        ck_assert_uint_eq(x->track_count, y->track_count);
        for (size_t t = 0; t < x->track_count; t++) {
            const ak_track *p = x->tracks[t], *q = y->tracks[t];
            ck_assert_str_eq(p->bone, q->bone);
            ck_assert(p->has_bone_id == q->has_bone_id && p->bone_id == q->bone_id);
            ck_assert(p->has_bone_hash == q->has_bone_hash && p->bone_hash == q->bone_hash);
            ck_assert(same_bits(p->weight, q->weight));
            same_props(&p->props, &q->props);
            for (int k = 0; k < AK_CHANNELS; k++) {
                ck_assert_uint_eq(p->channel[k].count, q->channel[k].count);
                for (size_t i = 0; i < p->channel[k].count; i++) {
                    const ak_key *u = &p->channel[k].keys[i], *v = &q->channel[k].keys[i];
                    ck_assert_msg(same_bits(u->time, v->time) && u->tick == v->tick, "clip %zu track %zu key %zu", c, t, i);
                    for (int d = 0; d < 4; d++)
                        ck_assert_msg(same_bits(u->v[d], v->v[d]) || k == AK_VISIBILITY || (k != AK_ROTATION && d == 3),
                                      "clip %zu track %zu %s key %zu v%d: %.17g vs %.17g", c, t,
                                      ak_channel_name((ak_channel_kind)k), i, d, u->v[d], v->v[d]);
                    ck_assert_int_eq(ak_key_changed(u), ak_key_changed(v));
                    ck_assert(u->raw_size == v->raw_size && (!u->raw_size || memcmp(u->raw, v->raw, u->raw_size) == 0));
                }
            }
        }
    }
}

/* The JSON and BIN chunks of a .glb, checking the layout on the way. */
static json_t *glb_parts(const unsigned char *b, size_t n, const unsigned char **bin, size_t *bin_size)
{
    ck_assert_uint_ge(n, 20);
    ck_assert(memcmp(b, "glTF", 4) == 0);
    ck_assert_uint_eq(ak_load_u32(b + 4), 2);
    ck_assert_uint_eq(ak_load_u32(b + 8), n);
    uint32_t jlen = ak_load_u32(b + 12);
    ck_assert_uint_eq(jlen % 4, 0);
    ck_assert(memcmp(b + 16, "JSON", 4) == 0);
    size_t end = 20 + jlen;
    while (end > 20 && b[end - 1] == ' ')
        end--;
    ck_assert_uint_ge(end + 3, 20 + jlen); /* at most 3 spaces of padding */
    json_error_t err;
    json_t *root = json_loadb((const char *)b + 20, end - 20, 0, &err);
    ck_assert_msg(root != NULL, "%s", err.text);
    *bin = NULL;
    *bin_size = 0;
    if (20 + jlen < n) {
        uint32_t blen = ak_load_u32(b + 20 + jlen);
        ck_assert_uint_eq(blen % 4, 0);
        ck_assert(memcmp(b + 24 + jlen, "BIN\0", 4) == 0);
        ck_assert_uint_eq(28 + jlen + blen, n);
        *bin = b + 28 + jlen;
        *bin_size = blen;
        json_int_t len = json_integer_value(json_object_get(json_array_get(json_object_get(root, "buffers"), 0), "byteLength"));
        ck_assert_int_le(len, blen);
    }
    return root;
}

static const float *accessor_floats(json_t *root, const unsigned char *bin, json_int_t index, size_t *count)
{
    json_t *acc = json_array_get(json_object_get(root, "accessors"), (size_t)index);
    json_t *view = json_array_get(json_object_get(root, "bufferViews"),
                                  (size_t)json_integer_value(json_object_get(acc, "bufferView")));
    *count = (size_t)json_integer_value(json_object_get(acc, "count"));
    ck_assert_int_eq(json_integer_value(json_object_get(acc, "componentType")), 5126);
    json_int_t off = json_integer_value(json_object_get(view, "byteOffset"));
    ck_assert_int_eq(off % 4, 0);
    return (const float *)(const void *)(bin + off);
}

START_TEST(test_handmade_roundtrip)
{
    ak_registry *reg = registry();
    ak_doc *doc = handmade_doc();
    const char *names[] = { "hand.glb", "hand.gltf" };
    for (int i = 0; i < 2; i++) {
        size_t n;
        unsigned warnings;
        unsigned char *out = write_as(reg, doc, names[i], &n, &warnings);
        ck_assert_uint_ge(warnings, 3); /* no skeleton, times made valid, a quaternion normalised */
        ck_assert_int_eq(out[0] == 'g', i == 0);
        ak_doc *back = NULL;
        ak_report rep;
        ck_assert_msg(read_with(reg, out, n, NULL, &back, &rep) == AK_OK, "%s", rep.message);
        same_doc(doc, back);
        ck_assert_uint_eq(back->clips[1]->track_count, 0); /* the empty clip, in its place */
        ck_assert_str_eq(back->clips[0]->tracks[1]->bone, "Kn\xe9" "e \xc4");
        ak_doc_free(back);
        ak_buffer_free(reg, out);
    }
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* Times -1/60, 0, 0, 0.1 become 0, the next float32 steps above 0, 0.1f;
 * the extremes stay; min/max are exactly the first and last. */
START_TEST(test_container_and_times)
{
    ak_registry *reg = registry();
    ak_doc *doc = handmade_doc();
    size_t n, bin_size;
    unsigned char *out = write_as(reg, doc, "hand.glb", &n, NULL);
    const unsigned char *bin;
    json_t *root = glb_parts(out, n, &bin, &bin_size);
    json_t *anims = json_object_get(root, "animations");
    ck_assert_uint_eq(json_array_size(anims), 2); /* the empty clip has no glTF animation */
    json_t *a0 = json_array_get(anims, 0);
    json_t *s0 = json_array_get(json_object_get(a0, "samplers"), 0);
    size_t count;
    const float *t = accessor_floats(root, bin, json_integer_value(json_object_get(s0, "input")), &count);
    ck_assert_uint_eq(count, 4);
    float step1 = nextafterf(0.0f, 1.0f), step2 = nextafterf(step1, 1.0f);
    ck_assert(t[0] == 0.0f && t[1] == step1 && t[2] == step2 && t[3] == 0.1f);
    json_t *a1 = json_array_get(anims, 1);
    json_t *s1 = json_array_get(json_object_get(a1, "samplers"), 0);
    json_t *acc = json_array_get(json_object_get(root, "accessors"), (size_t)json_integer_value(json_object_get(s1, "input")));
    ck_assert(json_real_value(json_array_get(json_object_get(acc, "min"), 0)) == (double)FLT_TRUE_MIN);
    ck_assert(json_real_value(json_array_get(json_object_get(acc, "max"), 0)) == (double)FLT_MAX);
    /* every sampler input has min and max */
    size_t na = json_array_size(anims);
    for (size_t i = 0; i < na; i++) {
        json_t *samplers = json_object_get(json_array_get(anims, i), "samplers");
        for (size_t s = 0; s < json_array_size(samplers); s++) {
            json_t *in = json_array_get(json_object_get(root, "accessors"),
                                        (size_t)json_integer_value(json_object_get(json_array_get(samplers, s), "input")));
            ck_assert(json_object_get(in, "min") && json_object_get(in, "max"));
        }
    }
    /* the 100-byte blob lies in a buffer view, the 3-byte one is hex */
    json_t *tracks = json_object_get(json_object_get(json_object_get(a0, "extras"), "animkit"), "tracks");
    json_t *mesh = json_object_get(json_object_get(json_array_get(tracks, 0), "props"), "mesh");
    json_t *mview = json_array_get(json_object_get(root, "bufferViews"), (size_t)json_integer_value(json_object_get(mesh, "bufferView")));
    ck_assert_int_eq(json_integer_value(json_object_get(mview, "byteLength")), 100);
    ck_assert(bin[json_integer_value(json_object_get(mview, "byteOffset")) + 99] == (unsigned char)(99 * 7));
    json_t *blob = json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(root, "asset"), "extras"), "animkit"), "props"), "blob");
    ck_assert_str_eq(json_string_value(json_object_get(blob, "hex")), "0001ff");
    /* node 0 carries GTA's Z-up turn; the skin is referenced by no node */
    json_t *rot = json_object_get(json_array_get(json_object_get(root, "nodes"), 0), "rotation");
    ck_assert(json_real_value(json_array_get(rot, 0)) == (double)-0.70710677f);
    ck_assert(json_real_value(json_array_get(rot, 3)) == (double)0.70710677f);
    for (size_t i = 0; i < json_array_size(json_object_get(root, "nodes")); i++)
        ck_assert(!json_object_get(json_array_get(json_object_get(root, "nodes"), i), "skin"));
    ck_assert_uint_eq(json_array_size(json_object_get(json_array_get(json_object_get(root, "skins"), 0), "joints")), 4); /* L Thigh (both clips), Knee, the hash, Only Here */
    json_decref(root);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* A .glb from JSON text and binary data. */
static unsigned char *make_glb(const char *json, const void *bin, size_t bin_size, size_t *n)
{
    size_t jl = (strlen(json) + 3) & ~(size_t)3, bl = (bin_size + 3) & ~(size_t)3;
    *n = 12 + 8 + jl + (bin_size ? 8 + bl : 0);
    unsigned char *b = calloc(1, *n);
    memcpy(b, "glTF", 4);
    uint32_t h[4] = { 2, (uint32_t)*n, (uint32_t)jl, 0x4e4f534a };
    memcpy(b + 4, h, 16);
    memset(b + 20, ' ', jl);
    memcpy(b + 20, json, strlen(json));
    if (bin_size) {
        uint32_t c[2] = { (uint32_t)bl, 0x004e4942 };
        memcpy(b + 20 + jl, c, 8);
        memcpy(b + 28 + jl, bin, bin_size);
    }
    return b;
}

/* Normalised int16 rotations with STEP, translation and scale interleaved
 * in one view (byteStride 24), a sparse scale, and a CUBICSPLINE rotation. */
START_TEST(test_accessor_forms)
{
    struct {
        float times[2];
        int16_t rot[2][4];
        float ts[2][6];           /* translation xyz, scale xyz per key */
        float cubic[6][4];        /* in, value, out for 2 keys */
        uint8_t idx[4];           /* sparse index 1, padded */
        float sparse_scale[3];
    } bin;
    memset(&bin, 0, sizeof bin);
    bin.times[0] = 0;
    bin.times[1] = 0.5f;
    int16_t r0[4] = { 0, 0, 0, 32767 }, r1[4] = { 16384, 0, 0, 28378 };
    memcpy(bin.rot[0], r0, sizeof r0);
    memcpy(bin.rot[1], r1, sizeof r1);
    float ts[2][6] = { { 1, 2, 3, 1, 1, 1 }, { 4, 5, 6, 2, 2, 2 } };
    memcpy(bin.ts, ts, sizeof ts);
    float cubic[6][4] = { { 9, 9, 9, 9 }, { 0, 0, 0, 1 }, { 9, 9, 9, 9 }, { 8, 8, 8, 8 }, { 0, 1, 0, 0 }, { 8, 8, 8, 8 } };
    memcpy(bin.cubic, cubic, sizeof cubic);
    bin.idx[0] = 1;
    bin.sparse_scale[0] = 7;
    bin.sparse_scale[1] = 8;
    bin.sparse_scale[2] = 9;
    char json[4096];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%zu}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":8},"
             "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":16},"
             "{\"buffer\":0,\"byteOffset\":24,\"byteLength\":48,\"byteStride\":24},"
             "{\"buffer\":0,\"byteOffset\":72,\"byteLength\":96},"
             "{\"buffer\":0,\"byteOffset\":168,\"byteLength\":1},"
             "{\"buffer\":0,\"byteOffset\":172,\"byteLength\":12}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[0.5]},"
             "{\"bufferView\":1,\"componentType\":5122,\"normalized\":true,\"count\":2,\"type\":\"VEC4\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
             "{\"bufferView\":2,\"byteOffset\":12,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
             "{\"bufferView\":3,\"componentType\":5126,\"count\":6,\"type\":\"VEC4\"},"
             "{\"componentType\":5126,\"count\":2,\"type\":\"VEC3\",\"sparse\":{\"count\":1,"
             "\"indices\":{\"bufferView\":4,\"componentType\":5121},\"values\":{\"bufferView\":5}}}],"
             "\"nodes\":[{\"name\":\"root\",\"children\":[1,2]},{\"name\":\"A\"},{\"name\":\"B\"}],"
             "\"skins\":[{\"joints\":[1,2]}],"
             "\"animations\":[{\"name\":\"forms\",\"samplers\":["
             "{\"input\":0,\"output\":1,\"interpolation\":\"STEP\"},{\"input\":0,\"output\":2},{\"input\":0,\"output\":3},"
             "{\"input\":0,\"output\":4,\"interpolation\":\"CUBICSPLINE\"},{\"input\":0,\"output\":5}],"
             "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
             "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"translation\"}},"
             "{\"sampler\":2,\"target\":{\"node\":1,\"path\":\"scale\"}},"
             "{\"sampler\":3,\"target\":{\"node\":2,\"path\":\"rotation\"}},"
             "{\"sampler\":4,\"target\":{\"node\":2,\"path\":\"scale\"}}]}]}",
             sizeof bin);
    size_t n;
    unsigned char *glb = make_glb(json, &bin, sizeof bin, &n);
    ak_registry *reg = registry();
    const char *params[] = { "up=y", NULL };
    ak_doc *doc = NULL;
    ak_report rep;
    ck_assert_msg(read_with(reg, glb, n, params, &doc, &rep) == AK_OK, "%s", rep.message);
    ck_assert_uint_ge(rep.warnings, 1); /* CUBICSPLINE tangents dropped */
    ck_assert_uint_eq(doc->skeleton.bone_count, 2);
    const ak_clip *c = doc->clips[0];
    ck_assert_uint_eq(c->track_count, 2);
    const ak_track *a = c->tracks[0], *b = c->tracks[1];
    ck_assert_str_eq(a->bone, "A");
    ck_assert(a->channel[AK_ROTATION].keys[1].v[0] == (double)(float)(16384 / 32767.0));
    ck_assert(a->channel[AK_ROTATION].keys[0].v[3] == 1.0);
    ck_assert(a->channel[AK_TRANSLATION].keys[1].v[2] == 6.0);
    ck_assert(a->channel[AK_SCALE].keys[1].v[0] == 2.0);
    ck_assert(b->channel[AK_ROTATION].keys[1].v[1] == 1.0 && b->channel[AK_ROTATION].keys[0].v[3] == 1.0);
    ck_assert(b->channel[AK_SCALE].keys[0].v[0] == 0.0 && b->channel[AK_SCALE].keys[1].v[2] == 9.0);
    ak_doc_free(doc);
    free(glb);
    ak_registry_free(reg);
}
END_TEST

/* Shaped like Blender 3.4's export: armature node above the root joint,
 * every bone baked every frame (24 fps), rest translations and unit scales
 * on every bone. */
START_TEST(test_blender_shaped)
{
    enum { F = 5 };
    struct { float t[F]; float rot[F][4]; float tr_root[F][3]; float tr_child[F][3]; float sc[F][3]; } bin;
    for (int f = 0; f < F; f++) {
        bin.t[f] = (float)f / 24.0f;
        float q[4] = { sinf(0.1f * (float)f), 0, 0, cosf(0.1f * (float)f) };
        memcpy(bin.rot[f], q, sizeof q);
        float r[3] = { 0, 0.01f * (float)f, 1 }, c[3] = { 0, 0.5f, 0 }, s[3] = { 1, 1, 1 };
        memcpy(bin.tr_root[f], r, sizeof r);
        memcpy(bin.tr_child[f], c, sizeof c);
        memcpy(bin.sc[f], s, sizeof s);
    }
    char json[4096];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\",\"generator\":\"Khronos glTF Blender I/O v3.4.50\"},"
             "\"buffers\":[{\"byteLength\":%zu}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":20},{\"buffer\":0,\"byteOffset\":20,\"byteLength\":80},"
             "{\"buffer\":0,\"byteOffset\":100,\"byteLength\":60},{\"buffer\":0,\"byteOffset\":160,\"byteLength\":60},"
             "{\"buffer\":0,\"byteOffset\":220,\"byteLength\":60}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":\"SCALAR\",\"min\":[0],\"max\":[0.16666667]},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":5,\"type\":\"VEC4\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\"},"
             "{\"bufferView\":3,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\"},"
             "{\"bufferView\":4,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\"}],"
             "\"nodes\":[{\"name\":\"Armature\",\"children\":[1]},"
             "{\"name\":\"Pelvis\",\"translation\":[0,0,1],\"children\":[2]},"
             "{\"name\":\"Spine\",\"translation\":[0,0.5,0]}],"
             "\"skins\":[{\"joints\":[1,2]}],"
             "\"animations\":[{\"name\":\"walk\",\"samplers\":["
             "{\"input\":0,\"output\":1},{\"input\":0,\"output\":2},{\"input\":0,\"output\":3},{\"input\":0,\"output\":4},"
             "{\"input\":0,\"output\":1},{\"input\":0,\"output\":4}],"
             "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
             "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"translation\"}},"
             "{\"sampler\":3,\"target\":{\"node\":1,\"path\":\"scale\"}},"
             "{\"sampler\":4,\"target\":{\"node\":2,\"path\":\"rotation\"}},"
             "{\"sampler\":2,\"target\":{\"node\":2,\"path\":\"translation\"}},"
             "{\"sampler\":5,\"target\":{\"node\":2,\"path\":\"scale\"}}]}]}",
             sizeof bin);
    size_t n;
    unsigned char *glb = make_glb(json, &bin, sizeof bin, &n);
    ak_registry *reg = registry();
    const char *params[] = { "up=y", NULL };
    ak_doc *doc = NULL;
    ak_report rep;
    ck_assert_msg(read_with(reg, glb, n, params, &doc, &rep) == AK_OK, "%s", rep.message);
    ck_assert_uint_ge(rep.warnings, 2); /* frame rate derived; channels dropped */
    const ak_clip *c = doc->clips[0];
    ck_assert(c->frame_rate == 24.0);
    ck_assert(fabs(c->duration - 4 / 24.0) < 1e-6);
    ck_assert_uint_eq(c->track_count, 2);
    const ak_track *pelvis = c->tracks[0], *spine = c->tracks[1];
    ck_assert_uint_eq(pelvis->channel[AK_TRANSLATION].count, F); /* it moves: kept */
    ck_assert_uint_eq(pelvis->channel[AK_SCALE].count, 0);
    ck_assert_uint_eq(spine->channel[AK_TRANSLATION].count, 0); /* at rest: dropped */
    ck_assert_uint_eq(spine->channel[AK_SCALE].count, 0);
    ck_assert_uint_eq(spine->channel[AK_ROTATION].count, F);
    ck_assert(fabs(pelvis->channel[AK_ROTATION].keys[2].v[0] - sin(0.2)) < 1e-6);
    ck_assert_int_eq(doc->skeleton.bones[1].parent, 0);
    ck_assert(doc->skeleton.bones[1].translation[1] == 0.5);
    ak_doc_free(doc);
    free(glb);
    ak_registry_free(reg);
}
END_TEST

/* A corpus export with one rotation value changed in the BIN chunk: that
 * channel's keys count as edited (re-encoded), the others keep their bytes. */
START_TEST(test_edit_detected)
{
    size_t size;
    unsigned char *ifp = ak_test_corpus_file("ifp/walking_cuffed.ifp", &size);
    if (!ifp)
        return;
    ak_registry *reg = registry();
    ak_doc *doc = ak_test_read(reg, ifp, size, "walking_cuffed.ifp");
    size_t n, bin_size;
    unsigned char *glb = write_as(reg, doc, "w.glb", &n, NULL);
    const unsigned char *bin;
    json_t *root = glb_parts(glb, n, &bin, &bin_size);
    json_t *anim = json_array_get(json_object_get(root, "animations"), 0);
    json_t *tracks = json_object_get(json_object_get(json_object_get(anim, "extras"), "animkit"), "tracks");
    json_int_t s = json_integer_value(json_object_get(
        json_object_get(json_object_get(json_array_get(tracks, 0), "channels"), "rotation"), "sampler"));
    json_t *sampler = json_array_get(json_object_get(anim, "samplers"), (size_t)s);
    size_t count;
    float *v = (float *)(uintptr_t)accessor_floats(root, bin, json_integer_value(json_object_get(sampler, "output")), &count);
    v[4] = 0.25f; /* key 1, x */
    json_decref(root);
    ak_doc *back = NULL;
    ak_report rep;
    ck_assert_msg(read_with(reg, glb, n, NULL, &back, &rep) == AK_OK, "%s", rep.message);
    const ak_track *t = back->clips[0]->tracks[0];
    ck_assert(t->channel[AK_ROTATION].keys[1].v[0] == 0.25);
    ck_assert(ak_key_changed(&t->channel[AK_ROTATION].keys[1]));
    ck_assert(!ak_key_changed(&back->clips[0]->tracks[1]->channel[AK_ROTATION].keys[0]));
    ck_assert_uint_ge(rep.warnings, 1);
    ak_doc_free(back);
    ak_buffer_free(reg, glb);
    ak_doc_free(doc);
    free(ifp);
    ak_registry_free(reg);
}
END_TEST

/* Bad input: each is refused with AK_E_DATA (exit 65) and names where. */
static void refused(ak_registry *reg, const void *bytes, size_t n, const char *expect)
{
    ak_doc *doc = NULL;
    ak_report rep;
    ak_status st = read_with(reg, bytes, n, NULL, &doc, &rep);
    ck_assert_msg(st == AK_E_DATA || st == AK_E_UNSUPPORTED, "%s: status %s", expect, ak_status_name(st));
    ck_assert_int_eq(ak_status_exit(st), 65);
    ck_assert_msg(strstr(rep.message, expect) != NULL, "want '%s' in: %s", expect, rep.message);
    ck_assert(doc == NULL);
}

START_TEST(test_bad_input)
{
    ak_registry *reg = registry();
    static const struct { const char *json, *expect; } cases[] = {
        { "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{]}", "malformed JSON" },
        { "{\"asset\":{}}", "asset.version" },
        { "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[5]}]}", "nodes[0].children[0]" },
        { "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{\"children\":[0]}]}", "cycle" },
        { "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{},{\"children\":[1]}]}", "already has parent" },
        { "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"skins\":[{\"joints\":[3]}]}", "skins[0].joints[0]" },
        { "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":8,\"uri\":\"data:application/octet-stream;base64,AAAA\"}]}",
          "buffers[0].byteLength" },
        { "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":3,\"uri\":\"data:x;base64,A*AA\"}]}", "bad base64" },
        { "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":3,\"uri\":\"../x.bin\"}]}", "refused" },
        { "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"data:x;base64,AAAAAA==\"}],"
          "\"bufferViews\":[{\"buffer\":0,\"byteLength\":4}],"
          "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}],"
          "\"nodes\":[{}],\"animations\":[{\"samplers\":[{\"input\":0,\"output\":0}],"
          "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scale\"}}]}]}", "accessors[0].count" },
        { "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"data:x;base64,AAAAAA==\"}],"
          "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":2,\"byteLength\":4}],"
          "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}],"
          "\"nodes\":[{}],\"animations\":[{\"samplers\":[{\"input\":0,\"output\":0}],"
          "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}}]}]}", "outside its buffer" },
        { "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"animations\":[{\"samplers\":[{\"input\":0,\"output\":0}],"
          "\"channels\":[{\"sampler\":0,\"target\":{\"node\":7,\"path\":\"rotation\"}}]}]}", "target.node" },
        { "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"animations\":[{\"samplers\":[],"
          "\"channels\":[{\"sampler\":3,\"target\":{\"node\":0,\"path\":\"rotation\"}}]}]}", "samplers[3]" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        refused(reg, cases[i].json, strlen(cases[i].json), cases[i].expect);
    /* container: chunk length past the end, declared length past the end */
    size_t n;
    unsigned char *glb = make_glb("{\"asset\":{\"version\":\"2.0\"}}", "abcd", 4, &n);
    ak_doc *doc = NULL;
    ak_report rep;
    ck_assert_int_eq(read_with(reg, glb, n, NULL, &doc, &rep), AK_OK);
    ak_doc_free(doc);
    uint32_t big = 1000;
    memcpy(glb + 12, &big, 4);
    refused(reg, glb, n, "glb JSON chunk");
    memcpy(glb + 8, &big, 4);
    refused(reg, glb, n, "glb length");
    free(glb);
    ak_registry_free(reg);
}
END_TEST

/* A document whose one rotation channel reads accessor 0 (a time) and
 * accessor 1 (ACC), over bufferView 0 (the time) and VIEWS after it, in a
 * 16-byte buffer holding the bytes 1, 2, ... 16. */
#define ROTATION_DOC(VIEWS, ACC)                                                                               \
    "{\"asset\":{\"version\":\"2.0\"},"                                                                        \
    "\"buffers\":[{\"byteLength\":16,\"uri\":\"data:x;base64,AgEDBAUGBwgJCgsMDQ4PEA==\"}],"                    \
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":4}" VIEWS "],"                                              \
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}," ACC "],"       \
    "\"nodes\":[{}],\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"                               \
    "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}}]}]}"

/* Bad accessors and buffer views: each refused, naming the field by its
 * path. Sparse indices are unsigned and strictly increase (the glTF 2.0
 * schema, accessor.sparse.indices). */
START_TEST(test_bad_accessors)
{
    ak_registry *reg = registry();
    static const struct { const char *json, *expect; } cases[] = {
        { ROTATION_DOC(",{\"buffer\":0,\"byteLength\":16}",
                       "{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}"),
          "accessors[1].type: expected VEC4" },
        { ROTATION_DOC(",{\"buffer\":0,\"byteLength\":16}",
                       "{\"bufferView\":1,\"componentType\":5124,\"count\":1,\"type\":\"VEC4\"}"),
          "accessors[1].componentType: 5124 is not a glTF type" },
        { ROTATION_DOC(",{\"buffer\":0,\"byteLength\":16}",
                       "{\"bufferView\":1,\"componentType\":1,\"count\":1,\"type\":\"VEC4\"}"),
          "accessors[1].componentType: not an integer in range" },
        { ROTATION_DOC(",{\"buffer\":0,\"byteLength\":16}", "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC4\"}"),
          "accessors[1].count: missing" },
        { ROTATION_DOC("", "{\"bufferView\":4,\"componentType\":5126,\"count\":1,\"type\":\"VEC4\"}"),
          "accessors[1].bufferView: no such buffer view" },
        { ROTATION_DOC(",{\"byteLength\":16}", "{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"VEC4\"}"),
          "bufferViews[1].buffer: missing" },
        { ROTATION_DOC(",{\"buffer\":0,\"byteLength\":16,\"byteStride\":256}",
                       "{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"VEC4\"}"),
          "bufferViews[1].byteStride: not an integer in range" },
        { ROTATION_DOC(",{\"buffer\":3,\"byteLength\":16}", "{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"VEC4\"}"),
          "accessors[1].bufferView: its buffer is missing" },
        { ROTATION_DOC(",{\"buffer\":0,\"byteLength\":16,\"byteStride\":8}",
                       "{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"VEC4\"}"),
          "accessors[1].bufferView: byteStride is smaller than an element" },
        { ROTATION_DOC(",{\"buffer\":0,\"byteLength\":16}",
                       "{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"VEC4\",\"sparse\":3}"),
          "accessors[1].sparse: not an object" },
        { ROTATION_DOC("", "{\"componentType\":5126,\"count\":1,\"type\":\"VEC4\",\"sparse\":{\"count\":1,"
                           "\"indices\":{\"bufferView\":0,\"componentType\":5121}}}"),
          "accessors[1].sparse: needs indices and values" },
        { ROTATION_DOC("", "{\"componentType\":5126,\"count\":1,\"type\":\"VEC4\",\"sparse\":{\"count\":2,"
                           "\"indices\":{\"bufferView\":0,\"componentType\":5121},\"values\":{\"bufferView\":0}}}"),
          "accessors[1].sparse.count: not an integer in range" },
        { ROTATION_DOC("", "{\"componentType\":5126,\"count\":1,\"type\":\"VEC4\",\"sparse\":{\"count\":1,"
                           "\"indices\":{\"bufferView\":0,\"componentType\":5122},\"values\":{\"bufferView\":0}}}"),
          "accessors[1].sparse.indices.componentType: index type must be unsigned" },
        { ROTATION_DOC("", "{\"componentType\":5126,\"count\":1,\"type\":\"VEC4\",\"sparse\":{\"count\":1,"
                           "\"indices\":{\"bufferView\":0,\"componentType\":5121},\"values\":{}}}"),
          "accessors[1].sparse.values.bufferView: missing" },
        { ROTATION_DOC("", "{\"componentType\":5126,\"count\":1,\"type\":\"VEC4\",\"sparse\":{\"count\":1,"
                           "\"indices\":{\"bufferView\":0,\"componentType\":5121},\"values\":{\"bufferView\":5}}}"),
          "accessors[1].sparse.values.bufferView: no such buffer view" },
        /* the index is the buffer's first byte, 2: past an accessor of one element */
        { ROTATION_DOC(",{\"buffer\":0,\"byteLength\":16}",
                       "{\"componentType\":5126,\"count\":1,\"type\":\"VEC4\",\"sparse\":{\"count\":1,"
                       "\"indices\":{\"bufferView\":0,\"componentType\":5121},\"values\":{\"bufferView\":1}}}"),
          "accessors[1].sparse.indices: indices must increase and stay below count" },
        /* the buffer's first two bytes, 2 and 1, as indices: not increasing */
        { ROTATION_DOC(",{\"buffer\":0,\"byteLength\":16}",
                       "{\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":\"VEC4\",\"sparse\":{\"count\":2,"
                       "\"indices\":{\"bufferView\":0,\"componentType\":5121},\"values\":{\"bufferView\":1}}}"),
          "accessors[1].sparse.indices: indices must increase and stay below count" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        refused(reg, cases[i].json, strlen(cases[i].json), cases[i].expect);
    ak_registry_free(reg);
}
END_TEST

/* A glTF as another tool writes it: node "hand" made invisible at 0.5 s
 * through KHR_animation_pointer (a STEP sampler of unsigned bytes, as
 * ../shared/formats/gltf.md recommends), then CHANNELS. The buffer holds
 * the times 0 and 0.5, the bytes 1 and 0 (and two of padding) and two
 * rotations (0, 0, 0.6, 0.8). */
#define FOREIGN_DOC(CHANNELS)                                                                                      \
    "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_animation_pointer\",\"KHR_node_visibility\"],"     \
    "\"buffers\":[{\"byteLength\":44,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAD8BAAAAAAAAAAAAAACamRk/zcxMPwAAAAAAAAAAmpkZP83MTD8=\"}],"                      \
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":2},"           \
    "{\"buffer\":0,\"byteOffset\":12,\"byteLength\":32}],"                                                         \
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],"         \
    "\"max\":[0.5]},{\"bufferView\":1,\"componentType\":5121,\"count\":2,\"type\":\"SCALAR\"},"                    \
    "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"}],"                                    \
    "\"nodes\":[{\"name\":\"hand\",\"extensions\":{\"KHR_node_visibility\":{\"visible\":true}}}],"                 \
    "\"animations\":[{\"name\":\"blink\",\"samplers\":[{\"input\":0,\"output\":1,\"interpolation\":\"STEP\"},"     \
    "{\"input\":0,\"output\":2}],\"channels\":[{\"sampler\":0,\"target\":{\"path\":\"pointer\",\"extensions\":"    \
    "{\"KHR_animation_pointer\":{\"pointer\":\"/nodes/0/extensions/KHR_node_visibility/visible\"}}}}" CHANNELS "]}]}"

START_TEST(test_foreign_visibility_and_targets)
{
    ak_registry *reg = registry();
    /* A morph-weight channel is skipped with a warning: animkit keeps bone
     * transforms and visibility. */
    static const char skipped[] = FOREIGN_DOC(",{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"weights\"}}");
    ak_doc *doc = NULL;
    ak_test_said said = { "" };
    ak_report rep = { ak_test_collect, &said, AK_OK, 0, "", "", "", 0 };
    ak_options o = { sizeof o, "gltf", "foreign.gltf", NULL, 0, 0 };
    ck_assert_msg(ak_read(reg, skipped, strlen(skipped), &o, &doc, &rep) == AK_OK, "%s", rep.message);
    ck_assert_msg(strstr(said.text, "animations[0].channels[1]: target 'weights' skipped"), "%s", said.text);
    ck_assert_uint_eq(doc->clip_count, 1);
    ck_assert_str_eq(doc->clips[0]->name, "blink");
    ck_assert_uint_eq(doc->clips[0]->track_count, 1);
    const ak_track *t = doc->clips[0]->tracks[0];
    ck_assert_str_eq(t->bone, "hand");
    const ak_channel *vis = &t->channel[AK_VISIBILITY];
    ck_assert_uint_eq(vis->count, 2);
    ck_assert(vis->keys[0].time == 0.0 && vis->keys[0].v[0] == 1.0);
    ck_assert(vis->keys[1].time == 0.5 && vis->keys[1].v[0] == 0.0);
    for (int k = 0; k < AK_VISIBILITY; k++)
        ck_assert_uint_eq(t->channel[k].count, 0);
    ak_doc_free(doc);
    /* One node's rotation from two channels: which would win is not said. */
    static const char twice[] = FOREIGN_DOC(",{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"rotation\"}},"
                                            "{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"rotation\"}}");
    refused(reg, twice, strlen(twice), "animations[0].channels[2]: node 0 rotation is animated twice");
    ak_registry_free(reg);
}
END_TEST

/* A .gltf whose buffer lies in a file beside it, under `uri`. */
static ak_status read_external(const char *dir, const char *uri, size_t max_alloc, ak_report *rep)
{
    char path[512], json[1024];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":32,\"uri\":\"%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
             "\"nodes\":[{\"name\":\"bone\"}],\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"
             "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scale\"}}]}]}", uri);
    snprintf(path, sizeof path, "%s/in/test.gltf", dir);
    FILE *f = fopen(path, "wb");
    ck_assert(f != NULL);
    fputs(json, f);
    fclose(f);
    ak_registry *reg = registry();
    const char *params[] = { "up=y", NULL };
    ak_options o = { sizeof o, "gltf", NULL, params, max_alloc, 0 };
    ak_doc *doc = NULL;
    memset(rep, 0, sizeof *rep);
    ak_status st = ak_read_file(reg, path, &o, &doc, rep);
    if (st == AK_OK) {
        ck_assert(doc->clips[0]->tracks[0]->channel[AK_SCALE].keys[1].v[2] == 6.0);
        ak_doc_free(doc);
    }
    ak_registry_free(reg);
    return st;
}

START_TEST(test_external_bin)
{
    char dir[] = "/tmp/ak-gltf-XXXXXX", path[512];
    ck_assert(mkdtemp(dir) != NULL);
    float bin[8] = { 0, 1, 1, 2, 3, 4, 5, 6 };
    const char *files[] = { "in/a.bin", "in/sub/b c.bin", "outside.bin" };
    snprintf(path, sizeof path, "%s/in", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/in/sub", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        FILE *f = fopen(path, "wb");
        ck_assert(f && fwrite(bin, sizeof bin, 1, f) == 1);
        fclose(f);
    }
    char target[512];
    snprintf(target, sizeof target, "%s/outside.bin", dir);
    snprintf(path, sizeof path, "%s/in/link.bin", dir);
    ck_assert_int_eq(symlink(target, path), 0);
    ak_report rep;
    ck_assert_msg(read_external(dir, "a.bin", 0, &rep) == AK_OK, "%s", rep.message);
    ck_assert_msg(read_external(dir, "sub/b%20c.bin", 0, &rep) == AK_OK, "%s", rep.message);
    static const struct { const char *uri, *why; } refused_uris[] = {
        { "../outside.bin", "'..'" }, { "sub/../../outside.bin", "'..'" }, { "/etc/hostname", "absolute" },
        { "http://example.com/a.bin", "URL scheme" }, { "file:///etc/hostname", "URL scheme" },
        { "sub\\\\b.bin", "backslash" }, { "sub//a.bin", "empty path component" },
        { "link.bin", "leads out" }, { "%2e%2e/outside.bin", "'..'" }, { "", "it is empty" },
    };
    for (size_t i = 0; i < sizeof refused_uris / sizeof refused_uris[0]; i++) {
        ck_assert_int_eq(read_external(dir, refused_uris[i].uri, 0, &rep), AK_E_DATA);
        ck_assert_msg(strstr(rep.message, refused_uris[i].why), "%s: %s", refused_uris[i].uri, rep.message);
    }
    ck_assert_int_eq(read_external(dir, "missing.bin", 0, &rep), AK_E_NOINPUT);
    ck_assert_int_eq(read_external(dir, "a.bin", 16, &rep), AK_E_LIMIT); /* the cap counts the .bin */
    /* A FIFO (a mod archive may hold one) and a folder are refused; the
     * FIFO at once, not waited on for a writer (a hang before). */
    snprintf(path, sizeof path, "%s/in/pipe.bin", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(read_external(dir, "pipe.bin", 0, &rep), AK_E_NOINPUT);
    ck_assert_msg(strstr(rep.message, "pipe.bin': not a regular file"), "%s", rep.message);
    ck_assert_int_eq(read_external(dir, "sub", 0, &rep), AK_E_NOINPUT);
    ck_assert_msg(strstr(rep.message, "sub': not a regular file"), "%s", rep.message);
    /* Bytes with no file name: there is no folder to look in. */
    snprintf(path, sizeof path, "%s/in/test.gltf", dir);
    ck_assert_int_eq(read_external(dir, "a.bin", 0, &rep), AK_OK); /* rewrites test.gltf naming a.bin */
    size_t n;
    unsigned char *bytes = ak_test_slurp(path, &n);
    ak_registry *reg = registry();
    const char *params[] = { "up=y", NULL };
    ak_options o = { sizeof o, "gltf", NULL, params, 0, 0 };
    ak_doc *doc = NULL;
    memset(&rep, 0, sizeof rep);
    ck_assert_int_eq(ak_read(reg, bytes, n, &o, &doc, &rep), AK_E_NOINPUT);
    ck_assert_msg(strstr(rep.message, "companion file 'a.bin': the input has no file name to look beside"), "%s",
                  rep.message);
    ck_assert_ptr_null(doc);
    ak_registry_free(reg);
    free(bytes);
    const char *rm[] = { "in/pipe.bin", "in/link.bin", "in/a.bin", "in/sub/b c.bin", "outside.bin", "in/test.gltf", "in/sub",
                         "in", "" };
    for (int i = 0; i < 9; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, rm[i]);
        remove(path);
    }
}
END_TEST

/* A mirrored GEM bone: node scale z -1, scale keys written with z negated,
 * read back as they were. */
START_TEST(test_mirrored_bone)
{
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    ak_doc_set_format(doc, "anm", "6.0");
    ak_clip *c = ak_clip_add(doc, "mirror");
    c->duration = 1;
    ak_track *t = ak_track_add(c, "wheel_l");
    ak_prop_set_int(doc, &t->props, "anm.mirrored", 1);
    for (int k = 0; k < 2; k++) {
        ak_key *key = ak_key_add(t, AK_SCALE);
        key->time = k;
        key->v[0] = 1;
        key->v[1] = 2;
        key->v[2] = 3 + k;
    }
    size_t n, bin_size;
    unsigned char *out = write_as(reg, doc, "m.glb", &n, NULL);
    const unsigned char *bin;
    json_t *root = glb_parts(out, n, &bin, &bin_size);
    json_t *node = json_array_get(json_object_get(root, "nodes"), 1);
    ck_assert(json_real_value(json_array_get(json_object_get(node, "scale"), 2)) == -1.0);
    json_t *s0 = json_array_get(json_object_get(json_array_get(json_object_get(root, "animations"), 0), "samplers"), 0);
    size_t count;
    const float *v = accessor_floats(root, bin, json_integer_value(json_object_get(s0, "output")), &count);
    ck_assert(count == 2 && v[2] == -3.0f && v[5] == -4.0f);
    json_decref(root);
    ak_doc *back = NULL;
    ak_report rep;
    ck_assert_msg(read_with(reg, out, n, NULL, &back, &rep) == AK_OK, "%s", rep.message);
    same_doc(doc, back);
    ak_doc_free(back);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* `doc` written as .glb and read back: the same model, bit for bit. The
 * caller frees what comes back. */
static ak_doc *same_through_glb(ak_registry *reg, const ak_doc *doc)
{
    size_t n;
    unsigned char *out = write_as(reg, doc, "same.glb", &n, NULL);
    ak_doc *back = NULL;
    ak_report rep;
    ck_assert_msg(read_with(reg, out, n, NULL, &back, &rep) == AK_OK, "%s", rep.message);
    same_doc(doc, back);
    ak_buffer_free(reg, out);
    return back;
}

/* Found by fuzz_probe_all: a document whose only binary data is a big
 * prop (no keys, no bones) still gets its buffer views. */
START_TEST(test_blob_without_keys)
{
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    ak_doc_set_format(doc, "ifp", "ANP3");
    unsigned char tail[80] = { 1, 2, 3 };
    ak_prop_set_bytes(doc, &doc->props, "tail", tail, sizeof tail);
    ak_clip_add(doc, "nothing");
    ak_doc_free(same_through_glb(reg, doc));
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* Non-finite float properties go into the extras as the words "nan",
 * "inf" and "-inf" (JSON has no literal for them) and come back bit for
 * bit, on the document, a clip and a track. */
START_TEST(test_nonfinite_props)
{
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    ak_doc_set_format(doc, "ifp", "ANP3");
    ak_clip *clip = ak_clip_add(doc, "odd");
    ak_track *track = ak_track_add(clip, "b");
    ak_props *lists[] = { &doc->props, &clip->props, &track->props };
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(ak_prop_set_float(doc, lists[i], "nan", NAN), AK_OK);
        ck_assert_int_eq(ak_prop_set_float(doc, lists[i], "inf", INFINITY), AK_OK);
        ck_assert_int_eq(ak_prop_set_float(doc, lists[i], "minus_inf", -INFINITY), AK_OK);
        ck_assert_int_eq(ak_prop_set_string(doc, lists[i], "word", "inf"), AK_OK); /* a string stays one */
    }
    ak_doc *back = same_through_glb(reg, doc);
    const ak_prop *p = ak_prop_get(&back->clips[0]->tracks[0]->props, "minus_inf");
    ck_assert(p && p->type == AK_PROP_FLOAT && isinf(p->f) && p->f < 0);
    ak_doc_free(back);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* Found by fuzz_probe_all: two tracks of one bone in a clip; the second
 * lives in extras only, its times given by ticks (tick / tick_rate). */
START_TEST(test_same_bone_twice)
{
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    ak_doc_set_format(doc, "ifp", "ANP3");
    ak_clip *c = ak_clip_add(doc, "twice");
    c->tick_rate = 60;
    c->duration = 0.5;
    for (int t = 0; t < 2; t++) {
        ak_track *tr = ak_track_add(c, "Spine");
        for (int k = 0; k < 3; k++) {
            ak_key *key = ak_key_add(tr, AK_ROTATION);
            key->tick = 10 * k + t;
            key->time = (double)key->tick / 60;
            key->v[2] = 0.1 * k * (t + 1);
            key->v[3] = 1;
        }
    }
    ak_doc_free(same_through_glb(reg, doc));
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* Node "matrix" forms: the rest rotation is the matrix's rotation without
 * its per-axis scale, with w >= 0 (a matrix does not know q from -q); the
 * values are Rodrigues' z-rotation matrices written here. */
START_TEST(test_matrix_nodes)
{
    const double angle[2] = { 0.5, 4.0 }, scale[3] = { 2, 3, 0.5 };
    char m[2][400];
    for (int b = 0; b < 2; b++) {
        double c = cos(angle[b]), s = sin(angle[b]);
        double col[3][3] = { { c, s, 0 }, { -s, c, 0 }, { 0, 0, 1 } }; /* R_z columns */
        int at = 0;
        for (int k = 0; k < 3; k++) /* column-major 4x4: a column, then its 0 */
            at += snprintf(m[b] + at, sizeof m[b] - (size_t)at, "%.17g,%.17g,%.17g,0,", col[k][0] * scale[k],
                           col[k][1] * scale[k], col[k][2] * scale[k]);
        snprintf(m[b] + at, sizeof m[b] - (size_t)at, "%s", b == 0 ? "1,2,3,1" : "0,0.5,0,1");
    }
    char json[2048];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},"
             "\"nodes\":[{\"name\":\"Pelvis\",\"matrix\":[%s],\"children\":[1]},"
             "{\"name\":\"Spine\",\"matrix\":[%s]}],"
             "\"skins\":[{\"joints\":[0,1]}]}",
             m[0], m[1]);
    size_t n;
    unsigned char *glb = make_glb(json, NULL, 0, &n);
    ak_registry *reg = registry();
    const char *params[] = { "up=y", NULL };
    ak_doc *doc = NULL;
    ak_report rep;
    ck_assert_msg(read_with(reg, glb, n, params, &doc, &rep) == AK_OK, "%s", rep.message);
    ck_assert_uint_eq(doc->skeleton.bone_count, 2);
    const ak_bone *pelvis = &doc->skeleton.bones[0], *spine = &doc->skeleton.bones[1];
    const double want[2][4] = { { 0, 0, sin(0.25), cos(0.25) }, { 0, 0, -sin(2.0), -cos(2.0) } };
    for (int c = 0; c < 4; c++) {
        ck_assert_msg(fabs(pelvis->rotation[c] - want[0][c]) < 1e-15, "pelvis %d: %.17g", c, pelvis->rotation[c]);
        ck_assert_msg(fabs(spine->rotation[c] - want[1][c]) < 1e-15, "spine %d: %.17g", c, spine->rotation[c]);
    }
    ck_assert(pelvis->translation[0] == 1 && pelvis->translation[1] == 2 && pelvis->translation[2] == 3);
    ck_assert(spine->translation[1] == 0.5);
    for (int c = 0; c < 3; c++)
        ck_assert_msg(fabs(pelvis->scale[c] - scale[c]) < 1e-15, "scale %d: %.17g", c, pelvis->scale[c]);
    ak_doc_free(doc);
    free(glb);
    ak_registry_free(reg);
}
END_TEST

START_TEST(test_probe)
{
    const ak_codec *c = gltf_codec();
    ck_assert_int_eq(c->probe((const unsigned char *)"glTF\2\0\0\0\0\0\0\0", 12, NULL), AK_PROBE_MAGIC);
    ck_assert_int_gt(c->probe((const unsigned char *)" {\"asset\":{}}", 13, NULL), AK_PROBE_EXTENSION);
    ck_assert_int_eq(c->probe((const unsigned char *)"{\"animkit\":1}", 13, NULL), 0);
    ck_assert_int_eq(c->probe((const unsigned char *)"xx", 2, "a.GLB"), AK_PROBE_EXTENSION);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gltf");
    TCase *tc = tcase_create("gltf");
    tcase_add_test(tc, test_handmade_roundtrip);
    tcase_add_test(tc, test_container_and_times);
    tcase_add_test(tc, test_accessor_forms);
    tcase_add_test(tc, test_blender_shaped);
    tcase_add_test(tc, test_edit_detected);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_bad_accessors);
    tcase_add_test(tc, test_foreign_visibility_and_targets);
    tcase_add_test(tc, test_external_bin);
    tcase_add_test(tc, test_mirrored_bone);
    tcase_add_test(tc, test_blob_without_keys);
    tcase_add_test(tc, test_nonfinite_props);
    tcase_add_test(tc, test_same_bone_twice);
    tcase_add_test(tc, test_probe);
    tcase_add_test(tc, test_matrix_nodes);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
