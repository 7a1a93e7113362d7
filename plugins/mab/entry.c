/* entry.c - the one symbol the mab module exports. */
#include "mab.h"

AK_PLUGIN_ENTRY(*mab_codec());
