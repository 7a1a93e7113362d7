/* dff.h - GTA III / Vice City / San Andreas RenderWare models (.dff): the
 * skeleton only. Internal header shared by plugin.c, read.c and rotation.c.
 *
 * Model mapping (see /work/shared/formats/dff.md and README.md here):
 *  - a document with format "dff", no clips and a skeleton: one bone per
 *    frame of the first clump's frame list, in frame order (frame 0, the
 *    clump's own frame, is a root bone without name or id);
 *  - name = Node Name plugin bytes up to the first NUL; id = HAnim node id
 *    (frames without HAnim data, or id -1, have no id);
 *  - translation = frame position, rotation = the closest rotation to the
 *    3x3 matrix whose columns are right, up, at (bone -> parent space, the
 *    convention of .ifp keys), scale 1;
 *  - matrix flags, HAnim flags and the library stamp go into "dff.*" props.
 */
#ifndef ANIMKIT_DFF_H
#define ANIMKIT_DFF_H

#include <animkit/plugin.h>

#include <stdint.h>

const ak_codec *dff_codec(void);

ak_status dff_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc);

/* Chunk ids (RenderWare binary stream). */
#define DFF_STRUCT 0x01u
#define DFF_EXTENSION 0x03u
#define DFF_FRAMELIST 0x0Eu
#define DFF_CLUMP 0x10u
#define DFF_UVANIMDICT 0x2Bu
#define DFF_HANIM 0x011Eu
#define DFF_NODENAME 0x0253F2FEu

#define DFF_HEADER 12u       /* type, size, library stamp */
#define DFF_FRAME_SIZE 56u   /* 3x3 matrix, position, parent, flags */
#define DFF_HANIM_VERSION 0x100
#define DFF_NODE_SIZE 12u    /* HAnim node: id, index, flags */

/* The RenderWare version (0x3VJNB style, e.g. 0x36003) and build of a
 * library stamp. */
uint32_t dff_stamp_version(uint32_t stamp);
uint32_t dff_stamp_build(uint32_t stamp);

/* The rotation closest to the 3x3 matrix with columns c[0], c[1], c[2]
 * (right, up, at), as a unit quaternion x, y, z, w with w >= 0. Returns 0
 * when there is none (a mirrored, flat or non-finite matrix). `error`
 * receives how far the matrix is from orthonormal (max over the columns of
 * | |c|^2 - 1 | and |c_i . c_j|). */
int dff_matrix_rotation(const double c[3][3], double q[4], double *error);

/* Props. */
#define DFF_P_STAMP "dff.stamp"             /* int, doc: library stamp of the clump */
#define DFF_P_VERSION "dff.version"         /* string, doc: "3.6.0.3" */
#define DFF_P_BUILD "dff.build"             /* int, doc: build number of the stamp */
#define DFF_P_CLUMPS "dff.clumps"           /* int, doc: clumps in the file (the first is read) */
#define DFF_P_ATOMICS "dff.atomics"         /* int, doc: clump atomic count */
#define DFF_P_LIGHTS "dff.lights"           /* int, doc: clump light count (12-byte Struct only) */
#define DFF_P_CAMERAS "dff.cameras"         /* int, doc: clump camera count (12-byte Struct only) */
#define DFF_P_MATRIX_FLAGS "dff.matrix_flags" /* int, bone: frame matrix flags */
#define DFF_P_MATRIX "dff.matrix"           /* bytes, bone: the stored 3x3 (36 bytes) when not orthonormal */
#define DFF_P_NAME_RAW "dff.name_raw"       /* bytes, bone: Node Name payload when it holds a NUL */
#define DFF_P_HANIM_INDEX "dff.hanim_index" /* int, bone: position of its id in the HAnim hierarchy
                                               (= its skin bone index) */
#define DFF_P_HANIM_STORED "dff.hanim_stored_index" /* int, bone: the node's stored index, if not its position */
#define DFF_P_HANIM_FLAGS "dff.hanim_flags" /* int, bone: HAnim node flags (1 POP, 2 PUSH) */
#define DFF_P_HIER_NODES "dff.hanim_nodes"  /* int, bone carrying the hierarchy: node count */
#define DFF_P_HIER_FLAGS "dff.hanim_hierarchy_flags" /* int, same bone: hierarchy flags */
#define DFF_P_HIER_KEYSIZE "dff.hanim_keyframe_size" /* int, same bone: max key-frame size */

#endif
