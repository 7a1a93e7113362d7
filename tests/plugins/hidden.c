/* A plugin whose entry exists but is hidden (built with
 * -fvisibility=hidden, without AK_PLUGIN_ENTRY): the refusal must say so. */
#include <animkit/plugin.h>

static const ak_codec codec = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "hidden", "1", "hidden entry",
                                "MIT", "hid", NULL, NULL, NULL, NULL };
const ak_codec *animkit_codec(void);
const ak_codec *animkit_codec(void) { return &codec; }
