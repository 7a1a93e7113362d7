/* ifp.h - GTA animation packages (.ifp): ANP3, ANP2, ANPK and ANLF.
 * Internal header shared by plugin.c, read.c, write.c and common.c.
 *
 * Model mapping (see /work/shared/formats/ifp.md):
 *  - one clip per animation, in file order; doc->variant = magic;
 *  - ANP3/ANP2 int16 frames (types 3/4): rotation /4096, translation /1024,
 *    key.tick = stored i16 time, clip->tick_rate = 60;
 *  - float frames (ANP3 types 1/2, ANPK keys): time in seconds, tick 0;
 *  - ANPK rotations are conjugated into the ANP3 convention;
 *  - every field the model has no place for is kept in "ifp.*" props, and
 *    each key keeps its stored bytes (rotation: quaternion + time,
 *    translation / scale: their three components).
 */
#ifndef ANIMKIT_IFP_H
#define ANIMKIT_IFP_H

#include <animkit/plugin.h>

#include <stdint.h>

const ak_codec *ifp_codec(void);

ak_status ifp_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc);
ak_status ifp_write(ak_job *job, const ak_doc *doc, ak_sink *out);

/* Variants (the magic). */
typedef enum ifp_variant { IFP_ANP3 = 0, IFP_ANP2, IFP_ANPK, IFP_ANLF, IFP_VARIANTS } ifp_variant;
/* "ANP3"... for a variant; the variant of a 4-byte magic or -1. */
const char *ifp_variant_name(ifp_variant v);
int ifp_variant_of(const char *magic4);

/* Frame record size of ANP3/ANP2 frame type 1-4 (0 for others). */
size_t ifp_frame_size(uint32_t type);

/* Key chunk tags of ANPK and their strides. */
#define IFP_KR00_STRIDE 20u
#define IFP_KRT0_STRIDE 32u
#define IFP_KRTS_STRIDE 44u

/* Fixed-size name fields. */
#define IFP_NAME24 24u /* ANP3/ANP2 package, animation and bone names */
#define IFP_NAME28 28u /* ANPK ANIM bone name */

/* Props. A "stale" field is kept as two props: KEY (the stored value) and
 * KEY.computed (what the field would be if computed from the data at read
 * time). The writer emits the stored value as long as the value computed
 * from the document is still the same, else the fresh value. */
#define IFP_P_PACKAGE "ifp.package"          /* string: package / block name */
#define IFP_P_PACKAGE_RAW "ifp.package_raw"  /* bytes: raw name field (non-canonical only) */
#define IFP_P_INFO_SIZE "ifp.info_size"      /* int: ANPK top INFO size (non-canonical only) */
#define IFP_P_SIZE "ifp.size"                /* stale: top-level size */
#define IFP_P_TAIL "ifp.tail"                /* bytes after the last animation */
#define IFP_P_TAIL_ZEROS "ifp.tail_zeros"    /* or their count, when all are zero */
#define IFP_P_NAME_RAW "ifp.name_raw"        /* bytes: raw name field (non-canonical only) */
#define IFP_P_NAME_SIZE "ifp.name_size"      /* int: ANPK NAME chunk size (non-canonical only) */
#define IFP_P_FLAGS "ifp.flags"              /* int: ANP3 animation flags */
#define IFP_P_FRAME_BYTES "ifp.frame_bytes"  /* stale: ANP3 frame-data bytes */
#define IFP_P_FRAME_TYPE "ifp.frame_type"    /* int: ANP3/ANP2 frame type 1-4 */
#define IFP_P_DGAN_UNKNOWN "ifp.dgan_unknown" /* int: 2nd DGAN INFO integer (if not 0) */
#define IFP_P_DGAN_INFO_RAW "ifp.dgan_info_raw" /* bytes: DGAN INFO payload after the count, if size != 8 */
#define IFP_P_DGAN_INFO_SIZE "ifp.dgan_info_size" /* int: DGAN INFO size, if != 8 */
#define IFP_P_DGAN_SIZE "ifp.dgan_size"      /* stale */
#define IFP_P_CPAN_SIZE "ifp.cpan_size"      /* stale */
#define IFP_P_KEY_SIZE "ifp.key_size"        /* stale */
#define IFP_P_ANIM_SIZE "ifp.anim_size"      /* int: 44 or 48 (clip: form of its bones; track: if different) */
#define IFP_P_ANIM_UNK32 "ifp.anim_unk32"    /* int: ANIM +32 (if not 0) */
#define IFP_P_ANIM_LAST "ifp.anim_last"      /* stale: ANIM +36 (frame count - 1) */
#define IFP_P_CHILD "ifp.child"              /* int: 48-byte ANIM first-child index */
#define IFP_P_SIBLING "ifp.sibling"          /* int: 48-byte ANIM next-sibling index */
#define IFP_P_BLOCK "ifp.block"              /* int: ANLF block index of a clip */
#define IFP_P_BLOCKS "ifp.blocks"            /* int: ANLF block count (doc) */

/* Stale-field helpers (common.c). `prefix` is prepended to the key ("" or
 * "ifp.blockN." style prefixes are built by the caller). */
ak_status ifp_stale_put(ak_doc *doc, ak_props *props, const char *key, int64_t stored, int64_t computed);
int64_t ifp_stale_get(const ak_props *props, const char *key, int64_t computed_now);

/* Length of the text in a fixed field: up to the first NUL or n. */
size_t ifp_field_len(const unsigned char *p, size_t n);
/* 1 if every byte after the text of the field is zero (and a NUL exists). */
int ifp_field_canonical(const unsigned char *p, size_t n);
/* The same, for a field whose text is known to be `len` bytes long. */
int ifp_field_zero_padded(const unsigned char *p, size_t n, size_t len);

/* Builds "ifp.b<block>.<rest>" for ANLF blocks, or copies `key` for block < 0. */
const char *ifp_block_key(char *buf, size_t size, int block, const char *key);

#endif
