/* test_dff.c - the GTA RenderWare model (.dff) skeleton reader: every corpus
 * file against an independent byte walker in this file and the fact sheet's
 * tables and worked example (/work/shared/formats/dff.md), rest rotations
 * against the matrices they come from, world positions (head above feet,
 * and upright once walk_civi's first keys are applied), matching the
 * tracks of ped_cretaceous.ifp, synthetic files for every refusal and
 * every tolerated oddity, the probe, and truncation / inflated-count /
 * corruption sweeps of every corpus file. */
#include "testutil.h"
#include "../../plugins/dff/dff.h"
#include "../../plugins/ifp/ifp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const corpus_files[] = { "dff/ped_167.dff", "dff/ped_80.dff", "dff/ped_seb.dff",
                                            "dff/dog_rottweiler.dff" };
#define CORPUS_COUNT (sizeof corpus_files / sizeof corpus_files[0])

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static ak_registry *registry(void)
{
    const ak_codec *codecs[] = { dff_codec(), NULL };
    return ak_test_registry(codecs);
}

typedef struct msgs {
    char text[8192];
    unsigned warnings;
} msgs;

static void collect(void *user, const ak_message *m)
{
    msgs *ms = user;
    if (m->severity == AK_WARNING)
        ms->warnings++;
    size_t n = strlen(ms->text);
    if (n + 2 < sizeof ms->text)
        snprintf(ms->text + n, sizeof ms->text - n, "%s\n", m->text);
}

static ak_status read_msgs(ak_registry *reg, const unsigned char *b, size_t n, ak_doc **doc, msgs *ms,
                           ak_report *rep)
{
    memset(ms, 0, sizeof *ms);
    memset(rep, 0, sizeof *rep);
    rep->on_message = collect;
    rep->user = ms;
    ak_options o = { sizeof o, "dff", "test.dff", NULL, 0, 0 };
    return ak_read(reg, b, n, &o, doc, rep);
}

static uint32_t r32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float rf(const unsigned char *p)
{
    uint32_t u = r32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static int64_t prop_int(const ak_props *props, const char *key, int64_t fallback)
{
    return ak_prop_int(props, key, fallback);
}

/* ------------------------------------------------------------------ */
/* An independent walker over the raw bytes (written from the fact      */
/* sheet, sharing no code with the plugin). It trusts the file: it is   */
/* only run on files the plugin has read.                               */
/* ------------------------------------------------------------------ */

typedef struct wframe {
    double axis[3][3]; /* right, up, at as stored */
    double pos[3];
    long parent;
    uint32_t flags;
    char name[64];
    int has_id;
    long id;
    size_t record; /* file offset of the 56-byte record */
} wframe;

typedef struct wfile {
    size_t count;
    wframe f[128];
    uint32_t stamp;
    long atomics;
    size_t clumps;
    long nodes[128][3]; /* HAnim id, index, flags */
    size_t node_count;
    long node_frame; /* frame that carries the hierarchy */
} wfile;

static void walk_extension(wfile *w, const unsigned char *d, size_t at, size_t end, size_t frame)
{
    while (at + 12 <= end) {
        uint32_t type = r32(d + at), size = r32(d + at + 4);
        const unsigned char *p = d + at + 12;
        if (type == 0x011E) {
            long id = (int32_t)r32(p + 4), count = (int32_t)r32(p + 8);
            w->f[frame].has_id = id != -1;
            w->f[frame].id = id;
            if (count > 0) {
                ck_assert_uint_le((size_t)count, 128);
                w->node_count = (size_t)count;
                w->node_frame = (long)frame;
                for (long k = 0; k < count; k++)
                    for (int j = 0; j < 3; j++)
                        w->nodes[k][j] = (int32_t)r32(p + 20 + 12 * k + 4 * j);
            }
        } else if (type == 0x0253F2FE) {
            size_t n = size < 63 ? size : 63;
            memcpy(w->f[frame].name, p, n);
            w->f[frame].name[n] = '\0'; /* up to the first NUL, if any */
        }
        at += 12 + size;
    }
}

static void walk(const unsigned char *d, size_t n, wfile *w)
{
    memset(w, 0, sizeof *w);
    size_t at = 0, clump = 0, clump_end = 0;
    while (at + 12 <= n) { /* top level: the first Clump, then count them */
        uint32_t type = r32(d + at), size = r32(d + at + 4);
        if (type == 0 || size > n - at - 12)
            break;
        if (type == 0x10) {
            if (!w->clumps++) {
                clump = at;
                clump_end = at + 12 + size;
                w->stamp = r32(d + at + 8);
            }
        }
        at += 12 + size;
    }
    ck_assert_uint_ge(w->clumps, 1);
    at = clump + 12;
    size_t list = 0, list_end = 0;
    while (at + 12 <= clump_end) {
        uint32_t type = r32(d + at), size = r32(d + at + 4);
        if (type == 1 && !list)
            w->atomics = (int32_t)r32(d + at + 12);
        if (type == 0x0E && !list) {
            list = at;
            list_end = at + 12 + size;
        }
        at += 12 + size;
    }
    ck_assert_uint_gt(list, 0);
    /* the Frame List's Struct: count, 56-byte records */
    at = list + 12;
    ck_assert_uint_eq(r32(d + at), 1);
    size_t struct_end = at + 12 + r32(d + at + 4);
    w->count = r32(d + at + 12);
    ck_assert_uint_le(w->count, 128);
    for (size_t i = 0; i < w->count; i++) {
        const unsigned char *p = d + at + 16 + 56 * i;
        wframe *f = &w->f[i];
        f->record = (size_t)(p - d);
        for (int k = 0; k < 9; k++)
            f->axis[k / 3][k % 3] = rf(p + 4 * k);
        for (int k = 0; k < 3; k++)
            f->pos[k] = rf(p + 36 + 4 * k);
        f->parent = (int32_t)r32(p + 48);
        f->flags = r32(p + 52);
    }
    at = struct_end;
    size_t ext = 0;
    while (at + 12 <= list_end) {
        uint32_t type = r32(d + at), size = r32(d + at + 4);
        if (type == 3 && ext < w->count)
            walk_extension(w, d, at + 12, at + 12 + size, ext++);
        at += 12 + size;
    }
}

/* ------------------------------------------------------------------ */
/* Rotation arithmetic of the test's own                                */
/* ------------------------------------------------------------------ */

/* Column-vector matrix of a unit quaternion (x, y, z, w). */
static void quat_matrix(const double q[4], double r[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    r[0][0] = 1 - 2 * (y * y + z * z);
    r[1][0] = 2 * (x * y + w * z);
    r[2][0] = 2 * (x * z - w * y);
    r[0][1] = 2 * (x * y - w * z);
    r[1][1] = 1 - 2 * (x * x + z * z);
    r[2][1] = 2 * (y * z + w * x);
    r[0][2] = 2 * (x * z + w * y);
    r[1][2] = 2 * (y * z - w * x);
    r[2][2] = 1 - 2 * (x * x + y * y);
}

/* A = the frame's matrix in column-vector form: columns right, up, at. */
static void frame_matrix(const wframe *f, double a[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            a[i][j] = f->axis[j][i];
}

static double ortho_error(const wframe *f)
{
    double e = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double dot = 0;
            for (int k = 0; k < 3; k++)
                dot += f->axis[i][k] * f->axis[j][k];
            e = fmax(e, fabs(dot - (i == j)));
        }
    return e;
}

/* The trace formula of the sheet's hand check, for frames whose trace is
 * comfortably positive. */
static int trace_quat(const double a[3][3], double q[4])
{
    double tr = a[0][0] + a[1][1] + a[2][2];
    if (tr < -0.5)
        return 0;
    q[3] = sqrt(1 + tr) / 2;
    q[0] = (a[2][1] - a[1][2]) / (4 * q[3]);
    q[1] = (a[0][2] - a[2][0]) / (4 * q[3]);
    q[2] = (a[1][0] - a[0][1]) / (4 * q[3]);
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++)
        q[k] /= n;
    return 1;
}

/* The rotation of the polar decomposition A = R S has R^T A = S symmetric
 * positive definite: checks that R(q) is that rotation. */
static void check_closest(const double q[4], const double a[3][3], const char *what)
{
    double r[3][3], s[3][3];
    quat_matrix(q, r);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            s[i][j] = 0;
            for (int k = 0; k < 3; k++)
                s[i][j] += r[k][i] * a[k][j];
        }
    for (int i = 0; i < 3; i++) {
        ck_assert_msg(s[i][i] > 0, "%s: R^T A has diagonal %g", what, s[i][i]);
        for (int j = i + 1; j < 3; j++)
            ck_assert_msg(fabs(s[i][j] - s[j][i]) < 2e-6, "%s: R^T A is not symmetric (%g vs %g)", what, s[i][j],
                          s[j][i]);
    }
}

