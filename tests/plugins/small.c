/* A plugin whose descriptor is smaller than ABI 1.0's. */
#include <animkit/plugin.h>

static const ak_codec codec = { AK_ABI_MAJOR, AK_ABI_MINOR, 24, 0, "small", "1", "too small", "MIT", "sm", NULL, NULL, NULL, NULL };
const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return &codec; }
