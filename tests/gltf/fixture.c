/* fixture.c - helper of the three.js test (three.sh), linked with every
 * codec:
 *
 *   gltf-fixture sample IN OUT.glb
 *       reads IN, writes it as OUT.glb, and prints per clip and channel
 *       the values ak_channel_sample gives at key times, between keys and
 *       past both ends (JSON on stdout). Channels whose times glTF cannot
 *       hold as they are (negative, not increasing) are left out, and
 *       counted in "skipped".
 *   gltf-fixture standing OUT.glb
 *       writes a hand-made GTA-like ped (Z up, metres: root, pelvis 1 m
 *       above the ground, spine, head; thighs, calves, feet) with a short
 *       walk-like clip, for the upright test.
 *   gltf-fixture skeleton IN MODEL OUT.glb [CLIP...]
 *       reads IN, attaches MODEL's skeleton (a .dff), keeps only the named
 *       clips (all without), writes OUT.glb (as `convert --skeleton`).
 *   gltf-fixture pose IN CLIP FPS FRAMES [MODEL]
 *       the local rotation and translation of every bone of CLIP at frames
 *       0..FRAMES-1 (time = frame / FPS) as ak_channel_sample gives them
 *       (CLIP "#0": the first clip),
 *       JSON {"bone": [[frame, qx, qy, qz, qw, tx, ty, tz, on_key], ...]}
 *       (on_key: the frame falls on a rotation key); with MODEL (a
 *       .dff) every skeleton bone, channels without keys at the rest pose,
 *       else the tracks, null where a channel has no keys.
 *   gltf-fixture handmade OUT
 *       writes handmade.h's document (.glb or .gltf by OUT's extension),
 *       for the validator test.
 */
#include "../../plugins/ani/ani.h"
#include "../../plugins/anm/anm.h"
#include "../../plugins/dff/dff.h"
#include "../../plugins/gltf/gltf.h"
#include "../../plugins/ifp/ifp.h"
#include "../../plugins/mab/mab.h"
#include "handmade.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ak_registry *registry(void)
{
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS, NULL, NULL, NULL, NULL, NULL };
    ak_registry *reg = NULL;
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    if (ak_registry_open(&cfg, &reg, &rep) != AK_OK)
        return NULL;
    const ak_codec *codecs[] = { ifp_codec(), ani_codec(), anm_codec(), mab_codec(), dff_codec(), gltf_codec() };
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        ak_registry_add_codec(reg, codecs[i], 0, &rep);
    return reg;
}

static int write_glb(const ak_registry *reg, const ak_doc *doc, const char *out)
{
    ak_options o = { sizeof o, "gltf", out, NULL, 0, 0 };
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    if (ak_write_file(reg, doc, out, &o, AK_WRITE_OVERWRITE, &rep) != AK_OK) {
        fprintf(stderr, "%s\n", rep.message);
        return 1;
    }
    return 0;
}

static int valid_times(const ak_channel *ch)
{
    for (size_t k = 0; k < ch->count; k++)
        if (!(ch->keys[k].time >= 0) || (k && !(ch->keys[k].time > ch->keys[k - 1].time)))
            return 0;
    return 1;
}

static void print_sample(const ak_channel *ch, ak_channel_kind kind, double t, int *first)
{
    double v[4];
    ak_channel_sample(ch, kind, t, v);
    printf("%s[%.9g", *first ? "" : ",", t);
    for (int c = 0; c < (kind == AK_ROTATION ? 4 : 3); c++)
        printf(",%.9g", v[c]);
    printf("]");
    *first = 0;
}

/* Key times, midpoints and both ends, at most about 24 per channel. */
static void print_channel(const ak_channel *ch, ak_channel_kind kind, double duration)
{
    int first = 1;
    size_t step = ch->count / 10 + 1;
    printf("\"samples\":[");
    print_sample(ch, kind, 0, &first);
    for (size_t k = 0; k < ch->count; k += step) {
        print_sample(ch, kind, ch->keys[k].time, &first);
        if (k + 1 < ch->count)
            print_sample(ch, kind, 0.5 * (ch->keys[k].time + ch->keys[k + 1].time), &first);
    }
    print_sample(ch, kind, ch->keys[ch->count - 1].time, &first);
    print_sample(ch, kind, fmax(duration, ch->keys[ch->count - 1].time) + 0.25, &first);
    printf("]");
}

