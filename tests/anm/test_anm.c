/* test_anm.c - the GEM .anm (EANM) plugin: corpus counts from the fact
 * sheet's §11 table, byte-exact round trips, orientation conventions,
 * synthetic FRM3/CMNT/scale files, edits, hand-built documents and a
 * bad-input sweep. */
#include "testutil.h"
#include "../../plugins/anm/anm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a tiny byte builder for synthetic files ---- */
typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

static void b_put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        ck_assert(b->p != NULL);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void b_tag(buf *b, const char *t) { b_put(b, t, 4); }
static void b_u8(buf *b, unsigned v) { unsigned char c = (unsigned char)v; b_put(b, &c, 1); }
static void b_u16(buf *b, unsigned v) { b_u8(b, v & 0xFF); b_u8(b, (v >> 8) & 0xFF); }
static void b_u32(buf *b, uint32_t v) { b_u16(b, v & 0xFFFF); b_u16(b, v >> 16); }
static void b_f32(buf *b, float f) { uint32_t u; memcpy(&u, &f, 4); b_u32(b, u); }
static void b_name(buf *b, const char *s) { b_u32(b, (uint32_t)strlen(s)); b_put(b, s, strlen(s)); }
static float f_at(const unsigned char *p) { uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; float f; memcpy(&f, &u, 4); return f; }

static void b_header(buf *b, uint32_t version, uint32_t frms, const char *const *bones, int nb)
{
    b_tag(b, "EANM");
    b_u32(b, version);
    b_tag(b, "FRMS");
    b_u32(b, frms);
    b_tag(b, "BMAP");
    b_u32(b, (uint32_t)nb);
    for (int i = 0; i < nb; i++)
        b_name(b, bones[i]);
}

static ak_registry *reg_anm(void)
{
    const ak_codec *codecs[] = { anm_codec(), NULL };
    return ak_test_registry(codecs);
}

