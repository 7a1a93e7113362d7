/* handmade.c - see handmade.h. */
#include "handmade.h"

#include <float.h>

static ak_key *key(ak_track *t, ak_channel_kind kind, double time, int64_t tick, double x, double y, double z,
                   double w)
{
    ak_key *k = ak_key_add(t, kind);
    k->time = time;
    k->tick = tick;
    k->v[0] = x;
    k->v[1] = y;
    k->v[2] = z;
    k->v[3] = w;
    return k;
}

ak_doc *handmade_doc(void)
{
    ak_doc *doc = ak_doc_new();
    ak_doc_set_format(doc, "ifp", "ANP3");
    ak_clip *c = ak_clip_add(doc, "bad times");
    c->tick_rate = 60;
    c->duration = 0.5;
    ak_track *thigh = ak_track_add(c, "L Thigh");
    thigh->has_bone_id = 1;
    thigh->bone_id = 41;
    key(thigh, AK_ROTATION, -1 / 60.0, -1, 0, 0, 0, 1);
    key(thigh, AK_ROTATION, 0, 0, 0.5, 0, 0, 0.8660254037844386);
    key(thigh, AK_ROTATION, 0, 0, 0.6, 0, 0, 0.8);
    key(thigh, AK_ROTATION, 0.1, 6, 0, 0.6, 0, 0.8);
    key(thigh, AK_TRANSLATION, 0, 0, 0.1, 0.2, 0.3, 0);
    key(thigh, AK_TRANSLATION, 0.5, 30, 0.1, 0.2, 0.7, 0);
    ak_track *knee = ak_track_add(c, "Kn\xe9" "e \xc4");
    key(knee, AK_ROTATION, 0, 0, 0, 0, 0.5, 0.5); /* |q| = 0.707 */
    key(knee, AK_ROTATION, 0.25, 15, 0, 0, 0, 1);
    ak_track *hashed = ak_track_add(c, "");
    hashed->has_bone_hash = 1;
    hashed->bone_hash = 0xdeadbeefu;
    key(hashed, AK_SCALE, 0, 0, 1, 2, 3, 0);
    ak_prop_set_string(doc, &c->props, "note", "caf\xe9");
    ak_event_add(c, 0.25, "sound", "step");
    ak_clip_add(doc, "empty");
    ak_clip *x = ak_clip_add(doc, "extremes");
    x->duration = FLT_MAX;
    ak_track *t = ak_track_add(x, "L Thigh");
    t->has_bone_id = 1;
    t->bone_id = 41;
    key(t, AK_TRANSLATION, FLT_TRUE_MIN, 0, -FLT_MAX, 0, FLT_TRUE_MIN, 0);
    key(t, AK_TRANSLATION, FLT_MAX, 0, FLT_MAX, 1, -FLT_TRUE_MIN, 0);
    key(ak_track_add(x, "Only Here"), AK_VISIBILITY, 0, 0, 1, 0, 0, 0);
    ak_prop_set_bytes(doc, &doc->props, "blob", "\x00\x01\xff", 3);
    unsigned char mesh[100];
    for (int i = 0; i < 100; i++)
        mesh[i] = (unsigned char)(i * 7);
    ak_prop_set_bytes(doc, &thigh->props, "mesh", mesh, sizeof mesh); /* big: goes into a buffer view */
    return doc;
}
