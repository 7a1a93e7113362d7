/* test_ani.c - the io3DEngine (Lost Saga) .ani plugin.
 *
 * Expected values come from /work/shared/formats/ani.md (layout, §7/§8
 * packing rules, §9 error bounds, §10 test vectors, §12 corpus facts), from
 * this file's own encoder and decoder written from that sheet, and from
 * round trips. */
#include "testutil.h"
#include "../../plugins/ani/ani.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORPUS_FILE "ani/lights_camera_action_100fps_w_music.ani"

/* ------------------------------------------------------------------------
 * Helpers: a byte builder, a PRNG, the test's own packers.
 * ------------------------------------------------------------------------ */
typedef struct bb {
    unsigned char *p;
    size_t n, cap;
} bb;

static void bb_put(bb *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        ck_assert(b->p != NULL);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void bb_u32(bb *b, uint32_t v)
{
    unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                           (unsigned char)(v >> 24) };
    bb_put(b, x, 4);
}

static void bb_f32(bb *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    bb_u32(b, u);
}

static void bb_str(bb *b, const char *s) { bb_u32(b, (uint32_t)strlen(s)); bb_put(b, s, strlen(s)); }

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bitsf(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t rng_state;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double rnd01(void) { return (double)(rng() >> 11) * (1.0 / 9007199254740992.0); }

/* A uniformly random unit quaternion, rounded to float. */
static void rand_quat(float q[4])
{
    double v[4], n;
    do {
        n = 0;
        for (int i = 0; i < 4; i++) {
            v[i] = rnd01() * 2 - 1;
            n += v[i] * v[i];
        }
    } while (n > 1 || n < 1e-4);
    n = sqrt(n);
    for (int i = 0; i < 4; i++)
        q[i] = (float)(v[i] / n);
}

/* The test's own packers, written from the fact sheet §7 and §8. */
static void t_normalize(const float in[4], float o[4])
{
    float s = in[0] * in[0];
    s += in[1] * in[1];
    s += in[2] * in[2];
    s += in[3] * in[3];
    float len = sqrtf(s);
    for (int i = 0; i < 4; i++)
        o[i] = in[i] / len;
}

static uint32_t t_enc4001(const float qin[4])
{
    float q[4];
    t_normalize(qin, q);
    int m = 0;
    float best = fabsf(q[0]);
    for (int i = 1; i < 4; i++)
        if (fabsf(q[i]) > best) {
            best = fabsf(q[i]);
            m = i;
        }
    float sign = q[m] < 0 ? -1.0f : 1.0f;
    uint32_t fields[3];
    int k = 0;
    for (int i = 0; i < 4; i++) {
        if (i == m)
            continue;
        float v = q[i] * sign;
        float scaled = ((v + 1.0f) * 0.5f) * 1023.0f;
        int n = (int)scaled;
        fields[k++] = (uint32_t)(n < 0 ? 0 : n > 1023 ? 1023 : n);
    }
    return (uint32_t)m << 30 | fields[0] << 20 | fields[1] << 10 | fields[2];
}

static void t_dec4001(uint32_t w, float q[4])
{
    unsigned m = w >> 30;
    float a = ((float)((w >> 20) & 0x3FF) / 1023.0f) * 2.0f - 1.0f;
    float b = ((float)((w >> 10) & 0x3FF) / 1023.0f) * 2.0f - 1.0f;
    float c = ((float)(w & 0x3FF) / 1023.0f) * 2.0f - 1.0f;
    float big = sqrtf(1.0f - (a * a + b * b + c * c));
    float vals[3] = { a, b, c };
    for (unsigned i = 0, j = 0; i < 4; i++)
        q[i] = i == m ? big : vals[j++];
}

static void t_enc4002(const float qin[4], uint32_t *w1, uint32_t *w2)
{
    float q[4];
    t_normalize(qin, q);
    if (q[3] < 0)
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
    uint32_t n[4];
    for (int i = 0; i < 3; i++) {
        uint32_t u = (uint32_t)(int)(((q[i] + 1.0f) * 0.5f) * 65535.0f);
        n[i] = u > 65535u ? 65535u : u;
    }
    uint32_t u = (uint32_t)(int)(q[3] * 65535.0f);
    n[3] = u > 65535u ? 65535u : u;
    *w1 = n[0] << 16 | n[1];
    *w2 = n[2] << 16 | n[3];
}

static void t_dec4002(uint32_t w1, uint32_t w2, float q[4])
{
    float k = bitsf(0x37800080u);
    q[0] = ((float)(w1 >> 16) * k) * 2.0f - 1.0f;
    q[1] = ((float)(w1 & 0xFFFF) * k) * 2.0f - 1.0f;
    q[2] = ((float)(w2 >> 16) * k) * 2.0f - 1.0f;
    q[3] = (float)(w2 & 0xFFFF) * k;
}

/* Angle in degrees between the rotations of two (not necessarily unit)
 * quaternions. */
static double angle_deg(const double a[4], const double b[4])
{
    double d = 0, na = 0, nb = 0;
    for (int i = 0; i < 4; i++) {
        d += a[i] * b[i];
        na += a[i] * a[i];
        nb += b[i] * b[i];
    }
    d = fabs(d) / sqrt(na * nb);
    if (d > 1)
        d = 1;
    return 2 * acos(d) * 180.0 / M_PI;
}

static ak_registry *registry(void)
{
    const ak_codec *codecs[] = { ani_codec(), NULL };
    return ak_test_registry(codecs);
}

static unsigned char *write_variant(const ak_registry *reg, const ak_doc *doc, const char *variant,
                                    size_t *size, ak_report *rep)
{
    char param[32] = "";
    if (variant)
        snprintf(param, sizeof param, "variant=%s", variant);
    const char *params[] = { param, NULL };
    ak_options o = { sizeof o, "ani", NULL, variant ? params : NULL, 0, 0 };
    unsigned char *out = NULL;
    ak_status st = ak_write(reg, doc, &o, &out, size, rep);
    ck_assert_msg(st == AK_OK, "write variant %s failed: %s", variant ? variant : "-", rep->message);
    return out;
}

/* A synthetic file: `tracks` tracks of `keys` keys; rotations random unit
 * quaternions packed by the test's own encoders; positions and times
 * derived from the indices. q_out (tracks*keys*4 floats) receives the
 * input quaternions. */
static unsigned char *synth(int version, int tracks, int keys, float *q_out, size_t *size)
{
    bb b = { 0 };
    bb_put(&b, "ANI\0", 4);
    bb_u32(&b, (uint32_t)version);
    bb_u32(&b, 0); /* events */
    bb_u32(&b, (uint32_t)(keys ? (keys - 1) * 33 : 0));
    bb_u32(&b, (uint32_t)tracks);
    for (int t = 0; t < tracks; t++) {
        char name[32];
        snprintf(name, sizeof name, "Bone %d", t);
        bb_str(&b, name);
        bb_f32(&b, 1.0f);
        bb_u32(&b, (uint32_t)keys);
        for (int k = 0; k < keys; k++) {
            float q[4];
            rand_quat(q);
            if (q_out)
                memcpy(q_out + 4 * (t * keys + k), q, sizeof q);
            if (version == 4000) {
                for (int c = 0; c < 4; c++)
                    bb_f32(&b, q[c]);
            } else if (version == 4001) {
                bb_u32(&b, t_enc4001(q));
            } else {
                uint32_t w1, w2;
                t_enc4002(q, &w1, &w2);
                bb_u32(&b, w1);
                bb_u32(&b, w2);
            }
            bb_f32(&b, (float)t * 0.25f);
            bb_f32(&b, (float)k * -1.5f);
            bb_f32(&b, 3.0f);
            bb_u32(&b, (uint32_t)(k * 33));
        }
    }
    *size = b.n;
    return b.p;
}

typedef struct bad_case {
    ak_status st;
    int64_t offset;
    char text[512];
    unsigned warnings;
} bad_case;

static ak_status try_read(const ak_registry *reg, const unsigned char *bytes, size_t size, bad_case *bc)
{
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, "ani", "test.ani", NULL, 0, 0 };
    ak_status st = ak_read(reg, bytes, size, &o, &doc, &rep);
    if (st == AK_OK)
        ck_assert(doc != NULL);
    else
        ck_assert(doc == NULL);
    ak_doc_free(doc);
    if (bc) {
        bc->st = st;
        bc->offset = rep.offset;
        snprintf(bc->text, sizeof bc->text, "%s", rep.text);
        bc->warnings = rep.warnings;
    }
    return st;
}

