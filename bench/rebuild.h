/* rebuild.h - the benchmark's floors (rebuild.c): a codec whose read
 * builds a copy of a document decoded before through the plugin API,
 * parsing nothing, and whose write checks that document as any writer
 * must and puts the bytes it was read from; and one whose read and write
 * do nothing but the call. */
#ifndef ANIMKIT_BENCH_REBUILD_H
#define ANIMKIT_BENCH_REBUILD_H

#include <animkit/plugin.h>

/* The codec "rebuild": never probed. */
const ak_codec *bench_rebuild_codec(void);
/* The codec "call": a read that adds nothing, a write that puts the
 * bytes of bench_rebuild_source; never probed. */
const ak_codec *bench_call_codec(void);
/* What its next reads copy and the bytes its next writes put; NULL fails
 * them. */
void bench_rebuild_source(const ak_doc *from, const unsigned char *bytes, size_t size);
/* Gives it the capabilities of `codec` (ak_write's loss check). */
void bench_rebuild_like(const ak_codec *codec);

#endif
