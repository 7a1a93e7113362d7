/* handmade.h - a hand-made document with what real files get wrong or
 * glTF cannot hold as it is: negative and repeated times, different key
 * times per channel, a bone in only some clips, names with spaces and
 * non-ASCII bytes, a hash-only bone, a non-unit quaternion, an empty clip,
 * times at the float32 extremes, a 3-byte and a 100-byte blob prop. Used by test_gltf and gltf-fixture. */
#ifndef ANIMKIT_TEST_GLTF_HANDMADE_H
#define ANIMKIT_TEST_GLTF_HANDMADE_H

#include <animkit/animkit.h>

/* Clip 0 "bad times": bone "L Thigh" rotation ticks -1, 0, 0, 6 (60 per
 * second), translation at 0, 0.5 s; bone "Kn\xe9e \xc4" (Latin-1) rotation
 * with a non-unit quaternion; hash-only bone 0xdeadbeef.
 * Clip 1 "empty": no tracks. Clip 2 "extremes": bone "L Thigh" translation
 * at FLT_TRUE_MIN and FLT_MAX seconds; a bone only this clip has. */
ak_doc *handmade_doc(void);

#endif
