/* anm.h - internal header of the GEM engine ".anm" (EANM) plugin.
 *
 * The fact sheet is /work/shared/formats/anm.md (section numbers below refer
 * to it). One file = one clip, one track per BMAP bone in BMAP order, keys
 * only where the file has them. Everything the model has no field for is
 * kept in clip/track props (prefixed "anm.") and in per-key raw bytes. */
#ifndef ANIMKIT_ANM_H
#define ANIMKIT_ANM_H

#include <animkit/plugin.h>

#include <math.h>

/* Version words (§1): (major << 16) | minor. */
#define ANM_V30 0x00030000u
#define ANM_V40 0x00040000u
#define ANM_V50 0x00050000u
#define ANM_V60 0x00060000u
#define ANM_V61 0x00060001u

/* Frame chunk kinds, as stored in the layout prop. */
enum { ANM_TAG_FRMN = 0, ANM_TAG_FRM2 = 1, ANM_TAG_FRM3 = 2 };

/* Each kind's tag, as the reader names it in ANM_P_TAG and the writer
 * reads it back (indexed by ANM_TAG_*). */
static const char anm_tag_names[3][5] = { "FRMN", "FRM2", "FRM3" };

/* FRM2/FRM3 key flags (§8). FRMN records get the same bits synthesised
 * (MATR = 0x01|0x02, det < 0 = 0x04, VISI = 0x08/0x10, MESH = 0x20,
 * non-unit MATR rows = 0x40). */
enum {
    ANM_F_POS = 0x01,
    ANM_F_ROT = 0x02,
    ANM_F_MIRROR = 0x04,
    ANM_F_VIS_ON = 0x08,
    ANM_F_VIS_OFF = 0x10,
    ANM_F_MESH = 0x20,
    ANM_F_SCALE = 0x40,
    ANM_F_KNOWN = 0x7F,
    /* Bits that each give the record a key. */
    ANM_F_KEYED = ANM_F_POS | ANM_F_ROT | ANM_F_VIS_ON | ANM_F_VIS_OFF | ANM_F_SCALE,
    /* Bits the writer derives from the model (and the mesh blob). */
    ANM_F_DERIVED = ANM_F_KEYED | ANM_F_MESH
};

/* FRMN sub-chunk codes packed two bits each (first sub-chunk lowest). */
enum { ANM_SUB_END = 0, ANM_SUB_MATR = 1, ANM_SUB_VISI = 2, ANM_SUB_MESH = 3 };

/* Props. Clip props carry the file structure; track props the per-bone
 * records. */
#define ANM_P_VERSION "anm.version"     /* int: version word */
#define ANM_P_FRMS "anm.frms"           /* int: FRMS as stored */
#define ANM_P_FORM "anm.form"           /* int: 0 header only, 1 up to FRMS (placeholder files) */
#define ANM_P_TAG "anm.frame_tag"       /* string: FRMN, FRM2 or FRM3 (first frame chunk) */
#define ANM_P_LAYOUT "anm.layout"       /* bytes: chunk sequence, see below */
#define ANM_P_CMNT_COUNT "anm.cmnt.count" /* int: CMNT chunks */
#define ANM_P_CMNT "anm.cmnt."          /* + index: bytes of each CMNT text */
#define ANM_P_FPS "anm.fps"             /* float: frames per second assumed on read */
/* The frame rate assumed when the caller gives none (.anm stores none,
 * §10); the read parameter's declared default is its text. */
#define ANM_FPS_ASSUMED 30
#define ANM_TEXT_(x) #x
#define ANM_TEXT(x) ANM_TEXT_(x)
#define ANM_P_MESH_KEYS "mesh_keys"     /* int: records carrying a mesh blob (clip and track) */
#define ANM_P_RECORDS "anm.records"     /* bytes: per-bone record table, ANM_EXTRA_SIZE each */
#define ANM_P_MESH "anm.mesh"           /* bytes: mesh bodies of the bone, concatenated */
#define ANM_P_MIRRORED "anm.mirrored"   /* int 1: the bone's keys carry the mirror bit */
#define ANM_P_NAME "anm.name"           /* bytes: raw BMAP name when it holds a NUL */

/* Layout prop: per frame chunk: u8 kind, u32 frame, u32 n, n x u32 bone. */

/* One record of a bone as read (track prop ANM_P_RECORDS, little-endian,
 * sorted by frame): u32 frame, u16 flags, u8 kind (ANM_TAG_*), u8 FRMN
 * sub-chunk order, u32 mesh offset into ANM_P_MESH, u32 mesh size. */
#define ANM_EXTRA_SIZE 16
typedef struct anm_extra {
    uint32_t frame;
    uint16_t flags;
    uint8_t kind;
    uint8_t order;
    uint32_t mesh_off;
    uint32_t mesh_size;
} anm_extra;

/* Inline: the reader stores and the writer loads once per record. The
 * store takes the fields, not an anm_extra: the reader has them at hand,
 * and a struct filled only to be stored would be assembled on the stack
 * first; flags, kind and order are one store. */
static inline void anm_extra_store(unsigned char *p, uint32_t frame, uint16_t flags, uint8_t kind, uint8_t order,
                                   uint32_t mesh_off, uint32_t mesh_size)
{
    ak_poke_u32(p, frame);
    ak_poke_u32(p + 4, (uint32_t)flags | (uint32_t)kind << 16 | (uint32_t)order << 24);
    ak_poke_u32(p + 8, mesh_off);
    ak_poke_u32(p + 12, mesh_size);
}

static inline void anm_extra_load(const unsigned char *p, anm_extra *e)
{
    e->frame = ak_peek_u32(p);
    e->flags = (uint16_t)(p[4] | p[5] << 8);
    e->kind = p[6];
    e->order = p[7];
    e->mesh_off = ak_peek_u32(p + 8);
    e->mesh_size = ak_peek_u32(p + 12);
}

const ak_codec *anm_codec(void);
ak_status anm_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc);
ak_status anm_write(ak_job *job, const ak_doc *doc, ak_sink *out);

/* §7: three stored floats -> model quaternion (x, y, z, +sqrt(max(0, 1 - s)))
 * computed in double. Inline: once per FRM2/FRM3 rotation key. */
static inline void anm_quat_from_xyz(const float xyz[3], double q[4])
{
    double x = xyz[0], y = xyz[1], z = xyz[2];
    double rest = 1.0 - (x * x + y * y + z * z); /* clamped at 0: stored values may give s > 1 */
    q[0] = x;
    q[1] = y;
    q[2] = z;
    q[3] = rest > 0.0 ? sqrt(rest) : 0.0;
}
/* Model quaternion -> the three floats to store: normalised, sign chosen so
 * that the rebuilt w is >= 0. Returns 0 if q was not finite or zero (then
 * identity is stored). */
int anm_quat_to_xyz(const double q[4], float xyz[3]);
/* §6 MATR rows (row-major D3D, v' = v M) -> model quaternion (rotation of
 * M^T), per-row scale, mirror flag (det < 0: row 2 negated first).
 * Returns 0 if the matrix is degenerate or not finite (q = identity). */
int anm_matrix_decode(const float m[9], double q[4], double scale[3], int *mirrored);
/* The inverse: rows of R(q)^T scaled per row, row 2 negated if mirrored. */
void anm_matrix_encode(const double q[4], const double scale[3], int mirrored, float m[9]);

#endif
