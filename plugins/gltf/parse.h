/* parse.h - the reader's state shared by read.c (container, buffers, the
 * document), nodes.c (node tree, skeleton, axis) and clips.c (animations). */
#ifndef ANIMKIT_GLTF_PARSE_H
#define ANIMKIT_GLTF_PARSE_H

#include "gltf.h"

typedef struct gr_node {
    int32_t parent;      /* -1 for a scene root */
    double t[3], r[4], s[3];
    int joint;           /* a skin joint (or, without a skin, an animated node) */
    int32_t bone;        /* index into doc->skeleton, -1 if none */
    int root_bone;       /* a bone whose parent is no bone: gets the axis fix */
    const char *name;    /* bytes (Latin-1 from UTF-8); "" when unnamed */
    int has_id;
    int32_t id;
    int has_hash;
    uint32_t hash;
} gr_node;

typedef struct gr {
    ak_job *job;
    ak_doc *doc;
    gltf_data g;
    json_t *root;
    const json_t *animkit;  /* asset.extras.animkit, or NULL for a foreign file */
    gr_node *nodes;
    size_t node_count;
    gltf_up up;             /* the game's axis root bones are given in */
    int fix_axis;           /* root bones need the `axis` transform below */
    double axis_t[3], axis_r[4], axis_s; /* game space <- glTF space of root bones */
} gr;

/* nodes.c: parses nodes (no cycles, one parent each), picks the bones,
 * builds doc->skeleton and works out the axis fix. */
ak_status gr_nodes(gr *r);
/* Applies the axis fix to a key of a root bone's channel. */
void gr_fix_key(const gr *r, ak_channel_kind kind, double *v);

/* clips.c: every animation (and the empty clips in asset extras) into clips. */
ak_status gr_clips(gr *r);

/* JSON field helpers that fail the job naming `where`.`field`. */
int gr_int(gr *r, const json_t *obj, const char *field, json_int_t lo, json_int_t hi, json_int_t *out,
           const char *where);
int gr_numbers(gr *r, const json_t *obj, const char *field, double *out, size_t n, const char *where);

#endif
