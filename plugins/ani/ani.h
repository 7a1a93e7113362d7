/* ani.h - io3DEngine (Lost Saga) .ani: internal interface of the plugin.
 *
 * Model mapping (see read.c for the details):
 *  - one clip; clip->tick_rate = 1000 (key ticks are the stored int32
 *    milliseconds), clip->duration = total time / 1000;
 *  - each stored key becomes one rotation key and one translation key with
 *    the same time; the rotation key's raw bytes are the stored rotation
 *    (16, 4 or 8 bytes), the translation key's raw bytes the 12 position
 *    bytes;
 *  - doc->variant is "4000", "4001" or "4002".
 *
 * Writing: parameter variant=4000|4001|4002 picks the version. Without it a
 * document this plugin read keeps its stored version, and a document from
 * any other source gets 4000 (float quaternions: the one lossless version).
 * Stored 4001/4002 words are re-emitted only when the target version is the
 * stored one.
 */
#ifndef ANIMKIT_ANI_H
#define ANIMKIT_ANI_H

#include <animkit/plugin.h>

#define ANI_V_FLOAT 4000  /* four float32 */
#define ANI_V_SMALL3 4001 /* "small three" in one uint32 */
#define ANI_V_8BYTES 4002 /* four 16-bit values in two uint32 */

/* The engine's string buffer is 260 bytes including the NUL it adds. */
#define ANI_MAX_STRING 259

/* Property keys. */
#define ANI_PROP_VERSION "ani.version"       /* doc: int, the stored version */
#define ANI_PROP_TRAILING "ani.trailing"     /* doc: bytes after the last track */
#define ANI_PROP_TOTAL "ani.total_time"      /* clip: int, total time as stored */
#define ANI_PROP_TIME_BITS "ani.time_bits"   /* event: int, float bits of the stored time */
#define ANI_PROP_TYPE_BYTES "ani.type_bytes" /* event: type bytes when they hold a NUL */
#define ANI_PROP_INFO_BYTES "ani.info_bytes" /* event: sub-info bytes when they hold a NUL */
#define ANI_PROP_WEIGHT_BITS "ani.weight_bits" /* track: int, float bits of the weight */
#define ANI_PROP_BONE_BYTES "ani.bone_bytes" /* track: name bytes when they hold a NUL */

const ak_codec *ani_codec(void);
int ani_probe(const unsigned char *bytes, size_t size, const char *filename);
ak_status ani_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc);
ak_status ani_write(ak_job *job, const ak_doc *doc, ak_sink *out);

/* Bytes of one rotation as stored by `version` (0 for an unknown one). */
size_t ani_rotation_size(int version);

/* Quaternion codecs, float32 exactly as the engine (QComp) computes them.
 * q is (x, y, z, w). */
void ani_quat_normalize(const float in[4], float out[4]);
uint32_t ani_encode_4001(const float q[4]);
void ani_decode_4001(uint32_t word, float q[4]);
void ani_encode_4002(const float q[4], uint32_t *word1, uint32_t *word2);
void ani_decode_4002(uint32_t word1, uint32_t word2, float q[4]);

#endif
