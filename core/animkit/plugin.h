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
 *                    Declared parameters: ak_param, ak_codec.params (read
 *                    only inside struct_size), ak_job_param_int/_bool/
 *                    _string(), declared defaults in ak_job_param_number().
 *                    Text: ak_text and ak_text_*(), ak_fail_at(),
 *                    ak_parse_number(), ak_format_number() (any locale).
 *                    Host API: ak_options.flags (AK_READ_STRICT),
 *                    ak_message.line/.column.
 *                    Editing: ak_doc_clip_index(), ak_doc_put_clip(),
 *                    ak_doc_merge(), ak_doc_extract_clip(),
 *                    ak_doc_rename_bones(), ak_doc_assign_bone_ids(),
 *                    ak_retime + ak_clip_retime(), ak_diff_* + ak_doc_diff(),
 *                    ak_diff_free().
 *                    ak_job_read_sibling() (files beside the input, e.g. .gltf + .bin).
 *                    Bulk keys: ak_keys_append(), ak_doc_store(),
 *                    ak_keys_set_raw() (a channel's keys and stored bytes
 *                    in one call each; the per-key calls keep working).
 *                    Quaternions: ak_quat_mul(), ak_quat_normalize(),
 *                    ak_quat_to_matrix(), ak_quat_from_matrix().
 *                    ak_digest_bytes() (FNV-1a).
 *                    1.0 and 1.1 plugins keep loading.
 *                    AK_PLUGIN_ENTRY() and its ELF note (ak_plugin_note),
 *                    read before loading; AK_REG_UNSAFE_PLUGINS.
 *                    ak_job_reserve().
 *                    Default read cap split: AK_READ_ALLOC_FACTOR 256 -> 16
 *                    and AK_READ_ALLOC_BASE 64 -> 32 MiB for what input
 *                    bytes become; new AK_READ_KEY_FACTOR (240) and
 *                    AK_READ_KEY_BASE (32 MiB) for key arrays (counted
 *                    twice) and ak_job_reserve(); max_alloc unchanged.
 *              1.3 - speed: ak_keys_append_uninit() and ak_job_alloc_uninit()
 *                    (no clearing of memory the plugin overwrites anyway);
 *                    ak_keys_unchanged() (a writer asks once per channel);
 *                    ak_peek_u16/_u32/_f32(), ak_poke_u32(): inline
 *                    little-endian loads and store;
 *                    host API: ak_registry_trim() and AK_REG_NO_POOL (a
 *                    registry keeps the blocks that freed documents,
 *                    scratch and returned output buffers leave, for later
 *                    reads and writes; ak_buffer_free() gives a buffer
 *                    back). ak_codec is unchanged; 1.0, 1.1 and 1.2
 *                    plugins keep loading (tests/plugins/oldminor.c,
 *                    minor11.c, minor12.c).
 *                    Later, header only (no symbol, no ABI change): the
 *                    inline readers ak_left(), ak_take(), ak_take_u8/_u16/
 *                    _u32(); they call nothing newer than 1.0's ak_bytes().
 *                    ak_filename_has_extension() for probes (calls only
 *                    the C library).
 *              1.4 - outlines: AK_READ_OUTLINE, ak_track.outline_keys
 *                    (appended; tracks are only made by ak_track_add()),
 *                    ak_doc_outline(); for plugins ak_job_outline() and
 *                    ak_keys_outline(). Host API: AK_REG_KEEP_LOADED.
 *                    ak_codec is unchanged; 1.0 to 1.3 plugins keep
 *                    loading (tests/plugins/minor13.c and the older ones)
 *                    and read in full when an outline is asked for.
 *                    Later (no symbol, no ABI change): ak_probe() asks
 *                    probes without the file name first, and a single
 *                    magic match wins at once (see ak_codec.probe).
 *              1.5 - ak_track_add_n(): a track named by a length and bytes
 *                    that need not end in a NUL, as names lie in files
 *                    (copying one out to terminate it, then the core
 *                    measuring the copy, was a fifth of a read of
 *                    citroen_bodyback.anm). ak_codec is unchanged; 1.0 to
 *                    1.4 plugins keep loading (tests/plugins/minor14.c
 *                    and the older ones).
 *              1.6 - ak_track_keys_append_uninit(): a track's keys for all
 *                    its channels in one call and, when the channels were
 *                    empty, one block in channel order, so that one
 *                    ak_keys_set_raw() attaches stored bytes of one size
 *                    across channels (a call of each per channel was a
 *                    tenth of a read of hmmwv.anm). ak_codec is unchanged;
 *                    1.0 to 1.5 plugins keep loading (tests/plugins/
 *                    minor15.c and the older ones).
 *              1.7 - ak_doc_store_uninit() and ak_prop_set_bytes_uninit():
 *                    stored bytes and a bytes property that the reader
 *                    writes in place, with no clearing and no copy (the
 *                    anm reader built each bone's records table in
 *                    scratch to copy it into a property, and cleared its
 *                    key bytes before writing them: 2 to 3 % of a read of
 *                    hmmwv.anm). ak_codec is unchanged; 1.0 to 1.6
 *                    plugins keep loading (tests/plugins/minor16.c and
 *                    the older ones).
 *                    Later, header only (no symbol, no ABI change):
 *                    ak_parse_nonfinite(), the words "nan", "inf" and
 *                    "-inf" read back (calls only the C library), for the
 *                    json and gltf plugins, which each had a copy.
 *                    Later (no ABI change): libanimkit.so exports only
 *                    the functions these two headers declare AK_API. It
 *                    used to export 68 internal helpers as well, which no
 *                    header declared and no plugin or host may call
 *                    (tests/core/exports.sh).
 */
