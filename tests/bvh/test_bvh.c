/* test_bvh.c - the Biovision Hierarchy codec: synthetic files for every
 * rotation order, nested joints, End Sites, several roots and CR LF line
 * ends; rotations checked against matrices computed here; byte-exact and
 * edited rewrites; bvh -> ifp -> bvh of a 3-bone walk; bad input. */
#include "testutil.h"
#include "../../plugins/bvh/bvh.h"
#include "../../plugins/ifp/ifp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ak_registry *registry(void)
{
    const ak_codec *codecs[] = { bvh_codec(), ifp_codec(), NULL };
    return ak_test_registry(codecs);
}

static ak_status read_text(ak_registry *reg, const char *text, const char *const *params, ak_doc **doc,
                           ak_report *rep)
{
    size_t n = strlen(text);
    unsigned char *copy = malloc(n ? n : 1); /* no terminator: ASan sees overreads */
    memcpy(copy, text, n);
    ak_options o = { sizeof o, "bvh", "take.bvh", params, 0, 0 };
    memset(rep, 0, sizeof *rep);
    *doc = NULL;
    ak_status st = ak_read(reg, copy, n, &o, doc, rep);
    free(copy);
    return st;
}

static ak_doc *read_ok(ak_registry *reg, const char *text, const char *const *params)
{
    ak_doc *doc;
    ak_report rep;
    ak_status st = read_text(reg, text, params, &doc, &rep);
    if (st != AK_OK)
        ck_abort_msg("read failed: %s", rep.message);
    return doc;
}

static unsigned char *write_bvh(ak_registry *reg, const ak_doc *doc, const char *const *params, size_t *size,
                                ak_report *rep)
{
    ak_options o = { sizeof o, "bvh", "out.bvh", params, 0, 0 };
    unsigned char *bytes = NULL;
    memset(rep, 0, sizeof *rep);
    ak_status st = ak_write(reg, doc, &o, &bytes, size, rep);
    return st == AK_OK ? bytes : NULL;
}

/* ---- rotations computed independently: matrices, column vectors ---- */

typedef double mat3[3][3];

static void axis_matrix(int axis, double deg, mat3 m)
{
    double a = deg * M_PI / 180, c = cos(a), s = sin(a);
    memset(m, 0, sizeof(mat3));
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    m[axis][axis] = 1;
    m[i][i] = c;
    m[i][j] = -s;
    m[j][i] = s;
    m[j][j] = c;
}

static void mat_mul(mat3 a, mat3 b, mat3 out)
{
    mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
    memcpy(out, r, sizeof r);
}

/* The matrix rotating v as q v q* does, for a unit q = (x, y, z, w). */
static void quat_to_matrix(const double q[4], mat3 m)
{
    /* Rotate each basis vector: v' = v + 2w (u x v) + 2 u x (u x v). */
    for (int c = 0; c < 3; c++) {
        double v[3] = { 0, 0, 0 }, u[3] = { q[0], q[1], q[2] }, t[3], r[3];
        v[c] = 1;
        t[0] = 2 * (u[1] * v[2] - u[2] * v[1]);
        t[1] = 2 * (u[2] * v[0] - u[0] * v[2]);
        t[2] = 2 * (u[0] * v[1] - u[1] * v[0]);
        r[0] = v[0] + q[3] * t[0] + (u[1] * t[2] - u[2] * t[1]);
        r[1] = v[1] + q[3] * t[1] + (u[2] * t[0] - u[0] * t[2]);
        r[2] = v[2] + q[3] * t[2] + (u[0] * t[1] - u[1] * t[0]);
        for (int i = 0; i < 3; i++)
            m[i][c] = r[i];
    }
}

static double mat_diff(mat3 a, mat3 b)
{
    double d = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            d = fmax(d, fabs(a[i][j] - b[i][j]));
    return d;
}

static const char axis_letter[3] = { 'X', 'Y', 'Z' };
static const int orders[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };

/* A deterministic angle in (-180, 180). */
static double angle(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return ((double)(*seed >> 8 & 0xFFFF) / 65536.0 - 0.5) * 359.0;
}