static void expect_clean_error(const ak_registry *reg, const unsigned char *bytes, size_t size,
                               ak_status want, const char *what)
{
    bad_case bc;
    ak_status st = try_read(reg, bytes, size, &bc);
    ck_assert_msg(st == want, "%s: status %s, want %s (%s)", what, ak_status_name(st), ak_status_name(want),
                  bc.text);
    ck_assert_msg(bc.offset >= 0 && (size_t)bc.offset <= size, "%s: error without a valid offset (%lld): %s",
                  what, (long long)bc.offset, bc.text);
}

/* ------------------------------------------------------------------------
 * Probe.
 * ------------------------------------------------------------------------ */
START_TEST(t_probe)
{
    const ak_codec *c = ani_codec();
    ck_assert_int_eq(c->probe((const unsigned char *)"ANI\0\xa0\x0f\0\0", 8, NULL), AK_PROBE_MAGIC);
    ck_assert_int_eq(c->probe((const unsigned char *)"ANI\0", 4, "x.bin"), AK_PROBE_MAGIC);
    ck_assert_int_eq(c->probe((const unsigned char *)"ANIX", 4, NULL), 0);
    ck_assert_int_eq(c->probe((const unsigned char *)"AN", 2, NULL), 0);
    ck_assert_int_le(c->probe((const unsigned char *)"xxxx", 4, "a/b.ANI"), AK_PROBE_EXTENSION);
    ck_assert_int_gt(c->probe((const unsigned char *)"xxxx", 4, "a/b.ani"), 0);
    ck_assert_int_eq(c->probe((const unsigned char *)"RIFF", 4, "cursor.ani"), 0);
    ck_assert_int_eq(c->probe((const unsigned char *)"xxxx", 4, "b.anim"), 0);
    ck_assert_str_eq(c->name, "ani");
    ck_assert(c->caps == (AK_CAP_TRANSLATION | AK_CAP_EVENTS | AK_CAP_WEIGHT | AK_CAP_BONE_NAME));
}
END_TEST

/* ------------------------------------------------------------------------
 * §10 test vectors.
 * ------------------------------------------------------------------------ */
static const struct {
    float q[4];
    uint32_t w4001, w1, w2;
} vectors[] = {
    { { 0, 0, 0, 1 }, 0xDFF7FDFFu, 0x7FFF7FFFu, 0x7FFFFFFFu },
    { { 0, 0, 0, -1 }, 0xDFF7FDFFu, 0x7FFF7FFFu, 0x7FFFFFFFu },
    { { 0, 0.70710623f, 0, 0.70710731f }, 0xDFFDA5FFu, 0x7FFFDA81u, 0x7FFFB504u },
    { { 0.5f, 0.5f, 0.5f, 0.5f }, 0x2FFBFEFFu, 0xBFFFBFFFu, 0xBFFF7FFFu },
    { { 0.5f, -0.5f, 0.5f, -0.5f }, 0x0FFBFCFFu, 0x3FFFBFFFu, 0x3FFF7FFFu },
};
#define NVEC (sizeof vectors / sizeof vectors[0])

START_TEST(t_vectors_encode)
{
    for (size_t i = 0; i < NVEC; i++) {
        uint32_t w1, w2;
        ck_assert_uint_eq(ani_encode_4001(vectors[i].q), vectors[i].w4001);
        ani_encode_4002(vectors[i].q, &w1, &w2);
        ck_assert_uint_eq(w1, vectors[i].w1);
        ck_assert_uint_eq(w2, vectors[i].w2);
        /* the test's own encoder agrees with the sheet too */
        ck_assert_uint_eq(t_enc4001(vectors[i].q), vectors[i].w4001);
        t_enc4002(vectors[i].q, &w1, &w2);
        ck_assert_uint_eq(w1, vectors[i].w1);
        ck_assert_uint_eq(w2, vectors[i].w2);
    }
}
END_TEST

START_TEST(t_vectors_decode)
{
    float q[4];
    ani_decode_4001(0xDFF7FDFFu, q);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(fbits(q[i]), 0xBA802000u);
    ck_assert_uint_eq(fbits(q[3]), 0x3F7FFFE8u);
    ck_assert(fabs(q[0] - -0.000977516174) < 1e-12 && fabs(q[3] - 0.999998569) < 1e-9);
    ani_decode_4001(0xC0000000u, q);
    ck_assert(q[0] == -1.0f && q[1] == -1.0f && q[2] == -1.0f);
    ck_assert(isnan(q[3]));
    ani_decode_4002(0x7FFF7FFFu, 0x7FFFFFFFu, q);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(fbits(q[i]), fbits(-1.52587891e-05f));
    ck_assert(q[3] == 1.0f);
    ani_decode_4002(0, 0, q);
    ck_assert(q[0] == -1.0f && q[1] == -1.0f && q[2] == -1.0f && q[3] == 0.0f);
    /* the index of the omitted component: m = 0 -> y, z, w stored */
    ani_decode_4001(0x2FFBFEFFu, q);
    float t[4];
    t_dec4001(0x2FFBFEFFu, t);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(fbits(q[i]), fbits(t[i]));
    ck_assert(q[0] > 0.49f && q[0] < 0.51f);
}
END_TEST

/* The vectors through the whole write path: a document built by hand. */
START_TEST(t_vectors_via_write)
{
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "v");
    clip->duration = 0.04;
    ak_track *t = ak_track_add(clip, "Bip01");
    for (size_t i = 0; i < NVEC; i++) {
        ak_key *k = ak_key_add(t, AK_ROTATION);
        k->time = (double)i / 100.0;
        for (int c = 0; c < 4; c++)
            k->v[c] = vectors[i].q[c];
        k = ak_key_add(t, AK_TRANSLATION);
        k->time = (double)i / 100.0;
        k->v[0] = 1.5;
    }
    const char *variants[] = { "4001", "4002", NULL };
    for (int v = 0; v < 3; v++) {
        ak_report rep = { 0 };
        size_t n;
        unsigned char *out = write_variant(reg, doc, variants[v], &n, &rep);
        int version = v == 0 ? 4001 : v == 1 ? 4002 : 4000; /* default for a foreign doc: 4000 */
        size_t rot = version == 4000 ? 16 : version == 4001 ? 4 : 8;
        ck_assert_uint_eq(rd32(out + 4), (uint32_t)version);
        /* header 4+4, events 4, total 4, tracks 4, name 4+5, weight 4, count 4 */
        size_t off = 4 + 4 + 4 + 4 + 4 + 4 + 5 + 4 + 4;
        ck_assert_uint_eq(n, off + NVEC * (rot + 16));
        ck_assert_uint_eq(rd32(out + 12), 40);           /* total: 0.04 s */
        ck_assert_uint_eq(rd32(out + off - 8), 0x3F800000u); /* weight 1.0 */
        ck_assert_uint_eq(rd32(out + off - 4), NVEC);
        for (size_t i = 0; i < NVEC; i++) {
            const unsigned char *k = out + off + i * (rot + 16);
            if (version == 4001) {
                ck_assert_uint_eq(rd32(k), vectors[i].w4001);
            } else if (version == 4002) {
                ck_assert_uint_eq(rd32(k), vectors[i].w1);
                ck_assert_uint_eq(rd32(k + 4), vectors[i].w2);
                ck_assert(k[0] == (vectors[i].w1 & 0xFF)); /* y-lo first */
            } else {
                for (int c = 0; c < 4; c++)
                    ck_assert_uint_eq(rd32(k + 4 * c), fbits(vectors[i].q[c]));
            }
            ck_assert_uint_eq(rd32(k + rot), fbits(1.5f));
            ck_assert_uint_eq(rd32(k + rot + 12), (uint32_t)(i * 10));
        }
        ak_buffer_free(reg, out);
    }
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* ------------------------------------------------------------------------
 * The corpus file.
 * ------------------------------------------------------------------------ */
