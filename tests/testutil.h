/* testutil.h - what every test program shares: finding the corpus and the
 * build, reading files, running codecs without a config. */
#ifndef ANIMKIT_TESTUTIL_H
#define ANIMKIT_TESTUTIL_H

#include <animkit/plugin.h>
#include <check.h>

/* Path of a corpus file ("ifp/vice.ifp"), or NULL when the corpus is not
 * beside the project; the caller then skips with ak_test_skip(). */
const char *ak_test_corpus(const char *relative, char *buf, size_t size);
/* Prints "SKIP: why" once per reason, so the log says what was not run. */
void ak_test_skip(const char *why);
/* The whole file, malloc'd; fails the test when it cannot be read. */
unsigned char *ak_test_slurp(const char *path, size_t *size);
/* The corpus file's bytes (malloc'd), or NULL after printing why it is
 * skipped; the caller then returns. */
unsigned char *ak_test_corpus_file(const char *relative, size_t *size);
/* A registry holding exactly these codecs (NULL-terminated). */
ak_registry *ak_test_registry(const ak_codec *const *codecs);
/* Reads bytes with the given codec; fails the test with the report on error. */
ak_doc *ak_test_read(const ak_registry *reg, const unsigned char *bytes, size_t size, const char *name);
/* Like ak_read but returns the status and leaves the report to the caller. */
ak_status ak_test_try_read(const ak_registry *reg, const unsigned char *bytes, size_t size, const char *name,
                           ak_doc **doc, ak_report *report);
/* Writes with the codec `format`; fails the test on error. */
unsigned char *ak_test_write(const ak_registry *reg, const ak_doc *doc, const char *format, size_t *size);
/* 1 when a and b are equal; else prints where they first differ. */
int ak_test_same_bytes(const unsigned char *a, size_t na, const unsigned char *b, size_t nb, const char *what);
/* Makes a fresh folder for files a test hands to the registry (configs,
 * plugins) and writes its path to `buf`. It lies under the build tree
 * (tests/tmp), not /tmp: the plugin trust rule refuses anything below a
 * folder others can write to. When the build tree itself fails that rule
 * (e.g. it sits below /tmp or is group-writable) this says so once and
 * sets ANIMKIT_UNSAFE_PLUGINS=1 for the test and the programs it runs. */
void ak_test_tmpdir(const char *prefix, char *buf, size_t size);
/* Robustness sweeps: fn gets the damaged bytes, their length, and where
 * the damage is (the cut's length or the poked offset). */
typedef void ak_test_sweep_fn(const unsigned char *bytes, size_t len, size_t where, void *user);
/* Every prefix of bytes shorter than n: each length below `dense`, then
 * every `step`th; each in a buffer of exactly its length. */
void ak_test_cuts(const unsigned char *bytes, size_t n, size_t dense, size_t step, ak_test_sweep_fn *fn, void *user);
/* For every offset below `limit` (and with `width` bytes left), `stride`
 * apart: bytes with the `width` low bytes of each of values[0..count)
 * stored there, little-endian (width 4: an inflated count; width 1: a
 * replaced byte). */
void ak_test_pokes(const unsigned char *bytes, size_t n, size_t limit, size_t stride, const uint32_t *values,
                   size_t count, size_t width, ak_test_sweep_fn *fn, void *user);
/* Every message as ak_message_format() puts it ("FILE: PLUGIN: warning:
 * TEXT (at byte N, 0xN)"), one a line (ak_report.on_message with `user`
 * an ak_test_said); the end is cut when it does not fit. */
typedef struct ak_test_said {
    char text[4096];
} ak_test_said;
void ak_test_collect(void *user, const ak_message *message);
/* Runs the suite and returns the exit status for main(). */
int ak_test_run(Suite *suite);

/* An allocator over malloc that keeps in *live the number of blocks it
 * holds (a registry's or a document's leaks and keepings show there). */
ak_allocator ak_test_counting_allocator(long *live);

#endif
