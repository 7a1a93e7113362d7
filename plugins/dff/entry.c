/* entry.c - the one symbol the dff module exports. */
#include "dff.h"

AK_PLUGIN_ENTRY(*dff_codec());