/* ------------------------------------------------------------------ */
/* The 32-bone SA skeleton of the sheet's section 4.1                  */
/* ------------------------------------------------------------------ */

typedef struct sa_bone {
    long id;
    const char *name;
    long parent_id; /* -1: frame 0 */
} sa_bone;

static const sa_bone sa_bones[] = {
    { 0, "Root", -1 },
    { 1, " Pelvis", 0 },
    { 2, " Spine", 1 },
    { 3, " Spine1", 2 },
    { 4, " Neck", 3 },
    { 5, " Head", 4 },
    { 8, "Jaw", 5 },
    { 6, "L Brow", 5 },
    { 7, "R Brow", 5 },
    { 31, "Bip01 L Clavicle", 4 },
    { 32, " L UpperArm", 31 },
    { 33, " L ForeArm", 32 },
    { 34, " L Hand", 33 },
    { 35, " L Finger", 34 },
    { 36, "L Finger01", 35 },
    { 21, "Bip01 R Clavicle", 4 },
    { 22, " R UpperArm", 21 },
    { 23, " R ForeArm", 22 },
    { 24, " R Hand", 23 },
    { 25, " R Finger", 24 },
    { 26, "R Finger01", 25 },
    { 302, "L breast", 3 },
    { 301, "R breast", 3 },
    { 201, "Belly", 2 },
    { 41, " L Thigh", 1 },
    { 42, " L Calf", 41 },
    { 43, " L Foot", 42 },
    { 44, " L Toe0", 43 },
    { 51, " R Thigh", 1 },
    { 52, " R Calf", 51 },
    { 53, " R Foot", 52 },
    { 54, " R Toe0", 53 },
};
#define SA_BONES (sizeof sa_bones / sizeof sa_bones[0])

static long bone_of_id(const ak_doc *doc, long id)
{
    for (size_t i = 0; i < doc->skeleton.bone_count; i++)
        if (doc->skeleton.bones[i].has_id && doc->skeleton.bones[i].id == id)
            return (long)i;
    return -1;
}

/* ------------------------------------------------------------------ */
/* World positions                                                      */
/* ------------------------------------------------------------------ */

typedef struct pose {
    double r[128][3][3];
    double t[128][3];
} pose;

/* W_i = W_parent . L_i (column vectors), L_i = [rot | trans]. */
static void compose(const long *parent, size_t n, double (*rot)[3][3], double (*trans)[3], pose *world)
{
    for (size_t i = 0; i < n; i++) {
        if (parent[i] < 0) {
            memcpy(world->r[i], rot[i], sizeof world->r[i]);
            memcpy(world->t[i], trans[i], sizeof world->t[i]);
            continue;
        }
        const double (*pr)[3] = world->r[parent[i]];
        const double *pt = world->t[parent[i]];
        for (int a = 0; a < 3; a++) {
            world->t[i][a] = pt[a];
            for (int b = 0; b < 3; b++) {
                world->t[i][a] += pr[a][b] * trans[i][b];
                world->r[i][a][b] = 0;
                for (int k = 0; k < 3; k++)
                    world->r[i][a][b] += pr[a][k] * rot[i][k][b];
            }
        }
    }
}

/* World pose of the document's skeleton, with optional local overrides. */
static void doc_world(const ak_doc *doc, const double (*qover)[4], const double (*tover)[3], pose *world)
{
    static double rot[128][3][3], trans[128][3];
    long parent[128];
    size_t n = doc->skeleton.bone_count;
    ck_assert_uint_le(n, 128);
    for (size_t i = 0; i < n; i++) {
        const ak_bone *b = &doc->skeleton.bones[i];
        quat_matrix(qover && qover[i][3] != 2 ? qover[i] : b->rotation, rot[i]);
        memcpy(trans[i], tover && !isnan(tover[i][0]) ? tover[i] : b->translation, sizeof trans[i]);
        parent[i] = b->parent;
    }
    compose(parent, n, rot, trans, world);
}

/* ------------------------------------------------------------------ */
/* Corpus files                                                         */
/* ------------------------------------------------------------------ */

static void check_against_walker(const ak_doc *doc, const wfile *w, const unsigned char *bytes, const char *file)
{
    ck_assert_uint_eq(doc->skeleton.bone_count, w->count);
    size_t sheared = 0;
    for (size_t i = 0; i < w->count; i++) {
        const ak_bone *b = &doc->skeleton.bones[i];
        const wframe *f = &w->f[i];
        char what[128];
        snprintf(what, sizeof what, "%s frame %zu", file, i);
        ck_assert_msg(strcmp(b->name, f->name) == 0, "%s: name '%s', bytes say '%s'", what, b->name, f->name);
        ck_assert_int_eq(b->has_id, f->has_id);
        if (f->has_id)
            ck_assert_int_eq(b->id, f->id);
        ck_assert_int_eq(b->parent, f->parent);
        ck_assert_int_eq(b->has_hash, 0);
        for (int k = 0; k < 3; k++) {
            ck_assert(b->translation[k] == f->pos[k]); /* float32 widened: exact */
            ck_assert(b->scale[k] == 1.0);
        }
        double norm = 0;
        for (int k = 0; k < 4; k++)
            norm += b->rotation[k] * b->rotation[k];
        ck_assert_msg(fabs(norm - 1) < 1e-12, "%s: |q|^2 = %.15f", what, norm);
        ck_assert_msg(b->rotation[3] >= 0, "%s: w < 0", what);
        double a[3][3], r[3][3];
        frame_matrix(f, a);
        check_closest(b->rotation, a, what);
        double err = ortho_error(f);
        const ak_prop *mp = ak_prop_get(&b->props, DFF_P_MATRIX);
        if (err < 1e-5) {
            /* A rotation already: R(q) reproduces it, and the trace
             * formula gives the same quaternion. */
            quat_matrix(b->rotation, r);
            for (int x = 0; x < 3; x++)
                for (int y = 0; y < 3; y++)
                    ck_assert_msg(fabs(r[x][y] - a[x][y]) < 2e-5, "%s: R(q)[%d][%d] %g, matrix %g", what, x, y,
                                  r[x][y], a[x][y]);
            double t[4];
            if (trace_quat(a, t)) {
                double dot = 0;
                for (int k = 0; k < 4; k++)
                    dot += t[k] * b->rotation[k];
                ck_assert_msg(fabs(fabs(dot) - 1) < 1e-9, "%s: the trace formula disagrees (dot %.12f)", what, dot);
            }
        }
        if (err >= 1e-3) {
            sheared++;
            ck_assert_msg(mp && mp->type == AK_PROP_BYTES && mp->size == 36, "%s: sheared, no %s", what,
                          DFF_P_MATRIX);
            ck_assert(memcmp(mp->data, bytes + f->record, 36) == 0);
        } else {
            ck_assert_msg(mp == NULL, "%s: %s on an orthonormal matrix (error %g)", what, DFF_P_MATRIX, err);
        }
        ck_assert_int_eq(prop_int(&b->props, DFF_P_MATRIX_FLAGS, -1), (int64_t)f->flags);
    }
    /* The HAnim hierarchy: flags and positions land on the frame with the
     * node's id; the hierarchy's counters on the frame that carries it. */
    ck_assert_uint_gt(w->node_count, 0);
    const ak_bone *hb = &doc->skeleton.bones[w->node_frame];
    ck_assert_int_eq(prop_int(&hb->props, DFF_P_HIER_NODES, -1), (int64_t)w->node_count);
    for (size_t k = 0; k < w->node_count; k++) {
        long at = bone_of_id(doc, w->nodes[k][0]);
        ck_assert_int_ge(at, 0);
        const ak_bone *b = &doc->skeleton.bones[at];
        ck_assert_int_eq(prop_int(&b->props, DFF_P_HANIM_INDEX, -1), (int64_t)k);
        ck_assert_int_eq(prop_int(&b->props, DFF_P_HANIM_FLAGS, -1), w->nodes[k][2]);
        ck_assert_int_eq(w->nodes[k][1], (long)k); /* sheet: node index = k everywhere */
    }
    printf("%s: %zu bones, %zu HAnim nodes, %zu sheared frames, %zu clump(s)\n", file, w->count, w->node_count,
           sheared, w->clumps);
}

/* The sheet's section 4.1: the ids, names and parents of the 32-bone SA
 * skeleton, the unnamed, id-less frame 0. */