START_TEST(t_corpus)
{
    size_t size;
    unsigned char *bytes = ak_test_corpus_file(CORPUS_FILE, &size);
    if (!bytes)
        return;
    ak_registry *reg = registry();
    ak_doc *doc = ak_test_read(reg, bytes, size, CORPUS_FILE);
    ck_assert_str_eq(doc->format, "ani");
    ck_assert_str_eq(doc->variant, "4000");
    ck_assert_uint_eq(doc->clip_count, 1);
    ak_clip *clip = doc->clips[0];
    ck_assert_str_eq(clip->name, "lights_camera_action_100fps_w_music");
    ck_assert_uint_eq(clip->track_count, 52);
    ak_doc_stats s;
    ak_doc_stats_get(doc, &s);
    ck_assert_uint_eq(s.keys[AK_ROTATION], 11602);
    ck_assert_uint_eq(s.keys[AK_TRANSLATION], 11602);
    ck_assert_uint_eq(s.keys[AK_SCALE], 0);
    ck_assert_uint_eq(clip->event_count, 1);
    ck_assert_str_eq(clip->events[0].type, "motion_sound");
    ck_assert_str_eq(clip->events[0].info, "emotion/lights_camera_action.wav");
    ck_assert(clip->events[0].time == 0.0);
    ck_assert_int_eq(ak_prop_int(&clip->props, ANI_PROP_TOTAL, -1), 18100);
    ck_assert(clip->duration == 18.1);
    ck_assert(clip->tick_rate == 1000.0);
    ck_assert_str_eq(clip->tracks[0]->bone, "Bip01");
    ck_assert_str_eq(clip->tracks[1]->bone, "Bip01 Pelvis");
    size_t lo = SIZE_MAX, hi = 0, nonunit = 0, negw = 0;
    for (size_t i = 0; i < clip->track_count; i++) {
        const ak_track *t = clip->tracks[i];
        ck_assert(t->weight == 1.0);
        size_t n = t->channel[AK_ROTATION].count;
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
        for (size_t k = 0; k < n; k++) {
            const ak_key *r = &t->channel[AK_ROTATION].keys[k];
            ck_assert_int_eq(r->tick, t->channel[AK_TRANSLATION].keys[k].tick);
            ck_assert(r->time == (double)r->tick / 1000.0);
            ck_assert_int_eq(r->tick % 10, 0);
            if (k)
                ck_assert_int_gt(r->tick, t->channel[AK_ROTATION].keys[k - 1].tick);
            else
                ck_assert_int_eq(r->tick, 10);
            double norm = sqrt(r->v[0] * r->v[0] + r->v[1] * r->v[1] + r->v[2] * r->v[2] + r->v[3] * r->v[3]);
            nonunit += fabs(norm - 1.0) > 1e-3;
            negw += r->v[3] < 0;
            ck_assert(norm > 0.79 && norm < 1.01);
        }
    }
    /* §12: the total equals the last key; three distinct key-time sets */
    int64_t last = 0;
    size_t distinct = 0;
    for (size_t i = 0; i < clip->track_count; i++) {
        const ak_channel *ci = &clip->tracks[i]->channel[AK_ROTATION];
        last = ci->keys[ci->count - 1].tick > last ? ci->keys[ci->count - 1].tick : last;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            const ak_channel *cj = &clip->tracks[j]->channel[AK_ROTATION];
            if (cj->count != ci->count)
                continue;
            seen = 1;
            for (size_t k = 0; k < ci->count && seen; k++)
                seen = ci->keys[k].tick == cj->keys[k].tick;
        }
        distinct += !seen;
    }
    ck_assert_int_eq(last, 18100);
    ck_assert_uint_eq(distinct, 3);
    ck_assert_uint_eq(lo, 223);
    ck_assert_uint_eq(hi, 226);
    ck_assert_uint_eq(nonunit, 126); /* §12 */
    ck_assert_uint_eq(negw, 589);
    /* The first key, decoded by hand from the bytes: event block ends at
     * 12 + 4+12 + 4+32 + 4 = 68; total, track count, "Bip01", weight, count. */
    ck_assert_uint_eq(rd32(bytes + 68), 18100);
    ck_assert_uint_eq(rd32(bytes + 72), 52);
    size_t key0 = 76 + 4 + 5 + 4 + 4;
    const ak_key *r0 = &clip->tracks[0]->channel[AK_ROTATION].keys[0];
    const ak_key *p0 = &clip->tracks[0]->channel[AK_TRANSLATION].keys[0];
    for (int c = 0; c < 4; c++)
        ck_assert(r0->v[c] == (double)bitsf(rd32(bytes + key0 + 4 * c)));
    ck_assert(r0->v[1] == (double)0.70710623f);
    for (int c = 0; c < 3; c++)
        ck_assert(p0->v[c] == (double)bitsf(rd32(bytes + key0 + 16 + 4 * c)));
    ck_assert_uint_eq(rd32(bytes + key0 + 28), 10);

    size_t n;
    unsigned char *out = ak_test_write(reg, doc, "ani", &n);
    ck_assert(ak_test_same_bytes(bytes, size, out, n, "corpus round trip"));
    ak_buffer_free(reg, out);
    /* a clone writes the same bytes */
    ak_doc *copy = ak_doc_clone(doc);
    out = ak_test_write(reg, copy, "ani", &n);
    ck_assert(ak_test_same_bytes(bytes, size, out, n, "clone round trip"));
    ak_buffer_free(reg, out);
    ak_doc_free(copy);
    /* explicitly asking for the stored version changes nothing */
    ak_report rep = { 0 };
    out = write_variant(reg, doc, "4000", &n, &rep);
    ck_assert(ak_test_same_bytes(bytes, size, out, n, "variant=4000 round trip"));
    ck_assert_uint_eq(rep.warnings, 0);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(bytes);
}
END_TEST

