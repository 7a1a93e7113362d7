/* entry.c - the one symbol the bvh module exports. */
#include "bvh.h"

const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return bvh_codec(); }