#ifndef ANIMKIT_PLUGIN_H
#define ANIMKIT_PLUGIN_H

#include "animkit.h"

#include <math.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AK_ABI_MAJOR 1
#define AK_ABI_MINOR 7

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

/* Whether the last part of `filename` ends in "." `ext`, ASCII letters
 * matched without case and in any locale ("walk.IFP" has "ifp"; "a.b/ifp"
 * has none). For probes (header only, no symbol: every probe runs on every
 * read without a named format, so this walks back from the end once
 * instead of searching the whole path twice). `filename` may be NULL. */
static inline int ak_filename_has_extension(const char *filename, const char *ext)
{
    if (!filename)
        return 0;
    const char *p = filename + strlen(filename);
    while (p > filename && p[-1] != '.' && p[-1] != '/')
        p--;
    if (p == filename || p[-1] != '.')
        return 0;
    for (;; p++, ext++) {
        char a = *p >= 'A' && *p <= 'Z' ? (char)(*p + 32) : *p;
        char b = *ext >= 'A' && *ext <= 'Z' ? (char)(*ext + 32) : *ext;
        if (a != b)
            return 0;
        if (!a)
            return 1;
    }
}

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

/* Declared parameters (ABI 1.2). A codec lists the "-p KEY=VALUE"
 * parameters it understands; the core then checks every parameter of a
 * call before the codec runs: a name that no loaded codec declares, or a
 * value of the wrong type for this codec, fails the call with AK_E_USAGE
 * (naming the closest declared name). A name declared only by another
 * codec, or by this one for the other direction, is left for that one (a
 * convert passes the same parameters to its reader and its writer). A codec
 * that declares nothing (params NULL) gets every parameter unchecked. */
typedef enum ak_param_type {
    AK_PARAM_STRING = 0,  /* any text */
    AK_PARAM_INT = 1,     /* decimal integer, optional sign, fits int64_t */
    AK_PARAM_NUMBER = 2,  /* decimal number with '.' as the decimal point */
    AK_PARAM_BOOL = 3,    /* yes/no, true/false, on/off, 1/0 */
    AK_PARAM_CHOICE = 4,  /* one of `choices`, compared without case */
    AK_PARAM_TYPE_MAX_ = INT32_MAX
} ak_param_type;

typedef enum ak_param_use {
    AK_PARAM_READ = 1,    /* the parameter applies to the codec's read */
    AK_PARAM_WRITE = 2,   /* ... to its write */
    AK_PARAM_USE_MAX_ = INT32_MAX
} ak_param_use;