/* Edits on the corpus: only the edited values change. */
START_TEST(t_corpus_edits)
{
    size_t size;
    unsigned char *bytes = ak_test_corpus_file(CORPUS_FILE, &size);
    if (!bytes)
        return;
    ak_registry *reg = registry();
    ak_doc *doc = ak_test_read(reg, bytes, size, CORPUS_FILE);
    ak_clip *clip = doc->clips[0];
    /* event time 0 -> 0.5 s: stored as 500.0f at offset 64 */
    clip->events[0].time = 0.5;
    /* duration -> 20 s: total 20000 at offset 68 */
    clip->duration = 20.0;
    /* first key's position x -> 2.0 */
    clip->tracks[0]->channel[AK_TRANSLATION].keys[0].v[0] = 2.0;
    /* weight of the second track -> 0.25 */
    clip->tracks[1]->weight = 0.25;
    size_t n;
    unsigned char *out = ak_test_write(reg, doc, "ani", &n);
    ck_assert_uint_eq(n, size);
    size_t key0 = 76 + 4 + 5 + 4 + 4;
    size_t weight1 = key0 + 226 * 32 + 4 + strlen("Bip01 Pelvis");
    ck_assert_uint_eq(rd32(out + 64), fbits(500.0f));
    ck_assert_uint_eq(rd32(out + 68), 20000);
    ck_assert_uint_eq(rd32(out + key0 + 16), fbits(2.0f));
    ck_assert_uint_eq(rd32(out + weight1), fbits(0.25f));
    size_t diffs = 0;
    for (size_t i = 0; i < n; i++)
        diffs += out[i] != bytes[i];
    ck_assert_uint_le(diffs, 16);
    wr32(out + 64, rd32(bytes + 64));
    wr32(out + 68, rd32(bytes + 68));
    wr32(out + key0 + 16, rd32(bytes + key0 + 16));
    wr32(out + weight1, rd32(bytes + weight1));
    ck_assert(ak_test_same_bytes(bytes, size, out, n, "edited corpus, edits undone"));
    ak_buffer_free(reg, out);
    /* a time-only edit of one key keeps its stored rotation and position */
    ak_key *rk = &clip->tracks[0]->channel[AK_ROTATION].keys[0];
    ak_key *pk = &clip->tracks[0]->channel[AK_TRANSLATION].keys[0];
    rk->time = pk->time = 0.005;
    out = ak_test_write(reg, doc, "ani", &n);
    ck_assert_uint_eq(rd32(out + key0 + 28), 5);
    ck_assert(memcmp(out + key0, bytes + key0, 16) == 0);
    ak_buffer_free(reg, out);
    /* an added event is written after the stored one */
    ck_assert(ak_event_add(clip, 1.25, "effect", "x") != NULL);
    out = ak_test_write(reg, doc, "ani", &n);
    ck_assert_uint_eq(n, size + 4 + 6 + 4 + 1 + 4);
    ck_assert_uint_eq(rd32(out + 8), 2);
    ck_assert_uint_eq(rd32(out + 68), 6);
    ck_assert(memcmp(out + 72, "effect", 6) == 0);
    ck_assert_uint_eq(rd32(out + 72 + 6 + 4 + 1), fbits(1250.0f));
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(bytes);
}
END_TEST

/* Corpus (4000) -> 4001 and 4002 -> read back: within the sheet's bounds. */
START_TEST(t_corpus_convert)
{
    size_t size;
    unsigned char *bytes = ak_test_corpus_file(CORPUS_FILE, &size);
    if (!bytes)
        return;
    ak_registry *reg = registry();
    ak_doc *doc = ak_test_read(reg, bytes, size, CORPUS_FILE);
    const char *variants[] = { "4001", "4002" };
    const double bound[] = { 0.68, 0.0062 };
    for (int v = 0; v < 2; v++) {
        ak_report rep = { 0 };
        size_t n;
        unsigned char *out = write_variant(reg, doc, variants[v], &n, &rep);
        ck_assert_uint_eq(n, size - 11602 * (v == 0 ? 12 : 8));
        ak_doc *back = ak_test_read(reg, out, n, "converted.ani");
        ck_assert_str_eq(back->variant, variants[v]);
        const ak_clip *a = doc->clips[0], *b = back->clips[0];
        ck_assert_uint_eq(b->track_count, a->track_count);
        ck_assert_uint_eq(b->event_count, 1);
        ck_assert_str_eq(b->events[0].info, a->events[0].info);
        ck_assert_int_eq(ak_prop_int(&b->props, ANI_PROP_TOTAL, -1), 18100);
        double worst = 0;
        for (size_t t = 0; t < a->track_count; t++) {
            const ak_channel *ra = &a->tracks[t]->channel[AK_ROTATION];
            const ak_channel *rb = &b->tracks[t]->channel[AK_ROTATION];
            const ak_channel *pa = &a->tracks[t]->channel[AK_TRANSLATION];
            const ak_channel *pb = &b->tracks[t]->channel[AK_TRANSLATION];
            ck_assert_str_eq(b->tracks[t]->bone, a->tracks[t]->bone);
            ck_assert_uint_eq(rb->count, ra->count);
            for (size_t k = 0; k < ra->count; k++) {
                double e = angle_deg(ra->keys[k].v, rb->keys[k].v);
                worst = e > worst ? e : worst;
                ck_assert_int_eq(rb->keys[k].tick, ra->keys[k].tick);
                for (int c = 0; c < 3; c++)
                    ck_assert(pb->keys[k].v[c] == pa->keys[k].v[c]);
            }
        }
        printf("corpus -> %s: worst angle %.6f deg (bound %.4f)\n", variants[v], worst, bound[v]);
        ck_assert_msg(worst <= bound[v], "%s: %.6f deg", variants[v], worst);
        ck_assert(worst > 0);
        /* the converted file round-trips byte-identically in its new version */
        size_t n2;
        unsigned char *again = ak_test_write(reg, back, "ani", &n2);
        ck_assert(ak_test_same_bytes(out, n, again, n2, "converted round trip"));
        ak_buffer_free(reg, again);
        ak_doc_free(back);
        ak_buffer_free(reg, out);
    }
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(bytes);
}
END_TEST

/* ------------------------------------------------------------------------
 * Synthetic 4001/4002 files from the test's own encoder.
 * ------------------------------------------------------------------------ */
