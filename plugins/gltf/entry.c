/* entry.c - the one symbol the gltf module exports. */
#include "gltf.h"

const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return gltf_codec(); }
