/* build.h - the writer's state and the helpers its files share (write.c:
 * document, nodes, skin, container; anim.c: animations and their extras). */
#ifndef ANIMKIT_GLTF_BUILD_H
#define ANIMKIT_GLTF_BUILD_H

#include "gltf.h"

/* A time accessor already written, for sharing between channels. */
typedef struct gw_times {
    uint64_t hash;
    size_t count, offset;
    json_int_t accessor;
} gw_times;

/* A bone that only tracks name (no skeleton bone matches it). */
typedef struct gw_bone {
    const ak_track *track; /* the first track that named it */
    int mirrored;          /* a track of it is a mirrored GEM bone */
} gw_bone;

typedef struct gw {
    ak_job *job;
    const ak_doc *doc;
    json_t *root, *nodes, *accessors, *views, *animations;
    json_t *empty_clips;   /* extras of clips that have no glTF channel */
    unsigned char *bin;
    size_t bin_size, bin_cap;
    gw_bone *extra;        /* bones named only by tracks: nodes after the skeleton's */
    size_t extra_count, extra_cap;
    gw_times *times;
    size_t times_count, times_cap;
    int visibility;        /* a channel used KHR_node_visibility */
    int oom;               /* a jansson call failed */
} gw;

/* Node index of a track's bone (skeleton bones are nodes 1..n, then the
 * bones only tracks name); -1 if unknown. */
json_int_t gw_node_of_track(const gw *w, const ak_track *t);
size_t gw_bone_nodes(const gw *w);

/* JSON helpers that record failures in w->oom instead of returning them. */
void gw_set(gw *w, json_t *obj, const char *key, json_t *value);
void gw_push(gw *w, json_t *array, json_t *value);
json_t *gw_float_array(gw *w, const float *v, size_t n);

/* Appends `size` bytes to the binary buffer at a 4-byte boundary and adds a
 * buffer view for them; returns the view's index, -1 on failure. */
json_int_t gw_view(gw *w, const void *data, size_t size);
/* A float accessor over a new view; with min/max when `bounds`. */
json_int_t gw_float_accessor(gw *w, const float *v, size_t count, int width, int bounds);
/* A time accessor, shared with any earlier one of the same times. */
json_int_t gw_time_accessor(gw *w, const float *times, size_t count);

/* Props as JSON, big byte blobs into buffer views. */
json_t *gw_props(gw *w, const ak_props *props);

/* One glTF animation per clip with keys (anim.c). */
ak_status gw_animations(gw *w);

#endif