START_TEST(every_rotation_order_matches_matrices)
{
    ak_registry *reg = registry();
    for (int o = 0; o < 6; o++) {
        const int *ax = orders[o];
        char text[4096], chans[64];
        snprintf(chans, sizeof chans, "%crotation %crotation %crotation", axis_letter[ax[0]], axis_letter[ax[1]],
                 axis_letter[ax[2]]);
        int n = snprintf(text, sizeof text,
                         "HIERARCHY\nROOT root\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition %s\n"
                         "  JOINT arm\n  {\n    OFFSET 1 2 3\n    CHANNELS 3 %s\n    End Site\n    {\n"
                         "      OFFSET 0 1 0\n    }\n  }\n}\nMOTION\nFrames: 4\nFrame Time: 0.04\n",
                         chans, chans);
        double deg[4][2][3];
        unsigned seed = 7u + (unsigned)o;
        for (int f = 0; f < 4; f++) {
            for (int j = 0; j < 2; j++)
                for (int i = 0; i < 3; i++)
                    deg[f][j][i] = f == 3 && i == 1 ? (j ? -90 : 90) : angle(&seed); /* frame 3: gimbal lock */
            n += snprintf(text + n, sizeof text - (size_t)n, "%d.5 -2 3.25 %.6f %.6f %.6f %.6f %.6f %.6f\n", f,
                          deg[f][0][0], deg[f][0][1], deg[f][0][2], deg[f][1][0], deg[f][1][1], deg[f][1][2]);
        }
        /* the values as printed (the test's own C locale prints '.') */
        ak_doc *doc = read_ok(reg, text, NULL);
        ak_clip *clip = doc->clips[0];
        ck_assert_uint_eq(clip->track_count, 2);
        ck_assert(fabs(clip->frame_rate - 25) < 1e-12);
        ck_assert(fabs(clip->duration - 0.12) < 1e-12);
        for (int j = 0; j < 2; j++) {
            const ak_channel *rot = &clip->tracks[j]->channel[AK_ROTATION];
            ck_assert_uint_eq(rot->count, 4);
            for (int f = 0; f < 4; f++) {
                mat3 want, a, b, c, got;
                char buf[32];
                double d[3];
                for (int i = 0; i < 3; i++) {
                    snprintf(buf, sizeof buf, "%.6f", deg[f][j][i]);
                    d[i] = strtod(buf, NULL);
                }
                axis_matrix(ax[0], d[0], a);
                axis_matrix(ax[1], d[1], b);
                axis_matrix(ax[2], d[2], c);
                mat_mul(a, b, want);
                mat_mul(want, c, want);
                quat_to_matrix(rot->keys[f].v, got);
                ck_assert_msg(mat_diff(want, got) < 1e-12, "order %s frame %d joint %d: off by %g", chans, f, j,
                              mat_diff(want, got));
                ck_assert(fabs(rot->keys[f].time - f * 0.04) < 1e-15);
                ck_assert_int_eq(rot->keys[f].tick, f);
            }
        }
        const ak_channel *pos = &clip->tracks[0]->channel[AK_TRANSLATION];
        ck_assert(pos->count == 4 && pos->keys[2].v[0] == 2.5 && pos->keys[2].v[1] == -2 && pos->keys[2].v[2] == 3.25);
        ck_assert_uint_eq(clip->tracks[1]->channel[AK_TRANSLATION].count, 0);

        /* untouched: byte for byte */
        size_t size;
        ak_report rep;
        unsigned char *out = write_bvh(reg, doc, NULL, &size, &rep);
        ck_assert_msg(out != NULL, "%s", rep.message);
        ck_assert(ak_test_same_bytes((const unsigned char *)text, strlen(text), out, size, chans));
        ak_buffer_free(reg, out);

        /* every key edited (the same rotation, other sign): re-encoded from
         * the quaternion, and equal within the six printed decimals */
        for (int j = 0; j < 2; j++)
            for (int f = 0; f < 4; f++)
                for (int i = 0; i < 4; i++)
                    clip->tracks[j]->channel[AK_ROTATION].keys[f].v[i] *= -1;
        out = write_bvh(reg, doc, NULL, &size, &rep);
        ck_assert_msg(out != NULL, "%s", rep.message);
        char *copy = calloc(1, size + 1);
        memcpy(copy, out, size);
        ak_doc *back = read_ok(reg, copy, NULL);
        for (int j = 0; j < 2; j++)
            for (int f = 0; f < 4; f++) {
                mat3 a, b;
                quat_to_matrix(clip->tracks[j]->channel[AK_ROTATION].keys[f].v, a);
                quat_to_matrix(back->clips[0]->tracks[j]->channel[AK_ROTATION].keys[f].v, b);
                ck_assert_msg(mat_diff(a, b) < 1e-7, "order %s: edited frame %d differs by %g", chans, f,
                              mat_diff(a, b));
            }
        /* the hierarchy is still the stored text */
        ck_assert(memcmp(copy, text, (size_t)(strstr(text, "0.5 -2") - text)) == 0);
        free(copy);
        ak_buffer_free(reg, out);
        ak_doc_free(back);
        ak_doc_free(doc);
    }
    ak_registry_free(reg);
}
END_TEST

