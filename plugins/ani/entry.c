/* entry.c - the one symbol the ani module exports. */
#include "ani.h"

const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return ani_codec(); }