static void sweep(int version)
{
    rng_state = 0x9E3779B97F4A7C15ull ^ (uint64_t)version;
    enum { TRACKS = 20, KEYS = 500 };
    float *q = malloc(sizeof(float) * 4 * TRACKS * KEYS);
    ck_assert(q != NULL);
    size_t size;
    unsigned char *bytes = synth(version, TRACKS, KEYS, q, &size);
    ak_registry *reg = registry();
    ak_doc *doc = ak_test_read(reg, bytes, size, "sweep.ani");
    const ak_clip *clip = doc->clips[0];
    ck_assert_uint_eq(clip->track_count, TRACKS);
    size_t rot = version == 4001 ? 4 : 8;
    size_t off = 4 + 4 + 4 + 4 + 4, reencode_same = 0;
    for (size_t t = 0; t < TRACKS; t++) {
        const ak_track *tr = clip->tracks[t];
        off += 4 + rd32(bytes + off) + 8;
        ck_assert_uint_eq(tr->channel[AK_ROTATION].count, KEYS);
        for (size_t k = 0; k < KEYS; k++, off += rot + 16) {
            const ak_key *rk = &tr->channel[AK_ROTATION].keys[k];
            float d[4];
            if (version == 4001)
                t_dec4001(rd32(bytes + off), d);
            else
                t_dec4002(rd32(bytes + off), rd32(bytes + off + 4), d);
            for (int c = 0; c < 4; c++)
                ck_assert_uint_eq(fbits((float)rk->v[c]), fbits(d[c]));
            ck_assert(memcmp(rk->raw, bytes + off, rot) == 0);
            /* would a naive decode -> encode reproduce the word? (§9: not always) */
            if (version == 4001)
                reencode_same += t_enc4001(d) == rd32(bytes + off);
            else {
                uint32_t w1, w2;
                t_enc4002(d, &w1, &w2);
                reencode_same += w1 == rd32(bytes + off) && w2 == rd32(bytes + off + 4);
            }
            ck_assert_int_eq(rk->tick, (int64_t)k * 33);
        }
    }
    ck_assert_uint_eq(off, size);
    printf("%d: naive re-encode reproduces %.1f%% of words\n", version,
           100.0 * (double)reencode_same / (TRACKS * KEYS));
    ck_assert_uint_lt(reencode_same, TRACKS * KEYS); /* the sweep exercises unstable words */
    size_t n;
    unsigned char *out = ak_test_write(reg, doc, "ani", &n);
    ck_assert(ak_test_same_bytes(bytes, size, out, n, "synthetic round trip"));
    ak_buffer_free(reg, out);

    /* The same quaternions in a hand-built document, encoded by the plugin:
     * identical to the test's encoder, byte for byte. */
    ak_doc *hand = ak_doc_new();
    ak_clip *hc = ak_clip_add(hand, "hand");
    hc->duration = (KEYS - 1) * 0.033;
    for (int t = 0; t < TRACKS; t++) {
        char name[32];
        snprintf(name, sizeof name, "Bone %d", t);
        ak_track *tr = ak_track_add(hc, name);
        for (int k = 0; k < KEYS; k++) {
            ak_key *rk = ak_key_add(tr, AK_ROTATION);
            rk->time = k * 0.033;
            for (int c = 0; c < 4; c++)
                rk->v[c] = q[4 * (t * KEYS + k) + c];
            ak_key *pk = ak_key_add(tr, AK_TRANSLATION);
            pk->time = k * 0.033;
            pk->v[0] = (float)t * 0.25f;
            pk->v[1] = (float)k * -1.5f;
            pk->v[2] = 3.0;
        }
    }
    ak_report rep = { 0 };
    out = write_variant(reg, hand, version == 4001 ? "4001" : "4002", &n, &rep);
    ck_assert(ak_test_same_bytes(bytes, size, out, n, "plugin encoder vs test encoder"));
    ck_assert_uint_eq(rep.warnings, 0);
    ak_buffer_free(reg, out);

    /* Edit one rotation: only its word changes, to the engine encoding. */
    ak_track *t3 = doc->clips[0]->tracks[3];
    ak_key *ek = &t3->channel[AK_ROTATION].keys[7];
    float nq[4] = { 0.5f, -0.5f, 0.5f, -0.5f };
    for (int c = 0; c < 4; c++)
        ek->v[c] = nq[c];
    out = ak_test_write(reg, doc, "ani", &n);
    ck_assert_uint_eq(n, size);
    size_t ko = 20;
    for (int t = 0; t < 3; t++)
        ko += 4 + strlen("Bone 0") + 8 + KEYS * (rot + 16);
    ko += 4 + strlen("Bone 3") + 8 + 7 * (rot + 16);
    if (version == 4001) {
        ck_assert_uint_eq(rd32(out + ko), 0x0FFBFCFFu);
    } else {
        ck_assert_uint_eq(rd32(out + ko), 0x3FFFBFFFu);
        ck_assert_uint_eq(rd32(out + ko + 4), 0x3FFF7FFFu);
    }
    memcpy(out + ko, bytes + ko, rot);
    ck_assert(ak_test_same_bytes(bytes, size, out, n, "one edited key"));
    ak_buffer_free(reg, out);

    /* A time-only edit keeps the stored word, even one that a decode ->
     * encode would change. */
    ak_track *t5 = doc->clips[0]->tracks[5];
    size_t k5 = KEYS;
    for (size_t k = 0; k < KEYS && k5 == KEYS; k++) {
        const ak_key *rk = &t5->channel[AK_ROTATION].keys[k];
        float d[4];
        for (int c = 0; c < 4; c++)
            d[c] = (float)rk->v[c];
        if (version == 4001) {
            if (t_enc4001(d) != rd32(rk->raw))
                k5 = k;
        } else {
            uint32_t w1, w2;
            t_enc4002(d, &w1, &w2);
            if (w1 != rd32(rk->raw) || w2 != rd32(rk->raw + 4))
                k5 = k;
        }
    }
    ck_assert_uint_lt(k5, KEYS);
    t5->channel[AK_ROTATION].keys[k5].time += 0.001;
    t5->channel[AK_TRANSLATION].keys[k5].time += 0.001;
    out = ak_test_write(reg, doc, "ani", &n);
    size_t k5o = 20;
    for (int t = 0; t < 5; t++)
        k5o += 4 + strlen("Bone 0") + 8 + KEYS * (rot + 16);
    k5o += 4 + strlen("Bone 5") + 8 + k5 * (rot + 16);
    ck_assert(memcmp(out + k5o, bytes + k5o, rot + 12) == 0);
    ck_assert_uint_eq(rd32(out + k5o + rot + 12), k5 * 33 + 1);
    ak_buffer_free(reg, out);

    /* Converting to 4000 writes the decoded floats exactly. */
    out = write_variant(reg, doc, "4000", &n, &rep);
    ak_doc *back = ak_test_read(reg, out, n, "as4000.ani");
    for (int t = 0; t < TRACKS; t++)
        for (int k = 0; k < KEYS; k++)
            for (int c = 0; c < 4; c++)
                ck_assert(back->clips[0]->tracks[t]->channel[AK_ROTATION].keys[k].v[c] ==
                          doc->clips[0]->tracks[t]->channel[AK_ROTATION].keys[k].v[c]);
    ak_doc_free(back);
    ak_buffer_free(reg, out);

    ak_doc_free(hand);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(bytes);
    free(q);
}

START_TEST(t_sweep_4001) { sweep(4001); }
END_TEST
START_TEST(t_sweep_4002) { sweep(4002); }
END_TEST

/* Every 4001 word whose decode is finite re-emits unchanged; and words
 * across the whole 32-bit space (every 4099th) through a file. */
START_TEST(t_raw_words_4001)
{
    ak_registry *reg = registry();
    bb b = { 0 };
    enum { N = 200000 };
    bb_put(&b, "ANI\0", 4);
    bb_u32(&b, 4001);
    bb_u32(&b, 0);
    bb_u32(&b, 0);
    bb_u32(&b, 1);
    bb_str(&b, "w");
    bb_f32(&b, 1.0f);
    bb_u32(&b, N);
    uint32_t w = 0x12345;
    for (int k = 0; k < N; k++, w += 21473u) {
        bb_u32(&b, w);
        bb_f32(&b, 0);
        bb_f32(&b, 0);
        bb_f32(&b, 0);
        bb_u32(&b, (uint32_t)k);
    }
    ak_doc *doc = ak_test_read(reg, b.p, b.n, "words.ani");
    size_t nan = 0;
    const ak_channel *ch = &doc->clips[0]->tracks[0]->channel[AK_ROTATION];
    for (size_t k = 0; k < ch->count; k++)
        nan += isnan(ch->keys[k].v[0]) || isnan(ch->keys[k].v[1]) || isnan(ch->keys[k].v[2]) ||
               isnan(ch->keys[k].v[3]);
    ck_assert(nan > N / 4 && nan < N * 3 / 4); /* §7: about 48% */
    size_t n;
    unsigned char *out = ak_test_write(reg, doc, "ani", &n);
    ck_assert(ak_test_same_bytes(b.p, b.n, out, n, "arbitrary 4001 words"));
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(b.p);
}
END_TEST

/* Encode error over many random unit quaternions (§9 bounds). */
START_TEST(t_error_bounds)
{
    rng_state = 0xA5A5A5A5DEADBEEFull;
    double worst1 = 0, worst2 = 0;
    for (int i = 0; i < 300000; i++) {
        float q[4], d[4];
        rand_quat(q);
        double qd[4], dd[4];
        for (int c = 0; c < 4; c++)
            qd[c] = q[c];
        uint32_t w = ani_encode_4001(q);
        ck_assert_uint_eq(w, t_enc4001(q));
        ani_decode_4001(w, d);
        for (int c = 0; c < 4; c++)
            dd[c] = d[c];
        double e = angle_deg(qd, dd);
        worst1 = e > worst1 ? e : worst1;
        uint32_t w1, w2, x1, x2;
        ani_encode_4002(q, &w1, &w2);
        t_enc4002(q, &x1, &x2);
        ck_assert(w1 == x1 && w2 == x2);
        ani_decode_4002(w1, w2, d);
        for (int c = 0; c < 4; c++)
            dd[c] = d[c];
        e = angle_deg(qd, dd);
        worst2 = e > worst2 ? e : worst2;
        /* the stored w of 4002 is never negative; 4001's omitted one neither */
        ck_assert(d[3] >= 0);
    }
    printf("max encode error: 4001 %.6f deg, 4002 %.6f deg\n", worst1, worst2);
    ck_assert(worst1 <= 0.68 && worst1 > 0.3);
    ck_assert(worst2 <= 0.0062 && worst2 > 0.003);
}
END_TEST

