/*
 * plugin.h - the codec ABI: everything a format plugin needs and may use.
 *
 * A plugin is a shared object that exports one function,
 *
 *     const ak_codec *animkit_codec(void);
 *
 * returning a pointer to a static, constant descriptor. The core calls it
 * once, checks the descriptor (ABI major equal to its own, minor not newer,
 * struct_size large enough, a unique name) and refuses the plugin with one
 * message otherwise. All strings in the descriptor must be static.
 *
 * Rules for plugins:
 *  - Never print, exit, abort or keep global mutable state: every call may
 *    run on many threads at once. Report through ak_fail() and ak_warn().
 *  - Build documents only with the ak_* functions of animkit.h; the core
 *    owns all document memory and counts it against the read's limit.
 *  - Read input only through an ak_reader, which checks every length
 *    against the bytes that remain. Check every count with ak_need_array()
 *    before reserving or looping on it.
 *  - Write output only into the ak_sink you are given.
 *  - Take working memory with ak_job_alloc(), not malloc(): it counts
 *    against the same limit as the document.
 *
 * ABI history: 1.0 - first release.
 *              1.1 - ak_job_alloc(), ak_job_realloc(), ak_job_free().
 *                    Building against this header says 1.1, which a 1.0
 *                    core refuses; 1.0 plugins keep loading.
 *              1.2 - skeletons: ak_bone, ak_doc.skeleton, ak_track.skeleton_bone,
 *                    ak_bone_add() and the ak_skeleton_find_*() lookups,
 *                    ak_doc_match_skeleton(), ak_doc_attach_skeleton(),
 *                    ak_clip_skeleton_matched(), AK_CAP_SKELETON.
 *                    ak_doc_validate() checks skeletons; ak_read() ties
 *                    the tracks of a file that carries its own skeleton;
 *                    JSON schema 1 (and the json plugin) carry skeletons.
 *                    Editing: ak_doc_clip_index(), ak_doc_put_clip(),
 *                    ak_doc_merge(), ak_doc_extract_clip(),
 *                    ak_doc_rename_bones(), ak_doc_assign_bone_ids(),
 *                    ak_retime + ak_clip_retime(), ak_diff_* + ak_doc_diff(),
 *                    ak_diff_free().
 *                    1.0 and 1.1 plugins keep loading.
 *                    AK_PLUGIN_ENTRY() and its ELF note (ak_plugin_note),
 *                    read before loading; AK_REG_UNSAFE_PLUGINS.
 *                    ak_job_reserve().
 */
#ifndef ANIMKIT_PLUGIN_H
#define ANIMKIT_PLUGIN_H

#include "animkit.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AK_ABI_MAJOR 1
#define AK_ABI_MINOR 2

/* Name of the entry symbol and its type. */
#define AK_CODEC_ENTRY "animkit_codec"
typedef const ak_codec *(*ak_codec_entry_fn)(void);

/*
 * AK_PLUGIN_ENTRY(descriptor): defines and exports the entry point of a
 * plugin, returning &descriptor, with C linkage and default visibility (so
 * it works from C++ and under -fvisibility=hidden). Write it once, at file
 * scope, after the descriptor:
 *
 *     static const ak_codec my_codec = { ... };
 *     AK_PLUGIN_ENTRY(my_codec);
 *
 * It also places an ELF note (ak_plugin_note, section .note.animkit) with
 * the ABI and descriptor size the plugin was built for. The core reads the
 * note from the file before loading it, so a plugin built for another ABI
 * is refused without any of its code running (not even constructors).
 * (The name is checked after loading: in C a descriptor's fields are not
 * constants the note could hold.) Plugins built without the macro still
 * load, with a warning, after their code has run. (1.2)
 */
#define AK_NOTE_NAME "animkit"
#define AK_NOTE_TYPE 0x414b0001u /* "AK" 1 */
typedef struct ak_plugin_note {
    uint32_t namesz;      /* 8: sizeof "animkit" */
    uint32_t descsz;      /* 16: the four fields below */
    uint32_t type;        /* AK_NOTE_TYPE */
    char name[8];         /* "animkit" */
    uint32_t abi_major;   /* AK_ABI_MAJOR as the plugin was built */
    uint32_t abi_minor;   /* AK_ABI_MINOR as the plugin was built */
    uint32_t struct_size; /* sizeof(ak_codec) as the plugin was built */
    uint32_t reserved;    /* 0 */
} ak_plugin_note;

#ifdef __cplusplus
#define AK_EXTERN_C_ extern "C"
#else
#define AK_EXTERN_C_
#endif
/* The note alone, for tests that fake another ABI; plugins use AK_PLUGIN_ENTRY. */
#define AK_PLUGIN_NOTE_(major, minor)                                                                 \
    __attribute__((section(".note.animkit"), used, aligned(4))) static const ak_plugin_note         \
        ak_plugin_note_ = { 8, 16, AK_NOTE_TYPE, AK_NOTE_NAME, (major), (minor),                     \
                            (uint32_t)sizeof(ak_codec), 0 };
