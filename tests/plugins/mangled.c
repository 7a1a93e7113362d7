/* A plugin whose entry carries the name a C++ compiler gives
 * `const ak_codec *animkit_codec()` without extern "C": the refusal must
 * name it. (An assembler label stands in for a C++ compiler.) */
#include <animkit/plugin.h>

static const ak_codec codec = { AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), 0, "mangled", "1", "mangled entry",
                                "MIT", "mgl", NULL, NULL, NULL, NULL };
const ak_codec *entry(void) __asm__("_Z13animkit_codecv");
const ak_codec *entry(void) { return &codec; }
