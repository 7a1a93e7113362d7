/* entry.c - the one symbol the ani module exports. */
#include "ani.h"

AK_PLUGIN_ENTRY(*ani_codec());
