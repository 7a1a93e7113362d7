/* internal.h - what the core's files share; not installed. */
#ifndef ANIMKIT_INTERNAL_H
#define ANIMKIT_INTERNAL_H

#include "animkit/plugin.h"

#include <locale.h>
#include <stdarg.h>
#include <string.h>

/* How a document gets its memory, and how much it may still take. */
typedef struct ak_heap {
    ak_allocator allocator;
    size_t limit;   /* 0 = unlimited */
    size_t used;
    ak_job *job;    /* the read being performed, told when the limit is hit */
    /* Default reads: what the counts need (key arrays, counted twice for
     * the stored bytes and working memory that come with each key, and
     * reservations) is counted apart, up to key_limit bytes, and raises
     * `limit` by as much, so the rest of the document stays within the
     * small multiple of the input `limit` began with (ak_heap_grant).
     * 0 = everything counts against `limit` alone. */
    size_t key_limit;
    size_t key_used;
    struct ak_pool *pool; /* where large blocks come from and go back to; may be NULL */
} ak_heap;

struct ak_doc_private {
    ak_heap heap;
    struct ak_arena_block *arena; /* the newest block; older ones follow `next` */
    /* The newest block's free bytes, here rather than in the block: an
     * allocation then reads one structure, not two in a chain. */
    unsigned char *arena_next, *arena_end;
    void *arena_last;             /* the newest allocation (arrays grow in place there) */
    size_t arena_total;           /* bytes in all blocks */
    size_t arena_first;           /* size of the first block (ak_doc_expect) */
    struct ak_prop_index *prop_index; /* propindex.c; NULL until first used */
    /* The arena copies of recent property keys and the addresses they came
     * from: a plugin passes the same key for every track, and one copy
     * serves them all (doc.c, prop_key). */
    uintptr_t key_from[4];
    const char *key_copy[4];
    int outline; /* keys counted, not read (AK_READ_OUTLINE) */
    /* The codec that read the document and how many bytes it read: writing
     * it back in the same format likely takes as many (codec.c, ak_write). */
    const ak_codec *read_by;
    size_t read_size;
};

/* The private fingerprint ak_key_changed() compares (fingerprint.c says
 * how it is made): inline, since writers ask for it key by key. */
#define AK_FP_FACTORS 0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull, \
                      0xD6E8FEB86659FD93ull, 0xFF51AFD7ED558CCDull, 0xC4CEB9FE1A85EC53ull
#define AK_FP_TURNS 0, 1, 2, 3, 4, 5 /* each word's rotation, in bits (fingerprint.c says why) */
static inline uint64_t ak_fp_lane(const void *word, uint64_t factor, unsigned turn)
{
    uint64_t w;
    memcpy(&w, word, sizeof w);
    w = w << turn | w >> ((64 - turn) & 63);
    return w * factor;
}
static inline uint64_t ak_key_fingerprint(const ak_key *key)
{
    static const uint64_t f[6] = { AK_FP_FACTORS };
    static const unsigned r[6] = { AK_FP_TURNS };
    return ak_fp_lane(&key->time, f[0], r[0]) ^ ak_fp_lane(&key->tick, f[1], r[1]) ^
           ak_fp_lane(&key->v[0], f[2], r[2]) ^ ak_fp_lane(&key->v[1], f[3], r[3]) ^
           ak_fp_lane(&key->v[2], f[4], r[4]) ^ ak_fp_lane(&key->v[3], f[5], r[5]);
}
/* Private key flags (ak_key.flags_). */
enum { AK_KEY_HAS_RAW = 1, AK_KEY_TOUCHED = 2 };
/* The stored bytes of a key (all but its fingerprint). */
static inline void ak_key_attach(ak_key *key, const unsigned char *raw, size_t size)
{
    key->raw = raw;
    key->raw_size = (uint32_t)size;
    key->flags_ = (key->flags_ | AK_KEY_HAS_RAW) & ~(uint32_t)AK_KEY_TOUCHED;
}
/* fingerprint.c: keys[i] gets raw = base + i * stride (NULL when size is
 * 0), raw_size = size and its fingerprint. */
