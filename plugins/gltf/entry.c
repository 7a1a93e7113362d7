/* entry.c - the one symbol the gltf module exports. */
#include "gltf.h"

AK_PLUGIN_ENTRY(*gltf_codec());
