/* entry.c - the one symbol the bvh module exports. */
#include "bvh.h"

AK_PLUGIN_ENTRY(*bvh_codec());
