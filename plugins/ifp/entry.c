/* entry.c - the one symbol the ifp module exports. */
#include "ifp.h"

const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return ifp_codec(); }
