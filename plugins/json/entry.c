/* entry.c - the one symbol the json module exports. */
#include "json.h"

AK_PLUGIN_ENTRY(*json_codec());