typedef struct ak_param {
    const char *name;          /* [a-z0-9_]+; NULL ends the list */
    ak_param_type type;
    uint32_t use;              /* ak_param_use bits; a name may appear twice
                                  with different uses and defaults */
    const char *choices;       /* AK_PARAM_CHOICE: "|"-separated, e.g. "ANP3|ANPK" */
    const char *default_value; /* as written after '=', or NULL for "none: the
                                  codec decides" (e.g. the document's own variant) */
    const char *help;          /* one line for `animkit formats -v` */
} ak_param;
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
     * AK_PROBE_EXTENSION from the file name alone. `filename` may be NULL,
     * and the core asks without it first (ak_probe): a magic match must
     * score AK_PROBE_MAGIC whatever the name. May be called more than once
     * for one input. Must be cheap and must not allocate. */
    int (*probe)(const unsigned char *bytes, size_t size, const char *filename);

    /* Decodes `bytes` into the empty document `doc`. Returns AK_OK, or the
     * status given to ak_fail(). NULL = the codec cannot read. On failure
     * the core frees the document. `bytes` is not NUL-terminated (read text
     * with ak_text) and lives only during the call: everything kept goes
     * into the document, which copies it. Setting doc->format is optional
     * (ak_doc_set_format). With AK_READ_STRICT the core validates what is
     * returned. */
    ak_status (*read)(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc);

    /* Encodes `doc` into `out`. NULL = the codec cannot write. Anything the
     * format cannot hold that the generic caps do not cover is reported
     * with ak_warn(). A codec without AK_CAP_MULTI_CLIP is only ever given
     * a document of exactly one clip (the core refuses others before the
     * call), so doc->clips[0] is valid there; a multi-clip writer may be
     * given none. The document is const: never change it, not even to
     * normalise; write what it holds. */
    ak_status (*write)(ak_job *job, const ak_doc *doc, ak_sink *out);

    /* ABI 1.2: the declared parameters, ended by an entry whose name is
     * NULL (an empty list: the codec takes none, and every parameter given
     * to it is checked); NULL = not declared, nothing is checked. The core
     * refuses a plugin whose declarations are malformed (bad name or type,
     * a choice list missing, a default that does not fit its type). */
    const ak_param *params;
};

/* ------------------------------------------------------------------------
 * Jobs: reporting and parameters.
 * ------------------------------------------------------------------------ */

/* Records an error at byte `offset` (-1 for none) and returns `status`, so
 * a plugin can `return ak_fail(job, AK_E_DATA, off, "...")`. Only the first
 * error of a job is kept. */
AK_API ak_status ak_fail(ak_job *job, ak_status status, int64_t offset, const char *fmt, ...)
    AK_PRINTF(4, 5);
/* Outlines (ABI 1.4). 1 when the host asked for an outline
 * (AK_READ_OUTLINE) of the document being read. By asking, the plugin
 * takes it on: the document is an outline from then on, and for each
 * channel the plugin gives the number of keys the file holds to
 * ak_keys_outline() instead of adding the keys. Everything else (clips,
 * tracks, props, events, durations, the skeleton, warnings) is read as in
 * a full read: a host's listing must not depend on which read it made.
 * 0 for a full read; a plugin that never asks reads in full. */
AK_API int ak_job_outline(ak_job *job);
/* Adds `count` to track->outline_keys[kind]. AK_E_USAGE when the document
 * is not an outline (keys must then be read), for a bad kind, or when the
 * sum would overflow. Check `count` against the input first, as for
 * ak_keys_append(): the counts must be the file's. */
AK_API ak_status ak_keys_outline(ak_track *track, ak_channel_kind kind, size_t count);

/* ak_fail() for text input (ABI 1.2): also the 1-based line and column
 * (0 = unknown) that messages show as FILE:LINE:COLUMN. */
AK_API ak_status ak_fail_at(ak_job *job, ak_status status, int64_t offset, uint32_t line, uint32_t column,
                            const char *fmt, ...) AK_PRINTF(6, 7);
/* A warning at `offset` (-1 for none). */
AK_API void ak_warn(ak_job *job, int64_t offset, const char *fmt, ...) AK_PRINTF(3, 4);
/* The value of a "key=value" parameter as given, or NULL. */
AK_API const char *ak_job_param(const ak_job *job, const char *key);
/* Typed parameters. Each returns the value given; when absent, the default
 * the codec declares for `key` in this direction (ak_codec.params), else
 * `fallback`. A malformed value fails the job (AK_E_USAGE) and returns
 * `fallback`; declared parameters were already checked by the core, so
 * that happens only for undeclared ones. Numbers are parsed the same in
 * every locale (ak_parse_number). Booleans: yes/no, true/false, on/off, 1/0. */
AK_API double ak_job_param_number(ak_job *job, const char *key, double fallback);
AK_API int64_t ak_job_param_int(ak_job *job, const char *key, int64_t fallback);      /* 1.2 */
AK_API int ak_job_param_bool(ak_job *job, const char *key, int fallback);             /* 1.2 */
AK_API const char *ak_job_param_string(ak_job *job, const char *key, const char *fallback); /* 1.2 */
AK_API const char *ak_job_filename(const ak_job *job);
/* 1 once the job has failed (ak_fail, an allocation over the limit...). */
AK_API int ak_job_failed(const ak_job *job);

