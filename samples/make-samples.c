/*
 * make-samples.c - writes the sample files the quick start uses: a small
 * hand-made animation ("wave": a three-bone arm waving for one second),
 * built with the public API and written by the ifp, ani and anm plugins.
 * No game data is involved.
 *
 *     make-samples DIR     writes DIR/wave.ifp, DIR/wave.ani, DIR/wave.anm
 */
#include <animkit/plugin.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

const ak_codec *ifp_codec(void);
const ak_codec *ani_codec(void);
const ak_codec *anm_codec(void);

#define FRAMES 31
#define PI 3.14159265358979323846

static void axis_angle(ak_key *k, int axis, double degrees)
{
    double half = degrees * PI / 360.0;
    k->v[0] = k->v[1] = k->v[2] = 0;
    k->v[axis] = sin(half);
    k->v[3] = cos(half);
}

static ak_track *bone(ak_clip *clip, const char *name, int id)
{
    ak_track *t = ak_track_add(clip, name);
    t->has_bone_id = 1;
    t->bone_id = id;
    return t;
}

static ak_doc *make_wave(void)
{
    ak_doc *doc = ak_doc_new();
    ak_clip *clip = ak_clip_add(doc, "wave");
    clip->duration = 1.0;
    ak_track *root = bone(clip, "Root", 0);
    ak_track *upper = bone(clip, "R UpperArm", 22);
    ak_track *fore = bone(clip, "R ForeArm", 23);
    for (int f = 0; f < FRAMES; f++) {
        double t = f / 30.0, phase = 2 * PI * t;
        ak_key *k = ak_key_add(root, AK_ROTATION);
        k->time = t;
        k = ak_key_add(root, AK_TRANSLATION);
        k->time = t;
        k->v[0] = 0.1 * sin(phase);
        k->v[2] = 1.0;
        k = ak_key_add(upper, AK_ROTATION);
        k->time = t;
        axis_angle(k, 2, 45.0 * sin(phase));
        k = ak_key_add(fore, AK_ROTATION);
        k->time = t;
        axis_angle(k, 1, 30.0 * (1 - cos(phase)) / 2);
    }
    ak_event_add(clip, 0.5, "sound", "wave.wav");
    return doc;
}

static int write_with(const ak_registry *reg, const ak_doc *doc, const char *dir, const char *format)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/wave.%s", dir, format);
    ak_report rep = { 0 };
    ak_options o = { sizeof o, format, path, NULL, 0, 0 };
    if (ak_write_file(reg, doc, path, &o, AK_WRITE_OVERWRITE, &rep) != AK_OK) {
        fprintf(stderr, "make-samples: %s\n", rep.message);
        return 1;
    }
    printf("wrote %s\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make-samples DIR\n");
        return 64;
    }
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS, NULL, NULL, NULL, NULL, NULL };
    ak_registry *reg;
    ak_report rep = { 0 };
    if (ak_registry_open(&cfg, &reg, &rep) != AK_OK)
        return 70;
    ak_registry_add_codec(reg, ifp_codec(), 0, &rep);
    ak_registry_add_codec(reg, ani_codec(), 0, &rep);
    ak_registry_add_codec(reg, anm_codec(), 0, &rep);
    ak_doc *doc = make_wave();
    int failed = write_with(reg, doc, argv[1], "ifp") | write_with(reg, doc, argv[1], "ani") |
                 write_with(reg, doc, argv[1], "anm");
    ak_doc_free(doc);
    ak_registry_free(reg);
    return failed ? 65 : 0;
}