static void check_sa_skeleton(const ak_doc *doc, const char *file)
{
    ck_assert_uint_eq(doc->skeleton.bone_count, 33);
    const ak_bone *root = &doc->skeleton.bones[0];
    ck_assert_str_eq(root->name, "");
    ck_assert(!root->has_id);
    ck_assert_int_eq(root->parent, -1);
    for (size_t i = 0; i < SA_BONES; i++) {
        long at = bone_of_id(doc, sa_bones[i].id);
        ck_assert_msg(at > 0, "%s: no bone with id %ld", file, sa_bones[i].id);
        const ak_bone *b = &doc->skeleton.bones[at];
        ck_assert_msg(strcmp(b->name, sa_bones[i].name) == 0, "%s: id %ld is '%s', the sheet says '%s'", file,
                      sa_bones[i].id, b->name, sa_bones[i].name);
        long parent = sa_bones[i].parent_id < 0 ? 0 : bone_of_id(doc, sa_bones[i].parent_id);
        ck_assert_msg(b->parent == parent, "%s: %s hangs from bone %d, the sheet says %ld", file, b->name, b->parent,
                      parent);
        ck_assert_int_lt(b->parent, at);
    }
}

/* PUSH/POP parents (sheet 3.4) from the plugin's props equal the frame
 * list's parents. */
static void check_push_pop(const ak_doc *doc, size_t nodes, const char *file)
{
    long order[128], stack[130], depth = 1, current = -1;
    ck_assert_uint_le(nodes, 128);
    for (size_t i = 0; i < doc->skeleton.bone_count; i++) {
        int64_t k = prop_int(&doc->skeleton.bones[i].props, DFF_P_HANIM_INDEX, -1);
        if (k >= 0)
            order[k] = (long)i;
    }
    stack[0] = -1;
    for (size_t k = 0; k < nodes; k++) {
        const ak_bone *b = &doc->skeleton.bones[order[k]];
        if (k > 0)
            ck_assert_msg(b->parent == current, "%s: node %zu (%s): PUSH/POP parent %ld, frame parent %d", file, k,
                          b->name, current, b->parent);
        int64_t flags = prop_int(&b->props, DFF_P_HANIM_FLAGS, 0);
        if (flags & 2)
            stack[depth++] = current;
        current = order[k];
        if (flags & 1) {
            ck_assert_int_gt(depth, 0);
            current = stack[--depth];
        }
    }
}

/* Head above the feet: along the axis the model stands on (the sheet: +X,
 * +Y or +Z depending on the exporter, never negative), at a plausible
 * height; world positions from the quaternions agree with those composed
 * from the stored matrices. Returns that axis. */
static int check_upright(const ak_doc *doc, const wfile *w, const char *file, double lo, double hi, double upright)
{
    static pose from_doc, from_bytes;
    static double rot[128][3][3], trans[128][3];
    long parent[128];
    doc_world(doc, NULL, NULL, &from_doc);
    for (size_t i = 0; i < w->count; i++) {
        frame_matrix(&w->f[i], rot[i]);
        memcpy(trans[i], w->f[i].pos, sizeof trans[i]);
        parent[i] = w->f[i].parent;
    }
    compose(parent, w->count, rot, trans, &from_bytes);
    double worst = 0;
    for (size_t i = 0; i < w->count; i++)
        for (int k = 0; k < 3; k++)
            worst = fmax(worst, fabs(from_doc.t[i][k] - from_bytes.t[i][k]));
    ck_assert_msg(worst < 1e-3, "%s: world positions from the rest rotations differ by %g m", file, worst);
    long head = bone_of_id(doc, 5), lfoot = bone_of_id(doc, 43), rfoot = bone_of_id(doc, 53);
    ck_assert(head > 0 && lfoot > 0 && rfoot > 0);
    double d[3], len = 0;
    int axis = 0;
    for (int k = 0; k < 3; k++) {
        d[k] = from_doc.t[head][k] - (from_doc.t[lfoot][k] + from_doc.t[rfoot][k]) / 2;
        len += d[k] * d[k];
        if (fabs(d[k]) > fabs(d[axis]))
            axis = k;
    }
    len = sqrt(len);
    printf("%s: head - feet = (%.3f, %.3f, %.3f), %.3f m, up = +%c (stored matrices vs quaternions: %.2g m)\n",
           file, d[0], d[1], d[2], len, "XYZ"[axis], worst);
    ck_assert_msg(d[axis] > 0, "%s: the head is below the feet along %c", file, "XYZ"[axis]);
    ck_assert_msg(d[axis] > upright * len, "%s: the model does not stand along one axis", file);
    ck_assert_msg(len > lo && len < hi, "%s: head to feet %.3f m, want %.2f-%.2f", file, len, lo, hi);
    return axis;
}

START_TEST(t_corpus)
{
    const char *file = corpus_files[_i];
    size_t n;
    unsigned char *b = ak_test_corpus_file(file, &n);
    if (!b)
        return;
    ak_registry *reg = registry();
    ak_doc *doc = NULL;
    msgs ms;
    ak_report rep;
    ck_assert_msg(read_msgs(reg, b, n, &doc, &ms, &rep) == AK_OK, "%s: %s", file, rep.message);
    ck_assert_str_eq(doc->format, "dff");
    ck_assert_uint_eq(doc->clip_count, 0);
    wfile *w = malloc(sizeof *w);
    ck_assert(w != NULL);
    walk(b, n, w);
    check_against_walker(doc, w, b, file);
    check_sa_skeleton(doc, file);
    check_push_pop(doc, w->node_count, file);
    ck_assert_int_eq(prop_int(&doc->props, DFF_P_STAMP, 0), 0x1803FFFF);
    ck_assert_int_eq(prop_int(&doc->props, DFF_P_CLUMPS, 0), (int64_t)w->clumps);
    ck_assert_int_eq(prop_int(&doc->props, DFF_P_ATOMICS, -1), w->atomics);
    ck_assert_str_eq(doc->variant, "3.6.0.3");
    int dog = strstr(file, "dog") != NULL;
    /* sheet 2.4: head to feet 1.50-1.62 m (humans), 0.86-0.96 m (dogs, whose
     * head is also ahead of the feet) */
    int axis = check_upright(doc, w, file, dog ? 0.85 : 1.49, dog ? 0.97 : 1.63, dog ? 0.6 : 0.9);
    /* The sheet names these two: ped_seb stands along +Y, the rottweiler
     * along +Z. */
    if (strstr(file, "ped_seb"))
        ck_assert_int_eq(axis, 1);
    if (dog)
        ck_assert_int_eq(axis, 2);
    free(w);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(b);
}
END_TEST

