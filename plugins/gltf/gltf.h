/* gltf.h - glTF 2.0 (.glb and .gltf with data: URIs). Internal header
 * shared by plugin.c, common.c, props.c, write.c, accessor.c and read.c.
 *
 * Mapping (README.md; /work/shared/formats/gltf.md section 5):
 *  - node 0 is no joint and carries the turn from the game's up axis to
 *    glTF's +Y, so bone values are written unchanged as float32;
 *  - one node per bone (the skeleton's, then bones only tracks name), one
 *    skin referenced by no node, one animation per clip with keys;
 *  - everything float32 cannot hold (ticks, exact times and values, stored
 *    key bytes, props, events, empty clips) goes into extras.animkit, so
 *    that X -> glTF -> X is byte-identical for keys nobody edited.
 */
#ifndef ANIMKIT_GLTF_H
#define ANIMKIT_GLTF_H

#include <animkit/plugin.h>

#include <jansson.h>
#include <stdint.h>

/* Version of the extras.animkit layout. */
#define GLTF_EXTRAS_SCHEMA 1
/* Inputs larger than this are refused before parsing (jansson's tree takes
 * several times the text). */
#define GLTF_MAX_JSON ((size_t)256 << 20)

const ak_codec *gltf_codec(void);

ak_status gltf_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc);
ak_status gltf_write(ak_job *job, const ak_doc *doc, ak_sink *out);

/* The game's up axis and handedness, carried by node 0. */
typedef enum gltf_up {
    GLTF_UP_Y = 0,   /* Y up, right-handed: node 0 is the identity */
    GLTF_UP_Z,       /* Z up, right-handed: node 0 turns -90 degrees about X */
    GLTF_UP_Y_LEFT,  /* Y up, left-handed: node 0 mirrors Z */
    GLTF_UPS
} gltf_up;

const char *gltf_up_name(gltf_up up);
/* Doc prop (string): the axis a glTF without animkit's extras was read in;
 * the writer uses it for documents of no known game format. */
#define GLTF_P_UP "gltf.up"
/* -1 when `name` is none of "y", "z", "y-left". */
int gltf_up_of_name(const char *name);
/* The axis a game format uses (README.md table); Y for unknown formats. */
gltf_up gltf_up_of_format(const char *format);
/* Node 0's rotation (x, y, z, w) and scale for `up`, as written. */
void gltf_up_transform(gltf_up up, float rotation[4], float scale[3]);

/* What the writer puts into the accessors for a key: float32 of the time
 * made valid, and float32 of the values made valid (unit quaternions,
 * finite numbers, visibility 0 or 1). The reader calls the same to tell
 * edited keys from untouched ones. */
/* Valid sampler times from `count` original times: negative -> 0, NaN ->
 * the previous, every time above the one before by at least one float32
 * step. Returns how many were changed. */
size_t gltf_fix_times(const double *times, size_t count, float *out);
/* Returns 1 when the value had to be repaired. */
int gltf_fix_value(ak_channel_kind kind, const double *v, float out[4]);
/* Values per key in the accessor of a channel kind. */
int gltf_width(ak_channel_kind kind);
/* The glTF path of a kind ("rotation", ...; "pointer" for visibility). */
const char *gltf_path_name(ak_channel_kind kind);

/* 1 for a GEM bone whose keys carry the mirror bit (anm's "anm.mirrored"):
 * its node gets scale z -1, and its scale keys are written with z negated,
 * so that viewers show the mirror (gltf.md section 4). */
int gltf_track_mirrored(const ak_track *t);

/* One digest over the ak_key_digest() of every key of a channel. */
uint64_t gltf_channel_digest(const ak_channel *ch, ak_channel_kind kind);

/* Names: bytes as Latin-1 on the way into JSON strings (UTF-8), and code
 * points up to U+00FF back to single bytes on the way out, as the json
 * plugin does. Both return NULL (job failed) when out of memory. */
char *gltf_utf8_of_bytes(ak_job *job, const char *bytes);
char *gltf_bytes_of_utf8(ak_job *job, const char *utf8);

/* JSON numbers that also hold NaN and infinities (as the strings "nan",
 * "inf", "-inf"). gltf_number_value returns 0 for anything else. */
json_t *gltf_number(double v);
int gltf_number_value(const json_t *j, double *out);

/* Props as a JSON object: int -> integer, float -> real, string ->
 * string, bytes -> {"hex": "..."}, or {"bufferView": N} for bytes of
 * GLTF_BLOB_MIN or more (mesh animation blobs) when `blobs` is given.
 * gltf_props_read fails the job naming `where`. */
#define GLTF_BLOB_MIN 64u
typedef struct gltf_blobs {
    json_int_t (*put)(void *user, const unsigned char *data, size_t size); /* view index, -1 */
    void *user;
} gltf_blobs;
typedef struct gltf_data gltf_data;
json_t *gltf_props_json(ak_job *job, const ak_props *props, const gltf_blobs *blobs);
ak_status gltf_props_read(ak_job *job, ak_doc *doc, ak_props *props, const json_t *obj,
                          const char *where, const gltf_data *g);

/* Hex strings of bytes. gltf_hex_decode returns the byte count, or -1 on a
 * malformed string; `out` must hold strlen/2 bytes. */
json_t *gltf_hex(ak_job *job, const unsigned char *data, size_t size);
long gltf_hex_decode(const char *hex, unsigned char *out);

/* 4x4 column-major matrices and quaternions (x, y, z, w). */
void gltf_trs_matrix(const double t[3], const double q[4], const double s[3], double m[16]);
void gltf_mat_mul(const double a[16], const double b[16], double out[16]);
/* Inverse of an affine matrix; 0 when it is singular. */
int gltf_mat_inverse(const double m[16], double out[16]);

/* Decoded accessor data (accessor.c): `count` elements of `width` numbers,
 * normalised integers turned into floats as the spec says. */
struct gltf_data {
    const json_t *root;     /* the document */
    const unsigned char *bin; /* the binary buffer 0 (GLB chunk or data: URI) */
    size_t bin_size;
    const unsigned char **buffers; /* every buffer's bytes (NULL when unavailable) */
    size_t *buffer_sizes;
    size_t buffer_count;
};

/* The bytes of buffer view `view`, checked against its buffer. */
const unsigned char *gltf_view_bytes(ak_job *job, const gltf_data *g, json_int_t view, size_t *size,
                                     const char *where);

/* Reads accessor `index` as floats: `*count` elements of `width` values
 * (width is checked against the accessor's type). Fails the job naming
 * the JSON path on anything out of range. */
ak_status gltf_accessor_floats(ak_job *job, const gltf_data *g, json_int_t index, int width,
                               float **out, size_t *count);

#endif