void ak_keys_attach_fingerprint(ak_key *keys, size_t count, const unsigned char *base, size_t stride, size_t size);
/* doc.c: ak_key_digest() of each of `count` keys into out[]. */
void ak_keys_digest(const ak_key *keys, size_t count, ak_channel_kind kind, uint64_t *out);
/* 1 when the key has stored bytes and was not marked edited. */
static inline int ak_key_attached(const ak_key *key)
{
    return (key->flags_ & (AK_KEY_HAS_RAW | AK_KEY_TOUCHED)) == AK_KEY_HAS_RAW;
}

/* propindex.c: the property with `key` (the document's copy, doc.c's
 * key_copy) in `props`, or NULL; then, after
 * appending one, ak_prop_index_added(). Lists shorter than
 * AK_PROP_SCAN_BELOW are scanned (cheaper than hashing) and enter the
 * index whole when they reach it, so adding to one need not tell it. */
#define AK_PROP_SCAN_BELOW 8
struct ak_prop *ak_prop_index_find(struct ak_prop_index *idx, struct ak_props *props, const char *key);
/* 0 when the index could not grow: the caller reports out of memory (the
 * property is kept; lookups then scan). */
int ak_prop_index_added(ak_heap *heap, struct ak_prop_index **idx, const struct ak_props *props);
void ak_prop_index_free(ak_heap *heap, struct ak_prop_index *idx);

struct ak_job {
    const ak_codec *codec;
    const char *filename;
    const char *const *params;
    ak_report *report;
    ak_status status;
    int failed;
    ak_heap *heap;           /* where scratch memory comes from and is counted */
    union ak_scratch *scratch; /* the live scratch blocks (scratch.c) */
    unsigned use;            /* AK_PARAM_READ or AK_PARAM_WRITE */
    /* Small scratch is carved first from a buffer on the stack of ak_read()
     * or ak_write() (ak_job_use_stack): a read's few small tables were a
     * malloc and a free each, a third of the time of reading a small file. */
    unsigned char *stack;
    size_t stack_size, stack_used;
    ak_doc *outline_doc; /* the document of a read asked for as an outline; NULL otherwise */
};

/* The stack buffer ak_read() and ak_write() lend their job: small enough
 * for a host thread's stack, large enough for a small file's tables. */
#define AK_JOB_STACK_SCRATCH 8192

struct ak_sink {
    const ak_allocator *allocator;
    unsigned char *data;
    size_t size, capacity;
    int failed;
    struct ak_pool *pool; /* large buffers come from and go back to it; may be NULL */
    size_t first;         /* the first block's size, when the output's is foreseen; 0: 4 KiB */
};

/* The allocator that wraps malloc. */
extern const ak_allocator ak_default_allocator;

void *ak_heap_alloc(ak_heap *heap, size_t size);
int ak_heap_refuse(ak_heap *heap, const char *what);

/* When counts are accounted apart (default reads), `bytes` more of them
 * are admitted against key_limit and raise the limit by as much, so the
 * rest of the document stays within what the limit began with. Inline:
 * readers ask once per channel, and the call cost more than the sums. */
static inline int ak_heap_grant(ak_heap *heap, size_t bytes, const char *what)
{
    if (!heap->limit || !heap->key_limit)
        return 1;
    if (bytes > heap->key_limit - heap->key_used || heap->limit > SIZE_MAX - bytes)
        return ak_heap_refuse(heap, what);
    heap->key_used += bytes;
    heap->limit += bytes;
    return 1;
}
void *ak_heap_realloc(ak_heap *heap, void *ptr, size_t old_size, size_t new_size);
void ak_heap_free(ak_heap *heap, void *ptr, size_t size);
/* The same for blocks that may come from and go back to the heap's pool:
 * `size` must be exactly what was asked for (or less). */
void *ak_heap_alloc_pooled(ak_heap *heap, size_t size);
void ak_heap_free_pooled(ak_heap *heap, void *ptr, size_t size);

/* pool.c: large blocks kept from freed documents for the next read. The
 * pool is counted: each document using it holds a reference. */