/* ------------------------------------------------------------------------
 * From another format: channels with different key times.
 * ------------------------------------------------------------------------ */
static void set_zrot(ak_key *k, double deg)
{
    double h = deg * M_PI / 360.0;
    k->v[0] = k->v[1] = 0;
    k->v[2] = sin(h);
    k->v[3] = cos(h);
}

START_TEST(t_merge_channels)
{
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    ck_assert_int_eq(ak_doc_set_format(doc, "other", ""), AK_OK);
    ak_clip *clip = ak_clip_add(doc, "m");
    clip->duration = 0.25;
    ak_track *t = ak_track_add(clip, "A");
    const double rt[] = { 0.0, 0.1, 0.2 }, ra[] = { 0, 60, 120 };
    const double pt[] = { 0.0, 0.15, 0.3 }, px[] = { 0, 3, 6 };
    for (int i = 0; i < 3; i++) {
        ak_key *k = ak_key_add(t, AK_ROTATION);
        k->time = rt[i];
        set_zrot(k, ra[i]);
        k = ak_key_add(t, AK_TRANSLATION);
        k->time = pt[i];
        k->v[0] = px[i];
    }
    ak_track *u = ak_track_add(clip, "B"); /* rotations only */
    u->weight = 0.5;
    for (int i = 0; i < 2; i++) {
        ak_key *k = ak_key_add(u, AK_ROTATION);
        k->time = i * 0.05;
        set_zrot(k, 10.0 * i);
    }
    ak_report rep = { 0 };
    size_t n;
    unsigned char *out = write_variant(reg, doc, NULL, &n, &rep);
    ck_assert_uint_ge(rep.warnings, 2);
    ck_assert_uint_eq(rd32(out + 4), 4000); /* default for a foreign doc */
    ak_doc *back = ak_test_read(reg, out, n, "merged.ani");
    ak_clip *bc = back->clips[0];
    /* total: max(duration 250 ms, last key 300 ms) */
    ck_assert_int_eq(ak_prop_int(&bc->props, ANI_PROP_TOTAL, -1), 300);
    const ak_channel *r = &bc->tracks[0]->channel[AK_ROTATION];
    const ak_channel *p = &bc->tracks[0]->channel[AK_TRANSLATION];
    const int64_t times[] = { 0, 100, 150, 200, 300 };
    const double angles[] = { 0, 60, 90, 120, 120 };
    const double xs[] = { 0, 2, 3, 4, 6 };
    ck_assert_uint_eq(r->count, 5);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(r->keys[i].tick, times[i]);
        ak_key want = { 0 };
        set_zrot(&want, angles[i]);
        ck_assert_msg(angle_deg(r->keys[i].v, want.v) < 1e-4, "key %d: %g deg off", i,
                      angle_deg(r->keys[i].v, want.v));
        ck_assert_msg(fabs(p->keys[i].v[0] - xs[i]) < 1e-6, "key %d: x %g", i, p->keys[i].v[0]);
    }
    const ak_track *bu = bc->tracks[1];
    ck_assert(bu->weight == 0.5);
    ck_assert_uint_eq(bu->channel[AK_TRANSLATION].count, 2);
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 3; c++)
            ck_assert(bu->channel[AK_TRANSLATION].keys[i].v[c] == 0.0);
    ak_doc_free(back);
    ak_buffer_free(reg, out);
    /* translations only: identity rotations, also in 4001 */
    ak_doc *d2 = ak_doc_new();
    ak_clip *c2 = ak_clip_add(d2, "p");
    ak_track *t2 = ak_track_add(c2, "P");
    ak_key *k2 = ak_key_add(t2, AK_TRANSLATION);
    k2->time = 0.0;
    k2->v[1] = 7;
    ak_report rep2 = { 0 };
    out = write_variant(reg, d2, "4001", &n, &rep2);
    ck_assert_uint_ge(rep2.warnings, 1);
    ck_assert_uint_eq(rd32(out + n - 20), 0xDFF7FDFFu);
    ck_assert_uint_eq(rd32(out + n - 12), fbits(7.0f));
    ak_buffer_free(reg, out);
    ak_doc_free(d2);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* Times that are not whole ms are rounded, with a warning; a hand-made
 * "ani" document without stored props still gets total >= last key; the
 * document's variant picks the version when no parameter does. */
START_TEST(t_rounding_and_variant)
{
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "r");
    ak_track *t = ak_track_add(clip, "A");
    for (int f = 0; f < 4; f++) {
        ak_key *k = ak_key_add(t, AK_ROTATION);
        k->time = f / 60.0;
        k = ak_key_add(t, AK_TRANSLATION);
        k->time = f / 60.0;
    }
    ak_report rep = { 0 };
    size_t n;
    unsigned char *out = write_variant(reg, doc, NULL, &n, &rep);
    ck_assert_uint_eq(rep.warnings, 1);
    const int32_t want[] = { 0, 17, 33, 50 };
    for (int f = 0; f < 4; f++)
        ck_assert_uint_eq(rd32(out + 33 + f * 32 + 28), (uint32_t)want[f]);
    ck_assert_uint_eq(rd32(out + 12), 50); /* duration 0, last key 50 ms */
    ak_buffer_free(reg, out);
    ck_assert_int_eq(ak_doc_set_format(doc, "ani", "4002"), AK_OK);
    memset(&rep, 0, sizeof rep);
    out = write_variant(reg, doc, NULL, &n, &rep);
    ck_assert_uint_eq(rd32(out + 4), 4002);
    ck_assert_uint_eq(rd32(out + 12), 50);
    ak_buffer_free(reg, out);
    /* a document read as 4000, retagged 4001, is written as 4001 */
    out = write_variant(reg, doc, "4000", &n, &rep);
    ck_assert_uint_eq(rd32(out + 4), 4000);
    ak_doc *back = ak_test_read(reg, out, n, "r.ani");
    ak_buffer_free(reg, out);
    ck_assert_int_eq(ak_doc_set_format(back, "ani", "4001"), AK_OK);
    out = ak_test_write(reg, back, "ani", &n);
    ck_assert_uint_eq(rd32(out + 4), 4001);
    ck_assert_uint_eq(rd32(out + 33), 0xDFF7FDFFu);
    ak_buffer_free(reg, out);
    ak_doc_free(back);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