static const char nested[] =
    "HIERARCHY\n"
    "ROOT Hips\n"
    "{\n"
    "\tOFFSET 0.00 0.00 0.00\n"
    "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    "\tJOINT Spine\n"
    "\t{\n"
    "\t\tOFFSET 0.00 5.21 0.00\n"
    "\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
    "\t\tJOINT Neck\n"
    "\t\t{\n"
    "\t\t\tOFFSET 0.00 18.65 0.00\n"
    "\t\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
    "\t\t\tEnd Site\n"
    "\t\t\t{\n"
    "\t\t\t\tOFFSET 0.00 3.87 0.00\n"
    "\t\t\t}\n"
    "\t\t}\n"
    "\t}\n"
    "\tJOINT Left Up Leg\n" /* a name with spaces */
    "\t{\n"
    "\t\tOFFSET 3.91 0.00 0.00\n"
    "\t\tCHANNELS 4 Yrotation Xposition Zposition Yposition\n" /* any count and order */
    "\t\tEnd Site\n"
    "\t\t{\n"
    "\t\t\tOFFSET 0.00 -8.00 0.00\n"
    "\t\t}\n"
    "\t}\n"
    "}\n"
    "ROOT Prop\n" /* a second root */
    "{\n"
    "\tOFFSET 10 0 0\n"
    "\tCHANNELS 1 Xrotation\n"
    "\tEnd Site\n"
    "\t{\n"
    "\t\tOFFSET 0 0 1\n"
    "\t}\n"
    "}\n"
    "MOTION\n"
    "Frames: 3\n"
    "Frame Time: 0.0333333\n"
    "8.03 35.01 88.36 -3.41 14.78 -164.35 1 2 3 4 5 6 30 1 2 3 45\n"
    "8.13\t35.21 88.36  -3.41 14.78 -164.35 1.5 2 3 4 5 6.25 31 1 2 3 -45\n"
    "\n"
    "8.23 35.41 88.36 -3.41 14.78 -164.35 1.5 2 3 4 5 6.25 32 1 2 3 90\n"
    "\n";