typedef struct ak_pool ak_pool;
#define AK_POOL_MIN ((size_t)16 << 10) /* smaller blocks are malloc's business */
#define AK_SINK_FIRST_MAX ((size_t)64 << 20) /* codec.c: an output's first block, at most */
ak_pool *ak_pool_new(const ak_allocator *allocator);
void ak_pool_retain(ak_pool *pool);
void ak_pool_release(ak_pool *pool);
/* A kept block of `size` to 2 x `size` bytes (its size in *got), or NULL. */
void *ak_pool_take(ak_pool *pool, size_t size, size_t *got);
/* Keeps the block (`size` bytes, exactly what was asked for or less), or
 * frees it with `allocator` when the pool is NULL or does not keep such
 * sizes. */
void ak_pool_put(ak_pool *pool, const ak_allocator *allocator, void *ptr, size_t size);
/* Growing a block through the pool: a kept block of at least `size` bytes
 * holding the first `keep` bytes of `old`, which goes to ak_pool_put(); NULL
 * (and `old` untouched) when the pool has none. */
void *ak_pool_move(ak_pool *pool, const ak_allocator *allocator, void *old, size_t keep, size_t old_size,
                   size_t size, size_t *got);
/* Frees every kept block; the bytes released. */
size_t ak_pool_trim(ak_pool *pool);
/* ak_write() hands the host a buffer of `size` bytes of capacity; the pool
 * remembers it (the last few) so that ak_buffer_free() can keep it. */
void ak_pool_lend(ak_pool *pool, void *ptr, size_t size);
/* 1 when `ptr` was lent (now kept or freed); 0 when the caller frees it. */
int ak_pool_return(ak_pool *pool, void *ptr);

/* A document whose memory comes from `allocator` and is capped at `limit`. */
ak_doc *ak_doc_new_with(const ak_allocator *allocator, size_t limit);
void ak_doc_attach_job(ak_doc *doc, ak_job *job, size_t limit);
/* Tells the arena that the document is read from `input` bytes: its first
 * block is sized for what such an input typically decodes to. */
void ak_doc_expect(ak_doc *doc, size_t input);
/* Lets the document take its large blocks from `pool` and give them back
 * when freed (it holds a reference until then). */
void ak_doc_use_pool(ak_doc *doc, ak_pool *pool);
/* Counts the key arrays of the read in progress apart, up to `key_limit`
 * bytes (see ak_heap); 0 = within the read's limit. */
void ak_doc_limit_keys(ak_doc *doc, size_t key_limit);
/* Appends copies of `src`'s bones (with their props) to `to`'s skeleton. */
ak_status ak_doc_copy_skeleton(ak_doc *to, const ak_skeleton *src);
/* Copies props into `to`'s props list `dst`. */
ak_status ak_copy_props(ak_doc *to, ak_props *dst, const ak_props *src);
/* Appends a deep copy of `src` (keys with their stored bytes and state)
 * to `to`. On failure the partial clip stays appended. */
ak_status ak_copy_clip(ak_doc *to, const ak_clip *src);
/* Frees every bone; the document then has no skeleton. */
void ak_doc_clear_skeleton(ak_doc *doc);
/* The skeleton's part of ak_doc_validate: parents, cycles, duplicate names
 * and ids, rest pose. Returns the number of errors. */
unsigned ak_validate_skeleton(const ak_doc *doc, const char *file, ak_report *report);
/* Frees the scratch blocks a plugin left behind; every job ends with it,
 * before the buffer of ak_job_use_stack() goes out of scope. */
void ak_job_release_scratch(ak_job *job);
/* Lends the job `size` bytes (aligned for any type) for small scratch. */
void ak_job_use_stack(ak_job *job, void *buffer, size_t size);

void ak_job_init(ak_job *job, const ak_codec *codec, const char *filename,
                 const char *const *params, ak_report *report);
/* Sends a message to a report: fills the error fields for errors, counts
 * warnings, calls the callback. */
void ak_report_emit(ak_report *report, ak_severity severity, ak_status status, const char *file,
                    const char *plugin, int64_t offset, const char *fmt, ...) AK_PRINTF(7, 8);
void ak_report_emitv(ak_report *report, ak_severity severity, ak_status status, const char *file,
                     const char *plugin, int64_t offset, const char *fmt, va_list ap);
/* The same with a text position (line, column: 1-based, 0 = none). */
void ak_report_emit_at(ak_report *report, ak_severity severity, ak_status status, const char *file,
                       const char *plugin, int64_t offset, uint32_t line, uint32_t column, const char *fmt,
                       va_list ap);