static ak_doc *read_params(ak_registry *reg, const unsigned char *d, size_t n, const char *const *params)
{
    ak_options o = { sizeof o, "anm", "synthetic.anm", params, 0, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_status st = ak_read(reg, d, n, &o, &doc, &rep);
    ck_assert_msg(st == AK_OK, "read failed: %s", rep.message);
    return doc;
}

static unsigned char *write_params(ak_registry *reg, const ak_doc *doc, const char *const *params, size_t *n,
                                   ak_report *rep)
{
    ak_options o = { sizeof o, "anm", NULL, params, 0, 0 };
    unsigned char *out = NULL;
    ak_status st = ak_write(reg, doc, &o, &out, n, rep);
    ck_assert_msg(st == AK_OK, "write failed: %s", rep->message);
    return out;
}

/* Collects the texts of the warnings a call raises. */
static void keep_warning(void *user, const ak_message *msg)
{
    buf *b = user;
    if (msg->severity == AK_WARNING) {
        b_put(b, msg->text, strlen(msg->text));
        b_put(b, "\n", 2); /* the NUL terminates the text so far */
        b->n--;
    }
}

/* The document written as anm, the texts of its warnings in *warned (a
 * NUL-terminated string the caller frees). */
static unsigned char *write_keeping_warnings(ak_registry *reg, const ak_doc *doc, size_t *n, buf *warned)
{
    memset(warned, 0, sizeof *warned);
    b_put(warned, "", 1);
    warned->n = 0;
    ak_report rep = { 0 };
    rep.on_message = keep_warning;
    rep.user = warned;
    return write_params(reg, doc, NULL, n, &rep);
}

static ak_track *track_named(const ak_doc *doc, const char *name)
{
    const ak_clip *c = doc->clips[0];
    for (size_t i = 0; i < c->track_count; i++)
        if (strcmp(c->tracks[i]->bone, name) == 0)
            return c->tracks[i];
    return NULL;
}

/* Counts the frame chunks listed in the layout prop (u8 kind, u32 frame,
 * u32 n, n x u32) by hand. */
static size_t layout_chunks(const ak_clip *clip, int *kind0)
{
    const ak_prop *p = ak_prop_get(&clip->props, "anm.layout");
    ck_assert(p != NULL);
    size_t at = 0, n = 0;
    while (at < p->size) {
        if (n == 0 && kind0)
            *kind0 = p->data[at];
        uint32_t cnt = (uint32_t)p->data[at + 5] | (uint32_t)p->data[at + 6] << 8 |
                       (uint32_t)p->data[at + 7] << 16 | (uint32_t)p->data[at + 8] << 24;
        at += 9 + 4 * (size_t)cnt;
        n++;
    }
    ck_assert_uint_eq(at, p->size);
    return n;
}

/* ---- probe ---- */
START_TEST(t_probe)
{
    const ak_codec *c = anm_codec();
    ck_assert_int_eq(c->probe((const unsigned char *)"EANM\0\0\6\0", 8, NULL), AK_PROBE_MAGIC);
    int ext = c->probe((const unsigned char *)"xxxx", 4, "a/b/walk.ANM");
    ck_assert(ext > 0 && ext <= AK_PROBE_EXTENSION);
    ck_assert_int_eq(c->probe((const unsigned char *)"ANP3", 4, "x.ifp"), 0);
    ck_assert_int_eq(c->probe((const unsigned char *)"EAN", 3, NULL), 0);
    ck_assert_str_eq(c->name, "anm");
    ck_assert(c->caps & AK_CAP_TRANSLATION);
    ck_assert(c->caps & AK_CAP_VISIBILITY);
    ck_assert(c->caps & AK_CAP_BONE_NAME);
    ck_assert(!(c->caps & AK_CAP_MULTI_CLIP));
}
END_TEST

/* ---- corpus: the sheet's §11 table ---- */
typedef struct sample {
    const char *name;
    const char *variant;
    uint32_t frms;
    size_t chunks;
    int tag; /* ANM_TAG_* */
    size_t bones;
    const char *feature; /* what else to check */
} sample;

static const sample samples[] = {
    { "frm2_286frames_e75_open_driver", "6.0", 286, 26, ANM_TAG_FRM2, 1, "sparse" },
    { "frm2_64bones_hmmwv_body_r", "6.0", 61, 61, ANM_TAG_FRM2, 64, "mirrored" },
    { "frm2_flag05_mirrored_shahed136_basis", "6.0", 11, 11, ANM_TAG_FRM2, 1, "mirrored" },
    { "frm2_flag07_mirrored_j10c_basis", "6.0", 11, 11, ANM_TAG_FRM2, 1, "mirrored" },
    { "frm2_flag08_visible_on_t62_open_sight", "6.0", 61, 61, ANM_TAG_FRM2, 4, "hidden" },
    { "frm2_flag10_visible_off_t55_open1", "6.0", 51, 32, ANM_TAG_FRM2, 2, "hidden" },
    { "frm2_flag13_shahed136_engine_work", "6.0", 16, 16, ANM_TAG_FRM2, 3, "hidden" },
    { "frm2_horse_44bones_168frames_eat", "6.0", 168, 168, ANM_TAG_FRM2, 44, "" },
    { "frm2_horse_57bones_horse_ride_off", "6.0", 61, 61, ANM_TAG_FRM2, 57, "mirrored" },
    { "frm2_human_24bones_mirrored_dismounting_bmd4", "6.0", 49, 43, ANM_TAG_FRM2, 24, "mirrored" },
    { "frm2_mesh_flag0A_33_mi17_engine_stop", "6.0", 32, 32, ANM_TAG_FRM2, 4, "mesh" },
    { "frm2_mesh_flag20_2F_bbox_su76_trackl", "6.0", 11, 11, ANM_TAG_FRM2, 1, "mesh" },
    { "frm2_mesh_flag21_22_maxim_close", "6.0", 11, 11, ANM_TAG_FRM2, 6, "mesh" },
    { "frm2_v60000_2frames_e100_body_r", "6.0", 38, 2, ANM_TAG_FRM2, 1, "sparse" },
    { "frm2_v60000_frms1_1bone_r35_engine_r", "6.0", 1, 1, ANM_TAG_FRM2, 1, "" },
    { "frm2_v60001_5bones_m4a3_body_r", "6.1", 21, 21, ANM_TAG_FRM2, 5, "" },
    { "frm2_v60001_m4a3_open_co_driver", "6.1", 101, 13, ANM_TAG_FRM2, 1, "sparse" },
    { "frmn_v40000_44bones_citroen_bodyback_r", "4.0", 31, 2, ANM_TAG_FRMN, 44, "visi" },
    { "frmn_v40000_8bones_ac130_engine_work", "4.0", 93, 93, ANM_TAG_FRMN, 8, "hidden" },
    { "frmn_v40000_mesh_citroen45_engine", "4.0", 26, 26, ANM_TAG_FRMN, 17, "mesh" },
};
#define NSAMPLES (sizeof samples / sizeof samples[0])

static unsigned char *corpus_file(const char *name, size_t *n)
{
    char rel[256];
    snprintf(rel, sizeof rel, "anm/%s.anm", name);
    return ak_test_corpus_file(rel, n);
}

/* With each track's anm.records emptied the writer derives the records
 * from the keys: the same bytes unless the file has mesh records, whose
 * bodies only stored records place (then a warning says so). */
static void check_without_records(ak_registry *reg, ak_doc *doc, const unsigned char *data, size_t n, const sample *s)
{
    const ak_clip *clip = doc->clips[0];
    for (size_t t = 0; t < clip->track_count; t++)
        if (ak_prop_get(&clip->tracks[t]->props, ANM_P_RECORDS))
            ck_assert_int_eq(ak_prop_set_bytes(doc, &clip->tracks[t]->props, ANM_P_RECORDS, "", 0), AK_OK);
    buf warned;
    size_t m;
    unsigned char *out = write_keeping_warnings(reg, doc, &m, &warned);
    if (strcmp(s->feature, "mesh") != 0)
        ck_assert(ak_test_same_bytes(data, n, out, m, s->name));
    else
        ck_assert_msg(strstr((const char *)warned.p, "bytes of mesh animation (anm.mesh) have no record") != NULL,
                      "%s: %s", s->name, (const char *)warned.p);
    ak_buffer_free(reg, out);
    free(warned.p);
}

START_TEST(t_corpus)
{
    const sample *s = &samples[_i];
    size_t n;
    unsigned char *data = corpus_file(s->name, &n);
    if (!data)
        return;
    ak_registry *reg = reg_anm();
    ak_doc *doc = ak_test_read(reg, data, n, s->name);
    ck_assert_str_eq(doc->variant, s->variant);
    ck_assert_uint_eq(doc->clip_count, 1);
    const ak_clip *clip = doc->clips[0];
    ck_assert_int_eq(ak_prop_int(&clip->props, "anm.frms", -1), (int64_t)s->frms);
    ck_assert_uint_eq(clip->track_count, s->bones);
    int kind = -1;
    ck_assert_uint_eq(layout_chunks(clip, &kind), s->chunks);
    ck_assert_int_eq(kind, s->tag);
    ck_assert(clip->frame_rate == 0);
    ck_assert(clip->tick_rate == 30);
    /* BMAP decoded by hand: count at 20, first name length at 24. */
    ck_assert(memcmp(data + 16, "BMAP", 4) == 0);
    ck_assert_uint_eq(ak_load_u32(data + 20), s->bones);
    uint32_t len0 = ak_load_u32(data + 24);
    ck_assert_int_eq((int)strlen(clip->tracks[0]->bone), (int)len0);
    ck_assert(memcmp(clip->tracks[0]->bone, data + 28, len0) == 0);
    /* Frame 0 and FRMS - 1 hold a key for every bone in FRM2 files (§7). */
    ak_doc_stats st;
    ak_doc_stats_get(doc, &st);
    if (!strcmp(s->feature, "mesh"))
        ck_assert_int_gt(ak_prop_int(&clip->props, "mesh_keys", 0), 0);
    else
        ck_assert_int_eq(ak_prop_int(&clip->props, "mesh_keys", -1), 0);
    if (!strcmp(s->feature, "mirrored")) {
        int any = 0;
        for (size_t t = 0; t < clip->track_count; t++)
            any |= ak_prop_int(&clip->tracks[t]->props, "anm.mirrored", 0) != 0;
        ck_assert(any);
    }
    if (!strcmp(s->feature, "visi"))
        ck_assert_uint_gt(st.keys[AK_VISIBILITY], 0);
    if (!strcmp(s->feature, "hidden")) {
        int hidden = 0;
        for (size_t t = 0; t < clip->track_count; t++) {
            const ak_channel *v = &clip->tracks[t]->channel[AK_VISIBILITY];
            for (size_t k = 0; k < v->count; k++)
                hidden |= v->keys[k].v[0] == 0;
        }
        ck_assert(hidden);
    }
    /* Keys are ticks = frames, time = frame / 30; all within FRMS. */
    for (size_t t = 0; t < clip->track_count; t++)
        for (int c = 0; c < AK_CHANNELS; c++) {
            const ak_channel *ch = &clip->tracks[t]->channel[c];
            for (size_t k = 0; k < ch->count; k++) {
                ck_assert(ch->keys[k].tick >= 0 && ch->keys[k].tick < (int64_t)s->frms);
                ck_assert(fabs(ch->keys[k].time - ch->keys[k].tick / 30.0) < 1e-12);
                if (k)
                    ck_assert(ch->keys[k].tick > ch->keys[k - 1].tick);
                if (c == AK_ROTATION) {
                    const double *q = ch->keys[k].v;
                    double nn = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
                    ck_assert(fabs(nn - 1) < 1e-5);
                    ck_assert(q[3] >= 0);
                }
            }
        }
    ak_report vrep = { 0 };
    ck_assert_uint_eq(ak_doc_validate(doc, s->name, &vrep), 0);
    /* Byte-identical round trip, twice. */
    size_t m;
    unsigned char *out = ak_test_write(reg, doc, "anm", &m);
    ck_assert(ak_test_same_bytes(data, n, out, m, s->name));
    ak_doc *doc2 = ak_test_read(reg, out, m, s->name);
    size_t m2;
    unsigned char *out2 = ak_test_write(reg, doc2, "anm", &m2);
    ck_assert(ak_test_same_bytes(data, n, out2, m2, s->name));
    /* A deep copy writes the same bytes too. */
    ak_doc *copy = ak_doc_clone(doc);
    size_t m3;
    unsigned char *out3 = ak_test_write(reg, copy, "anm", &m3);
    ck_assert(ak_test_same_bytes(data, n, out3, m3, s->name));
    ak_buffer_free(reg, out3);
    ak_doc_free(copy);
    ak_buffer_free(reg, out);
    ak_buffer_free(reg, out2);
    check_without_records(reg, doc2, data, n, s);
    ak_doc_free(doc2);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(data);
}
END_TEST

/* The sheet's smallest sample (§2), decoded by hand. */
START_TEST(t_smallest_sample)
{
    size_t n;
    unsigned char *data = corpus_file("frm2_v60000_frms1_1bone_r35_engine_r", &n);
    if (!data)
        return;
    ck_assert_uint_eq(n, 68);
    ak_registry *reg = reg_anm();
    ak_doc *doc = ak_test_read(reg, data, n, "engine_r");
    ak_track *t = track_named(doc, "engine");
    ck_assert(t != NULL);
    ck_assert_uint_eq(t->channel[AK_TRANSLATION].count, 1);
    const double *p = t->channel[AK_TRANSLATION].keys[0].v;
    ck_assert(fabs(p[0] - 18.5196) < 1e-4 && fabs(p[1] - 27.6200) < 1e-4 && fabs(p[2] - 0.0041593) < 1e-7);
    const double *q = t->channel[AK_ROTATION].keys[0].v;
    ck_assert(fabs(q[2] - -8.7307e-08) < 1e-11);
    ck_assert(fabs(q[3] - 1.0) < 1e-12);
    ck_assert_uint_eq(t->channel[AK_VISIBILITY].count, 1);
    ck_assert(t->channel[AK_VISIBILITY].keys[0].v[0] == 1);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(data);
}
END_TEST

/* ---- orientation: FRMN matrices and FRM2 quaternions agree ---- */

/* The standard quaternion -> matrix formula, row-major m[r][c]. */
static void std_matrix(double x, double y, double z, double w, double m[3][3])
{
    m[0][0] = 1 - 2 * (y * y + z * z); m[0][1] = 2 * (x * y - z * w); m[0][2] = 2 * (x * z + y * w);
    m[1][0] = 2 * (x * y + z * w); m[1][1] = 1 - 2 * (x * x + z * z); m[1][2] = 2 * (y * z - x * w);
    m[2][0] = 2 * (x * z - y * w); m[2][1] = 2 * (y * z + x * w); m[2][2] = 1 - 2 * (x * x + y * y);
}

START_TEST(t_rotation_paths)
{
    /* Some poses (axis-angle), including near w = 0 and w < 0 inputs. */
    static const double poses[][4] = {
        { 1, 0, 0, 0.3 }, { 0, 1, 0, 1.2 }, { 0, 0, 1, 2.9 }, { 1, 2, 3, 0.7 }, { -1, 0.5, 0.2, 3.1 },
        { 0.3, -0.4, 0.8, 5.5 }, { 1, 0, 0, 3.14159 }, { 0, 0, 0, 0 },
    };
    enum { POSES = sizeof poses / sizeof poses[0] };
    ak_registry *reg = reg_anm();
    /* Every pose also as one frame of a single bone's track, the odd ones
     * with their rows doubled (a scale of 2): a bone of many matrices keeps
     * its decodes from the tally in scratch memory, not on the stack. */
    static const char *const one_bone[] = { "b" };
    buf all = { 0 };
    b_header(&all, ANM_V40, POSES, one_bone, 1);
    double alone[POSES][4];
    for (size_t i = 0; i < POSES; i++) {
        double ax = poses[i][0], ay = poses[i][1], az = poses[i][2], ang = poses[i][3];
        double l = sqrt(ax * ax + ay * ay + az * az);
        double x = 0, y = 0, z = 0, w = 1;
        if (l > 0) {
            x = ax / l * sin(ang / 2);
            y = ay / l * sin(ang / 2);
            z = az / l * sin(ang / 2);
            w = cos(ang / 2);
        }
        if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
        float fx = (float)x, fy = (float)y, fz = (float)z;
        /* FRM2: the three floats. */
        static const char *const bones[] = { "b" };
        buf a = { 0 };
        b_header(&a, ANM_V60, 1, bones, 1);
        b_tag(&a, "FRM2"); b_u16(&a, 0); b_u8(&a, 1);
        b_u8(&a, 0); b_u16(&a, 0x02); b_f32(&a, fx); b_f32(&a, fy); b_f32(&a, fz);
        /* FRMN: the sheet's D3D matrix = R(x, y, z, -sqrt(1 - s)). */
        double s = (double)fx * fx + (double)fy * fy + (double)fz * fz;
        double w0 = sqrt(s < 1 ? 1 - s : 0);
        double m[3][3];
        std_matrix(fx, fy, fz, -w0, m);
        buf b = { 0 };
        b_header(&b, ANM_V40, 1, bones, 1);
        b_tag(&b, "FRMN"); b_u32(&b, 0); b_tag(&b, "BONE"); b_u32(&b, 0); b_tag(&b, "MATR");
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                b_f32(&b, (float)m[r][c]);
        b_f32(&b, 1); b_f32(&b, 2); b_f32(&b, 3);
        b_tag(&all, "FRMN"); b_u32(&all, (uint32_t)i); b_tag(&all, "BONE"); b_u32(&all, 0); b_tag(&all, "MATR");
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                b_f32(&all, (float)m[r][c] * (i % 2 ? 2.0f : 1.0f));
        b_f32(&all, (float)i); b_f32(&all, 0); b_f32(&all, 0);
        ak_doc *da = ak_test_read(reg, a.p, a.n, "q.anm");
        ak_doc *db = ak_test_read(reg, b.p, b.n, "m.anm");
        const double *qa = da->clips[0]->tracks[0]->channel[AK_ROTATION].keys[0].v;
        const double *qb = db->clips[0]->tracks[0]->channel[AK_ROTATION].keys[0].v;
        memcpy(alone[i], qb, sizeof alone[i]);
        /* FRM2 path: (x, y, z, +sqrt(1 - s)) exactly, in double. */
        ck_assert(qa[0] == fx && qa[1] == fy && qa[2] == fz && qa[3] == w0);
        /* FRMN path: the same rotation (same sign: w >= 0 on both). */
        double dot = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
        ck_assert_msg(fabs(fabs(dot) - 1) < 1e-6, "pose %zu: FRMN and FRM2 disagree (dot %g)", i, dot);
        for (int k = 0; k < 4; k++)
            ck_assert_msg(fabs(qa[k] - qb[k]) < 2e-6 || w0 < 1e-3, "pose %zu comp %d: %g vs %g", i, k, qa[k], qb[k]);
        /* The model quaternion rotates bone -> parent column-style: R(q) v
         * equals the row-vector product v M of the file's matrix. */
        double rq[3][3];
        std_matrix(qb[0], qb[1], qb[2], qb[3], rq);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                ck_assert(fabs(rq[r][c] - m[c][r]) < 1e-5);
        /* Translation is the fourth row. */
        const double *t = db->clips[0]->tracks[0]->channel[AK_TRANSLATION].keys[0].v;
        ck_assert(t[0] == 1 && t[1] == 2 && t[2] == 3);
        /* Converting either way gives the other path's encoding back. */
        const char *v40[] = { "variant=4.0", NULL };
        const char *v60[] = { "variant=6.0", NULL };
        ak_report rep = { 0 };
        size_t n1, n2;
        unsigned char *o1 = write_params(reg, da, v40, &n1, &rep);
        unsigned char *o2 = write_params(reg, db, v60, &n2, &rep);
        ak_doc *d1 = read_params(reg, o1, n1, NULL);
        ak_doc *d2 = read_params(reg, o2, n2, NULL);
        const double *q1 = d1->clips[0]->tracks[0]->channel[AK_ROTATION].keys[0].v;
        const double *q2 = d2->clips[0]->tracks[0]->channel[AK_ROTATION].keys[0].v;
        double d1dot = q1[0] * qa[0] + q1[1] * qa[1] + q1[2] * qa[2] + q1[3] * qa[3];
        double d2dot = q2[0] * qa[0] + q2[1] * qa[1] + q2[2] * qa[2] + q2[3] * qa[3];
        ck_assert(fabs(fabs(d1dot) - 1) < 1e-6 && fabs(fabs(d2dot) - 1) < 1e-6);
        ak_doc_free(d1); ak_doc_free(d2);
        ak_buffer_free(reg, o1); ak_buffer_free(reg, o2);
        ak_doc_free(da); ak_doc_free(db);
        free(a.p); free(b.p);
    }
    /* Doubling a row of floats doubles its length exactly, so each pose
     * decodes to the very quaternion it had alone; the scale keys are the
     * row lengths, 1 or 2 to float precision. */
    ak_doc *d = ak_test_read(reg, all.p, all.n, "all.anm");
    const ak_track *t = d->clips[0]->tracks[0];
    ck_assert_uint_eq(t->channel[AK_ROTATION].count, POSES);
    ck_assert_uint_eq(t->channel[AK_SCALE].count, POSES);
    for (size_t i = 0; i < POSES; i++) {
        const ak_key *k = &t->channel[AK_ROTATION].keys[i];
        ck_assert_int_eq(k->tick, (int64_t)i);
        ck_assert_msg(memcmp(k->v, alone[i], sizeof alone[i]) == 0, "pose %zu decodes differently in a track", i);
        for (int a = 0; a < 3; a++)
            ck_assert(fabs(t->channel[AK_SCALE].keys[i].v[a] - (i % 2 ? 2.0 : 1.0)) < 1e-6);
        ck_assert(t->channel[AK_TRANSLATION].keys[i].v[0] == (double)i);
    }
    ak_report rep = { 0 };
    size_t n;
    unsigned char *o = write_params(reg, d, NULL, &n, &rep);
    ck_assert(ak_test_same_bytes(all.p, all.n, o, n, "poses of one bone"));
    ak_buffer_free(reg, o);
    ak_doc_free(d);
    free(all.p);
    ak_registry_free(reg);
}
END_TEST

/* §7 clamp: s > 1 rebuilds w = 0 (double), and the floats stay verbatim;
 * -0.0 survives. */
START_TEST(t_orientation_clamp)
{
    static const char *const bones[] = { "basis" };
    buf a = { 0 };
    b_header(&a, ANM_V60, 2, bones, 1);
    float big = nextafterf(1.0f, 2.0f);
    b_tag(&a, "FRM2"); b_u16(&a, 0); b_u8(&a, 1);
    b_u8(&a, 0); b_u16(&a, 0x0F); b_f32(&a, 0); b_f32(&a, 0); b_f32(&a, 0);
    b_f32(&a, big); b_f32(&a, 0); b_f32(&a, 0);
    b_tag(&a, "FRM2"); b_u16(&a, 1); b_u8(&a, 1);
    b_u8(&a, 0); b_u16(&a, 0x0B); b_f32(&a, 0); b_f32(&a, 0); b_f32(&a, 0);
    b_f32(&a, -0.0f); b_f32(&a, -0.0f); b_f32(&a, -0.0f);
    ak_registry *reg = reg_anm();
    ak_doc *d = ak_test_read(reg, a.p, a.n, "clamp.anm");
    const ak_track *t = d->clips[0]->tracks[0];
    ck_assert(t->channel[AK_ROTATION].keys[0].v[3] == 0.0);
    ck_assert(t->channel[AK_ROTATION].keys[0].v[0] == (double)big);
    ck_assert(t->channel[AK_ROTATION].keys[1].v[3] == 1.0);
    ck_assert(signbit(t->channel[AK_ROTATION].keys[1].v[0]));
    ck_assert_int_eq(ak_prop_int(&t->props, "anm.mirrored", 0), 1);
    size_t n;
    unsigned char *o = ak_test_write(reg, d, "anm", &n);
    ck_assert(ak_test_same_bytes(a.p, a.n, o, n, "clamp"));
    ak_buffer_free(reg, o);
    ak_doc_free(d);
    ak_registry_free(reg);
    free(a.p);
}
END_TEST


/* Unusual but legal structure round-trips exactly: flags 0x00, 0x04 alone,
 * 0x18 (both visibility bits), an empty FRM2 chunk, two chunks with the
 * same frame number ([GOH] split), an unsorted frame order, a name with a
 * NUL byte. */
START_TEST(t_odd_structure)
{
    buf a = { 0 };
    b_tag(&a, "EANM"); b_u32(&a, ANM_V60);
    b_tag(&a, "FRMS"); b_u32(&a, 4);
    b_tag(&a, "BMAP"); b_u32(&a, 3); b_name(&a, "a"); b_u32(&a, 3); b_put(&a, "b\0c", 3); b_name(&a, "Root");
    b_tag(&a, "FRM2"); b_u16(&a, 3); b_u8(&a, 2);
    b_u8(&a, 0); b_u16(&a, 0x00);
    b_u8(&a, 1); b_u16(&a, 0x18);
    b_tag(&a, "FRM2"); b_u16(&a, 1); b_u8(&a, 0);
    b_tag(&a, "FRM2"); b_u16(&a, 0); b_u8(&a, 1);
    b_u8(&a, 2); b_u16(&a, 0x04);
    b_tag(&a, "FRM2"); b_u16(&a, 0); b_u8(&a, 1);
    b_u8(&a, 0); b_u16(&a, 0x07); b_f32(&a, 1); b_f32(&a, 2); b_f32(&a, 3); b_f32(&a, 1); b_f32(&a, 0); b_f32(&a, 0);
    ak_registry *reg = reg_anm();
    ak_doc *d = ak_test_read(reg, a.p, a.n, "odd.anm");
    const ak_clip *c = d->clips[0];
    ck_assert_str_eq(c->tracks[1]->bone, "b");
    int kind = -1;
    ck_assert_uint_eq(layout_chunks(c, &kind), 4);
    ck_assert_uint_eq(c->tracks[1]->channel[AK_VISIBILITY].count, 1);
    ck_assert_uint_eq(c->tracks[0]->channel[AK_ROTATION].count, 1);
    ck_assert_int_eq(c->tracks[0]->channel[AK_ROTATION].keys[0].tick, 0);
    size_t n;
    unsigned char *o = ak_test_write(reg, d, "anm", &n);
    ck_assert(ak_test_same_bytes(a.p, a.n, o, n, "odd structure"));
    ak_buffer_free(reg, o);
    ak_doc_free(d);
    ak_registry_free(reg);
    free(a.p);
}
END_TEST

/* A mirrored FRMN matrix (det -1) reads as the rotation with row 2 negated
 * (§8) and converts to FRM2 flags 0x07 with that rotation; and back. */
START_TEST(t_mirrored_frmn)
{
    static const char *const bones[] = { "basis" };
    buf a = { 0 };
    b_header(&a, ANM_V40, 1, bones, 1);
    b_tag(&a, "FRMN"); b_u32(&a, 0); b_tag(&a, "BONE"); b_u32(&a, 0); b_tag(&a, "MATR");
    static const float rows[12] = { 1, 0, 0, 0, -1, 0, 0, 0, 1, 5, 6, 7 };
    for (int i = 0; i < 12; i++)
        b_f32(&a, rows[i]);
    b_tag(&a, "VISI"); b_u32(&a, 1);
    ak_registry *reg = reg_anm();
    ak_doc *d = ak_test_read(reg, a.p, a.n, "mirror.anm");
    const ak_track *t = d->clips[0]->tracks[0];
    ck_assert_int_eq(ak_prop_int(&t->props, "anm.mirrored", 0), 1);
    const double *q = t->channel[AK_ROTATION].keys[0].v; /* 180 degrees about x */
    ck_assert(fabs(fabs(q[0]) - 1) < 1e-9 && fabs(q[1]) < 1e-9 && fabs(q[2]) < 1e-9 && fabs(q[3]) < 1e-9);
    const char *v60[] = { "variant=6.0", NULL };
    ak_report rep = { 0 };
    size_t n;
    unsigned char *o = write_params(reg, d, v60, &n, &rep);
    /* header 8 + FRMS 8 + BMAP 8 + name 9 = 33; FRM2 7; bone 1 */
    ck_assert(memcmp(o + 33, "FRM2", 4) == 0);
    ck_assert_uint_eq(ak_load_u16(o + 41), 0x0F);
    ck_assert(f_at(o + 43) == 5.0f);
    ck_assert(fabs(fabs(f_at(o + 55)) - 1) < 1e-7 && f_at(o + 59) == 0 && f_at(o + 63) == 0);
    const char *v40[] = { "variant=4.0", NULL };
    ak_doc *d2 = read_params(reg, o, n, NULL);
    size_t n2;
    unsigned char *o2 = write_params(reg, d2, v40, &n2, &rep);
    ck_assert(ak_test_same_bytes(a.p, a.n, o2, n2, "mirrored FRMN via FRM2"));
    ak_buffer_free(reg, o);
    ak_buffer_free(reg, o2);
    ak_doc_free(d2);
    ak_doc_free(d);
    ak_registry_free(reg);
    free(a.p);
}
END_TEST

/* ---- FRM3 frame-number widths (§10) ---- */
START_TEST(t_frm3_widths)
{
    static const uint32_t frms[] = { 200, 300, 70000 };
    static const int width[] = { 1, 2, 4 };
    static const char *const bones[] = { "a", "b" };
    ak_registry *reg = reg_anm();
    for (int i = 0; i < 3; i++) {
        uint32_t last = frms[i] - 1;
        buf a = { 0 };
        b_header(&a, ANM_V61, frms[i], bones, 2);
        for (int f = 0; f < 2; f++) {
            uint32_t frame = f ? last : 0;
            b_tag(&a, "FRM3");
            if (width[i] == 1) b_u8(&a, frame);
            else if (width[i] == 2) b_u16(&a, frame);
            else b_u32(&a, frame);
            b_u8(&a, 2);
            b_u8(&a, 0); b_u16(&a, 0x0B);
            b_f32(&a, 1); b_f32(&a, 2); b_f32(&a, (float)f);
            b_f32(&a, 0); b_f32(&a, 0.6f); b_f32(&a, 0);
            b_u8(&a, 1); b_u16(&a, f ? 0x10 : 0x08);
        }
        ak_doc *d = ak_test_read(reg, a.p, a.n, "frm3.anm");
        const ak_clip *c = d->clips[0];
        int kind = -1;
        ck_assert_uint_eq(layout_chunks(c, &kind), 2);
        ck_assert_int_eq(kind, ANM_TAG_FRM3);
        const ak_channel *pos = &c->tracks[0]->channel[AK_TRANSLATION];
        ck_assert_uint_eq(pos->count, 2);
        ck_assert_int_eq(pos->keys[1].tick, (int64_t)last);
        ck_assert(fabs(pos->keys[1].time - last / 30.0) < 1e-9);
        ck_assert(pos->keys[1].v[2] == 1);
        const ak_channel *vis = &c->tracks[1]->channel[AK_VISIBILITY];
        ck_assert(vis->count == 2 && vis->keys[0].v[0] == 1 && vis->keys[1].v[0] == 0);
        size_t n;
        unsigned char *o = ak_test_write(reg, d, "anm", &n);
        ck_assert(ak_test_same_bytes(a.p, a.n, o, n, "frm3"));
        ak_buffer_free(reg, o);
        /* Rewritten as FRM2 (16-bit frames) where it fits, and back. */
        const char *frm2[] = { "variant=frm2", NULL };
        ak_report rep = { 0 };
        if (last <= 0xFFFF) {
            unsigned char *o2 = write_params(reg, d, frm2, &n, &rep);
            ak_doc *d2 = read_params(reg, o2, n, NULL);
            ck_assert_int_eq(d2->clips[0]->tracks[0]->channel[AK_TRANSLATION].keys[1].tick, (int64_t)last);
            const char *frm3[] = { "variant=frm3", NULL };
            size_t n3;
            unsigned char *o3 = write_params(reg, d2, frm3, &n3, &rep);
            ck_assert(ak_test_same_bytes(a.p, a.n, o3, n3, "frm3 via frm2"));
            ak_buffer_free(reg, o3);
            ak_buffer_free(reg, o2);
            ak_doc_free(d2);
        } else {
            ak_options o2 = { sizeof o2, "anm", NULL, frm2, 0, 0 };
            unsigned char *bytes = NULL;
            ak_report rep2 = { 0 };
            ck_assert_int_eq(ak_write(reg, d, &o2, &bytes, &n, &rep2), AK_E_UNSUPPORTED);
            ck_assert(strstr(rep2.text, "frm3") != NULL);
        }
        ak_doc_free(d);
        free(a.p);
    }
    ak_registry_free(reg);
}
END_TEST

/* ---- CMNT (§4) ---- */
START_TEST(t_cmnt)
{
    buf a = { 0 };
    b_tag(&a, "EANM"); b_u32(&a, ANM_V61);
    b_tag(&a, "FRMS"); b_u32(&a, 1);
    b_tag(&a, "CMNT"); b_u16(&a, 5); b_put(&a, "hello", 5);
    b_tag(&a, "CMNT"); b_u16(&a, 0);
    b_tag(&a, "BMAP"); b_u32(&a, 1); b_name(&a, "engine");
    b_tag(&a, "FRM2"); b_u16(&a, 0); b_u8(&a, 1); b_u8(&a, 0); b_u16(&a, 0x08);
    ak_registry *reg = reg_anm();
    ak_doc *d = ak_test_read(reg, a.p, a.n, "cmnt.anm");
    const ak_clip *c = d->clips[0];
    ck_assert_int_eq(ak_prop_int(&c->props, "anm.cmnt.count", 0), 2);
    const ak_prop *p = ak_prop_get(&c->props, "anm.cmnt.0");
    ck_assert(p && p->size == 5 && memcmp(p->data, "hello", 5) == 0);
    ck_assert_str_eq(c->tracks[0]->bone, "engine");
    size_t n;
    unsigned char *o = ak_test_write(reg, d, "anm", &n);
    ck_assert(ak_test_same_bytes(a.p, a.n, o, n, "cmnt"));
    ak_buffer_free(reg, o);
    ak_doc_free(d);
    /* A GEM3-style BMAP (one-byte lengths) after CMNT is refused clearly. */
    buf g = { 0 };
    b_tag(&g, "EANM"); b_u32(&g, ANM_V61);
    b_tag(&g, "FRMS"); b_u32(&g, 1);
    b_tag(&g, "CMNT"); b_u16(&g, 2); b_put(&g, "hi", 2);
    b_tag(&g, "BMAP"); b_u32(&g, 1); b_u8(&g, 6); b_put(&g, "engine", 6);
    b_tag(&g, "FRM2"); b_u16(&g, 0); b_u8(&g, 1); b_u8(&g, 0); b_u16(&g, 0x08);
    ak_report rep = { 0 };
    ak_doc *bad = NULL;
    ck_assert_int_eq(ak_test_try_read(reg, g.p, g.n, "gem3.anm", &bad, &rep), AK_E_UNSUPPORTED);
    ck_assert(strstr(rep.text, "GEM3") != NULL);
    ck_assert(rep.offset > 0);
    ak_registry_free(reg);
    free(a.p);
    free(g.p);
}
END_TEST

/* ---- scale keys (0x40) ---- */
START_TEST(t_scale)
{
    static const char *const bones[] = { "s" };
    buf a = { 0 };
    b_header(&a, ANM_V60, 3, bones, 1);
    b_tag(&a, "FRM2"); b_u16(&a, 0); b_u8(&a, 1);
    b_u8(&a, 0); b_u16(&a, 0x4B); b_f32(&a, 1); b_f32(&a, 2); b_f32(&a, 3);
    b_f32(&a, 0); b_f32(&a, 0); b_f32(&a, 0); b_f32(&a, 2); b_f32(&a, 0.5f); b_f32(&a, 1);
    b_tag(&a, "FRM2"); b_u16(&a, 2); b_u8(&a, 1);
    b_u8(&a, 0); b_u16(&a, 0x40); b_f32(&a, 3); b_f32(&a, 3); b_f32(&a, 3);
    ak_registry *reg = reg_anm();
    ak_doc *d = ak_test_read(reg, a.p, a.n, "scale.anm");
    const ak_channel *sc = &d->clips[0]->tracks[0]->channel[AK_SCALE];
    ck_assert_uint_eq(sc->count, 2);
    ck_assert(sc->keys[0].v[0] == 2 && sc->keys[0].v[1] == 0.5 && sc->keys[0].v[2] == 1);
    ck_assert(sc->keys[1].tick == 2 && sc->keys[1].v[0] == 3);
    size_t n;
    unsigned char *o = ak_test_write(reg, d, "anm", &n);
    ck_assert(ak_test_same_bytes(a.p, a.n, o, n, "scale"));
    ak_buffer_free(reg, o);
    /* FRMN stores scale in the MATR rows: it survives 4.0 and back. */
    const char *v40[] = { "variant=4.0", NULL };
    ak_report rep = { 0 };
    o = write_params(reg, d, v40, &n, &rep);
    ak_doc *d2 = read_params(reg, o, n, NULL);
    const ak_channel *sc2 = &d2->clips[0]->tracks[0]->channel[AK_SCALE];
    ck_assert_uint_ge(sc2->count, 2);
    ck_assert(fabs(sc2->keys[0].v[0] - 2) < 1e-6 && fabs(sc2->keys[0].v[1] - 0.5) < 1e-6);
    ck_assert(fabs(sc2->keys[sc2->count - 1].v[2] - 3) < 1e-6);
    ak_buffer_free(reg, o);
    ak_doc_free(d2);
    ak_doc_free(d);
    ak_registry_free(reg);
    free(a.p);
}
END_TEST

/* ---- an edited key is re-encoded, the rest stays byte for byte ---- */
START_TEST(t_edit_key)
{
    static const char *const bones[] = { "a", "b" };
    buf a = { 0 };
    b_header(&a, ANM_V60, 3, bones, 2);
    for (int f = 0; f < 3; f++) {
        b_tag(&a, "FRM2"); b_u16(&a, (unsigned)f); b_u8(&a, 2);
        b_u8(&a, 0); b_u16(&a, 0x0B); b_f32(&a, (float)f); b_f32(&a, 0); b_f32(&a, 0);
        b_f32(&a, 0.1f * (float)f); b_f32(&a, 0); b_f32(&a, 0);
        b_u8(&a, 1); b_u16(&a, 0x02); b_f32(&a, 0); b_f32(&a, 0.2f); b_f32(&a, 0);
    }
    ak_registry *reg = reg_anm();
    ak_doc *d = ak_test_read(reg, a.p, a.n, "edit.anm");
    ak_track *t = d->clips[0]->tracks[1];
    /* Frame 1's rotation of bone b: a new pose with w < 0 (the writer
     * stores the sign that rebuilds w >= 0). */
    ak_key *k = &t->channel[AK_ROTATION].keys[1];
    k->v[0] = 0; k->v[1] = 0; k->v[2] = 0.6; k->v[3] = -0.8;
    ak_key *p = &d->clips[0]->tracks[0]->channel[AK_TRANSLATION].keys[2];
    p->v[1] = 7.5;
    size_t n;
    unsigned char *o = ak_test_write(reg, d, "anm", &n);
    ck_assert_uint_eq(n, a.n);
    /* Offsets: header 8 + FRMS 8 + BMAP 8 + 2 names of 5 = 34; a frame
     * chunk is 7 + 27 + 15 = 49 bytes. */
    size_t chunk1 = 34 + 49, key_b = chunk1 + 7 + 27, rot_b = key_b + 3;
    size_t chunk2 = 34 + 98, pos_a = chunk2 + 7 + 3;
    for (size_t i = 0; i < n; i++) {
        int in_rot = i >= rot_b && i < rot_b + 12;
        int in_pos = i >= pos_a + 4 && i < pos_a + 8;
        if (!in_rot && !in_pos)
            ck_assert_msg(o[i] == a.p[i], "byte %zu changed", i);
    }
    ck_assert(f_at(o + rot_b) == 0.0f && f_at(o + rot_b + 4) == 0.0f && f_at(o + rot_b + 8) == -0.6f);
    ck_assert(f_at(o + pos_a + 4) == 7.5f);
    ck_assert(ak_load_u16(o + key_b + 1) == 0x02);
    ak_doc *d2 = read_params(reg, o, n, NULL);
    const double *q = d2->clips[0]->tracks[1]->channel[AK_ROTATION].keys[1].v;
    ck_assert(fabs(q[2] + 0.6) < 1e-7 && fabs(q[3] - 0.8) < 1e-7);
    ak_buffer_free(reg, o);
    ak_doc_free(d2);

    /* A key added where the bone already has a record keeps the layout:
     * only that record's flags and payload change (0x02 -> 0x12). */
    ak_key *nk = ak_key_add(d->clips[0]->tracks[1], AK_VISIBILITY);
    nk->time = 1 / 30.0;
    nk->tick = 1;
    nk->v[0] = 0;
    o = ak_test_write(reg, d, "anm", &n);
    ck_assert_uint_eq(n, a.n);
    ck_assert_uint_eq(ak_load_u16(o + key_b + 1), 0x12);
    d2 = read_params(reg, o, n, NULL);
    const ak_channel *vis = &d2->clips[0]->tracks[1]->channel[AK_VISIBILITY];
    ck_assert_uint_eq(vis->count, 1);
    ck_assert(vis->keys[0].tick == 1 && vis->keys[0].v[0] == 0);
    ak_buffer_free(reg, o);
    ak_doc_free(d2);

    /* A key on a new frame changes the structure: the clip is regenerated
     * sparse, full keys on the first and the (new) last frame. */
    ak_key *tk = ak_key_add(d->clips[0]->tracks[0], AK_TRANSLATION);
    tk->time = 4 / 30.0;
    tk->v[0] = tk->v[1] = tk->v[2] = 9;
    ak_key *ek = ak_key_add(d->clips[0]->tracks[0], AK_ROTATION);
    ek->time = 5 / 30.0; /* the same pose as frame 2: a changed value? no */
    memcpy(ek->v, d->clips[0]->tracks[0]->channel[AK_ROTATION].keys[2].v, sizeof ek->v);
    o = ak_test_write(reg, d, "anm", &n);
    d2 = read_params(reg, o, n, NULL);
    const ak_clip *c2 = d2->clips[0];
    ck_assert_int_eq(ak_prop_int(&c2->props, "anm.frms", 0), 6);
    const ak_channel *pa = &c2->tracks[0]->channel[AK_TRANSLATION];
    ck_assert_uint_eq(pa->count, 5); /* frames 0, 1, 2, 4, 5 */
    ck_assert(pa->keys[2].v[1] == 7.5);
    ck_assert(pa->keys[3].tick == 4 && pa->keys[3].v[0] == 9);
    ck_assert(pa->keys[4].tick == 5 && pa->keys[4].v[2] == 9);
    const ak_channel *rb = &c2->tracks[1]->channel[AK_ROTATION];
    /* bone b: 0.2, edited pose at 1, 0.2 at 2, then the full key at 5 is
     * the held 0.2 */
    ck_assert_uint_eq(rb->count, 4);
    ck_assert(rb->keys[3].tick == 5 && fabs(rb->keys[3].v[1] - 0.2) < 1e-7);
    const ak_channel *va = &c2->tracks[0]->channel[AK_VISIBILITY];
    ck_assert_uint_eq(va->count, 2); /* 0x0B on every frame: kept at 0 and 5 */
    const ak_channel *vb = &c2->tracks[1]->channel[AK_VISIBILITY];
    /* held hidden at 0 (the first key's value), the key at 1 is the same
     * value and so dropped, held at 5 */
    ck_assert_uint_eq(vb->count, 2);
    ck_assert(vb->keys[0].v[0] == 0 && vb->keys[1].tick == 5 && vb->keys[1].v[0] == 0);
    ak_buffer_free(reg, o);
    ak_doc_free(d2);
    ak_doc_free(d);
    ak_registry_free(reg);
    free(a.p);
}
END_TEST

/* Editing a corpus FRMN key re-encodes its matrix only. */
START_TEST(t_edit_frmn_corpus)
{
    size_t n;
    unsigned char *data = corpus_file("frmn_v40000_mesh_citroen45_engine", &n);
    if (!data)
        return;
    ak_registry *reg = reg_anm();
    ak_doc *d = ak_test_read(reg, data, n, "citroen45");
    ak_track *t = NULL;
    for (size_t i = 0; i < d->clips[0]->track_count && !t; i++)
        if (d->clips[0]->tracks[i]->channel[AK_ROTATION].count)
            t = d->clips[0]->tracks[i];
    ck_assert(t != NULL);
    ak_key *k = &t->channel[AK_ROTATION].keys[0];
    double old[4];
    memcpy(old, k->v, sizeof old);
    /* rotate by 90 degrees about z */
    const double c = sqrt(0.5);
    double nq[4] = { c * old[0] + c * old[1] * 0 - 0 + old[0] * 0, 0, 0, 0 };
    double a[4] = { 0, 0, c, c }, b[4];
    memcpy(b, old, sizeof b);
    nq[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    nq[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    nq[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    nq[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    memcpy(k->v, nq, sizeof nq);
    size_t m;
    unsigned char *o = ak_test_write(reg, d, "anm", &m);
    ck_assert_uint_eq(m, n);
    size_t diff = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (o[i] != data[i]) {
            if (!diff)
                first = i;
            diff++;
        }
    ck_assert_uint_gt(diff, 0);
    ck_assert_uint_le(diff, 36);
    (void)first;
    ak_doc *d2 = read_params(reg, o, m, NULL);
    const ak_track *t2 = track_named(d2, t->bone);
    const double *q = t2->channel[AK_ROTATION].keys[0].v;
    double dot = q[0] * nq[0] + q[1] * nq[1] + q[2] * nq[2] + q[3] * nq[3];
    ck_assert(fabs(fabs(dot) - 1) < 1e-6);
    ak_buffer_free(reg, o);
    ak_doc_free(d2);
    ak_doc_free(d);
    ak_registry_free(reg);
    free(data);
}
END_TEST

/* ---- FRMN <-> FRM2 conversion of real files keeps poses and meshes ---- */
START_TEST(t_convert_corpus)
{
    static const char *const names[] = { "frmn_v40000_mesh_citroen45_engine", "frm2_mesh_flag0A_33_mi17_engine_stop",
                                         "frm2_human_24bones_mirrored_dismounting_bmd4" };
    ak_registry *reg = reg_anm();
    for (int f = 0; f < 3; f++) {
        size_t n;
        unsigned char *data = corpus_file(names[f], &n);
        if (!data)
            continue;
        ak_doc *d = ak_test_read(reg, data, n, names[f]);
        const char *to[] = { f == 0 ? "variant=6.0" : "variant=4.0", NULL };
        ak_report rep = { 0 };
        size_t m;
        unsigned char *o = write_params(reg, d, to, &m, &rep);
        ak_doc *d2 = read_params(reg, o, m, NULL);
        ck_assert_str_eq(d2->variant, f == 0 ? "6.0" : "4.0");
        ck_assert_int_eq(ak_prop_int(&d2->clips[0]->props, "mesh_keys", -1),
                         ak_prop_int(&d->clips[0]->props, "mesh_keys", -2));
        const ak_clip *c1 = d->clips[0], *c2 = d2->clips[0];
        ck_assert_uint_eq(c1->track_count, c2->track_count);
        for (size_t t = 0; t < c1->track_count; t++) {
            ck_assert_str_eq(c1->tracks[t]->bone, c2->tracks[t]->bone);
            ck_assert_int_eq(ak_prop_int(&c1->tracks[t]->props, "anm.mirrored", 0),
                             ak_prop_int(&c2->tracks[t]->props, "anm.mirrored", 0));
            /* every rotation key of the source is in the result with the same
             * rotation */
            const ak_channel *r1 = &c1->tracks[t]->channel[AK_ROTATION];
            const ak_channel *r2 = &c2->tracks[t]->channel[AK_ROTATION];
            for (size_t k = 0; k < r1->count; k++) {
                size_t j = 0;
                while (j < r2->count && r2->keys[j].tick != r1->keys[k].tick)
                    j++;
                ck_assert_msg(j < r2->count, "%s: rotation key at %lld lost", names[f], (long long)r1->keys[k].tick);
                const double *a = r1->keys[k].v, *b = r2->keys[j].v;
                double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
                ck_assert_msg(fabs(fabs(dot) - 1) < 2e-6, "%s: rotation differs (dot %.9g)", names[f], dot);
            }
            const ak_channel *p1 = &c1->tracks[t]->channel[AK_TRANSLATION];
            const ak_channel *p2 = &c2->tracks[t]->channel[AK_TRANSLATION];
            for (size_t k = 0; k < p1->count; k++) {
                size_t j = 0;
                while (j < p2->count && p2->keys[j].tick != p1->keys[k].tick)
                    j++;
                ck_assert(j < p2->count);
                for (int a = 0; a < 3; a++)
                    ck_assert(p1->keys[k].v[a] == p2->keys[j].v[a]);
            }
            const ak_prop *m1 = ak_prop_get(&c1->tracks[t]->props, "anm.mesh");
            const ak_prop *m2 = ak_prop_get(&c2->tracks[t]->props, "anm.mesh");
            ck_assert((m1 == NULL) == (m2 == NULL));
            if (m1)
                ck_assert(m1->size == m2->size && memcmp(m1->data, m2->data, m1->size) == 0);
        }
        /* And back: same poses again (not byte-exact: sub-chunk layout is
         * regenerated only where needed). */
        const char *back[] = { f == 0 ? "variant=4.0" : "variant=6.0", NULL };
        size_t m3;
        unsigned char *o3 = write_params(reg, d2, back, &m3, &rep);
        ak_doc *d3 = read_params(reg, o3, m3, NULL);
        ck_assert_uint_eq(d3->clips[0]->track_count, c1->track_count);
        ak_buffer_free(reg, o3);
        ak_doc_free(d3);
        ak_buffer_free(reg, o);
        ak_doc_free(d2);
        ak_doc_free(d);
        free(data);
    }
    ak_registry_free(reg);
}
END_TEST

/* ---- a document built by hand ---- */
/* A file whose BMAP holds `count` names (lens[i] bytes at names + i *
 * stride) and one shown record on the last bone, read: each bone must be
 * named by the bytes before its name's first NUL, as strnlen finds it; a
 * name holding a NUL keeps its whole stored bytes (ANM_P_NAME), one
 * without has no such property; the write gives the file back. The
 * document is returned for further checks. */
static ak_doc *read_names(ak_registry *reg, const unsigned char *names, size_t stride, const uint32_t *lens,
                          size_t count)
{
    buf b = { 0 };
    b_tag(&b, "EANM");
    b_u32(&b, ANM_V60);
    b_tag(&b, "FRMS");
    b_u32(&b, 2);
    b_tag(&b, "BMAP");
    b_u32(&b, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        b_u32(&b, lens[i]);
        b_put(&b, names + i * stride, lens[i]);
    }
    b_tag(&b, "FRM2");
    b_u16(&b, 0);
    b_u8(&b, 1);
    b_u8(&b, (uint8_t)(count - 1));
    b_u16(&b, 0x08); /* shown: no payload */
    ak_doc *doc = read_params(reg, b.p, b.n, NULL);
    const ak_clip *c = doc->clips[0];
    ck_assert_uint_eq(c->track_count, count);
    for (size_t i = 0; i < count; i++) {
        const unsigned char *name = names + i * stride;
        size_t n = strnlen((const char *)name, lens[i]);
        ck_assert_uint_eq(strlen(c->tracks[i]->bone), n);
        ck_assert(memcmp(c->tracks[i]->bone, name, n) == 0);
        const ak_prop *np = ak_prop_get(&c->tracks[i]->props, ANM_P_NAME);
        if (n == lens[i]) {
            ck_assert_ptr_null(np);
        } else {
            ck_assert_ptr_nonnull(np);
            ck_assert_uint_eq(np->size, lens[i]);
            ck_assert(memcmp(np->data, name, lens[i]) == 0);
        }
    }
    ak_report rep = { 0 };
    size_t n;
    unsigned char *o = write_params(reg, doc, NULL, &n, &rep);
    ck_assert(ak_test_same_bytes(b.p, b.n, o, n, "names written back"));
    ak_buffer_free(reg, o);
    free(b.p);
    return doc;
}

/* A BMAP name that holds a NUL: the bone is named by the bytes before it
 * (a name that starts with one has an empty name), the whole stored name
 * is kept and written back as it was. */
START_TEST(t_name_with_nul)
{
    static const unsigned char names[3][7] = { "root\0xy", "\0ab", "arm" };
    static const uint32_t lens[3] = { 7, 3, 3 };
    ak_registry *reg = reg_anm();
    ak_doc *doc = read_names(reg, names[0], sizeof names[0], lens, 3);
    ck_assert_str_eq(doc->clips[0]->tracks[0]->bone, "root");
    ck_assert_str_eq(doc->clips[0]->tracks[1]->bone, "");
    ck_assert_str_eq(doc->clips[0]->tracks[2]->bone, "arm");
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* Names of every length from 0 to 20 bytes, each without a NUL and with
 * one at every position (and a second NUL after it where there is room):
 * the reader finds the first NUL by whole words for names of 4 bytes and
 * more, so each length and position must name the bone by the bytes
 * before the first NUL. */
START_TEST(t_name_lengths_and_nuls)
{
    enum { LONGEST = 20 };
    unsigned char names[(LONGEST + 1) * (LONGEST + 2) / 2][LONGEST];
    uint32_t lens[sizeof names / sizeof names[0]];
    size_t count = 0;
    for (uint32_t len = 0; len <= LONGEST; len++)
        for (int nul = -1; nul < (int)len; nul++, count++) {
            for (uint32_t i = 0; i < len; i++)
                names[count][i] = (unsigned char)('a' + (count + i) % 26);
            if (nul >= 0) {
                names[count][nul] = 0;
                if ((uint32_t)nul + 2 < len)
                    names[count][len - 1] = 0;
            }
            lens[count] = len;
        }
    ak_registry *reg = reg_anm();
    ak_doc_free(read_names(reg, names[0], sizeof names[0], lens, count));
    ak_registry_free(reg);
}
END_TEST

/* A BMAP cut inside a name: the error names the field and its offset, as
 * worked out by hand. EANM 0, FRMS 8, BMAP 16, count 20; "Root" length at
 * 24, bytes 28-31; "arm" length at 32, bytes 36-38; "hand" length at 39,
 * bytes 43-46. The count's own check needs 3 x 4 bytes after 24, so cuts
 * from 36 on reach the names. */
START_TEST(t_bmap_cut_in_a_name)
{
    buf b = { 0 };
    static const char *const bones[] = { "Root", "arm", "hand" };
    b_header(&b, ANM_V60, 2, bones, 3);
    ck_assert_uint_eq(b.n, 47);
    ak_registry *reg = reg_anm();
    for (size_t cut = 36; cut < b.n; cut++) {
        int in_length = cut >= 39 && cut < 43; /* "hand"'s length field */
        const char *what = in_length ? "32-bit value" : "bone name";
        int64_t at = cut < 39 ? 36 : cut < 43 ? 39 : 43;
        size_t need = cut < 39 ? 3 : 4;
        char text[160];
        snprintf(text, sizeof text, "truncated %s: %zu bytes needed, %zu left", what, need, cut - (size_t)at);
        ak_report rep = { 0 };
        ak_doc *doc = NULL;
        ak_options o = { sizeof o, "anm", "cut.anm", NULL, 0, 0 };
        ck_assert_int_eq(ak_read(reg, b.p, cut, &o, &doc, &rep), AK_E_DATA);
        ck_assert_ptr_null(doc);
        ck_assert_msg(rep.offset == at, "cut %zu: offset %lld, expected %lld", cut, (long long)rep.offset,
                      (long long)at);
        ck_assert_msg(strstr(rep.message, text) != NULL, "cut %zu: '%s' lacks '%s'", cut, rep.message, text);
    }
    ak_doc *whole = read_params(reg, b.p, b.n, NULL);
    ck_assert_uint_eq(whole->clips[0]->track_count, 3);
    ck_assert_str_eq(whole->clips[0]->tracks[2]->bone, "hand");
    ak_doc_free(whole);
    ak_registry_free(reg);
    free(b.p);
}
END_TEST

START_TEST(t_handbuilt)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "walk");
    clip->duration = 1.0;
    ak_track *root = ak_track_add(clip, "root");
    ak_track *arm = ak_track_add(clip, "arm");
    /* root: rotation at 0, 0.5, 1 s (the middle one equal to the first:
     * not written, the file is sparse), translation at 0 and 1 s. */
    static const double qs[3][4] = { { 0, 0, 0, 1 }, { 0, 0, 0, 1 }, { 0, 0.6, 0, 0.8 } };
    for (int i = 0; i < 3; i++) {
        ak_key *k = ak_key_add(root, AK_ROTATION);
        k->time = i * 0.5;
        memcpy(k->v, qs[i], sizeof qs[i]);
    }
    for (int i = 0; i < 2; i++) {
        ak_key *k = ak_key_add(root, AK_TRANSLATION);
        k->time = i;
        k->v[0] = 1 + i;
        k->v[1] = -2;
        k->v[2] = 0.5;
    }
    ak_key *v = ak_key_add(arm, AK_VISIBILITY);
    v->time = 0;
    v->v[0] = 1;
    v = ak_key_add(arm, AK_VISIBILITY);
    v->time = 0.5;
    v->v[0] = 0;
    ak_event_add(clip, 0.2, "sound", "step");
    ak_registry *reg = reg_anm();
    ak_report rep = { 0 };
    size_t n;
    unsigned char *o = write_params(reg, doc, NULL, &n, &rep);
    ck_assert_uint_ge(rep.warnings, 2); /* the frame rate note and the event */
    /* Decode by hand: EANM 6.0, FRMS 31, BMAP root, arm. */
    ck_assert(memcmp(o, "EANM", 4) == 0);
    ck_assert_uint_eq(ak_load_u32(o + 4), 0x00060000u);
    ck_assert(memcmp(o + 8, "FRMS", 4) == 0);
    ck_assert_uint_eq(ak_load_u32(o + 12), 31);
    ck_assert(memcmp(o + 16, "BMAP", 4) == 0);
    ck_assert_uint_eq(ak_load_u32(o + 20), 2);
    ck_assert_uint_eq(ak_load_u32(o + 24), 4);
    ck_assert(memcmp(o + 28, "root", 4) == 0);
    ck_assert_uint_eq(ak_load_u32(o + 32), 3);
    ck_assert(memcmp(o + 36, "arm", 3) == 0);
    /* Frame 0: FRM2 0, two keys: root 0x0B pos rot, arm 0x08. */
    size_t p = 39;
    ck_assert(memcmp(o + p, "FRM2", 4) == 0);
    ck_assert_uint_eq(ak_load_u16(o + p + 4), 0);
    ck_assert_uint_eq(o[p + 6], 2);
    ck_assert_uint_eq(o[p + 7], 0);
    ck_assert_uint_eq(ak_load_u16(o + p + 8), 0x0B);
    ck_assert(f_at(o + p + 10) == 1.0f && f_at(o + p + 14) == -2.0f && f_at(o + p + 18) == 0.5f);
    ck_assert(f_at(o + p + 22) == 0.0f && f_at(o + p + 26) == 0.0f && f_at(o + p + 30) == 0.0f);
    ck_assert_uint_eq(o[p + 34], 1);
    ck_assert_uint_eq(ak_load_u16(o + p + 35), 0x08);
    /* Frame 15: only arm's visibility off (root's rotation is unchanged). */
    p += 37;
    ck_assert(memcmp(o + p, "FRM2", 4) == 0);
    ck_assert_uint_eq(ak_load_u16(o + p + 4), 15);
    ck_assert_uint_eq(o[p + 6], 1);
    ck_assert_uint_eq(o[p + 7], 1);
    ck_assert_uint_eq(ak_load_u16(o + p + 8), 0x10);
    /* Frame 30: root 0x0B with the new pose, arm 0x10. */
    p += 10;
    ck_assert(memcmp(o + p, "FRM2", 4) == 0);
    ck_assert_uint_eq(ak_load_u16(o + p + 4), 30);
    ck_assert_uint_eq(o[p + 6], 2);
    ck_assert_uint_eq(ak_load_u16(o + p + 8), 0x0B);
    ck_assert(f_at(o + p + 10) == 2.0f);
    ck_assert(f_at(o + p + 26) == 0.6f);
    ck_assert_uint_eq(ak_load_u16(o + p + 35), 0x10);
    ck_assert_uint_eq(n, p + 37);
    /* Reads back. */
    ak_doc *d2 = read_params(reg, o, n, NULL);
    const ak_clip *c2 = d2->clips[0];
    ck_assert_uint_eq(c2->track_count, 2);
    ck_assert(fabs(c2->duration - 1.0) < 1e-12);
    const ak_channel *r = &c2->tracks[0]->channel[AK_ROTATION];
    ck_assert_uint_eq(r->count, 2);
    ck_assert(fabs(r->keys[1].v[1] - 0.6) < 1e-7 && fabs(r->keys[1].v[3] - 0.8) < 1e-7);
    ck_assert(fabs(r->keys[1].time - 1.0) < 1e-12);
    ak_buffer_free(reg, o);
    /* The same at 25 frames per second, as FRMN: frame 25 is the end. */
    const char *p25[] = { "fps=25", "variant=4.0", NULL };
    o = write_params(reg, doc, p25, &n, &rep);
    ck_assert_uint_eq(ak_load_u32(o + 4), 0x00040000u);
    ck_assert_uint_eq(ak_load_u32(o + 12), 26);
    const char *rp25[] = { "fps=25", NULL };
    ak_doc *d3 = read_params(reg, o, n, rp25);
    ck_assert(d3->clips[0]->tick_rate == 25 && d3->clips[0]->frame_rate == 0);
    const ak_channel *r3 = &d3->clips[0]->tracks[0]->channel[AK_ROTATION];
    ck_assert_int_eq(r3->keys[r3->count - 1].tick, 25);
    ck_assert(fabs(r3->keys[r3->count - 1].v[1] - 0.6) < 1e-6);
    ak_buffer_free(reg, o);
    ak_doc_free(d3);
    ak_doc_free(d2);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* A bone without keys or stored records (most of a FRMN file's) still
 * gets a record on the first and the last frame, as every bone has in
 * the real files (fact sheet §7); with no channel to write, the
 * visibility bit alone (§8: 0x08 visible). The writer skips such a
 * track's preparation; this is what that must not skip. */
START_TEST(t_unkeyed_bone)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "idle");
    clip->duration = 1.0;
    ak_track *root = ak_track_add(clip, "root");
    ck_assert_ptr_nonnull(ak_track_add(clip, "hand"));
    for (int i = 0; i < 2; i++) {
        ak_key *k = ak_key_add(root, AK_TRANSLATION);
        k->time = i;
        k->v[0] = 1 + i;
    }
    ak_registry *reg = reg_anm();
    ak_report rep = { 0 };
    size_t n;
    unsigned char *o = write_params(reg, doc, NULL, &n, &rep);
    /* EANM 6.0, FRMS 31, BMAP root, hand: 40 bytes. */
    ck_assert_uint_eq(ak_load_u32(o + 12), 31);
    ck_assert_uint_eq(ak_load_u32(o + 20), 2);
    ck_assert(memcmp(o + 28, "root", 4) == 0 && memcmp(o + 36, "hand", 4) == 0);
    /* Frames 0 and 30: FRM2, the frame, two records: root 0x09 (position,
     * visible) with its position, hand 0x08 (visible) alone. */
    size_t p = 40;
    for (int i = 0; i < 2; i++) {
        ck_assert(memcmp(o + p, "FRM2", 4) == 0);
        ck_assert_uint_eq(ak_load_u16(o + p + 4), i ? 30 : 0);
        ck_assert_uint_eq(o[p + 6], 2);
        ck_assert_uint_eq(o[p + 7], 0);
        ck_assert_uint_eq(ak_load_u16(o + p + 8), ANM_F_POS | ANM_F_VIS_ON);
        ck_assert(f_at(o + p + 10) == (float)(1 + i) && f_at(o + p + 14) == 0.0f && f_at(o + p + 18) == 0.0f);
        ck_assert_uint_eq(o[p + 22], 1);
        ck_assert_uint_eq(ak_load_u16(o + p + 23), ANM_F_VIS_ON);
        p += 25;
    }
    ck_assert_uint_eq(n, p);
    /* Read back and written again: the stored records and layout now
     * name hand's two records, and the bytes come out the same. */
    ak_doc *back = read_params(reg, o, n, NULL);
    size_t n2;
    unsigned char *o2 = write_params(reg, back, NULL, &n2, &rep);
    ck_assert_uint_eq(n2, n);
    ck_assert(memcmp(o2, o, n) == 0);
    ak_buffer_free(reg, o2);
    ak_buffer_free(reg, o);
    ak_doc_free(back);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* ---- bad input ---- */
static void expect_clean_error(ak_registry *reg, const unsigned char *d, size_t n, const char *what)
{
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, "anm", what, NULL, 0, 0 };
    ak_status st = ak_read(reg, d, n, &o, &doc, &rep);
    if (st == AK_OK) {
        ak_doc_free(doc);
        return; /* some cuts leave a valid file (e.g. after whole chunks) */
    }
    ck_assert_msg(st == AK_E_DATA || st == AK_E_UNSUPPORTED, "%s: status %s (%s)", what, ak_status_name(st),
                  rep.message);
    ck_assert_msg(rep.offset >= 0, "%s: error without an offset: %s", what, rep.message);
    ck_assert(doc == NULL);
}

static void expect_fail(ak_registry *reg, const unsigned char *d, size_t n, const char *what)
{
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, "anm", what, NULL, 0, 0 };
    ak_status st = ak_read(reg, d, n, &o, &doc, &rep);
    ck_assert_msg(st == AK_E_DATA || st == AK_E_UNSUPPORTED, "%s: status %s", what, ak_status_name(st));
    ck_assert_msg(rep.offset >= 0, "%s: error without an offset: %s", what, rep.message);
}

static void sweep(ak_registry *reg, const unsigned char *d, size_t n, const char *name)
{
    unsigned char *c = malloc(n);
    memcpy(c, d, n);
    /* truncations: every byte of the first 200, then ~300 sampled points */
    size_t step = n > 60000 ? n / 300 : n > 600 ? n / 200 + 1 : 1;
    for (size_t cut = 0; cut < n; cut += cut < 200 ? 1 : step)
        expect_clean_error(reg, c, cut, name);
    /* corrupt every 4-byte tag found, inflate every u32 that follows one */
    static const char *const tags[] = { "FRMS", "BMAP", "FRM2", "FRMN", "FRM3", "BONE", "MATR", "VISI", "MESH", "EANM" };
    size_t hits = 0;
    for (size_t i = 0; i + 4 <= n && hits < 400; i++)
        for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++)
            if (memcmp(d + i, tags[t], 4) == 0) {
                hits++;
                c[i + 3] = 'X';
                expect_clean_error(reg, c, n, name);
                c[i + 3] = d[i + 3];
                if (i + 8 <= n) {
                    static const uint32_t big[] = { 0xFFFFFFFFu, 0x7FFFFFFFu, 0x10000u, 0xFFu };
                    for (int b = 0; b < 4; b++) {
                        ak_poke_u32(c + i + 4, big[b]);
                        expect_clean_error(reg, c, n, name);
                    }
                    memcpy(c + i + 4, d + i + 4, 4);
                }
                /* the byte after an FRM2 frame number is the key count */
                if (t == 2 && i + 7 <= n) {
                    c[i + 6] = 0xFF;
                    expect_clean_error(reg, c, n, name);
                    c[i + 6] = d[i + 6];
                }
            }
    /* random byte flips, deterministic */
    uint32_t seed = 12345;
    for (int k = 0; k < 300; k++) {
        seed = seed * 1103515245u + 12345u;
        size_t at = (seed >> 8) % n;
        unsigned char old = c[at];
        c[at] ^= (unsigned char)(1u << (seed % 8));
        expect_clean_error(reg, c, n, name);
        c[at] = old;
    }
    free(c);
}

/* Keys given out of order and channels keyed at different frames: the
 * writer sorts each channel and merges the channels' frames (the frame
 * list is a few sorted runs end to end). The file must not depend on the
 * order the keys were added in, and must read back with every key. */
static ak_doc *interleaved_doc(int reverse)
{
    static const unsigned rot_f[3] = { 5, 15, 25 }, pos_f[4] = { 0, 10, 20, 30 }, vis_f[2] = { 3, 27 };
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "mix");
    clip->duration = 1.0;
    ak_track *t = ak_track_add(clip, "root");
    for (int j = 0; j < 4; j++) {
        int i = reverse ? 3 - j : j;
        ak_key *k = ak_key_add(t, AK_TRANSLATION);
        k->time = pos_f[i] / 30.0;
        k->v[0] = i + 1;
        k->v[1] = -i;
        k->v[2] = 0.25 * i;
    }
    for (int j = 0; j < 3; j++) {
        int i = reverse ? 2 - j : j;
        ak_key *k = ak_key_add(t, AK_ROTATION);
        k->time = rot_f[i] / 30.0;
        double a = 0.3 * (i + 1);
        k->v[0] = 0;
        k->v[1] = sin(a);
        k->v[2] = 0;
        k->v[3] = cos(a);
    }
    for (int j = 0; j < 2; j++) {
        int i = reverse ? 1 - j : j;
        ak_key *k = ak_key_add(t, AK_VISIBILITY);
        k->time = vis_f[i] / 30.0;
        k->v[0] = i == 0 ? 0 : 1;
    }
    return doc;
}

/* The key in force at `tick` in a sparse file: the last at or before it. */
static const ak_key *key_in_force(const ak_channel *ch, int64_t tick)
{
    const ak_key *k = NULL;
    for (size_t i = 0; i < ch->count && ch->keys[i].tick <= tick; i++)
        k = &ch->keys[i];
    return k;
}

/* The clip properties a writer honours, set by hand on a built document
 * (no layout, so the chunks are laid out anew): anm.frame_tag names the
 * first frame chunk's tag only as the whole string FRMN, FRM2 or FRM3 and
 * only beside the anm.version it was read with; anm.form 0 on a clip
 * without tracks is a header-only file; anm.cmnt.count says how many
 * anm.cmnt.N to write. Expected bytes follow §1-§5 of the fact sheet:
 * EANM, version, FRMS and its count, CMNT (u16 size, text), then BMAP. */
static size_t first_frame_tag_at(const unsigned char *o) { return 24 + 4 + ak_load_u32(o + 24); }

/* ---- the writer's replay of a document as read (layout mode without
 * the intermediate lists) writes what the regular path writes ---- */

/* Appends a copy of the track's first stored record to its anm.records:
 * frames no longer ascend strictly, which the replay does not take, while
 * the regular path sorts and merges them back to the same records. */
static int defeat_replay(ak_doc *doc)
{
    ak_clip *clip = doc->clips[0];
    for (size_t t = 0; t < clip->track_count; t++) {
        ak_track *tr = clip->tracks[t];
        const ak_prop *rp = ak_prop_get(&tr->props, ANM_P_RECORDS);
        if (!rp || rp->type != AK_PROP_BYTES || rp->size < 2 * ANM_EXTRA_SIZE)
            continue;
        unsigned char *b = malloc(rp->size + ANM_EXTRA_SIZE);
        ck_assert_ptr_nonnull(b);
        memcpy(b, rp->data, rp->size);
        memcpy(b + rp->size, rp->data, ANM_EXTRA_SIZE);
        ck_assert_int_eq(ak_prop_set_bytes(doc, &tr->props, ANM_P_RECORDS, b, rp->size + ANM_EXTRA_SIZE), AK_OK);
        free(b);
        return 1;
    }
    return 0;
}

/* The edits both documents get: 0 none, 1 every third key's values, 2 the
 * first two bones of the first chunk that has two swapped in the layout,
 * 3 a key moved half a frame (no record lies there: regenerated), 4 the
 * layout's last record left out (regenerated), 5 a key moved onto the
 * next key of its channel (two on one frame: merged), 6 the last key of
 * the first keyed channel moved a frame past the clip (no record there). */
static void replay_edit(ak_doc *doc, int edit)
{
    ak_clip *clip = doc->clips[0];
    size_t n = 0;
    for (size_t t = 0; edit != 2 && t < clip->track_count; t++)
        for (int c = 0; c < AK_CHANNELS; c++)
            for (size_t k = 0; k < clip->tracks[t]->channel[c].count; k++, n++) {
                ak_key *key = &clip->tracks[t]->channel[c].keys[k];
                if (edit == 1 && n % 3 == 0) {
                    key->v[0] = c == AK_VISIBILITY ? 1 - key->v[0] : key->v[0] + 0.25;
                } else if (edit == 3 && n == 1) {
                    key->time += 0.5 / clip->tick_rate;
                } else if (edit == 5 && n == 1 && k + 1 < clip->tracks[t]->channel[c].count) {
                    key->time = key[1].time;
                } else if (edit == 6 && n == 0) {
                    ak_key *last = &clip->tracks[t]->channel[c].keys[clip->tracks[t]->channel[c].count - 1];
                    last->time = clip->duration + 1 / clip->tick_rate;
                }
            }
    if (edit != 2 && edit != 4)
        return;
    const ak_prop *lp = ak_prop_get(&clip->props, ANM_P_LAYOUT);
    ck_assert(lp && lp->type == AK_PROP_BYTES);
    unsigned char *b = malloc(lp->size);
    ck_assert_ptr_nonnull(b);
    memcpy(b, lp->data, lp->size);
    size_t last = 0;
    for (size_t p = 0; edit == 4 && p + 9 <= lp->size; p += 9 + 4 * (size_t)ak_load_u32(b + p + 5))
        last = p;
    if (edit == 4) { /* the last chunk holds at least one record */
        ak_poke_u32(b + last + 5, ak_load_u32(b + last + 5) - 1);
        ck_assert_int_eq(ak_prop_set_bytes(doc, &clip->props, ANM_P_LAYOUT, b, lp->size - 4), AK_OK);
        free(b);
        return;
    }
    for (size_t p = 0; p + 9 <= lp->size;) {
        uint32_t count = ak_load_u32(b + p + 5);
        if (count >= 2) {
            unsigned char first[4];
            memcpy(first, b + p + 9, 4);
            memmove(b + p + 9, b + p + 13, 4);
            memcpy(b + p + 13, first, 4);
            break;
        }
        p += 9 + 4 * (size_t)count;
    }
    ck_assert_int_eq(ak_prop_set_bytes(doc, &clip->props, ANM_P_LAYOUT, b, lp->size), AK_OK);
    free(b);
}

START_TEST(t_replay_matches_regular)
{
    const sample *s = &samples[_i];
    size_t n;
    unsigned char *data = corpus_file(s->name, &n);
    if (!data)
        return;
    ak_registry *reg = reg_anm();
    static const char *const frmn[] = { "variant=4.0", NULL }, *const frm3[] = { "variant=frm3", NULL };
    const char *const *params[] = { NULL, frmn, frm3 };
    for (int edit = 0; edit < 7; edit++)
        for (int p = 0; p < 3; p++) {
            ak_doc *as_read = ak_test_read(reg, data, n, s->name);
            ak_doc *regular = ak_test_read(reg, data, n, s->name);
            if (!defeat_replay(regular)) { /* no bone with two records: nothing to compare */
                ak_doc_free(as_read);
                ak_doc_free(regular);
                goto done;
            }
            replay_edit(as_read, edit);
            replay_edit(regular, edit);
            ak_report ra = { 0 }, rb = { 0 };
            size_t na, nb;
            unsigned char *a = write_params(reg, as_read, params[p], &na, &ra);
            unsigned char *b = write_params(reg, regular, params[p], &nb, &rb);
            ck_assert_msg(na == nb && memcmp(a, b, na) == 0, "%s, edit %d, params %d: the writes differ", s->name,
                          edit, p);
            ck_assert_uint_eq(ra.warnings, rb.warnings);
            if (p == 0 && edit == 0)
                ck_assert(na == n && memcmp(a, data, n) == 0);
            if (p == 0 && edit == 1) /* values edited in place: the same size, other bytes */
                ck_assert(na == n && memcmp(a, data, n) != 0);
            ak_buffer_free(reg, a);
            ak_buffer_free(reg, b);
            ak_doc_free(as_read);
            ak_doc_free(regular);
        }
done:
    ak_registry_free(reg);
    free(data);
}
END_TEST

START_TEST(t_clip_props_honoured)
{
    static const struct {
        int version_prop, bytes;
        const char *tag, *expect;
    } cases[] = {
        { 1, 0, "FRMN", "FRMN" }, { 1, 0, "FRM3", "FRM3" }, { 1, 0, "FRM2", "FRM2" },
        { 1, 0, "FRM", "FRM2" },  { 1, 0, "FRM3X", "FRM2" }, { 1, 0, "frm3", "FRM2" },
        { 1, 0, "", "FRM2" },     { 1, 1, "FRM3", "FRM2" },  { 0, 0, "FRMN", "FRM2" },
    };
    ak_registry *reg = reg_anm();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ak_doc *doc = interleaved_doc(0);
        ak_clip *clip = doc->clips[0];
        ck_assert_int_eq(ak_prop_set_float(doc, &clip->props, "anm.fps", 30), AK_OK);
        if (cases[i].version_prop)
            ck_assert_int_eq(ak_prop_set_int(doc, &clip->props, "anm.version", ANM_V60), AK_OK);
        ak_status st = cases[i].bytes ? ak_prop_set_bytes(doc, &clip->props, "anm.frame_tag", cases[i].tag, 4)
                                      : ak_prop_set_string(doc, &clip->props, "anm.frame_tag", cases[i].tag);
        ck_assert_int_eq(st, AK_OK);
        ak_report rep = { 0 };
        size_t n;
        unsigned char *o = write_params(reg, doc, NULL, &n, &rep);
        ck_assert_uint_eq(ak_load_u32(o + 4), ANM_V60);
        size_t at = first_frame_tag_at(o);
        ck_assert_uint_le(at + 4, n);
        ck_assert_msg(memcmp(o + at, cases[i].expect, 4) == 0, "case %zu (%s): first frame chunk %.4s", i,
                      cases[i].tag, (const char *)o + at);
        ak_buffer_free(reg, o);
        ak_doc_free(doc);
    }
    /* anm.form 0 without tracks: EANM and the version only. */
    ak_doc *empty = ak_doc_new();
    ak_clip *clip = ak_clip_add(empty, "none");
    ck_assert_int_eq(ak_prop_set_int(empty, &clip->props, "anm.version", ANM_V40), AK_OK);
    ck_assert_int_eq(ak_prop_set_int(empty, &clip->props, "anm.form", 0), AK_OK);
    ak_report rep = { 0 };
    size_t n;
    unsigned char *o = write_params(reg, empty, NULL, &n, &rep);
    ck_assert_uint_eq(n, 8);
    ck_assert(memcmp(o, "EANM", 4) == 0);
    ck_assert_uint_eq(ak_load_u32(o + 4), ANM_V40);
    ak_buffer_free(reg, o);
    /* Two comments counted, the second given as bytes: both follow FRMS,
     * and a file that has them is more than a placeholder, so an empty
     * BMAP closes it. */
    ck_assert_int_eq(ak_prop_set_int(empty, &clip->props, "anm.form", 1), AK_OK);
    ck_assert_int_eq(ak_prop_set_int(empty, &clip->props, "anm.cmnt.count", 2), AK_OK);
    ck_assert_int_eq(ak_prop_set_string(empty, &clip->props, "anm.cmnt.0", "hi"), AK_OK);
    ck_assert_int_eq(ak_prop_set_bytes(empty, &clip->props, "anm.cmnt.1", "a\0b", 3), AK_OK);
    o = write_params(reg, empty, NULL, &n, &rep);
    ck_assert_uint_eq(n, 16 + 6 + 2 + 6 + 3 + 8);
    ck_assert(memcmp(o + 16, "CMNT", 4) == 0);
    ck_assert_uint_eq(ak_load_u16(o + 20), 2);
    ck_assert(memcmp(o + 22, "hi", 2) == 0);
    ck_assert(memcmp(o + 24, "CMNT", 4) == 0);
    ck_assert_uint_eq(ak_load_u16(o + 28), 3);
    ck_assert(memcmp(o + 30, "a\0b", 3) == 0);
    ck_assert(memcmp(o + 33, "BMAP", 4) == 0);
    ck_assert_uint_eq(ak_load_u32(o + 37), 0);
    ak_buffer_free(reg, o);
    ak_doc_free(empty);
    ak_registry_free(reg);
}
END_TEST

