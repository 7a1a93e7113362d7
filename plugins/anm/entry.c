/* entry.c - the one symbol the anm module exports. */
#include "anm.h"

AK_PLUGIN_ENTRY(*anm_codec());