/* Scratch memory for the length of one read or write (ABI 1.1): `count`
 * items of `size` bytes, zeroed, from the host's allocator, or, for the
 * first few KiB of a job, from a buffer on the core's stack (so never keep
 * a pointer past the job). A read's heap scratch counts against the same
 * limit as its document. On failure
 * (including count x size overflowing) the job fails with AK_E_NOMEM or
 * AK_E_LIMIT and NULL is returned; ak_job_realloc() then leaves `ptr` as it
 * was. Growing keeps the contents and zeroes the new part. Blocks not
 * given back with ak_job_free() are freed when the job ends. */
AK_API void *ak_job_alloc(ak_job *job, size_t count, size_t size);
/* ak_job_alloc() without the zeroing (1.3), for a buffer the plugin fills
 * completely before reading any of it. */
AK_API void *ak_job_alloc_uninit(ak_job *job, size_t count, size_t size);
AK_API void *ak_job_realloc(ak_job *job, void *ptr, size_t count, size_t size);
AK_API void ak_job_free(ak_job *job, void *ptr);
/* Counts `bytes` that a library the plugin calls will allocate outside the
 * job (a parser's tree, say) against the read's limit, without allocating
 * them: under the default cap, against the part for what counts need
 * (AK_READ_KEY_FACTOR, animkit.h), with the key arrays. NULL, with the job failed (AK_E_LIMIT naming `what`, or
 * AK_E_NOMEM), when they do not fit. The handle is given back with
 * ak_job_free() once that memory is freed, or at the end of the job. (1.2) */
AK_API void *ak_job_reserve(ak_job *job, size_t bytes, const char *what);

/* Reads a companion file of the input (ABI 1.2), e.g. the .bin a .gltf
 * names. `name` is taken relative to the folder of the read's file name
 * (ak_options.filename, else the path given to ak_read_file) and must be a
 * plain relative name: not empty, not absolute, no "..", no backslash, no
 * ':' (URL schemes, drives); a symbolic link may not lead out of that
 * folder either. Refusals fail the job with AK_E_DATA, a missing file with
 * AK_E_NOINPUT. The bytes are scratch memory of the job (free them with
 * ak_job_free() or leave them to the job's end) and count against the
 * read's memory cap (AK_E_LIMIT beyond it). */
AK_API ak_status ak_job_read_sibling(ak_job *job, const char *name, const unsigned char **data, size_t *size);

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
/* The same loads inline, in the plugin itself (1.3): in a per-key loop a
 * call through the library costs more than the load. */
static inline uint16_t ak_peek_u16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t ak_peek_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline float ak_peek_f32(const unsigned char *p)
{
    uint32_t bits = ak_peek_u32(p);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
/* Inline forms of ak_remaining(), ak_bytes() and ak_u8/u16/u32() for a
 * plugin's per-record loops (header only: no symbol of their own): the
 * same checks and results, and an overrun goes to ak_bytes(), which fails
 * the job exactly as the exported readers do. `what` names the field in
 * that message. A call into the library cost more than such a read. */
static inline size_t ak_left(const ak_reader *r)
{
    return r->failed || r->pos > r->size ? 0 : r->size - r->pos;
}
static inline const unsigned char *ak_take(ak_reader *r, size_t n, const char *what)
{
    if (r->failed || r->pos > r->size || n > r->size - r->pos)
        return ak_bytes(r, n, what);
    const unsigned char *p = r->data + r->pos;
    r->pos += n;
    return p;
}
static inline uint8_t ak_take_u8(ak_reader *r, const char *what)
{
    const unsigned char *p = ak_take(r, 1, what);
    return p ? p[0] : 0;
}
static inline uint16_t ak_take_u16(ak_reader *r, const char *what)
{
    const unsigned char *p = ak_take(r, 2, what);
    return p ? ak_peek_u16(p) : 0;
}
static inline uint32_t ak_take_u32(ak_reader *r, const char *what)
{
    const unsigned char *p = ak_take(r, 4, what);
    return p ? ak_peek_u32(p) : 0;
}
/* And the store, for a plugin assembling bytes in its own buffer. Where
 * the processor is little-endian, one store: compilers left the four
 * byte stores as they were. */
static inline void ak_poke_u32(unsigned char *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, sizeof v);
#else
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
#endif
}