START_TEST(t_out_of_order_keys)
{
    ak_registry *reg = reg_anm();
    ak_doc *a = interleaved_doc(0), *b = interleaved_doc(1);
    ak_report ra = { 0 }, rb = { 0 };
    size_t na, nb;
    unsigned char *oa = write_params(reg, a, NULL, &na, &ra);
    unsigned char *ob = write_params(reg, b, NULL, &nb, &rb);
    ck_assert_uint_eq(na, nb);
    ck_assert(memcmp(oa, ob, na) == 0);
    ak_doc *back = read_params(reg, oa, na, NULL);
    const ak_track *t = track_named(back, "root");
    ck_assert(t != NULL);
    /* The file is sparse (full keys on the first and last frame, elsewhere
     * changes only): at every frame given, the value in force is the key's,
     * and each channel ascends. */
    static const int64_t pos_f[4] = { 0, 10, 20, 30 }, rot_f[3] = { 5, 15, 25 }, vis_f[2] = { 3, 27 };
    for (int c = 0; c < AK_CHANNELS; c++)
        for (size_t k = 1; k < t->channel[c].count; k++)
            ck_assert_int_lt(t->channel[c].keys[k - 1].tick, t->channel[c].keys[k].tick);
    for (int i = 0; i < 4; i++) {
        const ak_key *k = key_in_force(&t->channel[AK_TRANSLATION], pos_f[i]);
        ck_assert_msg(k != NULL, "no translation in force at frame %d", (int)pos_f[i]);
        ck_assert_double_eq_tol(k->v[0], i + 1, 1e-6);
        ck_assert_double_eq_tol(k->v[2], 0.25 * i, 1e-6);
    }
    for (int i = 0; i < 3; i++) {
        const ak_key *k = key_in_force(&t->channel[AK_ROTATION], rot_f[i]);
        ck_assert_msg(k != NULL, "no rotation in force at frame %d", (int)rot_f[i]);
        ck_assert_double_eq_tol(fabs(k->v[1]), sin(0.3 * (i + 1)), 1e-5);
    }
    for (int i = 0; i < 2; i++) {
        const ak_key *k = key_in_force(&t->channel[AK_VISIBILITY], vis_f[i]);
        ck_assert_msg(k != NULL, "no visibility in force at frame %d", (int)vis_f[i]);
        ck_assert_double_eq(k->v[0], i == 0 ? 0 : 1);
    }
    ak_doc_free(back);
    ak_buffer_free(reg, oa);
    ak_buffer_free(reg, ob);
    ak_doc_free(a);
    ak_doc_free(b);
    ak_registry_free(reg);
}
END_TEST