START_TEST(t_bad_variant_param)
{
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    ak_clip_add(doc, "x");
    const char *params[] = { "variant=4003", NULL };
    ak_options o = { sizeof o, "ani", NULL, params, 0, 0 };
    ak_report rep = { 0 };
    unsigned char *out = NULL;
    size_t n;
    ck_assert_int_eq(ak_write(reg, doc, &o, &out, &n, &rep), AK_E_USAGE);
    ck_assert(strstr(rep.text, "4003") != NULL);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* ------------------------------------------------------------------------
 * Strings.
 * ------------------------------------------------------------------------ */
START_TEST(t_strings)
{
    ak_registry *reg = registry();
    char name[301];
    memset(name, 'n', 300);
    name[300] = 0;
    /* 259 bytes: fine; 260: refused on write, naming the string */
    for (int len = 259; len <= 260; len++) {
        name[len] = 0;
        ak_doc *doc = ak_doc_new();
        ak_clip *clip = ak_clip_add(doc, "s");
        ak_track_add(clip, name);
        const char *params[] = { NULL };
        ak_options o = { sizeof o, "ani", NULL, params, 0, 0 };
        ak_report rep = { 0 };
        unsigned char *out = NULL;
        size_t n;
        ak_status st = ak_write(reg, doc, &o, &out, &n, &rep);
        if (len == 259) {
            ck_assert_int_eq(st, AK_OK);
            ck_assert_uint_eq(rd32(out + 20), 259);
            ak_buffer_free(reg, out);
        } else {
            ck_assert(st == AK_E_DATA || st == AK_E_USAGE);
            ck_assert(strstr(rep.text, "bone name") != NULL);
            ck_assert(strstr(rep.text, "260") != NULL);
        }
        ak_doc_free(doc);
        name[len] = 'n';
    }
    /* an event string too long */
    {
        ak_doc *doc = ak_doc_new();
        ak_clip *clip = ak_clip_add(doc, "s");
        ak_event_add(clip, 0, "t", name);
        ak_report rep = { 0 };
        ak_options o = { sizeof o, "ani", NULL, NULL, 0, 0 };
        unsigned char *out = NULL;
        size_t n;
        ck_assert(ak_write(reg, doc, &o, &out, &n, &rep) != AK_OK);
        ck_assert(strstr(rep.text, "event sub-info") != NULL);
        ak_doc_free(doc);
    }
    /* reading a 300-byte name: a warning, and the name */
    bb b = { 0 };
    bb_put(&b, "ANI\0", 4);
    bb_u32(&b, 4000);
    bb_u32(&b, 0);
    bb_u32(&b, 0);
    bb_u32(&b, 1);
    bb_str(&b, name);
    bb_f32(&b, 1.0f);
    bb_u32(&b, 0);
    bad_case bc;
    ck_assert_int_eq(try_read(reg, b.p, b.n, &bc), AK_OK);
    ck_assert_uint_ge(bc.warnings, 1);
    ak_doc *doc = ak_test_read(reg, b.p, b.n, "long.ani");
    ck_assert_uint_eq(strlen(doc->clips[0]->tracks[0]->bone), 300);
    ak_doc_free(doc);
    free(b.p);

    /* embedded NUL and zero-length strings survive a round trip */
    memset(&b, 0, sizeof b);
    bb_put(&b, "ANI\0", 4);
    bb_u32(&b, 4002);
    bb_u32(&b, 2);
    bb_u32(&b, 0); /* empty type */
    bb_u32(&b, 0); /* empty info */
    bb_f32(&b, 5.0f);
    bb_u32(&b, 5);
    bb_put(&b, "ab\0cd", 5);
    bb_u32(&b, 3);
    bb_put(&b, "\0\0x", 3);
    bb_f32(&b, 1.0f);
    bb_u32(&b, 0);
    bb_u32(&b, 1);
    bb_u32(&b, 7);
    bb_put(&b, "Bip\0 01", 7);
    bb_f32(&b, 1.0f);
    bb_u32(&b, 0);
    doc = ak_test_read(reg, b.p, b.n, "nul.ani");
    ck_assert_str_eq(doc->clips[0]->tracks[0]->bone, "Bip");
    ck_assert_str_eq(doc->clips[0]->events[1].type, "ab");
    ck_assert_str_eq(doc->clips[0]->events[1].info, "");
    ck_assert_str_eq(doc->clips[0]->events[0].type, "");
    size_t n;
    unsigned char *out = ak_test_write(reg, doc, "ani", &n);
    ck_assert(ak_test_same_bytes(b.p, b.n, out, n, "strings with NUL"));
    ak_buffer_free(reg, out);
    /* renaming drops the stored bytes */
    ak_track_set_bone(doc->clips[0]->tracks[0], "Bip02");
    out = ak_test_write(reg, doc, "ani", &n);
    ck_assert_uint_eq(n, b.n - 2);
    ck_assert(memcmp(out + n - 4 - 4 - 5, "Bip02", 5) == 0);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    free(b.p);
    ak_registry_free(reg);
}
END_TEST

/* ------------------------------------------------------------------------
 * Quirks a rewriter must keep (§13).
 * ------------------------------------------------------------------------ */
START_TEST(t_quirks)
{
    ak_registry *reg = registry();
    bb b = { 0 };
    bb_put(&b, "ANI\0", 4);
    bb_u32(&b, 4000);
    bb_u32(&b, 3);
    /* events out of time order, odd float bits */
    bb_str(&b, "late");
    bb_str(&b, "a");
    bb_f32(&b, 900.5f);
    bb_str(&b, "early");
    bb_str(&b, "b");
    bb_u32(&b, 0x80000000u); /* -0.0 */
    bb_str(&b, "nan");
    bb_str(&b, "c");
    bb_u32(&b, 0x7FC12345u); /* a NaN with a payload */
    bb_u32(&b, 50);          /* total below the last key */
    bb_u32(&b, 2);
    bb_str(&b, "");
    bb_u32(&b, 0x7F800001u); /* weight: a signalling NaN's bits */
    bb_u32(&b, 3);
    const uint32_t rots[3][4] = {
        { fbits(0.1f), fbits(0.2f), fbits(0.3f), fbits(-0.4f) }, /* non-unit, w < 0 */
        { 0x7FC00001u, 0, 0, fbits(1.0f) },                       /* NaN */
        { 0, 0, 0, 0 },                                           /* zero */
    };
    const int32_t times[3] = { 100, 100, -5 }; /* equal and descending */
    for (int k = 0; k < 3; k++) {
        for (int c = 0; c < 4; c++)
            bb_u32(&b, rots[k][c]);
        bb_u32(&b, k == 0 ? 0x7F800001u : 0xFF800000u); /* a signalling NaN; -inf */
        bb_f32(&b, 1e30f);
        bb_u32(&b, 0x00000001u); /* denormal */
        bb_u32(&b, (uint32_t)times[k]);
    }
    bb_str(&b, "Bip01");
    bb_f32(&b, 0.75f);
    bb_u32(&b, 0);
    bb_put(&b, "\x01\x02trailing", 10);
    bad_case bc;
    ck_assert_int_eq(try_read(reg, b.p, b.n, &bc), AK_OK);
    ck_assert_uint_ge(bc.warnings, 1); /* trailing bytes */
    ak_doc *doc = ak_test_read(reg, b.p, b.n, "quirks.ani");
    const ak_clip *clip = doc->clips[0];
    ck_assert_str_eq(clip->events[0].type, "late");
    ck_assert(clip->events[0].time == 900.5 / 1000.0);
    ck_assert(clip->duration == 0.05);
    ck_assert(clip->tracks[1]->weight == 0.75);
    ck_assert_int_eq(clip->tracks[0]->channel[AK_ROTATION].keys[2].tick, -5);
    size_t n;
    unsigned char *out = ak_test_write(reg, doc, "ani", &n);
    ck_assert(ak_test_same_bytes(b.p, b.n, out, n, "quirks round trip"));
    ak_buffer_free(reg, out);
    /* to 4001: NaN rotation -> identity with a warning; zero -> m = 0 */
    ak_report rep = { 0 };
    out = write_variant(reg, doc, "4001", &n, &rep);
    ck_assert_uint_ge(rep.warnings, 1);
    ak_doc *back = ak_test_read(reg, out, n, "quirks4001.ani");
    const ak_channel *r = &back->clips[0]->tracks[0]->channel[AK_ROTATION];
    ck_assert_uint_eq(r->count, 3);
    ck_assert(fabs(r->keys[1].v[3] - 1.0) < 1e-5);
    float nu[4] = { 0.1f, 0.2f, 0.3f, -0.4f };
    ck_assert_uint_eq(ak_load_u32(r->keys[0].raw), t_enc4001(nu));
    ck_assert_uint_eq(ak_load_u32(r->keys[2].raw), 0x1FF7FDFFu);
    ak_doc_free(back);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    free(b.p);
    ak_registry_free(reg);
}
END_TEST

/* ------------------------------------------------------------------------
 * Bad input.
 * ------------------------------------------------------------------------ */
START_TEST(t_refused_versions)
{
    ak_registry *reg = registry();
    size_t size;
    rng_state = 7;
    unsigned char *bytes = synth(4000, 1, 2, NULL, &size);
    const int32_t versions[] = { 0, 3999, 4003, -4000, 5000 };
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        wr32(bytes + 4, (uint32_t)versions[i]);
        bad_case bc;
        ck_assert_int_eq(try_read(reg, bytes, size, &bc), AK_E_UNSUPPORTED);
        char want[32];
        snprintf(want, sizeof want, "%d", (int)versions[i]);
        ck_assert_msg(strstr(bc.text, want) != NULL, "message lacks the version: %s", bc.text);
        ck_assert_int_eq(bc.offset, 4);
    }
    wr32(bytes + 4, 4000);
    bytes[3] = ' ';
    expect_clean_error(reg, bytes, size, AK_E_DATA, "bad magic");
    memcpy(bytes, "\xF5\x8D\xB5\xFF", 4);
    expect_clean_error(reg, bytes, size, AK_E_UNSUPPORTED, "transformed magic");
    expect_clean_error(reg, bytes, 0, AK_E_DATA, "empty input");
    free(bytes);
    ak_registry_free(reg);
}
END_TEST