/* The sheet's section 6, number by number. */
START_TEST(t_worked_example)
{
    size_t n;
    unsigned char *b = ak_test_corpus_file("dff/ped_167.dff", &n);
    if (!b)
        return;
    ck_assert_uint_eq(n, 126913);
    ck_assert_uint_eq(r32(b + 4), 126901); /* Clump size = file - 12 */
    ck_assert_uint_eq(r32(b + 0x3C), 33);
    ak_registry *reg = registry();
    ak_doc *doc = ak_test_read(reg, b, n, "ped_167.dff");
    ak_bone *bones = doc->skeleton.bones;
    ck_assert_uint_eq(doc->skeleton.bone_count, 33);
    ck_assert_str_eq(bones[0].name, "");
    ck_assert(!bones[0].has_id);
    ck_assert_int_eq(bones[0].parent, -1);
    static const double q0[4] = { 0, 0, 0, 1 };
    for (int k = 0; k < 4; k++)
        ck_assert(bones[0].rotation[k] == q0[k]);
    for (int k = 0; k < 3; k++)
        ck_assert(bones[0].translation[k] == 0);
    ck_assert_int_eq(prop_int(&bones[0].props, DFF_P_MATRIX_FLAGS, 0), 0x20003);

    static const double t1[3] = { -1.3115095, -0.6158230, -1.6195575 };
    static const double r1[4] = { -0.4950544, -0.5048969, -0.4950544, 0.5048975 };
    static const double t2[3] = { 0.0, 0.0207777, 0.0032553 };
    static const double r2[4] = { 0.4950562, 0.5048967, 0.4950522, 0.5048980 };
    ck_assert_str_eq(bones[1].name, "Root");
    ck_assert_str_eq(bones[2].name, " Pelvis");
    ck_assert(bones[1].has_id && bones[1].id == 0);
    ck_assert(bones[2].has_id && bones[2].id == 1);
    ck_assert_int_eq(bones[1].parent, 0);
    ck_assert_int_eq(bones[2].parent, 1);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq_tol(bones[1].translation[k], t1[k], 6e-8);
        ck_assert_double_eq_tol(bones[2].translation[k], t2[k], 6e-8);
    }
    for (int k = 0; k < 4; k++) {
        ck_assert_double_eq_tol(bones[1].rotation[k], r1[k], 1e-6);
        ck_assert_double_eq_tol(bones[2].rotation[k], r2[k], 1e-6);
    }
    /* the hand check of frame 1 from the stored bytes at 0x78..0x9B */
    double right[3], up[3], at[3];
    for (int k = 0; k < 3; k++) {
        right[k] = rf(b + 0x78 + 4 * k);
        up[k] = rf(b + 0x84 + 4 * k);
        at[k] = rf(b + 0x90 + 4 * k);
    }
    ck_assert_double_eq_tol(right[0] + up[1] + at[2], 0.0196859, 1e-7);
    double w4 = 2 * sqrt(1 + right[0] + up[1] + at[2]);
    ck_assert_double_eq_tol((up[2] - at[1]) / w4, bones[1].rotation[0], 1e-7);
    ck_assert_double_eq_tol((at[0] - right[2]) / w4, bones[1].rotation[1], 1e-7);
    ck_assert_double_eq_tol((right[1] - up[0]) / w4, bones[1].rotation[2], 1e-7);

    ck_assert_int_eq(prop_int(&bones[1].props, DFF_P_MATRIX_FLAGS, 0), 3);
    ck_assert_int_eq(prop_int(&bones[1].props, DFF_P_HIER_NODES, 0), 32);
    ck_assert_int_eq(prop_int(&bones[1].props, DFF_P_HIER_FLAGS, -1), 0);
    ck_assert_int_eq(prop_int(&bones[1].props, DFF_P_HIER_KEYSIZE, 0), 36);
    ck_assert_int_eq(prop_int(&bones[3].props, DFF_P_HANIM_FLAGS, 0), 2); /* Spine: PUSH */
    ck_assert_int_eq(prop_int(&bones[1].props, DFF_P_HANIM_FLAGS, -1), 0);
    const ak_prop *v = ak_prop_get(&doc->props, DFF_P_VERSION);
    ck_assert(v && v->type == AK_PROP_STRING);
    ck_assert_str_eq((const char *)v->data, "3.6.0.3");
    ck_assert_int_eq(prop_int(&doc->props, DFF_P_BUILD, 0), 0xFFFF);
    ck_assert_int_eq(prop_int(&doc->props, DFF_P_ATOMICS, 0), 1);
    ck_assert_int_eq(prop_int(&doc->props, DFF_P_LIGHTS, -1), 0);
    ck_assert_int_eq(prop_int(&doc->props, DFF_P_CAMERAS, -1), 0);
    ck_assert_int_eq(prop_int(&doc->props, DFF_P_CLUMPS, 0), 1);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(b);
}
END_TEST

/* ped_cretaceous.ifp's walk_civi with each ped's skeleton attached: every
 * one of its tracks is matched, to the bone of its id; and with the first
 * keys of the tracked bones (and Root/Pelvis translations) applied on top
 * of the rest pose, each ped stands Z-up (sheet 2.4: head z 0.46-0.66,
 * feet z -0.77 to -0.99). */