#define AK_PLUGIN_ENTRY(descriptor)                                                                   \
    AK_PLUGIN_NOTE_(AK_ABI_MAJOR, AK_ABI_MINOR)                                                       \
    AK_EXTERN_C_ __attribute__((visibility("default"))) const ak_codec *animkit_codec(void);         \
    AK_EXTERN_C_ __attribute__((visibility("default"))) const ak_codec *animkit_codec(void)          \
    {                                                                                                 \
        return &(descriptor);                                                                         \
    }                                                                                                 \
    typedef int ak_plugin_entry_end_

/* Probe scores. */
#define AK_PROBE_MAGIC 100     /* the format's magic bytes match */
#define AK_PROBE_EXTENSION 25  /* the most an extension alone may claim */

/* What a codec can hold; the core compares these with a document before a
 * write and warns about everything the target must drop. */
typedef enum ak_caps {
    AK_CAP_MULTI_CLIP = 1 << 0,  /* more than one clip per file */
    AK_CAP_TRANSLATION = 1 << 1,
    AK_CAP_SCALE = 1 << 2,
    AK_CAP_VISIBILITY = 1 << 3,
    AK_CAP_EVENTS = 1 << 4,
    AK_CAP_BONE_ID = 1 << 5,
    AK_CAP_BONE_HASH = 1 << 6,
    AK_CAP_WEIGHT = 1 << 7,      /* per-track blend weight */
    AK_CAP_BONE_NAME = 1 << 8,   /* bones are stored by name */
    AK_CAP_ANY_FORMAT = 1 << 9,  /* keeps every format's own data (props, stored
                                    key bytes) losslessly, as JSON does */
    AK_CAP_SKELETON = 1 << 10,   /* stores a bone hierarchy and rest pose (1.2) */
    AK_CAPS_MAX_ = INT32_MAX
} ak_caps;

typedef struct ak_job ak_job;   /* one read or write call (opaque) */
typedef struct ak_sink ak_sink; /* growing output buffer (opaque) */

/*
 * The descriptor. Fields up to `write` form ABI 1.0; later minors append.
 */
struct ak_codec {
    uint32_t abi_major;       /* AK_ABI_MAJOR as the plugin was built */
    uint32_t abi_minor;       /* AK_ABI_MINOR as the plugin was built */
    uint32_t struct_size;     /* sizeof(ak_codec) as the plugin was built */
    uint32_t caps;            /* ak_caps bits */
    const char *name;         /* unique, [a-z0-9_]+, e.g. "ifp" */
    const char *version;      /* the plugin's own version, e.g. "1.2.0" */
    const char *description;  /* one line for `animkit formats` */
    const char *license;      /* SPDX identifier */
    const char *extensions;   /* comma-separated, no dots: "anm,anim" */

    /* How sure the plugin is that `bytes` (the whole input) is its format:
     * 0 = not at all, AK_PROBE_MAGIC for a magic match, at most
     * AK_PROBE_EXTENSION from the file name alone. `filename` may be NULL.
     * Must be cheap and must not allocate. */
    int (*probe)(const unsigned char *bytes, size_t size, const char *filename);

    /* Decodes `bytes` into the empty document `doc`. Returns AK_OK, or the
     * status given to ak_fail(). NULL = the codec cannot read. On failure
     * the core frees the document. */
    ak_status (*read)(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc);

    /* Encodes `doc` into `out`. NULL = the codec cannot write. Anything the
     * format cannot hold that the generic caps do not cover is reported
     * with ak_warn(). */
    ak_status (*write)(ak_job *job, const ak_doc *doc, ak_sink *out);
};

/* ------------------------------------------------------------------------
 * Jobs: reporting and parameters.
 * ------------------------------------------------------------------------ */

/* Records an error at byte `offset` (-1 for none) and returns `status`, so
 * a plugin can `return ak_fail(job, AK_E_DATA, off, "...")`. Only the first
 * error of a job is kept. */
AK_API ak_status ak_fail(ak_job *job, ak_status status, int64_t offset, const char *fmt, ...)
    AK_PRINTF(4, 5);
/* A warning at `offset` (-1 for none). */
AK_API void ak_warn(ak_job *job, int64_t offset, const char *fmt, ...) AK_PRINTF(3, 4);
/* The value of a "key=value" parameter, or NULL. */
AK_API const char *ak_job_param(const ak_job *job, const char *key);
/* A numeric parameter, or `fallback` when absent; a malformed value fails
 * the job and returns `fallback`. */
AK_API double ak_job_param_number(ak_job *job, const char *key, double fallback);
AK_API const char *ak_job_filename(const ak_job *job);
/* 1 once the job has failed (ak_fail, an allocation over the limit...). */
AK_API int ak_job_failed(const ak_job *job);