START_TEST(t_bad_input)
{
    ak_registry *reg = reg_anm();
    int seen = 0;
    for (size_t i = 0; i < NSAMPLES; i++) {
        size_t n;
        unsigned char *data = corpus_file(samples[i].name, &n);
        if (!data)
            continue;
        seen++;
        sweep(reg, data, n, samples[i].name);
        free(data);
    }
    if (!seen)
        ak_test_skip("anm corpus not present: sweeping synthetic files only");
    /* synthetic: FRMN with VISI and MESH, FRM3 with a mesh, scale */
    static const char *const bones[] = { "a", "b" };
    buf a = { 0 };
    b_header(&a, ANM_V40, 2, bones, 2);
    b_tag(&a, "FRMN"); b_u32(&a, 1); b_tag(&a, "BONE"); b_u32(&a, 1);
    b_tag(&a, "VISI"); b_u32(&a, 0); b_tag(&a, "MESH"); b_u32(&a, 4); b_u32(&a, 7);
    b_tag(&a, "MATR");
    for (int k = 0; k < 12; k++)
        b_f32(&a, k % 4 == 0 ? 1.0f : 0.0f);
    sweep(reg, a.p, a.n, "synthetic frmn");
    buf b = { 0 };
    b_header(&b, ANM_V61, 5, bones, 2);
    b_tag(&b, "FRM3"); b_u8(&b, 4); b_u8(&b, 1); b_u8(&b, 1); b_u16(&b, 0x60);
    b_f32(&b, 1); b_f32(&b, 1); b_f32(&b, 1); b_u32(&b, 3); b_put(&b, "abc", 3);
    sweep(reg, b.p, b.n, "synthetic frm3");
    /* specific refusals */
    unsigned char *c = malloc(b.n);
    memcpy(c, b.p, b.n);
    ak_poke_u32(c + 4, 0x00070000u); /* unknown version */
    expect_fail(reg, c, b.n, "version 7.0");
    memcpy(c, b.p, b.n);
    c[b.n - 3 - 4 - 12 - 2] = 0x80; /* flags 0x80 set */
    expect_fail(reg, c, b.n, "flag 0x80");
    memcpy(c, b.p, b.n);
    ak_poke_u32(c + 12, 0); /* FRMS 0 with an FRM3 chunk */
    expect_fail(reg, c, b.n, "frm3 frms 0");
    free(c);
    /* bone index beyond BMAP; a bone keyed twice in one frame */
    buf e = { 0 };
    b_header(&e, ANM_V60, 1, bones, 2);
    b_tag(&e, "FRM2"); b_u16(&e, 0); b_u8(&e, 1); b_u8(&e, 2); b_u16(&e, 0x08);
    expect_fail(reg, e.p, e.n, "bone out of range");
    buf f = { 0 };
    b_header(&f, ANM_V60, 1, bones, 2);
    b_tag(&f, "FRM2"); b_u16(&f, 0); b_u8(&f, 2); b_u8(&f, 0); b_u16(&f, 0x08); b_u8(&f, 0); b_u16(&f, 0x10);
    expect_fail(reg, f.p, f.n, "duplicate key");
    /* trailing junk after the frames */
    buf g = { 0 };
    b_header(&g, ANM_V60, 1, bones, 2);
    b_tag(&g, "FRM2"); b_u16(&g, 0); b_u8(&g, 1); b_u8(&g, 0); b_u16(&g, 0x08);
    b_put(&g, "JUNK", 4);
    expect_fail(reg, g.p, g.n, "trailing junk");
    /* placeholders read and write back */
    buf h = { 0 };
    b_tag(&h, "EANM"); b_u32(&h, ANM_V60);
    ak_doc *hd = ak_test_read(reg, h.p, h.n, "placeholder");
    size_t hn;
    unsigned char *ho = ak_test_write(reg, hd, "anm", &hn);
    ck_assert(ak_test_same_bytes(h.p, h.n, ho, hn, "placeholder"));
    ak_buffer_free(reg, ho);
    ak_doc_free(hd);
    free(a.p); free(b.p); free(e.p); free(f.p); free(g.p); free(h.p);
    ak_registry_free(reg);
}
END_TEST