static int sample(const char *in, const char *out)
{
    ak_registry *reg = registry();
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, NULL, in, NULL, 0, 0 };
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    if (!reg || ak_read_file(reg, in, &o, &doc, &rep) != AK_OK) {
        fprintf(stderr, "%s\n", rep.message);
        return 1;
    }
    if (write_glb(reg, doc, out))
        return 1;
    size_t skipped = 0;
    printf("{\"clips\":[");
    for (size_t c = 0; c < doc->clip_count; c++) {
        const ak_clip *clip = doc->clips[c];
        printf("%s{\"clip\":%zu,\"channels\":[", c ? "," : "", c);
        int first = 1;
        for (size_t t = 0; t < clip->track_count; t++)
            for (int kind = 0; kind < AK_VISIBILITY; kind++) {
                const ak_channel *ch = &clip->tracks[t]->channel[kind];
                if (!ch->count)
                    continue;
                if (!valid_times(ch)) {
                    skipped++;
                    continue;
                }
                printf("%s{\"track\":%zu,\"kind\":\"%s\",", first ? "" : ",", t, ak_channel_name((ak_channel_kind)kind));
                print_channel(ch, (ak_channel_kind)kind, clip->duration);
                printf("}");
                first = 0;
            }
        printf("]}");
    }
    printf("],\"skipped\":%zu}\n", skipped);
    ak_doc_free(doc);
    ak_registry_free(reg);
    return 0;
}

static void set_rest(ak_bone *b, int32_t parent, double x, double y, double z)
{
    b->parent = parent;
    b->translation[0] = x;
    b->translation[1] = y;
    b->translation[2] = z;
}

static void rot_key(ak_track *t, double time, double angle_x)
{
    ak_key *k = ak_key_add(t, AK_ROTATION);
    k->time = time;
    k->v[0] = sin(angle_x / 2);
    k->v[3] = cos(angle_x / 2);
}

/* GTA's axes: Z up, the ped faces -Y; bones offset along their parents. */
static int standing(const char *out)
{
    static const struct { const char *name; int parent; double x, y, z; } bones[] = {
        { "Root", -1, 0, 0, 0 },          { "Pelvis", 0, 0, 0, 1.0 },      { "Spine", 1, 0, 0, 0.25 },
        { "Head", 2, 0, 0, 0.45 },        { "L Thigh", 1, 0.1, 0, -0.05 }, { "L Calf", 4, 0, 0, -0.45 },
        { "L Foot", 5, 0, 0, -0.45 },     { "R Thigh", 1, -0.1, 0, -0.05 }, { "R Calf", 7, 0, 0, -0.45 },
        { "R Foot", 8, 0, 0, -0.45 },
    };
    ak_registry *reg = registry();
    ak_doc *doc = ak_doc_new();
    if (!reg || !doc || ak_doc_set_format(doc, "ifp", "ANP3") != AK_OK)
        return 1;
    for (size_t i = 0; i < sizeof bones / sizeof bones[0]; i++)
        set_rest(ak_bone_add(doc, bones[i].name), bones[i].parent, bones[i].x, bones[i].y, bones[i].z);
    ak_clip *clip = ak_clip_add(doc, "walk");
    clip->duration = 1.0;
    const char *swing[] = { "L Thigh", "R Thigh", "L Calf", "R Calf" };
    for (size_t i = 0; i < 4; i++) {
        ak_track *t = ak_track_add(clip, swing[i]);
        for (int k = 0; k <= 4; k++)
            rot_key(t, k * 0.25, (i % 2 ? -0.5 : 0.5) * sin(k * M_PI / 2) * (i < 2 ? 1 : 0.6));
    }
    ak_track *pelvis = ak_track_add(clip, "Pelvis");
    for (int k = 0; k <= 4; k++) {
        ak_key *key = ak_key_add(pelvis, AK_TRANSLATION);
        key->time = k * 0.25;
        key->v[1] = -0.3 * k; /* walking forward (-Y) */
        key->v[2] = 1.0 - 0.03 * (k % 2);
    }
    ak_doc_match_skeleton(doc);
    int rc = write_glb(reg, doc, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
    return rc;
}

static ak_doc *read_doc(const ak_registry *reg, const char *path)
{
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, NULL, path, NULL, 0, 0 };
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    if (ak_read_file(reg, path, &o, &doc, &rep) != AK_OK)
        fprintf(stderr, "%s\n", rep.message);
    return doc;
}

static int with_skeleton(const char *in, const char *model, const char *out, char **clips, int nclips)
{
    ak_registry *reg = registry();
    ak_doc *doc = reg ? read_doc(reg, in) : NULL, *skel = reg ? read_doc(reg, model) : NULL;
    if (!doc || !skel || ak_doc_attach_skeleton(doc, skel) != AK_OK)
        return 1;
    for (size_t i = doc->clip_count; nclips && i-- > 0;) {
        int keep = 0;
        for (int k = 0; k < nclips; k++)
            keep |= strcmp(doc->clips[i]->name, clips[k]) == 0;
        if (!keep)
            ak_clip_remove(doc, i);
    }
    int rc = write_glb(reg, doc, out);
    ak_doc_free(doc);
    ak_doc_free(skel);
    ak_registry_free(reg);
    return rc;
}

