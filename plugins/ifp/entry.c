/* entry.c - the one symbol the ifp module exports. */
#include "ifp.h"

AK_PLUGIN_ENTRY(*ifp_codec());