START_TEST(t_match_ifp)
{
    size_t ni;
    unsigned char *ib = ak_test_corpus_file("ifp/ped_cretaceous.ifp", &ni);
    if (!ib)
        return;
    const ak_codec *codecs[] = { dff_codec(), ifp_codec(), NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_doc *anim = ak_test_read(reg, ib, ni, "ped_cretaceous.ifp");
    for (size_t f = 0; f < CORPUS_COUNT; f++) {
        if (!strstr(corpus_files[f], "ped_"))
            continue;
        size_t n;
        unsigned char *b = ak_test_corpus_file(corpus_files[f], &n);
        if (!b)
            continue;
        ak_doc *model = ak_test_read(reg, b, n, corpus_files[f]);
        ck_assert_int_eq(ak_doc_attach_skeleton(anim, model), AK_OK);
        ck_assert_uint_eq(anim->skeleton.bone_count, model->skeleton.bone_count);
        ak_clip *clip = ak_doc_find_clip(anim, "walk_civi");
        ck_assert(clip != NULL);
        ck_assert_uint_eq(clip->track_count, 30);
        ck_assert_uint_eq(ak_clip_skeleton_matched(clip), clip->track_count);
        static double qover[128][4], tover[128][3];
        for (size_t i = 0; i < 128; i++) {
            qover[i][3] = 2; /* no override */
            tover[i][0] = NAN;
        }
        for (size_t t = 0; t < clip->track_count; t++) {
            const ak_track *tr = clip->tracks[t];
            ck_assert(tr->has_bone_id);
            ck_assert_int_ge(tr->skeleton_bone, 0);
            const ak_bone *bone = &anim->skeleton.bones[tr->skeleton_bone];
            ck_assert_msg(bone->has_id && bone->id == tr->bone_id, "%s: track %s (id %d) tied to bone %s",
                          corpus_files[f], tr->bone, (int)tr->bone_id, bone->name);
            const ak_channel *rc = &tr->channel[AK_ROTATION], *tc = &tr->channel[AK_TRANSLATION];
            if (rc->count)
                memcpy(qover[tr->skeleton_bone], rc->keys[0].v, sizeof qover[0]);
            if (tc->count && (tr->bone_id == 0 || tr->bone_id == 1))
                memcpy(tover[tr->skeleton_bone], tc->keys[0].v, sizeof tover[0]);
        }
        /* The convention (sheet 2.3): bones whose rest pose equals their
         * walking key agree with the key as stored, not with its conjugate. */
        static const long decisive[] = { 44, 54, 201 };
        for (size_t i = 0; i < 3; i++) {
            long at = bone_of_id(anim, decisive[i]);
            ck_assert_int_ge(at, 0);
            const double *q = anim->skeleton.bones[at].rotation, *k = qover[at];
            double dot = fabs(q[0] * k[0] + q[1] * k[1] + q[2] * k[2] + q[3] * k[3]);
            double conj = fabs(-q[0] * k[0] - q[1] * k[1] - q[2] * k[2] + q[3] * k[3]);
            printf("%s: id %ld rest . key = %.3f, conjugate . key = %.3f\n", corpus_files[f], decisive[i], dot, conj);
            ck_assert_msg(dot > 0.99 && conj < 0.2, "%s: id %ld: |rest . key| %.3f, |conj(rest) . key| %.3f",
                          corpus_files[f], decisive[i], dot, conj);
        }
        static pose world;
        doc_world(anim, (const double (*)[4])qover, (const double (*)[3])tover, &world);
        long head = bone_of_id(anim, 5), lf = bone_of_id(anim, 43), rf_ = bone_of_id(anim, 53);
        printf("%s + walk_civi: %zu of %zu tracks matched; head z %.3f, feet z %.3f / %.3f\n", corpus_files[f],
               ak_clip_skeleton_matched(clip), clip->track_count, world.t[head][2], world.t[lf][2],
               world.t[rf_][2]);
        ck_assert_msg(world.t[head][2] > 0.44 && world.t[head][2] < 0.68, "head z %g", world.t[head][2]);
        ck_assert_msg(world.t[lf][2] > -1.01 && world.t[lf][2] < -0.75, "left foot z %g", world.t[lf][2]);
        ck_assert_msg(world.t[rf_][2] > -1.01 && world.t[rf_][2] < -0.75, "right foot z %g", world.t[rf_][2]);
        ak_doc_free(model);
        free(b);
    }
    ak_doc_free(anim);
    ak_registry_free(reg);
    free(ib);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Synthetic files                                                      */
/* ------------------------------------------------------------------ */

#define STAMP 0x1803FFFFu

typedef struct sbuf {
    unsigned char p[16384];
    size_t n;
    size_t open[8]; /* offsets of headers whose size is still open */
    int depth;
} sbuf;

static void put32(sbuf *s, uint32_t v)
{
    ck_assert_uint_le(s->n + 4, sizeof s->p);
    for (int i = 0; i < 4; i++)
        s->p[s->n++] = (unsigned char)(v >> (8 * i));
}

static void putf(sbuf *s, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(s, u);
}

static void put_bytes(sbuf *s, const void *b, size_t n)
{
    ck_assert_uint_le(s->n + n, sizeof s->p);
    memcpy(s->p + s->n, b, n);
    s->n += n;
}

static void begin(sbuf *s, uint32_t type)
{
    s->open[s->depth++] = s->n;
    put32(s, type);
    put32(s, 0);
    put32(s, STAMP);
}

static void end(sbuf *s)
{
    size_t at = s->open[--s->depth];
    uint32_t size = (uint32_t)(s->n - at - 12);
    for (int i = 0; i < 4; i++)
        s->p[at + 4 + i] = (unsigned char)(size >> (8 * i));
}

typedef struct sframe {
    float axis[3][3];
    float pos[3];
    int32_t parent;
    uint32_t flags;
    const char *name; /* NULL: no Node Name */
    size_t name_len;  /* 0: strlen(name) */
    int32_t id;       /* INT32_MIN: no HAnim */
} sframe;

/* Offsets inside the built file, for the refusal tests. */
typedef struct slayout {
    size_t clump, frame_list, frame_struct, count, record[16], ext[16];
} slayout;

static void put_frame_record(sbuf *s, const sframe *f)
{
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 3; k++)
            putf(s, f->axis[a][k]);
    for (int k = 0; k < 3; k++)
        putf(s, f->pos[k]);
    put32(s, (uint32_t)f->parent);
    put32(s, f->flags);
}

/* HAnim: the hierarchy goes on frame 1 (nodes = ids of frames 1.., in
 * frame order, with PUSH/POP flags given by the caller). */
static void put_hanim(sbuf *s, int32_t id, const int32_t (*nodes)[2], size_t node_count)
{
    begin(s, DFF_HANIM);
    put32(s, DFF_HANIM_VERSION);
    put32(s, (uint32_t)id);
    put32(s, (uint32_t)node_count);
    if (node_count) {
        put32(s, 0);
        put32(s, 36);
        for (size_t k = 0; k < node_count; k++) {
            put32(s, (uint32_t)nodes[k][0]);
            put32(s, (uint32_t)k);
            put32(s, (uint32_t)nodes[k][1]);
        }
    }
    end(s);
}

static void build_clump(sbuf *s, const sframe *frames, size_t n, const int32_t (*nodes)[2], size_t node_count,
                        slayout *lay)
{
    lay->clump = s->n;
    begin(s, DFF_CLUMP);
    begin(s, DFF_STRUCT);
    put32(s, 1);
    put32(s, 0);
    put32(s, 0);
    end(s);
    lay->frame_list = s->n;
    begin(s, DFF_FRAMELIST);
    lay->frame_struct = s->n;
    begin(s, DFF_STRUCT);
    lay->count = s->n;
    put32(s, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        lay->record[i] = s->n;
        put_frame_record(s, &frames[i]);
    }
    end(s);
    for (size_t i = 0; i < n; i++) {
        lay->ext[i] = s->n;
        begin(s, DFF_EXTENSION);
        if (frames[i].id != INT32_MIN)
            put_hanim(s, frames[i].id, i == 1 ? nodes : NULL, i == 1 ? node_count : 0);
        if (frames[i].name) {
            begin(s, DFF_NODENAME);
            put_bytes(s, frames[i].name, frames[i].name_len ? frames[i].name_len : strlen(frames[i].name));
            end(s);
        }
        end(s);
    }
    end(s);
    begin(s, 0x1A); /* GeometryList: skipped */
    begin(s, DFF_STRUCT);
    put32(s, 0);
    end(s);
    end(s);
    begin(s, DFF_EXTENSION);
    end(s);
    end(s);
}

/* A 4-frame chain: frame 0 (root, no name, no id), then "Root" id 0,
 * " Pelvis" id 1 and " Spine" id 2, each turned 90 degrees about Z and
 * moved along its parent's X. */
static void base_frames(sframe *f)
{
    memset(f, 0, 4 * sizeof *f);
    static const char *const names[] = { NULL, "Root", " Pelvis", " Spine" };
    for (int i = 0; i < 4; i++) {
        f[i].axis[0][0] = f[i].axis[1][1] = f[i].axis[2][2] = 1;
        f[i].parent = i - 1;
        f[i].flags = i ? 3 : 0x20003;
        f[i].name = names[i];
        f[i].id = i ? i - 1 : INT32_MIN;
        if (i) {
            /* right = +Y, up = -X, at = +Z: 90 degrees about Z */
            f[i].axis[0][0] = 0;
            f[i].axis[0][1] = 1;
            f[i].axis[1][0] = -1;
            f[i].axis[1][1] = 0;
            f[i].pos[0] = 0.5f * (float)i;
        }
    }
}

static const int32_t base_nodes[3][2] = { { 0, 0 }, { 1, 0 }, { 2, 1 } };

static void build_base(sbuf *s, slayout *lay, void (*edit)(sframe *))
{
    sframe f[4];
    base_frames(f);
    if (edit)
        edit(f);
    memset(s, 0, sizeof *s);
    build_clump(s, f, 4, base_nodes, 3, lay);
}

static void set32(sbuf *s, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        s->p[at + i] = (unsigned char)(v >> (8 * i));
}

/* Saves a synthetic file as a fuzz seed when AK_DFF_FIXTURE_DIR is set
 * (fuzz/seeds/dff holds the ones this test writes). */
static void save_fixture(const char *name, const sbuf *s)
{
    const char *dir = getenv("AK_DFF_FIXTURE_DIR");
    if (!dir)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert_uint_eq(fwrite(s->p, 1, s->n, f), s->n);
    fclose(f);
}

START_TEST(t_synthetic_chain)
{
    sbuf *s = malloc(sizeof *s);
    slayout lay;
    build_base(s, &lay, NULL);
    save_fixture("chain.dff", s);
    ak_registry *reg = registry();
    msgs ms;
    ak_report rep;
    ak_doc *doc = NULL;
    ck_assert_msg(read_msgs(reg, s->p, s->n, &doc, &ms, &rep) == AK_OK, "%s", rep.message);
    ck_assert_msg(ms.warnings == 0, "%s", ms.text);
    ck_assert_uint_eq(doc->skeleton.bone_count, 4);
    double h = sqrt(0.5);
    for (int i = 1; i < 4; i++) {
        const ak_bone *b = &doc->skeleton.bones[i];
        ck_assert_int_eq(b->parent, i - 1);
        ck_assert(b->has_id && b->id == i - 1);
        ck_assert_double_eq_tol(b->rotation[0], 0, 1e-12);
        ck_assert_double_eq_tol(b->rotation[1], 0, 1e-12);
        ck_assert_double_eq_tol(b->rotation[2], h, 1e-12);
        ck_assert_double_eq_tol(b->rotation[3], h, 1e-12);
        ck_assert_double_eq_tol(b->translation[0], 0.5 * i, 1e-12);
    }
    ck_assert_str_eq(doc->skeleton.bones[3].name, " Spine");
    /* world: each bone turns 90 degrees more; Spine sits at
     * 0.5 (X) + R90 (1, 0) + R180 (1.5, 0) = (0.5 - 1.5, 1) */
    static pose world;
    doc_world(doc, NULL, NULL, &world);
    ck_assert_double_eq_tol(world.t[3][0], -1.0, 1e-9);
    ck_assert_double_eq_tol(world.t[3][1], 1.0, 1e-9);
    ck_assert_int_eq(prop_int(&doc->skeleton.bones[2].props, DFF_P_HANIM_FLAGS, -1), 0);
    ck_assert_int_eq(prop_int(&doc->skeleton.bones[3].props, DFF_P_HANIM_FLAGS, -1), 1);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(s);
}
END_TEST

static void shear(sframe *f)
{
    /* right leans towards up by 0.1 and is 5 % long, as real hand frames */
    f[2].axis[0][0] = 0.1f;
    f[2].axis[0][1] = 1.05f;
}

static void scaled(sframe *f)
{
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 3; k++)
            f[3].axis[a][k] *= 0.01f;
}

START_TEST(t_synthetic_sheared)
{
    sbuf *s = malloc(sizeof *s);
    slayout lay;
    build_base(s, &lay, shear);
    save_fixture("sheared.dff", s);
    ak_registry *reg = registry();
    msgs ms;
    ak_report rep;
    ak_doc *doc = NULL;
    ck_assert_msg(read_msgs(reg, s->p, s->n, &doc, &ms, &rep) == AK_OK, "%s", rep.message);
    ck_assert_msg(strstr(ms.text, "not orthonormal") != NULL, "%s", ms.text);
    const ak_bone *b = &doc->skeleton.bones[2];
    const ak_prop *mp = ak_prop_get(&b->props, DFF_P_MATRIX);
    ck_assert(mp && mp->size == 36);
    ck_assert(memcmp(mp->data, s->p + lay.record[2], 36) == 0);
    wframe wf = { 0 };
    for (int k = 0; k < 9; k++)
        wf.axis[k / 3][k % 3] = rf(s->p + lay.record[2] + 4 * k);
    double a[3][3];
    frame_matrix(&wf, a);
    check_closest(b->rotation, a, "sheared frame");
    /* The closest rotation of [[0.1, -1, 0], [1.05, 0, 0], [0, 0, 1]]
     * (columns right, up, at) turns about Z only: angle from the 2x2
     * block, atan2(c - b, a + d) for [[a, b], [c, d]]. */
    double angle = atan2((double)1.05f + 1.0, (double)0.1f);
    ck_assert_double_eq_tol(b->rotation[2], sin(angle / 2), 1e-7);
    ck_assert_double_eq_tol(b->rotation[3], cos(angle / 2), 1e-7);
    ak_doc_free(doc);
    /* A uniformly scaled matrix: the same rotation as unscaled. */
    build_base(s, &lay, scaled);
    ck_assert_msg(read_msgs(reg, s->p, s->n, &doc, &ms, &rep) == AK_OK, "%s", rep.message);
    ck_assert_double_eq_tol(doc->skeleton.bones[3].rotation[2], sqrt(0.5), 1e-7);
    ck_assert_double_eq_tol(doc->skeleton.bones[3].rotation[3], sqrt(0.5), 1e-7);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(s);
}
END_TEST