/* ---- stored bits the values do not give back ---- */

/* Positions and visibility are encoded from the values first and the
 * stored bytes taken only where the two differ and the key is untouched:
 * a signalling NaN (quieted on its way through a double), both
 * visibility bits at once and a VISI value of 2 come back as stored when
 * untouched, and as the values say once the key is edited; a -0 edited
 * to +0, equal as doubles, is written as +0. */
START_TEST(t_stored_bits_kept)
{
    static const char *const bones[] = { "a" };
    buf a = { 0 };
    b_header(&a, ANM_V60, 2, bones, 1);
    b_tag(&a, "FRM2"); b_u16(&a, 0); b_u8(&a, 1);
    b_u8(&a, 0); b_u16(&a, ANM_F_POS | ANM_F_VIS_ON | ANM_F_VIS_OFF);
    size_t flags0 = a.n - 2, pos0 = a.n;
    b_u32(&a, 0x7F800001u); /* signalling NaN */
    b_f32(&a, -0.0f);
    b_f32(&a, 1.5f);
    b_tag(&a, "FRM2"); b_u16(&a, 1); b_u8(&a, 1);
    b_u8(&a, 0); b_u16(&a, ANM_F_POS | ANM_F_VIS_OFF);
    size_t pos1 = a.n;
    b_f32(&a, 1.0f); b_f32(&a, 2.0f); b_f32(&a, 3.0f);

    ak_registry *reg = reg_anm();
    ak_doc *d = ak_test_read(reg, a.p, a.n, "bits.anm");
    ak_track *t = d->clips[0]->tracks[0];
    ck_assert_uint_eq(t->channel[AK_TRANSLATION].count, 2);
    ck_assert_uint_eq(t->channel[AK_VISIBILITY].count, 2);
    size_t n;
    unsigned char *o = ak_test_write(reg, d, "anm", &n);
    ck_assert(ak_test_same_bytes(a.p, a.n, o, n, "untouched"));
    ak_buffer_free(reg, o);

    /* Another key edited: the first record's bytes stay as stored. */
    t->channel[AK_TRANSLATION].keys[1].v[0] = 4.0;
    o = ak_test_write(reg, d, "anm", &n);
    ck_assert_uint_eq(n, a.n);
    ck_assert(f_at(o + pos1) == 4.0f);
    ck_assert(memcmp(o, a.p, pos1) == 0);
    ak_buffer_free(reg, o);

    /* The NaN key's -0 edited to +0, its visibility to hidden. */
    ak_key *k = &t->channel[AK_TRANSLATION].keys[0];
    ck_assert(isnan(k->v[0]) && k->v[1] == 0 && signbit(k->v[1]));
    k->v[1] = 0.0;
    t->channel[AK_VISIBILITY].keys[0].v[0] = 0.0;
    o = ak_test_write(reg, d, "anm", &n);
    ck_assert_uint_eq(n, a.n);
    ck_assert(isnan(f_at(o + pos0)));
    ck_assert_uint_eq(ak_load_u32(o + pos0 + 4), 0); /* +0, not the stored -0 */
    ck_assert(f_at(o + pos0 + 8) == 1.5f);
    ck_assert_uint_eq(ak_load_u16(o + flags0), ANM_F_POS | ANM_F_VIS_OFF);
    ak_buffer_free(reg, o);
    ak_doc_free(d);

    /* FRMN: VISI 2 reads as visible and comes back as 2 until touched. */
    buf b = { 0 };
    b_header(&b, ANM_V40, 1, bones, 1);
    b_tag(&b, "FRMN"); b_u32(&b, 0); b_tag(&b, "BONE"); b_u32(&b, 0); b_tag(&b, "MATR");
    static const float rows[12] = { 1, 0, 0, 0, 1, 0, 0, 0, 1, 5, 6, 7 };
    for (int i = 0; i < 12; i++)
        b_f32(&b, rows[i]);
    b_tag(&b, "VISI");
    size_t visi = b.n;
    b_u32(&b, 2);
    d = ak_test_read(reg, b.p, b.n, "visi.anm");
    t = d->clips[0]->tracks[0];
    ck_assert(t->channel[AK_VISIBILITY].count == 1 && t->channel[AK_VISIBILITY].keys[0].v[0] == 1.0);
    o = ak_test_write(reg, d, "anm", &n);
    ck_assert(ak_test_same_bytes(b.p, b.n, o, n, "VISI 2 untouched"));
    ak_buffer_free(reg, o);
    t->channel[AK_VISIBILITY].keys[0].v[1] = 0.5; /* touched, still visible */
    o = ak_test_write(reg, d, "anm", &n);
    ck_assert_uint_eq(n, b.n);
    ck_assert_uint_eq(ak_load_u32(o + visi), 1);
    ak_buffer_free(reg, o);
    ak_doc_free(d);
    ak_registry_free(reg);
    free(a.p);
    free(b.p);
}
END_TEST