static void print_value(const ak_channel *ch, ak_channel_kind kind, const double *rest, double t, int n)
{
    double v[4];
    if (ch && ch->count)
        ak_channel_sample(ch, kind, t, v);
    else if (rest)
        memcpy(v, rest, (size_t)n * sizeof *v);
    for (int c = 0; c < n; c++) {
        if (ch && ch->count ? 0 : !rest)
            printf(",null");
        else
            printf(",%.9g", v[c]);
    }
}

/* 1 when `t` is (within 1e-6 s) a key time of the channel or the channel
 * has at most one key: there every interpolation gives the key itself. */
static int on_key(const ak_channel *ch, double t)
{
    if (!ch || ch->count < 2)
        return 1;
    for (size_t k = 0; k < ch->count; k++)
        if (fabs(ch->keys[k].time - t) < 1e-6)
            return 1;
    return 0;
}

static int pose(const char *in, const char *clip_name, double fps, int frames, const char *model)
{
    ak_registry *reg = registry();
    ak_doc *doc = reg ? read_doc(reg, in) : NULL, *skel = model && reg ? read_doc(reg, model) : NULL;
    if (!doc || (model && (!skel || ak_doc_attach_skeleton(doc, skel) != AK_OK)))
        return 1;
    const ak_clip *clip = ak_doc_find_clip(doc, clip_name);
    if (!clip && strcmp(clip_name, "#0") == 0 && doc->clip_count)
        clip = doc->clips[0];
    if (!clip) {
        fprintf(stderr, "no clip %s\n", clip_name);
        return 1;
    }
    size_t bones = model ? doc->skeleton.bone_count : clip->track_count;
    printf("{");
    int first = 1;
    for (size_t b = 0; b < bones; b++) {
        const ak_bone *bone = model ? &doc->skeleton.bones[b] : NULL;
        const ak_track *track = NULL;
        for (size_t t = 0; t < clip->track_count; t++)
            if (model ? clip->tracks[t]->skeleton_bone == (int32_t)b : t == b)
                track = clip->tracks[t];
        const char *name = bone ? bone->name : track->bone;
        if (!*name)
            continue;
        printf("%s\"%s\":[", first ? "" : ",", name);
        first = 0;
        for (int f = 0; f < frames; f++) {
            printf(f ? ",[%d" : "[%d", f);
            print_value(track ? &track->channel[AK_ROTATION] : NULL, AK_ROTATION, bone ? bone->rotation : NULL, f / fps, 4);
            print_value(track ? &track->channel[AK_TRANSLATION] : NULL, AK_TRANSLATION, bone ? bone->translation : NULL,
                        f / fps, 3);
            printf(",%d]", on_key(track ? &track->channel[AK_ROTATION] : NULL, f / fps));
        }
        printf("]");
    }
    printf("}\n");
    ak_doc_free(doc);
    ak_doc_free(skel);
    ak_registry_free(reg);
    return 0;
}

static int handmade(const char *out)
{
    ak_registry *reg = registry();
    ak_doc *doc = handmade_doc();
    ak_options o = { sizeof o, "gltf", out, NULL, 0, 0 };
    ak_report rep;
    memset(&rep, 0, sizeof rep);
    int rc = !reg || !doc || ak_write_file(reg, doc, out, &o, AK_WRITE_OVERWRITE, &rep) != AK_OK;
    if (rc)
        fprintf(stderr, "%s\n", rep.message);
    ak_doc_free(doc);
    ak_registry_free(reg);
    return rc;
}

int main(int argc, char **argv)
{
    if ((argc == 6 || argc == 7) && strcmp(argv[1], "pose") == 0)
        return pose(argv[2], argv[3], atof(argv[4]), atoi(argv[5]), argc == 7 ? argv[6] : NULL);
    if (argc >= 5 && strcmp(argv[1], "skeleton") == 0)
        return with_skeleton(argv[2], argv[3], argv[4], argv + 5, argc - 5);
    if (argc == 3 && strcmp(argv[1], "handmade") == 0)
        return handmade(argv[2]);
    if (argc == 4 && strcmp(argv[1], "sample") == 0)
        return sample(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "standing") == 0)
        return standing(argv[2]);
    fprintf(stderr, "usage: gltf-fixture sample IN OUT.glb | standing OUT.glb | skeleton IN MODEL OUT.glb [CLIP...] | pose IN CLIP FPS FRAMES [MODEL] | handmade OUT\n");
    return 64;
}
