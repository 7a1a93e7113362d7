/* entry.c - the one symbol the anm module exports. */
#include "anm.h"

const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return anm_codec(); }