/* ---- a long run of small chunks ---- */

/* The file, and the layout property it should read as (§9: u8 kind, u32
 * frame, u32 count, then a u32 bone per record), built side by side. */
typedef struct run_file {
    buf file, layout;
    size_t keys[3][AK_CHANNELS];
} run_file;

static void run_chunk(run_file *r, uint32_t frame, unsigned count)
{
    b_tag(&r->file, "FRM2");
    b_u16(&r->file, frame);
    b_u8(&r->file, count);
    b_u8(&r->layout, 1); /* FRM2 */
    b_u32(&r->layout, frame);
    b_u32(&r->layout, count);
}

/* A record's bone and flags; the caller adds its payloads. */
static size_t run_record(run_file *r, unsigned bone, unsigned flags)
{
    size_t at = r->file.n;
    b_u8(&r->file, bone);
    b_u16(&r->file, flags);
    b_u32(&r->layout, bone);
    if (flags & ANM_F_POS)
        r->keys[bone][AK_TRANSLATION]++;
    if (flags & ANM_F_ROT)
        r->keys[bone][AK_ROTATION]++;
    if (flags & ANM_F_SCALE)
        r->keys[bone][AK_SCALE]++;
    if (flags & (ANM_F_VIS_ON | ANM_F_VIS_OFF))
        r->keys[bone][AK_VISIBILITY]++;
    return at;
}