ak_status ak_fail_atv(ak_job *job, ak_status status, int64_t offset, uint32_t line, uint32_t column,
                      const char *fmt, va_list ap);

void ak_sink_init(ak_sink *sink, const ak_allocator *allocator);
/* Hands the buffer to the caller (reset the sink). */
unsigned char *ak_sink_take(ak_sink *sink, size_t *size);
void ak_sink_release(ak_sink *sink);

/* Shortest round-trip text of a number (dtoa.c): the fewest digits that
 * read back to exactly `v` (as a double, or as a float), the closest such
 * on a tie; "%g"-like layout (fixed for decimal exponents -5 < x < 15,
 * else "d.ddde+XX"), "-0" for negative zero, "nan", "inf", "-inf".
 * Independent of the locale. `buf` needs AK_SHORTEST_MAX bytes; returns
 * the length. */
#define AK_SHORTEST_MAX 32
size_t ak_shortest_double(double v, char *buf);
size_t ak_shortest_float(float v, char *buf);

const ak_allocator *ak_registry_allocator(const ak_registry *reg);
int ak_str_ieq(const char *a, const char *b);
/* The extension of a path without the dot, or "" */
const char *ak_path_extension(const char *path);
int ak_codec_has_extension(const ak_codec *codec, const char *ext);

/* Switches the calling thread to the C locale and returns what to hand
 * back to ak_c_locale_leave() (number.c); the process locale is untouched. */
locale_t ak_c_locale_enter(void);
void ak_c_locale_leave(locale_t previous);
/* A whole string as a decimal int64 (optional sign); 0 when it is not one. */
int ak_parse_int64(const char *s, int64_t *out);

/* Declared parameters (params.c). The codec's list, or NULL when it
 * declares none or was built before ABI 1.2. */
const ak_param *ak_codec_params(const ak_codec *codec);
/* The declaration of `key` for `use` (AK_PARAM_READ/WRITE), or NULL. */
const ak_param *ak_codec_param(const ak_codec *codec, const char *key, unsigned use);
/* Why the codec's declarations are malformed (into buf), or NULL. */
const char *ak_params_problem(const ak_codec *codec, char *buf, size_t size);
/* Whether `value` fits the declaration; on failure `why` says what it wants. */
int ak_param_value_ok(const ak_param *decl, const char *value, char *why, size_t size);

/* ak_doc_validate() naming `plugin` in its findings; `strict` (a read's
 * AK_READ_STRICT check) makes off-unit quaternions errors too. */
unsigned ak_doc_check(const ak_doc *doc, const char *file, const char *plugin, int strict, ak_report *report);

/* File-system calls the atomic writer makes, replaceable by tests to
 * inject disk-full, short-write and rename failures. */
typedef struct ak_file_ops {
    long (*write)(int fd, const void *buf, size_t n);
    int (*fsync)(int fd);
    int (*rename)(const char *from, const char *to);
    /* Moves without replacing anything (fails with EEXIST); NULL = the
     * POSIX one. Used when the caller did not ask to overwrite. */
    int (*rename_noreplace)(const char *from, const char *to);
} ak_file_ops;
extern const ak_file_ops ak_posix_file_ops;
/* The steps of the POSIX no-replace move, replaceable by tests: the
 * kernel's renameat2(RENAME_NOREPLACE), then where the file system has no
 * such rename link() and unlink(), then where it has no hard links a look
 * (lstat) and a plain rename. Fails with EEXIST when `to` exists. */
typedef struct ak_noreplace_calls {
    int (*rename_noreplace)(const char *from, const char *to);
    int (*link)(const char *from, const char *to);
    int (*rename)(const char *from, const char *to);
} ak_noreplace_calls;
int ak_move_noreplace(const ak_noreplace_calls *calls, const char *from, const char *to);
ak_status ak_file_replace_with(const ak_file_ops *ops, const char *path, const void *bytes,
                               size_t size, unsigned flags, ak_report *report);
/* fileio.c: reads `n` bytes of a regular file into `buf`, stopping short
 * only at the end of the file or an error; the count read. (EINTR and
 * EAGAIN are retried: a regular file opened O_NONBLOCK never blocks.) */
size_t ak_read_full(int fd, void *buf, size_t n);

#endif