/* Scratch memory for the length of one read or write (ABI 1.1): `count`
 * items of `size` bytes, zeroed, from the host's allocator. A read's
 * scratch counts against the same limit as its document. On failure
 * (including count x size overflowing) the job fails with AK_E_NOMEM or
 * AK_E_LIMIT and NULL is returned; ak_job_realloc() then leaves `ptr` as it
 * was. Growing keeps the contents and zeroes the new part. Blocks not
 * given back with ak_job_free() are freed when the job ends. */
AK_API void *ak_job_alloc(ak_job *job, size_t count, size_t size);
AK_API void *ak_job_realloc(ak_job *job, void *ptr, size_t count, size_t size);
AK_API void ak_job_free(ak_job *job, void *ptr);
/* Counts `bytes` that a library the plugin calls will allocate outside the
 * job (a parser's tree, say) against the read's limit, without allocating
 * them. NULL, with the job failed (AK_E_LIMIT naming `what`, or
 * AK_E_NOMEM), when they do not fit. The handle is given back with
 * ak_job_free() once that memory is freed, or at the end of the job. (1.2) */
AK_API void *ak_job_reserve(ak_job *job, size_t bytes, const char *what);

/* ------------------------------------------------------------------------
 * Bounds-checked little-endian reading. Every accessor checks the bytes
 * that remain; the first overrun fails the job with the offset and what was
 * being read, and from then on every accessor returns 0 without moving.
 * ------------------------------------------------------------------------ */
typedef struct ak_reader {
    const unsigned char *data; /* the whole input */
    size_t size;               /* end of this reader's window */
    size_t pos;                /* absolute offset into `data` */
    ak_job *job;
    int failed;
} ak_reader;

AK_API void ak_reader_init(ak_reader *r, ak_job *job, const unsigned char *data, size_t size);
AK_API size_t ak_remaining(const ak_reader *r);
/* 1 if `n` more bytes exist; else fails the job naming `what`. */
AK_API int ak_need(ak_reader *r, size_t n, const char *what);
/* 1 if `count` elements of at least `min_size` bytes each can still follow;
 * else fails the job naming `what` and the count. Call it before any
 * allocation or loop sized by a count from the file. */
AK_API int ak_need_array(ak_reader *r, uint64_t count, size_t min_size, const char *what);
AK_API int ak_skip(ak_reader *r, size_t n, const char *what);
AK_API int ak_seek(ak_reader *r, size_t pos, const char *what);
/* A reader over the next `n` bytes; the parent moves past them. */
AK_API ak_reader ak_sub(ak_reader *r, size_t n, const char *what);

AK_API uint8_t ak_u8(ak_reader *r);
AK_API uint16_t ak_u16(ak_reader *r);
AK_API uint32_t ak_u32(ak_reader *r);
AK_API uint64_t ak_u64(ak_reader *r);
AK_API int16_t ak_i16(ak_reader *r);
AK_API int32_t ak_i32(ak_reader *r);
AK_API float ak_f32(ak_reader *r);
/* A pointer to the next `n` bytes (NULL on overrun). */
AK_API const unsigned char *ak_bytes(ak_reader *r, size_t n, const char *what);

/* Unchecked little-endian loads from memory already bounds-checked. */
AK_API uint16_t ak_load_u16(const unsigned char *p);
AK_API uint32_t ak_load_u32(const unsigned char *p);
AK_API float ak_bits_f32(uint32_t bits);
AK_API uint32_t ak_f32_bits(float value);

/* ------------------------------------------------------------------------
 * Output. Allocation failures are sticky: check ak_sink_failed() (or the
 * return of the last ak_put) before returning AK_OK.
 * ------------------------------------------------------------------------ */
AK_API int ak_put(ak_sink *s, const void *data, size_t size);
AK_API int ak_put_zeros(ak_sink *s, size_t size);
AK_API int ak_put_u8(ak_sink *s, uint8_t v);
AK_API int ak_put_u16(ak_sink *s, uint16_t v);
AK_API int ak_put_u32(ak_sink *s, uint32_t v);
AK_API int ak_put_u64(ak_sink *s, uint64_t v);
AK_API int ak_put_i16(ak_sink *s, int16_t v);
AK_API int ak_put_i32(ak_sink *s, int32_t v);
AK_API int ak_put_f32(ak_sink *s, float v);
/* Bytes written so far: the offset of the next byte. */
AK_API size_t ak_sink_size(const ak_sink *s);
/* Overwrites 4 bytes already written at `offset` (for sizes known late). */
AK_API int ak_sink_patch_u32(ak_sink *s, size_t offset, uint32_t v);
AK_API int ak_sink_failed(const ak_sink *s);

#ifdef __cplusplus
}
#endif
#endif /* ANIMKIT_PLUGIN_H */