START_TEST(nested_joints_end_sites_and_roots)
{
    ak_registry *reg = registry();
    ak_doc *doc = read_ok(reg, nested, NULL);
    const ak_skeleton *s = &doc->skeleton;
    ck_assert_uint_eq(s->bone_count, 5);
    static const char *const names[] = { "Hips", "Spine", "Neck", "Left Up Leg", "Prop" };
    static const int parents[] = { -1, 0, 1, 0, -1 };
    for (int i = 0; i < 5; i++) {
        ck_assert_str_eq(s->bones[i].name, names[i]);
        ck_assert_int_eq(s->bones[i].parent, parents[i]);
        ck_assert(s->bones[i].rotation[3] == 1);
    }
    ck_assert(s->bones[2].translation[1] == 18.65 && s->bones[3].translation[0] == 3.91 &&
              s->bones[4].translation[0] == 10);
    ck_assert_str_eq((const char *)ak_prop_get(&s->bones[2].props, BVH_P_END_SITE)->data, "0 3.87 0");
    ck_assert_ptr_null(ak_prop_get(&s->bones[1].props, BVH_P_END_SITE));
    ck_assert_str_eq((const char *)ak_prop_get(&s->bones[3].props, BVH_P_CHANNELS)->data,
                     "Yrotation Xposition Zposition Yposition");
    ak_clip *clip = doc->clips[0];
    ck_assert_str_eq(clip->name, "take");
    ck_assert_uint_eq(clip->track_count, 5);
    /* Left Up Leg frame 1: Yrotation 31, position (1, 3, 2): X, Z, Y as listed */
    const ak_track *leg = clip->tracks[3];
    ck_assert_int_eq(leg->skeleton_bone, 3);
    ck_assert(leg->channel[AK_TRANSLATION].keys[1].v[0] == 1 && leg->channel[AK_TRANSLATION].keys[1].v[1] == 3 &&
              leg->channel[AK_TRANSLATION].keys[1].v[2] == 2);
    const double *q = leg->channel[AK_ROTATION].keys[1].v;
    ck_assert(fabs(q[1] - sin(31 * M_PI / 360)) < 1e-15 && fabs(q[3] - cos(31 * M_PI / 360)) < 1e-15);
    /* Prop: one X rotation, 90 degrees in frame 2 */
    q = clip->tracks[4]->channel[AK_ROTATION].keys[2].v;
    ck_assert(fabs(q[0] - sqrt(0.5)) < 1e-15 && fabs(q[3] - sqrt(0.5)) < 1e-15);
    ck_assert_uint_eq(clip->tracks[4]->channel[AK_TRANSLATION].count, 0);

    size_t size;
    ak_report rep;
    unsigned char *out = write_bvh(reg, doc, NULL, &size, &rep);
    ck_assert(ak_test_same_bytes((const unsigned char *)nested, sizeof nested - 1, out, size, "nested"));
    ak_buffer_free(reg, out);

    /* Editing one key changes only that joint's values in that frame. */
    leg->channel[AK_TRANSLATION].keys[1].v[2] = 2.5;
    out = write_bvh(reg, doc, NULL, &size, &rep);
    ck_assert_ptr_nonnull(out);
    /* the values in the joint's channel order: Yrotation Xposition Zposition Yposition */
    const char *want_line = "8.13\t35.21 88.36  -3.41 14.78 -164.35 1.5 2 3 4 5 6.25 31.000000 1.000000 "
                            "2.500000 3.000000 -45\n";
    char *copy = calloc(1, size + 1);
    memcpy(copy, out, size);
    ck_assert_msg(strstr(copy, want_line) != NULL, "%s", copy);
    ck_assert_uint_eq(size, sizeof nested - 1 + strlen(want_line) - strlen("8.13\t35.21 88.36  -3.41 14.78 "
                      "-164.35 1.5 2 3 4 5 6.25 31 1 2 3 -45\n"));
    free(copy);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* The same file with CR LF, and with lone CRs: the same document. */
static char *with_line_ends(const char *text, const char *eol)
{
    char *out = malloc(strlen(text) * 2 + 1), *o = out;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            strcpy(o, eol);
            o += strlen(eol);
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

START_TEST(crlf_and_cr_line_ends)
{
    ak_registry *reg = registry();
    ak_doc *lf = read_ok(reg, nested, NULL);
    const char *eols[] = { "\r\n", "\r" };
    for (int e = 0; e < 2; e++) {
        char *text = with_line_ends(nested, eols[e]);
        ak_doc *doc = read_ok(reg, text, NULL);
        ck_assert_uint_eq(doc->skeleton.bone_count, 5);
        ck_assert_str_eq(doc->skeleton.bones[3].name, "Left Up Leg");
        for (size_t t = 0; t < 5; t++)
            for (int k = 0; k < 2; k++) {
                const ak_channel *a = &lf->clips[0]->tracks[t]->channel[k], *b = &doc->clips[0]->tracks[t]->channel[k];
                ck_assert_uint_eq(a->count, b->count);
                for (size_t i = 0; i < a->count; i++)
                    ck_assert(memcmp(a->keys[i].v, b->keys[i].v, sizeof a->keys[i].v) == 0);
            }
        size_t size;
        ak_report rep;
        unsigned char *out = write_bvh(reg, doc, NULL, &size, &rep);
        ck_assert(ak_test_same_bytes((const unsigned char *)text, strlen(text), out, size, eols[e]));
        ak_buffer_free(reg, out);
        /* a changed skeleton regenerates the hierarchy with the file's line end */
        doc->skeleton.bones[1].translation[1] = 6;
        out = write_bvh(reg, doc, NULL, &size, &rep);
        char *copy = calloc(1, size + 1);
        memcpy(copy, out, size);
        ck_assert_ptr_nonnull(strstr(copy, e ? "\t\tOFFSET 0.000000 6.000000 0.000000\r\t\tCHANNELS 3"
                                             : "\t\tOFFSET 0.000000 6.000000 0.000000\r\n\t\tCHANNELS 3"));
        ak_doc *back = read_ok(reg, copy, NULL);
        ck_assert(back->skeleton.bones[1].translation[1] == 6);
        ck_assert_str_eq(back->skeleton.bones[3].name, "Left_Up_Leg");
        ak_doc_free(back);
        free(copy);
        ak_buffer_free(reg, out);
        ak_doc_free(doc);
        free(text);
    }
    ak_doc_free(lf);
    ak_registry_free(reg);
}
END_TEST

START_TEST(scale_parameter)
{
    ak_registry *reg = registry();
    const char *cm[] = { "scale=0.01", NULL };
    ak_doc *doc = read_ok(reg, nested, cm);
    ck_assert(fabs(doc->skeleton.bones[2].translation[1] - 0.1865) < 1e-15);
    ck_assert(fabs(doc->clips[0]->tracks[0]->channel[AK_TRANSLATION].keys[0].v[2] - 0.8836) < 1e-15);
    const char *end_site = (const char *)ak_prop_get(&doc->skeleton.bones[2].props, BVH_P_END_SITE)->data;
    ck_assert(strtod(end_site + 2, NULL) == 3.87 * 0.01 && end_site[0] == '0');
    /* written back in the same units: the stored text */
    size_t size;
    ak_report rep;
    unsigned char *out = write_bvh(reg, doc, cm, &size, &rep);
    ck_assert(ak_test_same_bytes((const unsigned char *)nested, sizeof nested - 1, out, size, "scaled"));
    ak_buffer_free(reg, out);
    /* written in metres: every length generated, 1/100 */
    out = write_bvh(reg, doc, NULL, &size, &rep);
    char *copy = calloc(1, size + 1);
    memcpy(copy, out, size);
    ck_assert_ptr_nonnull(strstr(copy, "OFFSET 0.000000 0.186500 0.000000"));
    ck_assert_ptr_nonnull(strstr(copy, "\n0.080300 0.350100 0.883600 "));
    free(copy);
    ak_buffer_free(reg, out);
    const char *bad[] = { "scale=0", NULL };
    ak_doc *none;
    ck_assert_int_eq(read_text(reg, nested, bad, &none, &rep), AK_E_USAGE);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* ---- bvh -> ifp -> bvh: a 3-bone walk ---- */

static char *walk_text(void)
{
    static char text[8192];
    int n = snprintf(text, sizeof text,
                     "HIERARCHY\nROOT pelvis\n{\n\tOFFSET 0 0 1\n\tCHANNELS 6 Xposition Yposition Zposition "
                     "Zrotation Xrotation Yrotation\n\tJOINT thigh\n\t{\n\t\tOFFSET 0.1 0 -0.1\n\t\tCHANNELS 3 "
                     "Zrotation Xrotation Yrotation\n\t\tJOINT shin\n\t\t{\n\t\t\tOFFSET 0 0 -0.45\n\t\t\t"
                     "CHANNELS 3 Zrotation Xrotation Yrotation\n\t\t\tEnd Site\n\t\t\t{\n\t\t\t\tOFFSET 0 0 -0.45\n"
                     "\t\t\t}\n\t\t}\n\t}\n}\nMOTION\nFrames: 9\nFrame Time: 0.125\n");
    for (int f = 0; f < 9; f++) {
        double ph = f * M_PI / 4;
        n += snprintf(text + n, sizeof text - (size_t)n, "0 %.6f 1 %.6f 0 0 0 %.6f 0 0 %.6f 0\n", f * 0.15,
                      5 * sin(ph), 30 * sin(ph), 20 * (1 - cos(ph)));
    }
    return text;
}

START_TEST(walk_to_ifp_and_back)
{
    ak_registry *reg = registry();
    const char *text = walk_text();
    ak_doc *walk = read_ok(reg, text, NULL);
    ak_options o = { sizeof o, "ifp", "walk.ifp", NULL, 0, 0 };
    const char *anpk[] = { "variant=ANPK", NULL };
    o.params = anpk; /* float keys */
    unsigned char *ifp;
    size_t ifp_size;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_write(reg, walk, &o, &ifp, &ifp_size, &rep), AK_OK);
    ak_doc *from_ifp = ak_test_read(reg, ifp, ifp_size, "walk.ifp");
    ck_assert_str_eq(from_ifp->format, "ifp");
    ck_assert_uint_eq(from_ifp->skeleton.bone_count, 0);
    ck_assert_uint_eq(from_ifp->clips[0]->track_count, 3);
    /* An ifp has no skeleton: writing BVH says so. */
    size_t size;
    ck_assert_ptr_null(write_bvh(reg, from_ifp, NULL, &size, &rep));
    ck_assert_int_eq(rep.status, AK_E_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(rep.message, "BVH needs a skeleton"));
    /* With the rig's skeleton (as a host would take it from the model) it writes. */
    for (size_t b = 0; b < walk->skeleton.bone_count; b++) {
        const ak_bone *src = &walk->skeleton.bones[b];
        ak_bone *dst = ak_bone_add(from_ifp, src->name);
        dst->parent = src->parent;
        memcpy(dst->translation, src->translation, sizeof dst->translation);
    }
    /* ifp stores no frame rate: without fps=8 it would be sampled at 30 */
    const char *fps[] = { "fps=8", NULL };
    unsigned char *out = write_bvh(reg, from_ifp, fps, &size, &rep);
    ck_assert_msg(out != NULL, "%s", rep.message);
    char *copy = calloc(1, size + 1);
    memcpy(copy, out, size);
    ak_doc *back = read_ok(reg, copy, NULL);
    ck_assert_uint_eq(back->clips[0]->track_count, 3);
    ck_assert(fabs(back->clips[0]->duration - 1.0) < 1e-9);
    for (size_t t = 0; t < 3; t++) {
        const ak_channel *a = &walk->clips[0]->tracks[t]->channel[AK_ROTATION];
        const ak_channel *b = &back->clips[0]->tracks[t]->channel[AK_ROTATION];
        ck_assert_str_eq(walk->clips[0]->tracks[t]->bone, back->clips[0]->tracks[t]->bone);
        ck_assert_uint_eq(a->count, 9);
        ck_assert_uint_eq(b->count, 9);
        for (size_t k = 0; k < 9; k++) {
            mat3 ma, mb;
            quat_to_matrix(a->keys[k].v, ma);
            quat_to_matrix(b->keys[k].v, mb);
            /* float32 in the ifp, six decimals in the text */
            ck_assert_msg(mat_diff(ma, mb) < 1e-6, "bone %zu frame %zu: %g", t, k, mat_diff(ma, mb));
        }
    }
    const ak_channel *pa = &walk->clips[0]->tracks[0]->channel[AK_TRANSLATION];
    const ak_channel *pb = &back->clips[0]->tracks[0]->channel[AK_TRANSLATION];
    ck_assert_uint_eq(pb->count, 9);
    for (size_t k = 0; k < 9; k++)
        for (int i = 0; i < 3; i++)
            ck_assert(fabs(pa->keys[k].v[i] - pb->keys[k].v[i]) < 1e-6);
    ak_doc_free(back);
    free(copy);
    ak_buffer_free(reg, out);
    ak_buffer_free(reg, ifp);
    ak_doc_free(from_ifp);
    ak_doc_free(walk);
    ak_registry_free(reg);
}
END_TEST

/* ---- bad input ---- */

START_TEST(bad_input_is_reported_with_line_and_column)
{
    ak_registry *reg = registry();
    static const struct { const char *text, *message; } bad[] = {
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0\n}\n", "take.bvh:4:12: bvh: error: expected an OFFSET value (a number), found the end of the line" },
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n\tCHANNELS 2 Xrotation Wrotation\n}\n",
          "take.bvh:5:23: bvh: error: unknown channel 'Wrotation'" },
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n\tCHANNELS 99 Xrotation\n}\n",
          "take.bvh:5:11: bvh: error: the channel count is not a whole number from 0 to 16" },
        { "HIERARCHY\nJOINT a\n", "take.bvh:2:1: bvh: error: JOINT outside a ROOT block" },
        { "HIERARCHY\nROOT a\n{\n\tCHANNELS 0\n\tJOINT b\n", "error: joint 'a' has no OFFSET" },
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\nMOTION\n", "MOTION inside a joint: a '}' is missing" },
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n}\n", "the input ends inside the hierarchy" },
        { "HIERARCHY\nMOTION\n", "MOTION before any ROOT" },
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n\tCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 2\nFrame Time: 0\n1\n2\n",
          "take.bvh:9:13: bvh: error: the frame time is not a positive number of seconds" },
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n\tCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1.5\n",
          "the frame count is not a whole number" },
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n\tCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1000000\nFrame Time: 1\n1\n",
          "Frames says 1000000 frames of 1 values, more than the" },
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n\tCHANNELS 2 Xrotation Yrotation\n}\nMOTION\nFrames: 2\nFrame Time: 1\n1 2\n3\n",
          "take.bvh:11:1: bvh: error: frame 1 has 1 values, the hierarchy has 2 channels" },
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n\tCHANNELS 2 Xrotation Yrotation\n}\nMOTION\nFrames: 2\nFrame Time: 1\n1 2\n3 4 5\n",
          "take.bvh:11:5: bvh: error: frame 1 has more values than the 2 channels" },
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n\tCHANNELS 2 Xrotation Yrotation\n}\nMOTION\nFrames: 2\nFrame Time: 1\n1 2\n3 4,5\n",
          "take.bvh:11:3: bvh: error: frame 1: Yrotation of joint 'a' is not a number: '4,5'" },
        { "HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n\tCHANNELS 2 Xrotation Yrotation\n}\nMOTION\nFrames: 3\nFrame Time: 1\n10 20\n30 40\n",
          "take.bvh:12:1: bvh: error: the file ends after 2 of its 3 frames" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ak_doc *doc;
        ak_report rep;
        ak_status st = read_text(reg, bad[i].text, NULL, &doc, &rep);
        ck_assert_msg(st == AK_E_DATA, "case %zu: status %d (%s)", i, (int)st, rep.message);
        ck_assert_ptr_null(doc);
        ck_assert_msg(strstr(rep.message, bad[i].message) != NULL, "case %zu: got \"%s\"", i, rep.message);
    }
    ak_registry_free(reg);
}
END_TEST

