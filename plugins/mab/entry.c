/* entry.c - the one symbol the mab module exports. */
#include "mab.h"

const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return mab_codec(); }