/* What real files and the engines allow: no HAnim at all, no Extensions,
 * extra chunks between Extensions, a NUL or 30 bytes in a name, trailing
 * data, more clumps, a UV Animation Dictionary first, a 4-byte Clump
 * Struct, frames out of node order. */
static void no_hanim(sframe *f)
{
    for (int i = 0; i < 4; i++)
        f[i].id = INT32_MIN;
}

static void odd_names(sframe *f)
{
    f[2].name = "Pel\0vis";
    f[2].name_len = 7;
    f[3].name = "a name of thirty bytes, long..";
}

START_TEST(t_synthetic_tolerated)
{
    sbuf *s = malloc(sizeof *s);
    slayout lay;
    ak_registry *reg = registry();
    msgs ms;
    ak_report rep;
    ak_doc *doc = NULL;

    build_base(s, &lay, no_hanim);
    ck_assert_msg(read_msgs(reg, s->p, s->n, &doc, &ms, &rep) == AK_OK, "%s", rep.message);
    for (size_t i = 0; i < 4; i++)
        ck_assert(!doc->skeleton.bones[i].has_id);
    ck_assert_str_eq(doc->skeleton.bones[1].name, "Root");
    ak_doc_free(doc);

    build_base(s, &lay, odd_names);
    save_fixture("names.dff", s);
    ck_assert_msg(read_msgs(reg, s->p, s->n, &doc, &ms, &rep) == AK_OK, "%s", rep.message);
    ck_assert_str_eq(doc->skeleton.bones[2].name, "Pel");
    const ak_prop *raw = ak_prop_get(&doc->skeleton.bones[2].props, DFF_P_NAME_RAW);
    ck_assert(raw && raw->size == 7 && memcmp(raw->data, "Pel\0vis", 7) == 0);
    ck_assert_str_eq(doc->skeleton.bones[3].name, "a name of thirty bytes, long..");
    ck_assert_msg(strstr(ms.text, "longer than the 23 bytes") != NULL, "%s", ms.text);
    ck_assert_msg(strstr(ms.text, "NUL") != NULL, "%s", ms.text);
    ak_doc_free(doc);

    /* Extensions cut short: frames 2 and 3 lose theirs; an unknown chunk
     * sits between the Struct and the first Extension. */
    build_base(s, &lay, NULL);
    sbuf *t = malloc(sizeof *t);
    memset(t, 0, sizeof *t);
    size_t keep = lay.ext[2] - lay.clump; /* header .. frame 1's Extension */
    begin(t, DFF_CLUMP);
    put_bytes(t, s->p + 12, lay.frame_list - 12);
    begin(t, DFF_FRAMELIST);
    put_bytes(t, s->p + lay.frame_struct, lay.ext[0] - lay.frame_struct);
    begin(t, 0x011F); /* User Data: skipped */
    put32(t, 7);
    end(t);
    put_bytes(t, s->p + lay.ext[0], keep - lay.ext[0]);
    end(t);
    end(t);
    ck_assert_msg(read_msgs(reg, t->p, t->n, &doc, &ms, &rep) == AK_OK, "%s", rep.message);
    ck_assert_msg(strstr(ms.text, "4 frames but 2 Extensions") != NULL, "%s", ms.text);
    ck_assert_str_eq(doc->skeleton.bones[1].name, "Root");
    ck_assert_str_eq(doc->skeleton.bones[3].name, "");
    ck_assert(!doc->skeleton.bones[3].has_id);
    ak_doc_free(doc);

    /* UV Animation Dictionary first, then two clumps, then zero padding:
     * the first clump is read. */
    memset(t, 0, sizeof *t);
    begin(t, DFF_UVANIMDICT);
    put32(t, 0);
    end(t);
    put_bytes(t, s->p, s->n);
    size_t second = t->n;
    put_bytes(t, s->p, s->n);
    /* the second clump's "Root" becomes "Fat!" (after the Extension,
     * HAnim and Node Name headers and the 56-byte hierarchy) */
    size_t root_name = second + lay.ext[1] + 12 + 12 + 20 + 12 * 3 + 12;
    ck_assert(memcmp(t->p + root_name, "Root", 4) == 0);
    memcpy(t->p + root_name, "Fat!", 4);
    for (int i = 0; i < 40; i++)
        t->p[t->n++] = 0;
    save_fixture("two-clumps.dff", t);
    ck_assert_uint_eq(dff_codec()->probe(t->p, t->n, NULL), AK_PROBE_MAGIC);
    ck_assert_msg(read_msgs(reg, t->p, t->n, &doc, &ms, &rep) == AK_OK, "%s", rep.message);
    ck_assert_int_eq(prop_int(&doc->props, DFF_P_CLUMPS, 0), 2);
    ck_assert_msg(strstr(ms.text, "2 clumps") != NULL, "%s", ms.text);
    ck_assert_str_eq(doc->skeleton.bones[1].name, "Root");
    ak_doc_free(doc);

    /* Pre-3.3 Clump Struct (atomic count only) and an old stamp. */
    memset(t, 0, sizeof *t);
    t->n = 0;
    begin(t, DFF_CLUMP);
    set32(t, 8, 0x0C02FFFFu);
    begin(t, DFF_STRUCT);
    put32(t, 2);
    end(t);
    put_bytes(t, s->p + lay.frame_list, s->n - lay.frame_list);
    end(t);
    ck_assert_msg(read_msgs(reg, t->p, t->n, &doc, &ms, &rep) == AK_OK, "%s", rep.message);
    ck_assert_str_eq(doc->variant, "3.3.0.2");
    ck_assert_int_eq(prop_int(&doc->props, DFF_P_ATOMICS, 0), 2);
    ck_assert(ak_prop_get(&doc->props, DFF_P_LIGHTS) == NULL);
    ak_doc_free(doc);

    free(t);
    ak_registry_free(reg);
    free(s);
}
END_TEST

/* Frames in RenderWare's own order (a frame, its later siblings, then its
 * first child): the HAnim node order differs, ids still find the frames. */
START_TEST(t_synthetic_node_order)
{
    sframe f[5];
    memset(f, 0, sizeof f);
    static const char *const names[] = { NULL, "Pelvis", "R Thigh", "L Thigh", "Spine" };
    static const int32_t ids[] = { INT32_MIN, 1, 51, 41, 2 };
    static const int32_t parents[] = { -1, 0, 1, 1, 1 };
    for (int i = 0; i < 5; i++) {
        f[i].axis[0][0] = f[i].axis[1][1] = f[i].axis[2][2] = 1;
        f[i].parent = parents[i];
        f[i].name = names[i];
        f[i].id = ids[i];
        f[i].pos[1] = (float)i;
    }
    /* node order: Pelvis, Spine (PUSH, POP), L Thigh (PUSH, POP), R Thigh (POP) */
    static const int32_t nodes[4][2] = { { 1, 0 }, { 2, 3 }, { 41, 3 }, { 51, 1 } };
    sbuf *s = malloc(sizeof *s);
    memset(s, 0, sizeof *s);
    slayout lay;
    build_clump(s, f, 5, nodes, 4, &lay);
    save_fixture("node-order.dff", s);
    ak_registry *reg = registry();
    msgs ms;
    ak_report rep;
    ak_doc *doc = NULL;
    ck_assert_msg(read_msgs(reg, s->p, s->n, &doc, &ms, &rep) == AK_OK, "%s", rep.message);
    ck_assert_msg(ms.warnings == 0, "%s", ms.text);
    static const int64_t index_of_frame[] = { -1, 0, 3, 2, 1 };
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(prop_int(&doc->skeleton.bones[i].props, DFF_P_HANIM_INDEX, -1), index_of_frame[i]);
    ak_doc_free(doc);
    /* A hierarchy that disagrees with the frame list: warned, parents kept. */
    set32(s, lay.ext[1] + 12 + 12 + 20 + 12 + 8, 0); /* Spine: no PUSH/POP */
    ck_assert_msg(read_msgs(reg, s->p, s->n, &doc, &ms, &rep) == AK_OK, "%s", rep.message);
    ck_assert_msg(strstr(ms.text, "different parent") != NULL, "%s", ms.text);
    ck_assert_int_eq(doc->skeleton.bones[3].parent, 1);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(s);
}
END_TEST