typedef struct damage {
    ak_registry *reg;
    int cut;     /* 1: truncated, must be refused with a message; 0: flipped */
    unsigned ok; /* reads that gave a document */
} damage;

/* A damaged file is refused with a message, or read into a document that
 * is written back to the same bytes. */
static void read_damaged(const unsigned char *b, size_t len, size_t where, void *user)
{
    (void)where;
    damage *d = user;
    int cut = d->cut;
    ak_options o = { sizeof o, "bvh", cut ? "cut.bvh" : "flip.bvh", NULL, 0, 0 };
    ak_doc *doc = NULL;
    ak_report rep = { 0 };
    if (ak_read(d->reg, b, len, &o, &doc, &rep) == AK_OK) {
        d->ok++;
        size_t size;
        ak_report wr;
        unsigned char *out = write_bvh(d->reg, doc, NULL, &size, &wr);
        ck_assert(out && ak_test_same_bytes(b, len, out, size, cut ? "truncated rewrite" : "flipped rewrite"));
        ak_buffer_free(d->reg, out);
    } else if (cut) {
        ck_assert_int_ne(rep.status, AK_OK);
        ck_assert(rep.message[0] != '\0');
    }
    ak_doc_free(doc);
}

START_TEST(every_truncation_and_flip_is_safe)
{
    ak_registry *reg = registry();
    size_t n = sizeof nested - 1;
    damage d = { reg, 1, 0 };
    ak_test_cuts((const unsigned char *)nested, n, n, 1, read_damaged, &d);
    read_damaged((const unsigned char *)nested, n, n, &d); /* and the whole file */
    /* Cut inside the last frame's values, or after them: still whole frames. */
    ck_assert_uint_ge(d.ok, 3);
    static const uint32_t flips[] = { 0, 0xff, '{', '}', '\n', ' ', '-', '.', 'e', '9' };
    d.cut = 0;
    ak_test_pokes((const unsigned char *)nested, n, n, 1, flips, sizeof flips / sizeof flips[0], 1, read_damaged, &d);
    ak_registry_free(reg);
}
END_TEST

