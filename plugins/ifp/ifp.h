#ifndef ANIMKIT_IFP_H
#define ANIMKIT_IFP_H
#include <animkit/plugin.h>
const ak_codec *ifp_codec(void);
#endif