/* ---- refusals ------------------------------------------------------------ */

static void expect_refusal(ak_registry *reg, const sbuf *s, ak_status want, int64_t offset, const char *words,
                           const char *what)
{
    ak_doc *doc = NULL;
    msgs ms;
    ak_report rep;
    ak_status st = read_msgs(reg, s->p, s->n, &doc, &ms, &rep);
    ck_assert_msg(st == want, "%s: status %s (%s), want %s", what, ak_status_name(st), rep.message,
                  ak_status_name(want));
    ck_assert(doc == NULL);
    ck_assert_msg(rep.offset == offset, "%s: error at %lld, want %lld (%s)", what, (long long)rep.offset,
                  (long long)offset, rep.message);
    ck_assert_msg(strstr(rep.text, words) != NULL, "%s: '%s' lacks '%s'", what, rep.text, words);
    ck_assert_str_eq(rep.plugin, "dff");
}

static void parent_forward(sframe *f) { f[1].parent = 2; }
static void parent_self(sframe *f) { f[2].parent = 2; }
static void parent_range(sframe *f) { f[3].parent = 70000; }
static void parent_negative(sframe *f) { f[2].parent = -2; }
static void cycle(sframe *f)
{
    f[1].parent = 3;
    f[3].parent = 1;
}
static void nan_matrix(sframe *f) { f[2].axis[1][2] = NAN; }
static void inf_pos(sframe *f) { f[3].pos[1] = INFINITY; }
static void mirrored(sframe *f) { f[1].axis[2][2] = -1; }
static void flat(sframe *f)
{
    f[2].axis[2][0] = f[2].axis[0][0];
    f[2].axis[2][1] = f[2].axis[0][1];
    f[2].axis[2][2] = f[2].axis[0][2];
}

START_TEST(t_refusals)
{
    ak_registry *reg = registry();
    sbuf *s = malloc(sizeof *s);
    slayout lay;

    build_base(s, &lay, parent_forward);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.record[1] + 48, "parent 2 is not an earlier frame", "forward");
    build_base(s, &lay, parent_self);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.record[2] + 48, "frame 2: parent 2", "self");
    build_base(s, &lay, parent_range);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.record[3] + 48, "parent 70000", "out of range");
    build_base(s, &lay, parent_negative);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.record[2] + 48, "parent -2", "negative");
    build_base(s, &lay, cycle);
    save_fixture("cycle.dff", s);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.record[1] + 48, "parent 3", "cycle");
    build_base(s, &lay, nan_matrix);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.record[2] + 20, "non-finite value in its matrix", "NaN");
    build_base(s, &lay, inf_pos);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.record[3] + 40, "non-finite value in its position", "inf");
    build_base(s, &lay, mirrored);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.record[1], "mirrored or flat", "mirrored");
    build_base(s, &lay, flat);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.record[2], "mirrored or flat", "flat");

    /* counts larger than the bytes */
    static const uint32_t counts[] = { 5, 0x10000, 0x7FFFFFFF };
    for (size_t i = 0; i < 3; i++) {
        build_base(s, &lay, NULL);
        set32(s, lay.count, counts[i]);
        expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.count + 4, "count of frames", "frame count");
    }
    build_base(s, &lay, NULL);
    set32(s, lay.count, 0);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.count, "at least one frame", "no frames");
    set32(s, lay.count, 0xFFFFFFFFu);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.count, "frame count -1", "negative count");
    size_t hanim = lay.ext[1] + 12; /* frame 1's HAnim header */
    build_base(s, &lay, NULL);
    set32(s, hanim + 12 + 8, 4); /* 4 nodes in a 3-node chunk */
    expect_refusal(reg, s, AK_E_DATA, (int64_t)hanim + 12 + 20, "count of HAnim nodes", "node count");
    set32(s, hanim + 12 + 8, 0x80000000u);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)hanim + 12 + 8, "HAnim node count", "negative node count");
    build_base(s, &lay, NULL);
    set32(s, hanim + 12, 0x101);
    expect_refusal(reg, s, AK_E_UNSUPPORTED, (int64_t)hanim + 12, "version 0x101", "HAnim version");

    /* chunk sizes past their parent */
    build_base(s, &lay, NULL);
    set32(s, lay.frame_list + 4, r32(s->p + lay.clump + 4));
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.frame_list, "runs past the end of the Clump", "frame list size");
    build_base(s, &lay, NULL);
    set32(s, hanim + 4, r32(s->p + lay.ext[1] + 4)); /* as big as its Extension */
    expect_refusal(reg, s, AK_E_DATA, (int64_t)hanim, "HAnim PLG 0x11E of", "HAnim size");
    build_base(s, &lay, NULL);
    set32(s, lay.frame_struct + 4, r32(s->p + lay.frame_list + 4));
    expect_refusal(reg, s, AK_E_DATA, (int64_t)lay.frame_struct, "past the end of the Frame List", "struct size");
    build_base(s, &lay, NULL);
    set32(s, 4, (uint32_t)s->n);
    expect_refusal(reg, s, AK_E_DATA, 0, "past the end of the file", "clump size");
    /* 5 stray bytes at the end of frame 3's Extension: too few for a header */
    build_base(s, &lay, NULL);
    size_t at = lay.ext[3] + 12 + r32(s->p + lay.ext[3] + 4);
    memmove(s->p + at + 5, s->p + at, s->n - at);
    memset(s->p + at, 0x77, 5);
    s->n += 5;
    set32(s, lay.ext[3] + 4, r32(s->p + lay.ext[3] + 4) + 5);
    set32(s, lay.frame_list + 4, r32(s->p + lay.frame_list + 4) + 5);
    set32(s, lay.clump + 4, r32(s->p + lay.clump + 4) + 5);
    expect_refusal(reg, s, AK_E_DATA, (int64_t)at, "5 bytes left in the Extension", "short header");

    /* structure */
    memset(s, 0, sizeof *s);
    begin(s, DFF_UVANIMDICT);
    end(s);
    expect_refusal(reg, s, AK_E_DATA, 12, "no Clump", "no clump");
    memset(s, 0, sizeof *s);
    begin(s, 0);
    end(s);
    expect_refusal(reg, s, AK_E_DATA, 0, "before any Clump", "type 0");
    memset(s, 0, sizeof *s);
    begin(s, DFF_CLUMP);
    begin(s, DFF_STRUCT);
    put32(s, 1);
    end(s);
    end(s);
    expect_refusal(reg, s, AK_E_DATA, 0, "has no Frame List", "no frame list");
    memset(s, 0, sizeof *s);
    begin(s, DFF_CLUMP);
    begin(s, DFF_FRAMELIST);
    end(s);
    end(s);
    expect_refusal(reg, s, AK_E_DATA, 12, "before the Clump's Struct", "frame list first");
    memset(s, 0, sizeof *s);
    begin(s, DFF_CLUMP);
    begin(s, DFF_STRUCT);
    put32(s, 1);
    end(s);
    begin(s, DFF_FRAMELIST);
    begin(s, DFF_EXTENSION);
    end(s);
    end(s);
    end(s);
    expect_refusal(reg, s, AK_E_DATA, 40, "not a Struct", "frame list without struct");
    memset(s, 0, sizeof *s);
    begin(s, DFF_CLUMP);
    begin(s, DFF_STRUCT);
    put32(s, 1);
    end(s);
    begin(s, DFF_FRAMELIST);
    begin(s, DFF_STRUCT);
    put32(s, 1);
    end(s);
    begin(s, DFF_EXTENSION);
    begin(s, DFF_HANIM);
    put32(s, DFF_HANIM_VERSION);
    put32(s, 0);
    end(s);
    end(s);
    end(s);
    end(s);
    /* 1 frame without its record */
    expect_refusal(reg, s, AK_E_DATA, 56, "count of frames", "record missing");
    free(s);
    ak_registry_free(reg);
}
END_TEST