/* 2,000 one-record chunks after one of the densest records: the reader's
 * run of FRM2 chunks outgrows the layout's first block and its estimate
 * from the first chunk (so the list is grown and copied), hands the rest
 * of a chunk to the record-by-record path at a mesh record and at the
 * records of the last 39 bytes, and the file must read as built and
 * write back byte for byte. A bad bone and bad flags deep in the run are
 * reported at their own offsets; a read under any memory cap succeeds or
 * fails cleanly. */
START_TEST(t_frame_run)
{
    enum { CHUNKS = 2000 };
    static const char *const bones[] = { "a", "b", "c" };
    run_file r = { 0 };
    b_header(&r.file, ANM_V60, CHUNKS + 2, bones, 3);
    run_chunk(&r, 0, 3);
    for (unsigned b = 0; b < 3; b++) {
        run_record(&r, b, ANM_F_POS | ANM_F_ROT | ANM_F_SCALE);
        for (int k = 0; k < 9; k++)
            b_f32(&r.file, k < 3 ? 1.0f + (float)b : k < 6 ? 0.0f : 1.0f);
    }
    size_t bad_bone_at = 0, bad_flags_at = 0;
    for (uint32_t f = 1; f <= CHUNKS; f++) {
        if (f == CHUNKS / 2) {
            run_chunk(&r, f, 3);
            run_record(&r, 0, ANM_F_VIS_ON);
            run_record(&r, 1, ANM_F_MESH);
            b_u32(&r.file, 5);
            b_put(&r.file, "mesh!", 5);
            run_record(&r, 2, ANM_F_VIS_OFF);
            continue;
        }
        run_chunk(&r, f, 1);
        size_t at = run_record(&r, f % 3, f % 2 ? ANM_F_VIS_ON : ANM_F_VIS_OFF);
        if (f == 1500)
            bad_bone_at = at;
        if (f == 1700)
            bad_flags_at = at;
    }
    run_chunk(&r, CHUNKS + 1, 3);
    for (unsigned b = 0; b < 3; b++) {
        run_record(&r, b, ANM_F_ROT);
        b_f32(&r.file, 0.1f * (float)b);
        b_f32(&r.file, 0.0f);
        b_f32(&r.file, 0.0f);
    }
    ck_assert_uint_gt(r.layout.n, 4096); /* past the layout's first block */

    ak_registry *reg = reg_anm();
    ak_doc *d = ak_test_read(reg, r.file.p, r.file.n, "run.anm");
    const ak_clip *c = d->clips[0];
    ck_assert_uint_eq(c->track_count, 3);
    for (int b = 0; b < 3; b++)
        for (int ch = 0; ch < AK_CHANNELS; ch++)
            ck_assert_msg(c->tracks[b]->channel[ch].count == r.keys[b][ch], "bone %d channel %d: %zu keys, built %zu",
                          b, ch, c->tracks[b]->channel[ch].count, r.keys[b][ch]);
    const ak_prop *lay = ak_prop_get(&c->props, "anm.layout");
    ck_assert(lay != NULL);
    ck_assert(ak_test_same_bytes(r.layout.p, r.layout.n, lay->data, lay->size, "layout"));
    const ak_prop *mesh = ak_prop_get(&c->tracks[1]->props, "anm.mesh");
    ck_assert(mesh != NULL && mesh->size == 5 && memcmp(mesh->data, "mesh!", 5) == 0);
    /* the last chunk's rotations, the last two read record by record */
    const ak_channel *rot = &c->tracks[2]->channel[AK_ROTATION];
    ck_assert_int_eq(rot->keys[rot->count - 1].tick, CHUNKS + 1);
    ck_assert(fabs(rot->keys[rot->count - 1].v[0] - 0.2f) < 1e-7);
    ck_assert(fabs(rot->keys[rot->count - 1].v[3] - sqrt(1.0 - 0.2f * 0.2f)) < 1e-7);
    size_t n;
    unsigned char *o = ak_test_write(reg, d, "anm", &n);
    ck_assert(ak_test_same_bytes(r.file.p, r.file.n, o, n, "run of small chunks"));
    ak_buffer_free(reg, o);
    ak_doc_free(d);

    unsigned char *bad = malloc(r.file.n);
    ak_options opt = { sizeof opt, "anm", "run.anm", NULL, 0, 0 };
    ak_report rep = { 0 };
    memcpy(bad, r.file.p, r.file.n);
    bad[bad_bone_at] = 7;
    ck_assert_int_eq(ak_read(reg, bad, r.file.n, &opt, &d, &rep), AK_E_DATA);
    ck_assert_int_eq(rep.offset, (int64_t)bad_bone_at);
    ck_assert_msg(strstr(rep.message, "bone index 7") != NULL, "%s", rep.message);
    /* Cut inside the last chunk's records: refused where the input ends,
     * never read past it. */
    for (size_t cut = 1; cut <= 3 * 15; cut++) {
        memset(&rep, 0, sizeof rep);
        d = NULL;
        ck_assert_int_eq(ak_read(reg, r.file.p, r.file.n - cut, &opt, &d, &rep), AK_E_DATA);
        ck_assert(d == NULL);
        ck_assert_msg(rep.offset >= (int64_t)(r.file.n - 3 * 15) && rep.offset <= (int64_t)(r.file.n - cut),
                      "cut %zu: offset %lld: %s", cut, (long long)rep.offset, rep.message);
    }
    memcpy(bad, r.file.p, r.file.n);
    bad[bad_flags_at + 1] = 0x80;
    memset(&rep, 0, sizeof rep);
    ck_assert_int_eq(ak_read(reg, bad, r.file.n, &opt, &d, &rep), AK_E_UNSUPPORTED);
    ck_assert_int_eq(rep.offset, (int64_t)bad_flags_at + 1);
    free(bad);

    /* Under a cap the lists' growth is refused somewhere in the run. */
    int refused = 0;
    for (size_t cap = 4096; cap < 8 * r.file.n; cap += cap / 8) {
        ak_options capped = { sizeof capped, "anm", "run.anm", NULL, cap, 0 };
        ak_doc *cd = NULL;
        memset(&rep, 0, sizeof rep);
        ak_status st = ak_read(reg, r.file.p, r.file.n, &capped, &cd, &rep);
        if (st == AK_OK) {
            ak_doc_free(cd);
            continue;
        }
        ck_assert_msg(st == AK_E_LIMIT || st == AK_E_NOMEM, "cap %zu: %s", cap, rep.message);
        ck_assert(cd == NULL);
        refused++;
    }
    ck_assert_int_gt(refused, 0);
    ak_registry_free(reg);
    free(r.file.p);
    free(r.layout.p);
}
END_TEST

/* ---- keys counted as the walk takes them ---- */

/* The document read from r's file must write back as that file; then
 * everything is freed. */
static void rewrite_same_and_free(ak_registry *reg, ak_doc *d, run_file *r, const char *what)
{
    size_t n;
    unsigned char *o = ak_test_write(reg, d, "anm", &n);
    ck_assert(ak_test_same_bytes(r->file.p, r->file.n, o, n, what));
    ak_buffer_free(reg, o);
    ak_doc_free(d);
    ak_registry_free(reg);
    free(r->file.p);
    free(r->layout.p);
}


/* A key's payload: three floats. */
static void run_vec(run_file *r, float x, float y, float z)
{
    b_f32(&r->file, x);
    b_f32(&r->file, y);
    b_f32(&r->file, z);
}

/* The reader counts each bone's keys per channel as it walks (12 bits a
 * channel), and only a bone with at most 4,095 records may be sized from
 * those counts: bone a keys a position and a rotation on each of 4,100
 * frames (its counts would wrap), bone b has exactly 4,095 records, every
 * one a rotation with the mirror bit (the counts at their largest), and
 * bone c two records without it. Every channel must hold the keys built,
 * the mirror property only bone b, and the file must write back byte for
 * byte; the same again with a mesh record on bone c, which the counts
 * cannot describe (every bone is then counted record by record). */
START_TEST(t_tally_limits)
{
    enum { FRAMES = 4100, B_RECORDS = 4095 };
    static const char *const bones[] = { "a", "b", "c" };
    for (int with_mesh = 0; with_mesh < 2; with_mesh++) {
        run_file r = { 0 };
        b_header(&r.file, ANM_V60, FRAMES, bones, 3);
        for (uint32_t f = 0; f < FRAMES; f++) {
            int b_keyed = f < B_RECORDS, c_keyed = f == 10 || f == 20;
            run_chunk(&r, f, 1u + (unsigned)b_keyed + (unsigned)c_keyed);
            run_record(&r, 0, ANM_F_POS | ANM_F_ROT);
            run_vec(&r, (float)f, 0.0f, 1.0f);
            run_vec(&r, 0.0f, 0.001f * (float)(f % 100), 0.0f);
            if (b_keyed) {
                unsigned flags = ANM_F_ROT | ANM_F_MIRROR;
                flags |= f % 2 ? ANM_F_POS : 0;
                flags |= f % 5 == 0 ? ANM_F_SCALE : 0;
                flags |= f % 7 == 0 ? ANM_F_VIS_ON : f % 7 == 1 ? ANM_F_VIS_OFF : 0;
                run_record(&r, 1, flags);
                if (flags & ANM_F_POS)
                    run_vec(&r, 1.0f, (float)f, 2.0f);
                run_vec(&r, 0.1f, 0.0f, 0.0f);
                if (flags & ANM_F_SCALE)
                    run_vec(&r, 1.0f, 1.0f, 2.0f);
            }
            if (c_keyed) {
                int mesh = with_mesh && f == 20;
                run_record(&r, 2, ANM_F_POS | (mesh ? ANM_F_MESH : 0));
                run_vec(&r, 3.0f, 3.0f, (float)f);
                if (mesh) {
                    b_u32(&r.file, 5);
                    b_put(&r.file, "mesh!", 5);
                }
            }
        }
        ck_assert_uint_eq(r.keys[0][AK_TRANSLATION], FRAMES);
        ck_assert_uint_eq(r.keys[1][AK_ROTATION], B_RECORDS);
        ak_registry *reg = reg_anm();
        ak_doc *d = ak_test_read(reg, r.file.p, r.file.n, "tally.anm");
        const ak_clip *c = d->clips[0];
        ck_assert_uint_eq(c->track_count, 3);
        for (int b = 0; b < 3; b++) {
            for (int ch = 0; ch < AK_CHANNELS; ch++)
                ck_assert_msg(c->tracks[b]->channel[ch].count == r.keys[b][ch],
                              "mesh %d, bone %d channel %d: %zu keys, built %zu", with_mesh, b, ch,
                              c->tracks[b]->channel[ch].count, r.keys[b][ch]);
            const ak_prop *mirrored = ak_prop_get(&c->tracks[b]->props, ANM_P_MIRRORED);
            ck_assert_msg((mirrored != NULL) == (b == 1), "mesh %d, bone %d: mirrored %s", with_mesh, b,
                          mirrored ? "set" : "unset");
        }
        const ak_channel *pos = &c->tracks[0]->channel[AK_TRANSLATION];
        ck_assert_int_eq(pos->keys[FRAMES - 1].tick, FRAMES - 1);
        ck_assert(pos->keys[FRAMES - 1].v[0] == (double)(float)(FRAMES - 1));
        rewrite_same_and_free(reg, d, &r, "keys counted as walked");
    }
}
END_TEST

/* ---- the records tables are optional where the keys say it all ---- */

/* A track whose anm.records is emptied (the one way the API gives to drop
 * a property) is written from its keys: frames, payload flags, the
 * visibility bits (both at once here, as stored) and the mirror bit (on
 * every position and rotation record of a mirrored bone) come back byte
 * for byte. Its mesh bodies cannot: no record places them, and the
 * writer says they are dropped instead of leaving them out silently. */
