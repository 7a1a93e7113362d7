/* rebuild.h - the benchmark's floor: a codec that builds a copy of a
 * document decoded before, through the plugin API, parsing nothing
 * (rebuild.c). */
#ifndef ANIMKIT_BENCH_REBUILD_H
#define ANIMKIT_BENCH_REBUILD_H

#include <animkit/plugin.h>

/* The codec "rebuild": never probed, read only. */
const ak_codec *bench_rebuild_codec(void);
/* What its next reads copy; NULL fails them. */
void bench_rebuild_source(const ak_doc *from);

#endif
