/* entry.c - the one symbol the json module exports. */
#include "json.h"

const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return json_codec(); }