START_TEST(t_records_optional)
{
    static const char *const bones[] = { "a", "b", "c" };
    for (int with_mesh = 0; with_mesh < 2; with_mesh++) {
        run_file r = { 0 };
        b_header(&r.file, ANM_V60, 5, bones, 3);
        for (uint32_t f = 0; f < 5; f++) {
            unsigned c_keyed = f == 0 || f == 4, b_keyed = f != 1, mesh = with_mesh && f == 3;
            run_chunk(&r, f, 1 + b_keyed + c_keyed);
            run_record(&r, 0, ANM_F_POS | ANM_F_ROT | ANM_F_MIRROR);
            run_vec(&r, (float)f, 1.0f, -2.0f);
            run_vec(&r, 0.1f * (float)f, 0.0f, 0.2f);
            if (b_keyed) {
                unsigned vis = f == 0 ? ANM_F_VIS_ON : f == 2 ? ANM_F_VIS_ON | ANM_F_VIS_OFF : ANM_F_VIS_OFF;
                run_record(&r, 1, f == 3 ? ANM_F_ROT | (mesh ? ANM_F_MESH : 0) : vis);
                if (f == 3)
                    run_vec(&r, 0.0f, 0.3f, 0.0f);
                if (mesh) {
                    b_u32(&r.file, 5);
                    b_put(&r.file, "mesh!", 5);
                }
            }
            if (c_keyed) {
                run_record(&r, 2, ANM_F_POS | ANM_F_SCALE);
                run_vec(&r, 0.5f, 0.5f, (float)f);
                run_vec(&r, 1.0f, 2.0f, 1.0f);
            }
        }
        ak_registry *reg = reg_anm();
        ak_doc *d = ak_test_read(reg, r.file.p, r.file.n, "optional.anm");
        const ak_clip *c = d->clips[0];
        /* The reader itself leaves out the tables of b and c, whose keys
         * say their records in full, unless the file has a mesh record;
         * a's mirror bits need its table. As read, the file comes back. */
        for (size_t t = 0; t < c->track_count; t++) {
            const ak_prop *rp = ak_prop_get(&c->tracks[t]->props, ANM_P_RECORDS);
            ck_assert_msg((rp != NULL) == (t == 0 || with_mesh), "track %zu", t);
            ck_assert(!rp || rp->size == 5 * ANM_EXTRA_SIZE - (t == 2 ? 3 : t == 1 ? 1 : 0) * ANM_EXTRA_SIZE);
        }
        size_t as_read_n;
        unsigned char *as_read = ak_test_write(reg, d, "anm", &as_read_n);
        ck_assert(ak_test_same_bytes(r.file.p, r.file.n, as_read, as_read_n, "written as read"));
        ak_buffer_free(reg, as_read);
        for (size_t t = 0; t < c->track_count; t++)
            if (ak_prop_get(&c->tracks[t]->props, ANM_P_RECORDS))
                ck_assert_int_eq(ak_prop_set_bytes(d, &c->tracks[t]->props, ANM_P_RECORDS, "", 0), AK_OK);
        buf warned;
        size_t n;
        unsigned char *o = write_keeping_warnings(reg, d, &n, &warned);
        const char *text = (const char *)warned.p;
        if (!with_mesh) {
            ck_assert(ak_test_same_bytes(r.file.p, r.file.n, o, n, "written without records tables"));
            ck_assert_msg(strstr(text, "mesh") == NULL, "%s", text);
        } else {
            ck_assert_msg(strstr(text, "bone 'b': 5 bytes of mesh animation") != NULL, "warnings: %s", text);
            ck_assert_msg(strstr(text, "dropped") != NULL, "%s", text);
            ck_assert_uint_lt(n, r.file.n);
            for (size_t i = 0; i + 5 <= n; i++)
                ck_assert(memcmp(o + i, "mesh!", 5) != 0);
        }
        ak_buffer_free(reg, o);
        ak_doc_free(d);
        ak_registry_free(reg);
        free(warned.p);
        free(r.file.p);
        free(r.layout.p);
    }
}
END_TEST

/* A record whose flags give no key (no flag at all, or the mirror bit
 * alone) is in none of its bone's keys, so that bone's keys no longer say
 * all its records: it keeps its records table. So does a bone with the
 * mirror bit on some of its records (the writer would set it on all of
 * them). Otherwise no bone needs one. Each file comes back byte for byte
 * as read. */
START_TEST(t_records_kept_for_keyless_records)
{
    static const char *const bones[] = { "a", "b", "c" };
    /* plain; b keyless at frame 1; c mirror-only at 1; c mirrored at 0 */
    for (int variant = 0; variant < 4; variant++) {
        run_file r = { 0 };
        b_header(&r.file, ANM_V60, 3, bones, 3);
        for (uint32_t f = 0; f < 3; f++) {
            int middle = f == 1;
            run_chunk(&r, f, 1 + (middle ? (variant == 1 || variant == 2) : 2));
            run_record(&r, 0, ANM_F_POS);
            run_vec(&r, (float)f, 0.0f, 0.0f);
            if (middle && variant == 1)
                run_record(&r, 1, 0);
            if (middle && variant == 2)
                run_record(&r, 2, ANM_F_MIRROR);
            if (!middle) {
                run_record(&r, 1, ANM_F_ROT);
                run_vec(&r, 0.0f, 0.1f * (float)f, 0.0f);
                run_record(&r, 2, ANM_F_ROT | ANM_F_SCALE | (variant == 3 && f == 0 ? ANM_F_MIRROR : 0));
                run_vec(&r, 0.2f, 0.0f, 0.0f);
                run_vec(&r, 1.0f, 1.0f, 1.0f + (float)f);
            }
        }
        ak_registry *reg = reg_anm();
        ak_doc *d = ak_test_read(reg, r.file.p, r.file.n, "keyless.anm");
        const ak_clip *c = d->clips[0];
        for (size_t t = 0; t < 3; t++) {
            const ak_prop *rp = ak_prop_get(&c->tracks[t]->props, ANM_P_RECORDS);
            int kept = (variant == 1 && t == 1) || (variant >= 2 && t == 2);
            ck_assert_msg((rp != NULL) == kept, "variant %d, track %zu", variant, t);
            size_t records = t == 0 ? 3 : 2 + (size_t)(variant == (int)t);
            ck_assert(!rp || rp->size == records * ANM_EXTRA_SIZE);
        }
        rewrite_same_and_free(reg, d, &r, "written as read");
    }
}
END_TEST

/* The document's anm write fails with `status`, gives no bytes and says
 * `text`. */
static void write_fails(ak_registry *reg, const ak_doc *doc, ak_status status, const char *text)
{
    ak_options o = { sizeof o, "anm", NULL, NULL, 0, 0 };
    ak_report rep = { 0 };
    unsigned char *out = NULL;
    size_t n = 0;
    ck_assert_int_eq(ak_write(reg, doc, &o, &out, &n, &rep), status);
    ck_assert_ptr_null(out);
    ck_assert_msg(strstr(rep.message, text) != NULL, "wanted \"%s\": %s", text, rep.message);
}

/* Where a key's time falls against the frames, as the writer takes it
 * (prepare_channel, replay_track and key_frame in replay_keys, which
 * must agree): within 1e-4 of a frame it is that frame's key, and the
 * file comes back byte for byte without a warning, whether the bone
 * keeps its records table or its keys say its records; further off it
 * is rounded to the nearest frame with a warning (here the same frame,
 * so the same bytes), and of two keys rounded onto one frame the later
 * is written; outside the format's frames, or not a number, the write
 * fails and names the key. */
START_TEST(t_key_times_against_frames)
{
    /* b's keys say its records (no table: replay_keys); c's mirror bit
     * keeps its table (replay_track). */
    static const char *const bones[] = { "a", "b", "c" };
    run_file r = { 0 };
    b_header(&r.file, ANM_V60, 3, bones, 3);
    for (uint32_t f = 0; f < 3; f++) {
        run_chunk(&r, f, f == 1 ? 1 : 3);
        run_record(&r, 0, ANM_F_POS);
        run_vec(&r, (float)f, 0.0f, 0.0f);
        if (f != 1) {
            run_record(&r, 1, ANM_F_ROT);
            run_vec(&r, 0.0f, 0.1f * (float)f, 0.0f);
            run_record(&r, 2, ANM_F_ROT | ANM_F_MIRROR);
            run_vec(&r, 0.1f * (float)f, 0.0f, 0.0f);
        }
    }
    ak_registry *reg = reg_anm();
    ak_doc *d = ak_test_read(reg, r.file.p, r.file.n, "times.anm");
    ck_assert_ptr_null(ak_prop_get(&track_named(d, "b")->props, ANM_P_RECORDS));
    ck_assert_ptr_nonnull(ak_prop_get(&track_named(d, "c")->props, ANM_P_RECORDS));
    static const struct {
        double frame;
        const char *warning; /* NULL: none, and the file as read */
    } cases[] = {
        { 2.00009, NULL },
        { 1.99991, NULL },
        { 2.3, "1 keys fall between frames" },
        { 1.7, "1 keys fall between frames" },
        { 2.0002, "1 keys fall between frames" },
        { 1.9998, "1 keys fall between frames" },
    };
    for (int bone = 1; bone <= 2; bone++) {
        ak_key *key = &track_named(d, bones[bone])->channel[AK_ROTATION].keys[1];
        ck_assert(fabs(key->time - 2 / 30.0) < 1e-12);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            key->time = cases[i].frame / 30.0;
            buf warned;
            size_t n;
            unsigned char *o = write_keeping_warnings(reg, d, &n, &warned);
            const char *text = (const char *)warned.p;
            ck_assert_msg(ak_test_same_bytes(r.file.p, r.file.n, o, n, "a key near its frame"), "%s at frame %g",
                          bones[bone], cases[i].frame);
            if (cases[i].warning)
                ck_assert_msg(strstr(text, cases[i].warning) != NULL, "%s at frame %g: %s", bones[bone],
                              cases[i].frame, text);
            else
                ck_assert_msg(strstr(text, "between frames") == NULL, "%s at frame %g: %s", bones[bone],
                              cases[i].frame, text);
            ak_buffer_free(reg, o);
            free(warned.p);
        }
        key->time = 2 / 30.0;
    }
    ak_key *last = &track_named(d, "b")->channel[AK_ROTATION].keys[1];
    /* Rounded onto the first key's frame: the later key wins. */
    double later[4];
    memcpy(later, last->v, sizeof later);
    last->time = 0.4 / 30.0;
    buf warned;
    size_t n;
    unsigned char *o = write_keeping_warnings(reg, d, &n, &warned);
    ck_assert_msg(strstr((const char *)warned.p, "1 keys fell on the same frame as another key") != NULL, "%s",
                  (const char *)warned.p);
    ak_doc *merged = ak_test_read(reg, o, n, "merged.anm");
    /* Written sparse, with full keys on the first and the last frame. */
    const ak_channel *rot = &track_named(merged, "b")->channel[AK_ROTATION];
    ck_assert_uint_eq(rot->count, 2);
    ck_assert_int_eq(rot->keys[0].tick, 0);
    ck_assert_int_eq(rot->keys[1].tick, 2);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 4; i++)
            ck_assert_msg(fabs(rot->keys[k].v[i] - later[i]) < 1e-6, "key %d v[%d] %g, the later key's %g", k, i,
                          rot->keys[k].v[i], later[i]);
    ak_doc_free(merged);
    ak_buffer_free(reg, o);
    free(warned.p);
    static const double outside[] = { -0.6, 4294967295.0, 1e300 };
    for (size_t i = 0; i < sizeof outside / sizeof outside[0] + 1; i++) {
        last->time = i < sizeof outside / sizeof outside[0] ? outside[i] / 30.0 : NAN;
        write_fails(reg, d, AK_E_DATA, "bone 'b': rotation key at ");
        write_fails(reg, d, AK_E_DATA, "is outside the frame range of the format");
    }
    /* The last frame a key can lie on leaves no room for FRMS (frames
     * and one). */
    last->time = 4294967294.99995 / 30.0;
    write_fails(reg, d, AK_E_UNSUPPORTED, "the clip is too long for FRMS");
    last->time = 2 / 30.0;
    rewrite_same_and_free(reg, d, &r, "the key put back");
}
END_TEST

/* Versions 3.0 and 5.0, which the fact sheet says one decoder accepts but
 * no real file uses: read by their frame tags with a warning at byte 4,
 * and written back byte for byte. 7.0 is refused at byte 4. wave.anm
 * (6.0) with its version bytes changed. */
START_TEST(t_never_seen_versions)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/samples/wave.anm", getenv("AK_SRCDIR"));
    size_t n;
    unsigned char *b = ak_test_slurp(path, &n);
    ck_assert(n > 8 && b[4] == 0 && b[5] == 0 && b[6] == 6 && b[7] == 0);
    ak_registry *reg = reg_anm();
    static const struct { unsigned char major; const char *variant; } seen[] = { { 3, "3.0" }, { 5, "5.0" } };
    for (int i = 0; i < 2; i++) {
        b[6] = seen[i].major;
        ak_test_said said = { "" };
        ak_report rep = { ak_test_collect, &said, AK_OK, 0, "", "", "", 0 };
        ak_options o = { sizeof o, "anm", "old.anm", NULL, 0, 0 };
        ak_doc *doc = NULL;
        ck_assert_msg(ak_read(reg, b, n, &o, &doc, &rep) == AK_OK, "%s", rep.message);
        ck_assert_str_eq(doc->variant, seen[i].variant);
        ck_assert_uint_eq(rep.warnings, 1);
        char want[128];
        snprintf(want, sizeof want, "old.anm: anm: warning: EANM version %s has never been seen in real files; read by "
                 "its frame tags (at byte 4, 0x4)\n", seen[i].variant);
        ck_assert_msg(strstr(said.text, want), "%s", said.text);
        size_t m;
        unsigned char *out = ak_test_write(reg, doc, "anm", &m);
        ck_assert(ak_test_same_bytes(b, n, out, m, seen[i].variant));
        free(out);
        ak_doc_free(doc);
    }
    b[6] = 7;
    ak_options o = { sizeof o, "anm", "new.anm", NULL, 0, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ck_assert_int_eq(ak_read(reg, b, n, &o, &doc, &rep), AK_E_UNSUPPORTED);
    ck_assert_int_eq(rep.offset, 4);
    ck_assert_msg(strstr(rep.message, "EANM version 0x00070000 (7.0) is not supported"), "%s", rep.message);
    ak_registry_free(reg);
    free(b);
}
END_TEST

START_TEST(t_bad_params)
{
    static const char *const bones[] = { "a" };
    buf a = { 0 };
    b_header(&a, ANM_V60, 1, bones, 1);
    b_tag(&a, "FRM2"); b_u16(&a, 0); b_u8(&a, 1); b_u8(&a, 0); b_u16(&a, 0x08);
    ak_registry *reg = reg_anm();
    const char *bad[] = { "fps=-3", NULL };
    ak_options o = { sizeof o, "anm", NULL, bad, 0, 0 };
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ck_assert_int_eq(ak_read(reg, a.p, a.n, &o, &doc, &rep), AK_E_USAGE);
    doc = ak_test_read(reg, a.p, a.n, "a.anm");
    const char *v[] = { "variant=9.9", NULL };
    ak_options w = { sizeof w, "anm", NULL, v, 0, 0 };
    unsigned char *out = NULL;
    size_t n;
    ak_report rep2 = { 0 };
    ck_assert_int_eq(ak_write(reg, doc, &w, &out, &n, &rep2), AK_E_USAGE);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(a.p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("anm");
    TCase *tc = tcase_create("anm");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, t_probe);
    tcase_add_loop_test(tc, t_corpus, 0, (int)NSAMPLES);
    tcase_add_test(tc, t_smallest_sample);
    tcase_add_test(tc, t_rotation_paths);
    tcase_add_test(tc, t_orientation_clamp);
    tcase_add_test(tc, t_odd_structure);
    tcase_add_test(tc, t_mirrored_frmn);
    tcase_add_test(tc, t_frm3_widths);
    tcase_add_test(tc, t_cmnt);
    tcase_add_test(tc, t_scale);
    tcase_add_test(tc, t_edit_key);
    tcase_add_test(tc, t_edit_frmn_corpus);
    tcase_add_test(tc, t_convert_corpus);
    tcase_add_test(tc, t_handbuilt);
    tcase_add_test(tc, t_name_with_nul);
    tcase_add_test(tc, t_name_lengths_and_nuls);
    tcase_add_test(tc, t_bmap_cut_in_a_name);
    tcase_add_test(tc, t_unkeyed_bone);
    tcase_add_loop_test(tc, t_replay_matches_regular, 0, (int)NSAMPLES);
    tcase_add_test(tc, t_clip_props_honoured);
    tcase_add_test(tc, t_out_of_order_keys);
    tcase_add_test(tc, t_bad_input);
    tcase_add_test(tc, t_stored_bits_kept);
    tcase_add_test(tc, t_frame_run);
    tcase_add_test(tc, t_tally_limits);
    tcase_add_test(tc, t_records_optional);
    tcase_add_test(tc, t_records_kept_for_keyless_records);
    tcase_add_test(tc, t_key_times_against_frames);
    tcase_add_test(tc, t_bad_params);
    tcase_add_test(tc, t_never_seen_versions);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
