/* bvh.h - Biovision Hierarchy (.bvh) motion capture. Internal header
 * shared by plugin.c, read.c, write.c and euler.c.
 *
 * Model mapping (see README.md):
 *  - HIERARCHY: every ROOT and JOINT becomes a skeleton bone in file order
 *    (parents first), OFFSET its rest translation (times the `scale`
 *    parameter); the rest rotation is the identity. A joint's CHANNELS go
 *    into its bone's prop "bvh.channels", an End Site's offset into
 *    "bvh.end_site" ("x y z").
 *  - MOTION: one clip named after the file; each joint with channels gets a
 *    track (skeleton_bone set). Frame f is at f x Frame Time (tick f);
 *    frame_rate = tick_rate = 1 / Frame Time; duration = (Frames - 1) x
 *    Frame Time. Rotation channels, in the file's order, are degrees about
 *    X, Y, Z composed as R = R1 R2 R3 (the first listed is outermost);
 *    position channels replace the offset's components in the translation.
 *  - For byte-exact rewrites each key keeps the text of its joint's values
 *    in its frame (from its first value up to the next joint's first) as
 *    raw bytes, and the doc keeps the hierarchy text, the motion header and
 *    what follows the last frame.
 */
#ifndef ANIMKIT_BVH_H
#define ANIMKIT_BVH_H

#include <animkit/plugin.h>

#include <stdint.h>

const ak_codec *bvh_codec(void);
ak_status bvh_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc);
ak_status bvh_write(ak_job *job, const ak_doc *doc, ak_sink *out);

/* Channels: positions then rotations, each X, Y, Z (axis = code % 3). */
enum { BVH_XPOS = 0, BVH_YPOS, BVH_ZPOS, BVH_XROT, BVH_YROT, BVH_ZROT };
#define BVH_MAX_CHANNELS 16 /* per joint; real files have 3 or 6 */
#define BVH_MAX_NAME 255

/* Props. */
#define BVH_P_CHANNELS "bvh.channels"   /* bone: "Xposition Yposition ..." */
#define BVH_P_END_SITE "bvh.end_site"   /* bone: "x y z", document units */
#define BVH_P_HIERARCHY "bvh.hierarchy" /* doc: bytes from the start to MOTION */
#define BVH_P_MOTION "bvh.motion"       /* doc: bytes from MOTION to the first value */
#define BVH_P_TAIL "bvh.tail"           /* doc: bytes after the last value */
#define BVH_P_DIGEST "bvh.digest"       /* doc: bvh_skeleton_digest() at read time */
#define BVH_P_SCALE "bvh.scale"         /* doc: the scale it was read with */
#define BVH_P_EOL "bvh.eol"             /* doc: the file's line end */
#define BVH_P_FRAMES "bvh.frames"       /* clip: Frames as read */
#define BVH_P_FRAME_TIME "bvh.frame_time" /* clip: Frame Time as read */

/* The channel code of a name, or -1. */
int bvh_channel_of(const char *name, size_t len);
const char *bvh_channel_name(int code);
/* Parses "Xposition Zrotation ..." into codes; the count, or -1 if a name
 * is unknown or there are more than BVH_MAX_CHANNELS. */
int bvh_parse_channels(const char *text, uint8_t codes[BVH_MAX_CHANNELS]);

/* The quaternion (x, y, z, w) of rotations by deg[i] degrees about axis
 * axes[i] (0 = X, 1 = Y, 2 = Z), composed as R = R(axes[0]) R(axes[1]) ... */
void bvh_euler_to_quat(const uint8_t *axes, const double *deg, int n, double q[4]);
/* The angles in degrees about three distinct axes that compose to q. */
void bvh_quat_to_euler(const double q[4], const uint8_t axes[3], double deg[3]);
/* The angle in degrees about one axis closest to q (exact for a rotation
 * about that axis). */
double bvh_quat_to_angle(const double q[4], int axis);

/* FNV-1a over what the hierarchy text says: bone names, parents, rest
 * translations, channels and End Sites. */
uint64_t bvh_skeleton_digest(const ak_doc *doc);

#endif