START_TEST(written_from_a_hand_built_document)
{
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    ak_bone *root = ak_bone_add(doc, "root");
    root->translation[2] = 1;
    ak_bone *tip = ak_bone_add(doc, "tip");
    tip->parent = 0;
    tip->translation[0] = 0.5;
    ak_clip *clip = ak_clip_add(doc, "turn");
    clip->frame_rate = 2;
    clip->duration = 1;
    ak_track *t = ak_track_add(clip, "tip");
    ak_key *k = ak_key_add(t, AK_ROTATION);
    k = ak_key_add(t, AK_ROTATION);
    k->time = 1;
    k->v[2] = sin(M_PI / 4);
    k->v[3] = cos(M_PI / 4); /* 90 degrees about Z at 1 s */
    size_t size;
    ak_report rep;
    unsigned char *out = write_bvh(reg, doc, NULL, &size, &rep);
    ck_assert_msg(out != NULL, "%s", rep.message);
    const char *want =
        "HIERARCHY\nROOT root\n{\n\tOFFSET 0.000000 0.000000 1.000000\n\tCHANNELS 6 Xposition Yposition Zposition "
        "Zrotation Xrotation Yrotation\n\tJOINT tip\n\t{\n\t\tOFFSET 0.500000 0.000000 0.000000\n\t\tCHANNELS 3 "
        "Zrotation Xrotation Yrotation\n\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0.000000 0.000000 0.000000\n\t\t}\n\t}\n}\n"
        "MOTION\nFrames: 3\nFrame Time: 0.5\n"
        "0.000000 0.000000 1.000000 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
        "0.000000 0.000000 1.000000 0.000000 0.000000 0.000000 45.000000 0.000000 0.000000\n"
        "0.000000 0.000000 1.000000 0.000000 0.000000 0.000000 90.000000 0.000000 0.000000\n";
    ck_assert(ak_test_same_bytes((const unsigned char *)want, strlen(want), out, size, "hand-built"));
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

START_TEST(names_are_made_to_fit)
{
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    ak_bone_add(doc, " Pelvis ");
    ak_bone *foot = ak_bone_add(doc, "L Foot{1}");
    foot->parent = 0;
    ak_bone *none = ak_bone_add(doc, "");
    none->parent = 1;
    ak_clip_add(doc, "still");
    size_t size;
    ak_report rep;
    unsigned char *out = write_bvh(reg, doc, NULL, &size, &rep);
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(rep.warnings, 2); /* no frame rate; names changed */
    char *copy = calloc(1, size + 1);
    memcpy(copy, out, size);
    ck_assert_ptr_nonnull(strstr(copy, "ROOT Pelvis\n"));
    ck_assert_ptr_nonnull(strstr(copy, "\tJOINT L_Foot_1_\n"));
    ck_assert_ptr_nonnull(strstr(copy, "\t\tJOINT bone2\n"));
    ak_doc *back = read_ok(reg, copy, NULL);
    ck_assert_uint_eq(back->skeleton.bone_count, 3);
    ck_assert_int_eq(back->skeleton.bones[2].parent, 1);
    ak_doc_free(back);
    free(copy);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* BVH has no NaN or infinity (its reader refuses them): a document holding
 * one, in an offset or in a key, is refused with the bone named. Found by
 * fuzz_probe_all: a glTF whose float data held NaN wrote "nan". */
static void assert_refused(ak_registry *reg, const ak_doc *doc, const char *const *params, const char *part1,
                           const char *part2)
{
    size_t size;
    ak_report rep;
    unsigned char *out = write_bvh(reg, doc, params, &size, &rep);
    ck_assert_msg(out == NULL, "written, but should be refused: %s %s", part1, part2);
    ck_assert_int_eq(rep.status, AK_E_DATA);
    ck_assert_msg(strstr(rep.message, part1) && strstr(rep.message, part2), "message: %s", rep.message);
}

START_TEST(values_that_are_not_finite_are_refused)
{
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    ak_bone_add(doc, "root");
    ak_bone *tip = ak_bone_add(doc, "tip");
    tip->parent = 0;
    ak_clip *clip = ak_clip_add(doc, "still");
    clip->frame_rate = 2;
    clip->duration = 1;
    ak_track *t = ak_track_add(clip, "tip");
    ak_key *rot = ak_key_add(t, AK_ROTATION);
    ak_track *rt = ak_track_add(clip, "root");
    ak_key *pos = ak_key_add(rt, AK_TRANSLATION);
    size_t size;
    ak_report rep;
    unsigned char *out = write_bvh(reg, doc, NULL, &size, &rep);
    ck_assert_msg(out != NULL, "%s", rep.message);
    ak_buffer_free(reg, out);

    tip->translation[1] = NAN;
    assert_refused(reg, doc, NULL, "'tip'", "offset is not a finite number");
    tip->translation[1] = 1e300;
    static const char *const tiny_scale[] = { "scale=1e-10", NULL }; /* 1e310 overflows */
    assert_refused(reg, doc, tiny_scale, "'tip'", "offset is not a finite number");
    tip->translation[1] = 0;
    pos->v[2] = INFINITY;
    assert_refused(reg, doc, NULL, "'root': frame 0", "Zposition is not a finite number");
    pos->v[2] = 0;
    rot->v[0] = NAN; /* a rotation that is not finite is written as none (ak_quat_normalize) */
    out = write_bvh(reg, doc, NULL, &size, &rep);
    ck_assert_msg(out != NULL, "%s", rep.message);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bvh");
    TCase *tc = tcase_create("bvh");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_rotation_order_matches_matrices);
    tcase_add_test(tc, nested_joints_end_sites_and_roots);
    tcase_add_test(tc, crlf_and_cr_line_ends);
    tcase_add_test(tc, scale_parameter);
    tcase_add_test(tc, walk_to_ifp_and_back);
    tcase_add_test(tc, bad_input_is_reported_with_line_and_column);
    tcase_add_test(tc, every_truncation_and_flip_is_safe);
    tcase_add_test(tc, written_from_a_hand_built_document);
    tcase_add_test(tc, names_are_made_to_fit);
    tcase_add_test(tc, values_that_are_not_finite_are_refused);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