/* ------------------------------------------------------------------------
 * Numbers as text (ABI 1.2), the same whatever locale the host has set:
 * '.' is the decimal point, there are no digit groups. Never use strtod,
 * atof or printf's %g/%f in a plugin: they follow the host's locale.
 * ------------------------------------------------------------------------ */

/* Longest number text ak_parse_number() accepts. */
#define AK_NUMBER_MAX_TEXT 400
/* Reads the number at the start of `text` (`size` bytes, no terminator
 * needed): [+-]? digits with an optional '.' fraction, or '.' digits, then
 * an optional exponent [eE][+-]?digits. No spaces, hex, inf or nan. Stores
 * the nearest double in *out and returns the bytes used; 0 (and *out
 * untouched) when no number starts there, or it is longer than
 * AK_NUMBER_MAX_TEXT or beyond a double's range. */
AK_API size_t ak_parse_number(const char *text, size_t size, double *out);
/* Writes `value` into `buf` as %g would in the C locale with
 * `significant_digits` digits (1-17), or with 0 the shortest text that
 * ak_parse_number() reads back to exactly `value`. Non-finite values give
 * "nan", "inf", "-inf". Returns the length the text needs without its
 * terminator, as snprintf does: 32 bytes always suffice. */
AK_API int ak_format_number(double value, int significant_digits, char *buf, size_t size);
/* The inverse of ak_format_number() for the values it writes as words:
 * 1, with *out set, when `s` is exactly "nan", "inf" or "-inf"; else 0
 * and *out untouched. For text formats that keep non-finite numbers as
 * those strings, JSON having no literal for them (header only). */
static inline int ak_parse_nonfinite(const char *s, double *out)
{
    if (strcmp(s, "nan") == 0)
        *out = NAN;
    else if (strcmp(s, "inf") == 0)
        *out = INFINITY;
    else if (strcmp(s, "-inf") == 0)
        *out = -INFINITY;
    else
        return 0;
    return 1;
}

/* ------------------------------------------------------------------------
 * Reading text formats (ABI 1.2). The input is not NUL-terminated; lines
 * end with LF, CR LF or a lone CR; tokens are separated by spaces and tabs.
 * Errors go through ak_fail_at() with the byte offset, the line and the
 * column (1-based, in bytes), which the CLI shows as FILE:LINE:COLUMN. As
 * with ak_reader, the first failure is sticky: afterwards every call
 * returns NULL or 0 without moving.
 * ------------------------------------------------------------------------ */
typedef struct ak_text {
    const unsigned char *data; /* the whole input */
    size_t size;
    size_t pos;                /* offset of the next byte */
    size_t line_start;         /* offset where the line of `pos` begins */
    uint32_t line;             /* 1-based line of `pos` */
    uint32_t token_line;       /* line of the last token read, 0 before any */
    size_t token;              /* offset of the last token read */
    size_t token_line_start;
    ak_job *job;
    int failed;
} ak_text;

AK_API void ak_text_init(ak_text *t, ak_job *job, const unsigned char *data, size_t size);
/* 1 when no bytes are left. */
AK_API int ak_text_at_end(const ak_text *t);
/* Skips spaces and tabs; 1 if the current line has nothing more. */
AK_API int ak_text_at_line_end(ak_text *t);
/* The next token of the current line (its length in *len), or NULL at the
 * line's end. The pointer is into the input: not NUL-terminated. */
AK_API const char *ak_text_token(ak_text *t, size_t *len);
/* The next token, going on to later lines; NULL at the end of the input. */
AK_API const char *ak_text_word(ak_text *t, size_t *len);
/* The rest of the current line without its line end, moving past it;
 * NULL at the end of the input. */
AK_API const char *ak_text_line(ak_text *t, size_t *len);
/* Moves to the start of the next line; 0 when there is none. */
AK_API int ak_text_next_line(ak_text *t);
/* The next token of the current line as a number (ak_parse_number, the
 * whole token); otherwise fails the job naming `what` and returns 0. */
AK_API int ak_text_number(ak_text *t, const char *what, double *out);
/* The next word (ak_text_word) must be `word` exactly; otherwise fails the
 * job and returns 0. */
AK_API int ak_text_expect(ak_text *t, const char *word);
/* 1 if `len` bytes at `token` spell `word` exactly. */
AK_API int ak_text_is(const char *token, size_t len, const char *word);
/* Fails the job at the last token read if it is on the current line, else
 * at the current position, with its line and column; returns `status`. */
AK_API ak_status ak_text_fail(ak_text *t, ak_status status, const char *fmt, ...) AK_PRINTF(3, 4);

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
