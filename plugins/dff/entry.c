/* entry.c - the one symbol the dff module exports. */
#include "dff.h"

const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return dff_codec(); }