/* A short HAnim chunk (the count of frames is fine this time). */
START_TEST(t_refusal_short_hanim)
{
    ak_registry *reg = registry();
    sbuf *s = malloc(sizeof *s);
    slayout lay;
    build_base(s, &lay, NULL);
    size_t hanim = lay.ext[2] + 12; /* frame 2's 12-byte HAnim */
    set32(s, hanim + 4, 8); /* the reader stops there, before the 4 bytes left over */
    ak_doc *doc = NULL;
    msgs ms;
    ak_report rep;
    ck_assert_int_eq(read_msgs(reg, s->p, s->n, &doc, &ms, &rep), AK_E_DATA);
    ck_assert_int_eq(rep.offset, (int64_t)hanim);
    ck_assert_msg(strstr(rep.text, "HAnim PLG of 8 bytes") != NULL, "%s", rep.text);
    free(s);
    ak_registry_free(reg);
}
END_TEST

/* ---- probe --------------------------------------------------------------- */

START_TEST(t_probe)
{
    const ak_codec *c = dff_codec();
    ck_assert_ptr_null(c->write);
    ck_assert(c->caps & AK_CAP_SKELETON);
    sbuf *s = malloc(sizeof *s);
    slayout lay;
    build_base(s, &lay, NULL);
    ck_assert_int_eq(c->probe(s->p, s->n, NULL), AK_PROBE_MAGIC);
    ck_assert_int_eq(c->probe(s->p, s->n, "x.ifp"), AK_PROBE_MAGIC);
    /* truncated: the clump does not fit the file */
    ck_assert_int_eq(c->probe(s->p, s->n - 1, NULL), 0);
    ck_assert_int_eq(c->probe(s->p, s->n - 1, "model.DFF"), AK_PROBE_EXTENSION);
    ck_assert_int_eq(c->probe(s->p, 11, "a/b.dff"), AK_PROBE_EXTENSION);
    ck_assert_int_eq(c->probe(s->p, 0, "a.dff/b"), 0);
    /* a foreign stamp */
    set32(s, 8, 0x7F00FFFFu);
    ck_assert_int_eq(c->probe(s->p, s->n, NULL), 0);
    set32(s, 8, STAMP);
    /* a clump whose first child is not a Struct */
    set32(s, 12, 0x0E);
    ck_assert_int_eq(c->probe(s->p, s->n, NULL), 0);
    static const unsigned char anp3[] = "ANP3\x10\0\0\0pkg";
    ck_assert_int_eq(c->probe(anp3, sizeof anp3, "ped.ifp"), 0);
    for (size_t i = 0; i < CORPUS_COUNT; i++) {
        size_t n;
        unsigned char *b = ak_test_corpus_file(corpus_files[i], &n);
        if (!b)
            continue;
        ck_assert_int_eq(c->probe(b, n, NULL), AK_PROBE_MAGIC);
        ck_assert_int_eq(ifp_codec()->probe(b, n, NULL), 0);
        free(b);
    }
    free(s);
}
END_TEST

/* ---- sweeps -------------------------------------------------------------- */

static unsigned long sweep_reads, sweep_errors;

/* One read that must end in a document or a clean error with a message. */
static ak_status sweep_read(ak_registry *reg, const unsigned char *b, size_t n, const char *what, size_t where)
{
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, "dff", "sweep.dff", NULL, 0, 0 };
    ak_status st = ak_read(reg, b, n, &o, &doc, &rep);
    ck_assert_msg(st == AK_OK || st == AK_E_DATA || st == AK_E_UNSUPPORTED || st == AK_E_LIMIT,
                  "%s at %zu: %s: %s", what, where, ak_status_name(st), rep.message);
    sweep_reads++;
    if (st != AK_OK) {
        sweep_errors++;
        ck_assert_msg(rep.text[0] && (st == AK_E_LIMIT || (rep.offset >= 0 && (size_t)rep.offset <= n)), "%s at %zu: %s (offset %lld)", what,
                      where, rep.message, (long long)rep.offset);
        ck_assert(doc == NULL);
    } else {
        ck_assert(doc->skeleton.bone_count >= 1);
        for (size_t i = 0; i < doc->skeleton.bone_count; i++)
            ck_assert_int_lt(doc->skeleton.bones[i].parent, (int32_t)i);
    }
    ak_doc_free(doc);
    return st;
}

/* The end of the first clump (where truncation stops being an error). */
static size_t first_clump_end(const unsigned char *b, size_t n)
{
    size_t at = 0;
    while (at + 12 <= n) {
        if (r32(b + at) == 0x10)
            return at + 12 + r32(b + at + 4);
        at += 12 + r32(b + at + 4);
    }
    return n;
}

typedef struct sweep_ctx {
    ak_registry *reg;
    const char *what;
    size_t end; /* cuts shorter than this must be refused */
} sweep_ctx;

static void cut_read(const unsigned char *b, size_t len, size_t where, void *user)
{
    const sweep_ctx *c = user;
    ak_status st = sweep_read(c->reg, b, len, c->what, where);
    if (len < c->end)
        ck_assert_msg(st != AK_OK, "%s cut at %zu (inside the clump) read", c->what, len);
}

static void poke_read(const unsigned char *b, size_t len, size_t where, void *user)
{
    const sweep_ctx *c = user;
    sweep_read(c->reg, b, len, c->what, where);
}

START_TEST(t_sweep_corpus)
{
    const char *file = corpus_files[_i];
    size_t n;
    unsigned char *orig = ak_test_corpus_file(file, &n);
    if (!orig)
        return;
    ak_registry *reg = registry();
    unsigned char *b = malloc(n);
    size_t end = first_clump_end(orig, n);
    unsigned long reads0 = sweep_reads, errors0 = sweep_errors;
    /* Truncation: every cut in the first 4.5 KB (headers, the frame list
     * and its Extensions), then every 97th byte; every cut inside the
     * clump must be refused. */
    sweep_ctx ctx = { reg, file, end };
    ak_test_cuts(orig, n, 4608, 97, cut_read, &ctx);
    /* Inflated counts and sizes: every 32-bit field in the first 4.5 KB,
     * set to values that would need gigabytes. */
    static const uint32_t vals[] = { 0xFFFFFFFFu, 0x7FFFFFFFu, 0x01000000u, 0x80000000u, 0x00010000u };
    ak_test_pokes(orig, n, 4608, 4, vals, sizeof vals / sizeof vals[0], 4, poke_read, &ctx);
    /* Random byte corruption, seeded so that a failure repeats. */
    unsigned long x = 0x9E3779B9u + (unsigned long)_i;
    for (int round = 0; round < 1500; round++) {
        memcpy(b, orig, n);
        for (int k = 0; k < 4; k++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            size_t at = (size_t)(x >> 33) % (end < 4608 ? end : 4608);
            b[at] = (unsigned char)(x >> 24);
        }
        sweep_read(reg, b, n, file, (size_t)round);
    }
    printf("%s: %lu sweep reads, %lu clean errors\n", file, sweep_reads - reads0, sweep_errors - errors0);
    ck_assert_uint_gt(sweep_errors - errors0, 4000);
    free(b);
    free(orig);
    ak_registry_free(reg);
}
END_TEST

START_TEST(t_sweep_synthetic)
{
    ak_registry *reg = registry();
    sbuf *s = malloc(sizeof *s);
    slayout lay;
    build_base(s, &lay, NULL);
    unsigned long errors0 = sweep_errors;
    sweep_ctx ctx = { reg, "synthetic", s->n }; /* every cut is refused */
    ak_test_cuts(s->p, s->n, s->n, 1, cut_read, &ctx);
    static const uint32_t vals[] = { 0xFFFFFFFFu, 0x7FFFFFFFu, 0x0000FFFFu };
    ak_test_pokes(s->p, s->n, s->n, 1, vals, 3, 4, poke_read, &ctx);
    ck_assert_uint_gt(sweep_errors - errors0, s->n);
    free(s);
    ak_registry_free(reg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dff");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, t_corpus, 0, (int)CORPUS_COUNT);
    tcase_add_test(tc, t_worked_example);
    tcase_add_test(tc, t_match_ifp);
    suite_add_tcase(s, tc);
    TCase *ts = tcase_create("synthetic");
    tcase_add_test(ts, t_synthetic_chain);
    tcase_add_test(ts, t_synthetic_sheared);
    tcase_add_test(ts, t_synthetic_tolerated);
    tcase_add_test(ts, t_synthetic_node_order);
    tcase_add_test(ts, t_refusals);
    tcase_add_test(ts, t_refusal_short_hanim);
    tcase_add_test(ts, t_probe);
    suite_add_tcase(s, ts);
    TCase *tw = tcase_create("sweeps");
    tcase_set_timeout(tw, 600);
    tcase_add_loop_test(tw, t_sweep_corpus, 0, (int)CORPUS_COUNT);
    tcase_add_test(tw, t_sweep_synthetic);
    suite_add_tcase(s, tw);
    return ak_test_run(s);
}