/* Offsets of the count and length fields of a file made by synth() with
 * one event inserted: returns how many were found. */
static unsigned char *synth_with_event(int version, size_t *size, size_t *fields, size_t *nfields,
                                       size_t *counts, size_t *ncounts)
{
    size_t n;
    rng_state = 99 + (uint64_t)version;
    unsigned char *base = synth(version, 3, 4, NULL, &n);
    bb b = { 0 };
    bb_put(&b, base, 8);
    *nfields = *ncounts = 0;
    counts[(*ncounts)++] = b.n;
    bb_u32(&b, 1);
    fields[(*nfields)++] = b.n;
    bb_str(&b, "motion_sound");
    fields[(*nfields)++] = b.n;
    bb_str(&b, "x.wav");
    bb_f32(&b, 0);
    bb_put(&b, base + 12, 4); /* total */
    counts[(*ncounts)++] = b.n;
    size_t off = 16;
    bb_put(&b, base + off, 4);
    off += 4;
    size_t rot = version == 4000 ? 16 : version == 4001 ? 4 : 8;
    for (int t = 0; t < 3; t++) {
        fields[(*nfields)++] = b.n;
        uint32_t len = rd32(base + off);
        bb_put(&b, base + off, 4 + len + 4);
        off += 4 + len + 4;
        counts[(*ncounts)++] = b.n;
        uint32_t keys = rd32(base + off);
        bb_put(&b, base + off, 4 + keys * (rot + 16));
        off += 4 + keys * (rot + 16);
    }
    ck_assert_uint_eq(off, n);
    free(base);
    *size = b.n;
    return b.p;
}

START_TEST(t_bad_input)
{
    ak_registry *reg = registry();
    for (int version = 4000; version <= 4002; version++) {
        size_t size, fields[8], nf, counts[8], nc;
        unsigned char *bytes = synth_with_event(version, &size, fields, &nf, counts, &nc);
        ck_assert_int_eq(try_read(reg, bytes, size, NULL), AK_OK);
        /* every truncation */
        for (size_t cut = 0; cut < size; cut++)
            expect_clean_error(reg, bytes, cut, AK_E_DATA, "truncated synthetic file");
        unsigned char *m = malloc(size);
        /* negative and inflated counts */
        const uint32_t bad_counts[] = { 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0x10000000u, 1000 };
        for (size_t i = 0; i < nc; i++)
            for (size_t j = 0; j < sizeof bad_counts / sizeof bad_counts[0]; j++) {
                memcpy(m, bytes, size);
                wr32(m + counts[i], bad_counts[j]);
                bad_case bc;
                ak_status st = try_read(reg, m, size, &bc);
                ck_assert_msg(st == AK_E_DATA, "count at %zu = %08x: %s", counts[i], bad_counts[j],
                              ak_status_name(st));
                ck_assert(bc.offset >= 0 && (size_t)bc.offset < size);
                if ((int32_t)bad_counts[j] < 0)
                    ck_assert(strstr(bc.text, "negative") != NULL);
            }
        /* absurd string lengths */
        const uint32_t bad_lens[] = { 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 100000, (uint32_t)size };
        for (size_t i = 0; i < nf; i++)
            for (size_t j = 0; j < sizeof bad_lens / sizeof bad_lens[0]; j++) {
                memcpy(m, bytes, size);
                wr32(m + fields[i], bad_lens[j]);
                expect_clean_error(reg, m, size, AK_E_DATA, "absurd string length");
            }
        /* random corruption: anything but a crash; errors carry an offset */
        rng_state = 12345 + (uint64_t)version;
        for (int iter = 0; iter < 3000; iter++) {
            memcpy(m, bytes, size);
            int flips = 1 + (int)(rng() % 4);
            for (int f = 0; f < flips; f++)
                m[rng() % size] ^= (unsigned char)(1u << (rng() % 8));
            size_t len = (rng() % 4) ? size : (size_t)(rng() % size);
            bad_case bc;
            ak_status st = try_read(reg, m, len, &bc);
            if (st != AK_OK)
                ck_assert_msg(bc.offset >= 0, "error without offset: %s", bc.text);
        }
        free(m);
        free(bytes);
    }
    ak_registry_free(reg);
}
END_TEST

START_TEST(t_corpus_truncations)
{
    size_t size;
    unsigned char *bytes = ak_test_corpus_file(CORPUS_FILE, &size);
    if (!bytes)
        return;
    ak_registry *reg = registry();
    /* every byte of the header and the first track, then sampled cuts */
    for (size_t cut = 0; cut < 200; cut++)
        expect_clean_error(reg, bytes, cut, AK_E_DATA, "truncated corpus");
    rng_state = 4242;
    for (int i = 0; i < 300; i++)
        expect_clean_error(reg, bytes, (size_t)(rng() % size), AK_E_DATA, "truncated corpus");
    expect_clean_error(reg, bytes, size - 1, AK_E_DATA, "corpus minus one byte");
    /* inflate the first track's key count */
    unsigned char *m = malloc(size);
    memcpy(m, bytes, size);
    wr32(m + 76 + 4 + 5 + 4, 0x7FFFFFFFu);
    expect_clean_error(reg, m, size, AK_E_DATA, "inflated key count");
    memcpy(m, bytes, size);
    wr32(m + 72, 53);
    expect_clean_error(reg, m, size, AK_E_DATA, "track count + 1");
    free(m);
    ak_registry_free(reg);
    free(bytes);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ani");
    TCase *tc = tcase_create("ani");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, t_probe);
    tcase_add_test(tc, t_vectors_encode);
    tcase_add_test(tc, t_vectors_decode);
    tcase_add_test(tc, t_vectors_via_write);
    tcase_add_test(tc, t_corpus);
    tcase_add_test(tc, t_corpus_edits);
    tcase_add_test(tc, t_corpus_convert);
    tcase_add_test(tc, t_sweep_4001);
    tcase_add_test(tc, t_sweep_4002);
    tcase_add_test(tc, t_raw_words_4001);
    tcase_add_test(tc, t_error_bounds);
    tcase_add_test(tc, t_merge_channels);
    tcase_add_test(tc, t_rounding_and_variant);
    tcase_add_test(tc, t_bad_variant_param);
    tcase_add_test(tc, t_strings);
    tcase_add_test(tc, t_quirks);
    tcase_add_test(tc, t_refused_versions);
    tcase_add_test(tc, t_bad_input);
    tcase_add_test(tc, t_corpus_truncations);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
