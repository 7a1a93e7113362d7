/*
 * animkit.h - the host API of libanimkit: documents, the codec registry,
 * reading, writing and reporting.
 *
 * Contract rules (the same as for plugin.h):
 *  - Every struct that a caller fills in starts with `struct_size`, set by the
 *    caller to sizeof() as it was compiled. Structs only ever grow at the end;
 *    the library reads a field only if it lies inside `struct_size`.
 *  - Every struct the library hands out is owned by the library. Documents
 *    are freed whole with ak_doc_free(); registries with ak_registry_free().
 *  - There is no global mutable state. A registry, once ak_registry_open()
 *    has returned, is read-only and may be shared by any number of threads;
 *    a document may be used by one thread at a time.
 *  - ak_read() and ak_write() use about 9 KiB of the calling thread's stack
 *    beyond what the plugin itself uses (small working memory lives there).
 *  - Enums are pinned to 32 bits.
 */
#ifndef ANIMKIT_H
#define ANIMKIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define AK_API __attribute__((visibility("default")))
#define AK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define AK_API
#define AK_PRINTF(f, a)
#endif

/* Library version as a string and as (major << 16 | minor << 8 | patch). */
AK_API const char *ak_version(void);
AK_API uint32_t ak_version_number(void);

/* ------------------------------------------------------------------------
 * Status codes. Each maps onto one sysexits.h exit code (ak_status_exit).
 * ------------------------------------------------------------------------ */
typedef enum ak_status {
    AK_OK = 0,
    AK_E_USAGE,       /* a bad argument from the caller            -> 64 */
    AK_E_DATA,        /* malformed or inconsistent input bytes     -> 65 */
    AK_E_UNSUPPORTED, /* valid input of a version/feature not handled -> 65 */
    AK_E_NOFORMAT,    /* no plugin recognised the input            -> 65 */
    AK_E_AMBIGUOUS,   /* two plugins tied for the best probe score -> 65 */
    AK_E_LIMIT,       /* input would need more memory than allowed -> 65 */
    AK_E_NOINPUT,     /* input file missing or unreadable          -> 66 */
    AK_E_NOMEM,       /* the allocator failed                      -> 71 */
    AK_E_CANTCREATE,  /* output cannot be created (or exists)      -> 73 */
    AK_E_IO,          /* read or write error                       -> 74 */
    AK_E_CONFIG,      /* configuration file error                  -> 78 */
    AK_E_NOWRITE,     /* the chosen format cannot be written       -> 69 */
    AK_STATUS_MAX_ = INT32_MAX
} ak_status;

AK_API const char *ak_status_name(ak_status status);
/* The sysexits.h code that fits `status` (0 for AK_OK). */
AK_API int ak_status_exit(ak_status status);

/* ------------------------------------------------------------------------
 * Messages and reports.
 * ------------------------------------------------------------------------ */
typedef enum ak_severity {
    AK_NOTE = 0,
    AK_WARNING = 1,
    AK_ERROR = 2,
    AK_SEVERITY_MAX_ = INT32_MAX
} ak_severity;

/* One diagnostic. All pointers are valid only during the callback. */
typedef struct ak_message {
    ak_severity severity;
    ak_status status;   /* AK_OK for notes and warnings */
    const char *file;   /* file the message is about, or NULL */
    const char *plugin; /* plugin that raised it, or NULL for the core */
    int64_t offset;     /* byte offset in `file`, or -1 */
    const char *text;   /* the bare message, without file/plugin/offset */
    /* API 1.2: where in a text input, both 1-based, or 0 when not known
     * (binary input). The column counts bytes, a tab as one. A host that
     * builds its own ak_message for ak_message_format() zeroes them. */
    uint32_t line;
    uint32_t column;
} ak_message;

typedef void (*ak_message_fn)(void *user, const ak_message *msg);

/*
 * Where a call reports to. Zero-initialise it; set on_message to see
 * warnings as they happen. After a failing call, `status`, `offset`,
 * `plugin` and `text` describe the first error, and `message` holds the
 * whole line "FILE: PLUGIN: TEXT (at byte OFFSET)", or for an error in a
 * text input "FILE:LINE:COLUMN: PLUGIN: ..." (the line and column are in
 * the ak_message given to on_message; this struct has no size field and
 * so never grows).
 */
typedef struct ak_report {
    ak_message_fn on_message;
    void *user;
    ak_status status;
    int64_t offset;
    char plugin[32];
    char text[512];
    char message[1024];
    unsigned warnings; /* warnings raised since the report was zeroed */
} ak_report;

/* Formats a message as one line, the way the CLI prints it:
 * "FILE[:LINE:COLUMN]: [PLUGIN: ]SEVERITY: TEXT[ (at byte N, 0xN)]". */
AK_API void ak_message_format(const ak_message *msg, char *buf, size_t size);

/* ------------------------------------------------------------------------
 * The document model. Structures are readable directly; change them only
 * through the functions below (values in keys, names via setters).
 * ------------------------------------------------------------------------ */
typedef struct ak_doc ak_doc;
typedef struct ak_clip ak_clip;
typedef struct ak_track ak_track;
typedef struct ak_bone ak_bone;

/* Opaque bytes that a format stores and the model has no field for. */
typedef enum ak_prop_type {
    AK_PROP_BYTES = 0,
    AK_PROP_INT = 1,
    AK_PROP_FLOAT = 2,
    AK_PROP_STRING = 3,
    AK_PROP_TYPE_MAX_ = INT32_MAX
} ak_prop_type;

typedef struct ak_prop {
    const char *key;
    ak_prop_type type;
    int64_t i;                 /* AK_PROP_INT */
    double f;                  /* AK_PROP_FLOAT */
    const unsigned char *data; /* AK_PROP_BYTES and AK_PROP_STRING (NUL-terminated) */
    size_t size;               /* bytes in `data`, without the terminator */
} ak_prop;

typedef struct ak_props {
    size_t count;
    ak_prop *items;
    size_t capacity_; /* private */
} ak_props;

/*
 * Rotations are unit quaternions v = (x, y, z, w), w the scalar part, in
 * the Hamilton convention (i j = k, as Eigen, glm and Blender use). A key's
 * quaternion rotates from the bone's space into its parent's: a point p in
 * bone space is q p q* in parent space (R p with R the matching rotation
 * matrix, column vectors). q and -q are the same rotation: readers keep the
 * sign the file has, writers must accept either. Angles a format stores
 * (Euler, axis-angle) are converted to this on read and back on write.
 */
typedef enum ak_channel_kind {
    AK_ROTATION = 0,    /* v = quaternion x, y, z, w (see above) */
    AK_TRANSLATION = 1, /* v = x, y, z (v[3] unused) */
    AK_SCALE = 2,       /* v = x, y, z (v[3] unused) */
    AK_VISIBILITY = 3,  /* v[0] = 0 hidden, 1 shown */
    AK_CHANNELS = 4,
    AK_CHANNEL_KIND_MAX_ = INT32_MAX
} ak_channel_kind;

AK_API const char *ak_channel_name(ak_channel_kind kind);

/*
 * One key. `time` is in seconds; `tick` is the format's own integer time
 * (ticks, frames, milliseconds) when the clip's tick_rate is not 0.
 *
 * `raw` holds the bytes the format stored for this key. The core records a
 * fingerprint of time, tick and v when the plugin attaches them
 * (ak_key_set_raw, ak_keys_set_raw); ak_key_changed() tells a writer whether
 * the values have been edited since, so that untouched keys are re-emitted
 * bit for bit. An edit of any one of these numbers, through the struct or
 * otherwise, is always detected, and so is a change of sign of any of
 * them together (a rotation mirrored by negating two components).
 */
typedef struct ak_key {
    double time;
    int64_t tick;
    double v[4];
    const unsigned char *raw;
    uint32_t raw_size;
    uint32_t flags_;       /* private */
    uint64_t fingerprint_; /* private */
} ak_key;

typedef struct ak_channel {
    size_t count;
    ak_key *keys; /* valid until the next key is added to this channel */
    size_t capacity_; /* private */
} ak_channel;

struct ak_track {
    const char *bone;     /* never NULL; "" when only a hash is known */
    int32_t bone_id;      /* valid when has_bone_id */
    int has_bone_id;
    uint32_t bone_hash;   /* valid when has_bone_hash (e.g. CRC-32 of the name) */
    int has_bone_hash;
    double weight;        /* blend weight, 1.0 unless the format stores one */
    ak_channel channel[AK_CHANNELS];
    ak_props props;
    ak_clip *clip;
    /* API 1.2: index into clip->doc->skeleton.bones of the bone this track
     * drives, -1 when none. Set by ak_doc_match_skeleton(); matching never
     * renames a track. */
    int32_t skeleton_bone;
    /* API 1.4: in an outline (AK_READ_OUTLINE, ak_doc_outline()), the
     * number of keys the file holds for each channel, whose `channel` is
     * then empty; 0 in a full document. */
    size_t outline_keys[AK_CHANNELS];
};

typedef struct ak_event {
    double time;      /* seconds */
    const char *type; /* never NULL */
    const char *info; /* never NULL */
    ak_props props;
} ak_event;

struct ak_clip {
    const char *name;   /* never NULL */
    /* Seconds: the length the file states, else the time of the last key.
     * A clip of N frames at rate r, keys at 0 .. (N-1)/r, lasts (N-1)/r,
     * not N/r. Keys never lie after it (ak_doc_validate warns). */
    double duration;
    double frame_rate;  /* frames per second as stored, 0 = not stored */
    double tick_rate;   /* native ticks per second of key ticks, 0 = none */
    size_t track_count;
    ak_track **tracks;
    size_t event_count;
    ak_event *events;   /* valid until the next event is added */
    ak_props props;
    ak_doc *doc;
    size_t track_capacity_; /* private */
    size_t event_capacity_; /* private */
};

/*
 * One bone of a skeleton (API 1.2): the rest pose of a model's joint.
 * Rest values use the same conventions as keys: `rotation` is a unit
 * quaternion (x, y, z, w) rotating from bone space into parent space, and
 * translation and scale are in the parent's space and the file's units.
 * Fields other than `name` and `props` may be set directly.
 */
struct ak_bone {
    const char *name;     /* never NULL; "" when only an id or hash is known */
    int32_t id;           /* valid when has_id (e.g. a RenderWare HAnim id) */
    int has_id;
    uint32_t hash;        /* valid when has_hash (CRC-32 of the name, as tracks) */
    int has_hash;
    int32_t parent;       /* index of the parent bone, -1 for a root; parents
                             come before their children (ak_doc_validate) */
    double translation[3];
    double rotation[4];
    double scale[3];
    ak_props props;       /* what the source format stores beyond the model */
};

/* A bone hierarchy in parent-first order. */
typedef struct ak_skeleton {
    size_t bone_count;
    ak_bone *bones;       /* valid until the next bone is added */
    size_t bone_capacity_; /* private */
} ak_skeleton;

struct ak_doc {
    const char *format;  /* the format whose data (props, raw key bytes) the document
                            carries: the plugin that read it, or what a container such as
                            JSON recorded; "" for a document built by hand */
    const char *variant; /* the format's variant, e.g. "ANP3"; "" if none */
    size_t clip_count;
    ak_clip **clips;
    ak_props props;
    struct ak_doc_private *private_; /* private */
    /* API 1.2: the bone hierarchy and rest pose, bone_count 0 when the
     * document has none (all animation formats but those that embed one). */
    ak_skeleton skeleton;
};

/*
 * Rules for the functions below:
 *  - Names, strings and raw bytes passed in are copied into the document:
 *    the caller's buffer may be freed or reused as soon as the call returns.
 *  - A constructor (ak_clip_add, ak_track_add, ak_key_add, ak_event_add,
 *    ak_bone_add) or setter returns NULL or AK_E_NOMEM when memory runs
 *    out. Inside a plugin's read or write the job has then already failed
 *    with AK_E_NOMEM, or AK_E_LIMIT when the read's cap was hit, and the
 *    message is recorded: return AK_E_NOMEM at once, without calling
 *    ak_fail() again (the core reports the job's first error).
 */

/* A new empty document. Returns NULL when out of memory. */
AK_API ak_doc *ak_doc_new(void);
/* Frees the document and everything in it. NULL is allowed. */
AK_API void ak_doc_free(ak_doc *doc);
/* A deep copy; NULL when out of memory. Raw key bytes are copied too. */
AK_API ak_doc *ak_doc_clone(const ak_doc *doc);

/* Records the format whose data the document carries and its variant
 * (both copied; NULL variant = ""). A reader need not call it: after a
 * successful read whose document still has format "", the core sets the
 * reading codec's name and keeps the variant. Call it to record a variant,
 * or, for a container such as json, the format of the data inside. */
AK_API ak_status ak_doc_set_format(ak_doc *doc, const char *format, const char *variant);

/* Appends a clip; NULL when out of memory or over the allocation limit. */
AK_API ak_clip *ak_clip_add(ak_doc *doc, const char *name);
/* Removes and frees clip `index`; later clips move down one. */
AK_API void ak_clip_remove(ak_doc *doc, size_t index);
AK_API ak_status ak_clip_set_name(ak_clip *clip, const char *name);
/* Case-insensitive lookup, first match in order wins (as the games do). */
AK_API ak_clip *ak_doc_find_clip(const ak_doc *doc, const char *name);

/* Appends a track for `bone` (copied; NULL = ""); NULL when out of memory. */
AK_API ak_track *ak_track_add(ak_clip *clip, const char *bone);
/* The same for a name given as its first `len` bytes, which need not be
 * followed by a NUL (a name inside a file's bytes); `bone` may be NULL
 * when `len` is 0. A NUL among the bytes ends the name there, as for any
 * C string. (API 1.5) */
AK_API ak_track *ak_track_add_n(ak_clip *clip, const char *bone, size_t len);
AK_API ak_status ak_track_set_bone(ak_track *track, const char *bone);

/* Makes room for `count` more keys in one channel. */
AK_API ak_status ak_channel_reserve(ak_track *track, ak_channel_kind kind, size_t count);
/* Appends a zeroed key (v = 0, 0, 0, 1 for rotations); NULL when out of memory. */
AK_API ak_key *ak_key_add(ak_track *track, ak_channel_kind kind);
/* Stores the format's bytes for this key and fingerprints its current
 * time, tick and v. */
AK_API ak_status ak_key_set_raw(ak_track *track, ak_key *key, const void *raw, size_t size);
/* Bulk keys (API 1.2), for readers that know their counts: appends `count`
 * zeroed keys (v = 0, 0, 0, 1 for rotations) to one channel in one call
 * and returns the first; NULL when out of memory, over the read's limit or
 * for a bad kind. The pointer is valid until keys are next added to this
 * channel. */
AK_API ak_key *ak_keys_append(ak_track *track, ak_channel_kind kind, size_t count);
/* ak_keys_append() for a reader that sets every key itself (API 1.3): time,
 * tick and all four v are NOT initialised and must each be written before
 * anything reads the keys (v[3] too, 0 where the kind leaves it unused);
 * raw is NULL and the key unattached until ak_keys_set_raw(). Saves
 * clearing memory that is about to be overwritten. */
AK_API ak_key *ak_keys_append_uninit(ak_track *track, ak_channel_kind kind, size_t count);
/* ak_keys_append_uninit() for every channel of a track at once (API 1.6):
 * counts[c] more keys at the end of channel c (0: none), left as that call
 * leaves them; first[c] gets channel c's first new key, NULL where counts[c]
 * is 0. When every channel asked for was empty, all the new keys are one
 * block in channel order (a channel's first key follows the last key of the
 * channel before it that was asked for), so that one ak_keys_set_raw() call
 * may attach a run of equal-sized stored bytes that crosses channels. All or
 * nothing: AK_E_NOMEM (out of memory or over the read's limit) and
 * AK_E_LIMIT (counts beyond any memory) leave every channel as it was;
 * AK_E_USAGE for a NULL argument. Each pointer is valid until keys are next
 * added to its channel. */
AK_API ak_status ak_track_keys_append_uninit(ak_track *track, const size_t counts[AK_CHANNELS],
                                             ak_key *first[AK_CHANNELS]);
/* Copies `size` bytes into the document once (API 1.2) and returns the
 * copy, which lives as long as the document; NULL when out of memory or
 * over the read's limit. `bytes` NULL gives `size` zeroed bytes for the
 * caller to fill. A reader stores a channel's or a track's key bytes with
 * one call and points its keys into the copy. */
AK_API unsigned char *ak_doc_store(ak_doc *doc, const void *bytes, size_t size);
/* ak_doc_store(doc, NULL, size) without the clearing (API 1.7): `size`
 * bytes of the document's, left as they are, for a reader that writes
 * every one of them before anything reads them. NULL as ak_doc_store. */
AK_API unsigned char *ak_doc_store_uninit(ak_doc *doc, size_t size);
/* Attaches stored bytes to `count` consecutive keys at once (API 1.2), as
 * ak_key_set_raw does one by one but without copying: key i gets
 * raw = base + i * stride and raw_size = size, and its fingerprint. `base`
 * must stay valid as long as the keys: memory from ak_doc_store() of the
 * same document. Set the keys' time, tick and v first. */
AK_API ak_status ak_keys_set_raw(ak_key *keys, size_t count, const unsigned char *base, size_t stride,
                                 size_t size);
/* 1 if time, tick or v differ from when ak_key_set_raw was called, or if
 * the key has no raw bytes; 0 if it is untouched. */
AK_API int ak_key_changed(const ak_key *key);
/* How many of `count` consecutive keys, from the first, are untouched
 * (ak_key_changed() 0 for each): `count` when all are (API 1.3). A writer
 * asks once per channel instead of once per key. */
AK_API size_t ak_keys_unchanged(const ak_key *keys, size_t count);
/* Marks a key as edited: writers re-encode it although it keeps its stored
 * bytes (for readers of text forms that find a value was edited). Cleared
 * by the next ak_key_set_raw. */
AK_API void ak_key_touch(ak_key *key);
/* A 64-bit digest (FNV-1a) of the key's tick, time and the values that
 * `kind` uses (visibility as 0 or 1, every NaN alike). A text form records
 * it beside a key's stored bytes; a reader that computes the same over the
 * numbers it parsed knows whether they were edited in between. */
AK_API uint64_t ak_key_digest(const ak_key *key, ak_channel_kind kind);
/* 64-bit FNV-1a (ABI 1.2): digest h continued over `size` bytes; start
 * with AK_DIGEST_START. Byte order and struct padding of what is hashed
 * are the caller's affair; a change detector, not a cryptographic hash. */
#define AK_DIGEST_START 0xcbf29ce484222325ull
AK_API uint64_t ak_digest_bytes(uint64_t h, const void *data, size_t size);

AK_API ak_event *ak_event_add(ak_clip *clip, double time, const char *type, const char *info);

/* Skeletons (API 1.2). Appends a bone named `name` (copied) with no parent,
 * no id or hash and the identity rest pose; NULL when out of memory or
 * over the read's allocation limit. The pointer is valid until the next
 * bone is added; keep indices instead. */
AK_API ak_bone *ak_bone_add(ak_doc *doc, const char *name);
AK_API ak_status ak_bone_set_name(ak_doc *doc, ak_bone *bone, const char *name);
/* Index of the first bone with this exact name, id or hash; -1 if none. */
AK_API int32_t ak_skeleton_find_name(const ak_doc *doc, const char *name);
AK_API int32_t ak_skeleton_find_id(const ak_doc *doc, int32_t id);
AK_API int32_t ak_skeleton_find_hash(const ak_doc *doc, uint32_t hash);
/*
 * Ties every track of `doc` to a bone of doc->skeleton, setting
 * track->skeleton_bone (-1 where nothing matches). A track is tried, in
 * order: by id (when both the track and a bone have one), by exact name,
 * by name compared ASCII-case-insensitively with surrounding white space
 * ignored (GTA's " Pelvis" is "pelvis"), by hash (the bone's stored hash,
 * else the CRC-32 of its name: this finds MAB's hash-only tracks). Where
 * several bones share a key the first wins. Tracks are never renamed.
 * Returns the number of tracks matched, or (size_t)-1 when out of memory
 * (every track is then left unmatched). Linear in tracks + bones.
 * ak_read() does this for a file that carries its own skeleton.
 */
AK_API size_t ak_doc_match_skeleton(ak_doc *doc);
/* Replaces doc's skeleton with a copy of `from`'s (a model file's
 * document, a JSON dump...) and matches the tracks as above. On failure
 * (AK_E_NOMEM, AK_E_LIMIT) doc has no skeleton and no track is matched. */
AK_API ak_status ak_doc_attach_skeleton(ak_doc *doc, const ak_doc *from);
/* How many tracks of `clip` are tied to a bone. */
AK_API size_t ak_clip_skeleton_matched(const ak_clip *clip);

/* Properties: the `owner` is the document the props belong to. Setting an
 * existing key replaces its value. */
AK_API ak_status ak_prop_set_bytes(ak_doc *owner, ak_props *props, const char *key,
                                   const void *data, size_t size);
/* ak_prop_set_bytes() for a value the caller writes in place (API 1.7)
 * instead of building it elsewhere to be copied: sets `key` to `size`
 * bytes and returns them, NOT initialised, with the NUL every bytes value
 * has after them. They live as long as the document; write every one
 * before anything reads the props. NULL when out of memory or over the
 * read's limit (the props are then left as ak_prop_set_bytes() leaves
 * them when it fails) or for a NULL argument. */
AK_API unsigned char *ak_prop_set_bytes_uninit(ak_doc *owner, ak_props *props, const char *key, size_t size);
AK_API ak_status ak_prop_set_int(ak_doc *owner, ak_props *props, const char *key, int64_t value);
AK_API ak_status ak_prop_set_float(ak_doc *owner, ak_props *props, const char *key, double value);
AK_API ak_status ak_prop_set_string(ak_doc *owner, ak_props *props, const char *key,
                                    const char *value);
AK_API const ak_prop *ak_prop_get(const ak_props *props, const char *key);

/* Well-known clip property: the number of keys that carry mesh (vertex)
 * animation, which the model keeps opaque. `animkit info` reports it. */
#define AK_PROP_MESH_KEYS "mesh_keys"
/* The int value of `key`, or `fallback` when absent or not an int. */
AK_API int64_t ak_prop_int(const ak_props *props, const char *key, int64_t fallback);

/* Spherical interpolation from a (u = 0) to b (u = 1) along the shorter
 * arc; the result is normalised. */
AK_API void ak_quat_slerp(const double a[4], const double b[4], double u, double out[4]);
/*
 * Quaternion arithmetic (ABI 1.2) in the model's convention: q = (x, y, z,
 * w), Hamilton, rotating bone space into parent space (see ak_channel_kind).
 * A rotation matrix is m[row][col] acting on column vectors, p' = m p:
 * column c is where axis c goes, m[1][0] = 2 (x y + z w). A row-vector
 * format (D3D, p' = p M) stores the transpose.
 */
/* The Hamilton product a b (rotate by b, then by a); out may be a or b. */
AK_API void ak_quat_mul(const double a[4], const double b[4], double out[4]);
/* in / |in|; 0 and the identity (0, 0, 0, 1) when |in|^2 is below 1e-30
 * or not finite. out may be in. */
AK_API int ak_quat_normalize(const double in[4], double out[4]);
/* The rotation matrix of q, which must be of unit length (it is not
 * normalised here: call ak_quat_normalize() first if unsure). */
AK_API void ak_quat_to_matrix(const double q[4], double m[3][3]);
/* The unit quaternion, w >= 0, of the rotation closest to m (its polar
 * factor): shear and per-axis scale are dropped, so m may be a scaled
 * rotation. Returns 0 and the identity when m has no rotation: flat,
 * mirrored (det <= 0), not finite, or an iteration that does not settle. */
AK_API int ak_quat_from_matrix(const double m[3][3], double q[4]);
/* The channel's value at `time` (keys in ascending time): the first key's
 * before it, the last key's after it, slerp (rotation) or lerp (translation,
 * scale) in between, the previous key's for visibility. Returns 0 for an
 * empty channel. */
AK_API int ak_channel_sample(const ak_channel *ch, ak_channel_kind kind, double time, double out[4]);

/* Counts over the whole document, for summaries. */
typedef struct ak_doc_stats {
    size_t clips, tracks, events;
    size_t keys[AK_CHANNELS];
    size_t hashes, hashes_named; /* tracks with a bone hash; how many also have a name */
} ak_doc_stats;
AK_API void ak_doc_stats_get(const ak_doc *doc, ak_doc_stats *stats);
AK_API void ak_clip_stats_get(const ak_clip *clip, ak_doc_stats *stats);
/* 1 when `doc` is an outline (API 1.4, see AK_READ_OUTLINE): its keys
 * were counted, not read. Copies of its clips make their document one. */
AK_API int ak_doc_outline(const ak_doc *doc);

/* Structural checks of the model (ordered times, unit quaternions, finite
 * values, duration covering the keys; for a skeleton (1.2): parents that
 * are out of range, not before their child or in a cycle, repeated bone
 * names or ids, non-finite rest values, non-unit rest rotations, each error
 * naming the bone); each finding goes to `report` as a warning or an
 * error. Returns the number of errors. */
AK_API unsigned ak_doc_validate(const ak_doc *doc, const char *file, ak_report *report);

/* JSON dump; the schema is documented in README.md. `clip` limits the
 * output to the clips of that name (NULL = all). Returns AK_E_IO on a
 * write error. */
typedef enum ak_json_flags {
    AK_JSON_RAW = 1,   /* add each key's stored bytes as hex ("raw") */
    AK_JSON_TICKS = 2, /* add each key's native tick ("ticks") */
    AK_JSON_FLAGS_MAX_ = INT32_MAX
} ak_json_flags;
AK_API ak_status ak_doc_write_json(const ak_doc *doc, const char *clip, unsigned flags, FILE *out);

/* Fills unnamed tracks that carry a bone hash from a dictionary of names,
 * hashing each name with CRC-32 (zlib's); the first name of a hash wins.
 * Returns how many were named (0 if memory for the lookup table runs out).
 * Takes O((names + tracks) log names) time. */
AK_API size_t ak_doc_name_bones(ak_doc *doc, const char *const *names, size_t count);
/* The base name of `path` without folders and extension ("a/walk.ifp" ->
 * "walk"), cut to fit `size`; returns its length. Single-clip formats name
 * their clip this way. */
AK_API size_t ak_path_stem(const char *path, char *buf, size_t size);
/* CRC-32 as zlib computes it (reflected 0xEDB88320, inverted in and out). */
AK_API uint32_t ak_crc32(const void *data, size_t size);

/* ------------------------------------------------------------------------
 * Editing (API 1.2): what the CLI's replace, merge, split, rename, remove,
 * bones, retime and diff commands do, for hosts and scripts alike.
 * Untouched keys keep their stored bytes, so that a writer of the same
 * format and variant re-emits them bit for bit; edited keys are marked so
 * that writers encode them afresh.
 * ------------------------------------------------------------------------ */

/* Index of the first clip named `name` (case-insensitive, as
 * ak_doc_find_clip), or -1. */
AK_API long ak_doc_clip_index(const ak_doc *doc, const char *name);
/*
 * Puts a deep copy of `src` (a clip of any document, `doc` included) into
 * `doc` under `name` (NULL = src's name): in place of the first clip of
 * that name (case-insensitive; the copy takes that clip's spelling), else
 * appended. When src's document has the same format and
 * variant as `doc` (or `doc` is new, format ""), the copy keeps every key's
 * stored bytes and state and the clip's props: a same-format write emits
 * it as the donor file held it. Otherwise the copied keys lose their
 * stored bytes (writers encode them) and props in src's format namespace
 * ("ifp." for an ifp clip) are dropped, since they describe the other
 * variant's layout. `index` (may be NULL) receives the clip's position.
 * On failure `doc` is unchanged.
 */
AK_API ak_status ak_doc_put_clip(ak_doc *doc, const ak_clip *src, const char *name, size_t *index);
/* Appends copies of every clip of `src` to `doc` (ak_doc_put_clip's rules
 * for stored bytes, but never replacing: clips of equal names are all
 * kept, as packages hold them). A new document (format "") takes src's
 * format, variant, props and skeleton. On failure `doc` keeps the clips
 * merged so far; free it. */
AK_API ak_status ak_doc_merge(ak_doc *doc, const ak_doc *src);
/* A new document with only clip `index` of `doc`, and doc's format,
 * variant, props and skeleton (so a package splits into files of its own
 * format). NULL when out of memory or `index` is out of range. */
AK_API ak_doc *ak_doc_extract_clip(const ak_doc *doc, size_t index);

/* Renames bones: every track whose bone is from[i] (exact match) gets
 * to[i]; a track that also stores a bone hash gets the CRC-32 of the new
 * name (the convention of the hashing formats). Pairs apply in one pass
 * (a->b, b->a swaps). Returns the number of tracks renamed, or
 * (size_t)-1 when out of memory (some tracks may be renamed). */
AK_API size_t ak_doc_rename_bones(ak_doc *doc, const char *const *from, const char *const *to,
                                  size_t count);
/* Attaches a copy of `skeleton`'s bones to `doc` (ak_doc_attach_skeleton:
 * by id, name, loose name, hash) and gives every matched track the id of
 * its bone, when the bone has one, so that a game that finds bones by id
 * finds them. Names are kept. `assigned` (may be NULL) receives the number
 * of tracks that got an id. */
AK_API ak_status ak_doc_assign_bone_ids(ak_doc *doc, const ak_doc *skeleton, size_t *assigned);

/* How to retime a clip; fields apply in this order: trim, reverse, speed,
 * resample. Zero-initialise, set struct_size, then what is wanted. */
typedef struct ak_retime {
    uint32_t struct_size;
    int trim;          /* 1: keep [t0, t1] (seconds) and start it at 0 */
    double t0, t1;
    int reverse;       /* 1: play backwards (time -> duration - time) */
    double speed;      /* playback speed factor (> 0; 0 or 1 = unchanged):
                          times and the duration are divided by it */
    double fps;        /* > 0: resample every channel at 1/fps steps from 0
                          to the duration (slerp for rotations, lerp for
                          translation and scale, the previous key for
                          visibility); a key already within 1e-6 s of a step
                          is kept as it is */
} ak_retime;
/* Retimes every track and event of `clip`. Keys whose time or value
 * changes are re-encoded by writers; ticks follow times when the clip has
 * a tick rate. speed 1, and fps equal to the rate the keys already lie on,
 * change nothing. AK_E_USAGE for a bad range or factor (one that would
 * make the duration infinite too); AK_E_LIMIT, with nothing changed, for a
 * resample of the resulting duration that would make more than 10,000,000
 * keys a channel or 33,554,432 (2^25) in all; after AK_E_NOMEM the clip
 * may be partly retimed (retime a copy to keep the original). */
AK_API ak_status ak_clip_retime(ak_clip *clip, const ak_retime *how);

/* What ak_doc_diff found, one entry per difference. */
typedef enum ak_diff_kind {
    AK_DIFF_CLIP_ADDED = 0,   /* only in b */
    AK_DIFF_CLIP_REMOVED = 1, /* only in a */
    AK_DIFF_DURATION = 2,     /* clip durations differ by more than tol */
    AK_DIFF_TRACK_ADDED = 3,
    AK_DIFF_TRACK_REMOVED = 4,
    AK_DIFF_KEY_COUNT = 5,    /* a channel has count_a keys in a, count_b in b */
    AK_DIFF_KEYS = 6,         /* same count, values or times differ by more than tol */
    AK_DIFF_EVENTS = 7,       /* the clips' events differ */
    AK_DIFF_KIND_MAX_ = INT32_MAX
} ak_diff_kind;

typedef struct ak_diff_entry {
    ak_diff_kind kind;
    const char *clip;        /* clip name (from a, or b for an added clip) */
    const char *bone;        /* track's bone name; for a track without one its hash
                              * ("#0x1a2b3c4d"), else its id ("#12"), else its place
                              * ("(track 3)", in a, or in b for an added track);
                              * NULL for clip entries */
    ak_channel_kind channel; /* AK_DIFF_KEY_COUNT and AK_DIFF_KEYS */
    size_t count_a, count_b; /* keys (AK_DIFF_KEY_COUNT) or events (AK_DIFF_EVENTS) */
    size_t key;              /* AK_DIFF_KEYS: index of the key with the largest difference */
    int component;           /* that key's component: 0-3 a value, -1 the time */
    double max_diff;         /* that largest absolute difference (durations too) */
} ak_diff_entry;

typedef struct ak_diff {
    size_t count;
    ak_diff_entry *entries;  /* names point into the diffed documents (valid while
                              * they are), labels of unnamed tracks into the diff */
} ak_diff;

/* Compares two documents (any formats): clips by name (the n-th clip of a
 * name in a with the n-th of that name in b), tracks by bone name (else
 * hash, else id), keys by position; times and values are equal when they
 * differ by at most `tol` (a quaternion and its negation are one rotation).
 * Free the result with ak_diff_free; count 0 means equal. */
AK_API ak_status ak_doc_diff(const ak_doc *a, const ak_doc *b, double tol, ak_diff **out);
AK_API void ak_diff_free(ak_diff *diff);

/* ------------------------------------------------------------------------
 * The registry of codecs.
 * ------------------------------------------------------------------------ */
typedef struct ak_registry ak_registry;
typedef struct ak_codec ak_codec; /* defined in animkit/plugin.h */

/* A replacement allocator for everything the registry and its documents
 * allocate; used for fault injection and for hosts with their own heap. */
typedef struct ak_allocator {
    void *(*alloc)(void *user, size_t size);
    void *(*realloc)(void *user, void *ptr, size_t size);
    void (*free)(void *user, void *ptr);
    void *user;
} ak_allocator;

typedef enum ak_registry_flags {
    AK_REG_NO_PLUGINS = 1,  /* load nothing; the caller adds codecs itself */
    AK_REG_NO_SEARCH = 2,   /* use only config_file, skip the search order */
    /* Development only (1.2): skip the ownership and folder checks of
     * plugins and configs (see ak_registry_open); the same as the
     * environment variable ANIMKIT_UNSAFE_PLUGINS=1. Announced as a warning. */
    AK_REG_UNSAFE_PLUGINS = 4,
    /* 1.3: keep no memory of freed documents for later reads (see
     * ak_registry_trim); each read then takes fresh memory. */
    AK_REG_NO_POOL = 8,
    /* 1.4: ak_registry_free() leaves the plugins loaded. For a process
     * about to exit: unloading them (destructors, unmapping) costs more
     * than the rest of a short command (the CLI's `info` of a small file:
     * about a sixth of its time with eight plugins). Each ak_registry_open
     * with this flag keeps its plugins mapped until the process ends. */
    AK_REG_KEEP_LOADED = 16,
    AK_REG_FLAGS_MAX_ = INT32_MAX
} ak_registry_flags;

typedef struct ak_registry_config {
    uint32_t struct_size;
    uint32_t flags;          /* ak_registry_flags */
    const char *config_file; /* explicit INI file (the CLI's --config), or NULL */
    const ak_allocator *allocator; /* NULL = malloc */
    ak_message_fn on_message; /* warnings while loading (refused plugins, unknown keys) */
    void *user;
    /* Colon-separated folders to use instead of the installed plugin
     * directory wherever the config does not set plugin_dir (the CLI sets
     * it when run from the build tree). NULL = the installed directory. */
    const char *default_plugin_path;
} ak_registry_config;

/*
 * Builds a registry: finds the config (config_file, $ANIMKIT_CONFIG,
 * $XDG_CONFIG_HOME/animkit/animkit.ini or ~/.config/animkit/animkit.ini,
 * SYSCONFDIR/animkit/animkit.ini, else every plugin in the plugin directory)
 * and loads the plugins it names. Broken plugins are reported through
 * on_message and skipped; only a broken config file is an error
 * (AK_E_CONFIG). `config` may be NULL.
 *
 * Trust (1.2): a plugin and the config file naming it are used only if the
 * file and every folder on its resolved path (symbolic links followed)
 * belong to root or to the effective user and are not writable by group
 * or others; a sticky folder such as /tmp does not count as safe. The
 * check is made on the opened file, and that same open file is what gets
 * loaded. A relative $XDG_CONFIG_HOME or $HOME is ignored. A plugin's ELF
 * note (see AK_PLUGIN_ENTRY) is read before loading it. AK_REG_UNSAFE_PLUGINS
 * or ANIMKIT_UNSAFE_PLUGINS=1 turns the ownership and folder checks off
 * (a plugin file writable by others is still refused).
 */
AK_API ak_status ak_registry_open(const ak_registry_config *config, ak_registry **out,
                                  ak_report *report);
AK_API void ak_registry_free(ak_registry *reg);

/* Memory kept for reads (1.3). A registry with the default allocator keeps
 * the blocks of 16 KiB and more that freed documents, scratch memory and
 * output buffers (given back with ak_buffer_free) leave, up to 16 blocks
 * and 64 MiB in all, the newest first, and later reads and writes use
 * them: memory fresh from the kernel costs a page fault per 4 KiB, which
 * for a read takes longer than decoding. ak_registry_trim() frees what is kept now and returns how many
 * bytes that was; reads keep working (and keeping) afterwards. Thread-safe.
 * AK_REG_NO_POOL or a host allocator turns the keeping off. What is kept
 * lives until ak_registry_free() and the last document read through the
 * registry are freed, in either order. */
AK_API size_t ak_registry_trim(const ak_registry *reg);

/* Adds a codec linked into the host (or a test). Not thread-safe: call
 * before sharing the registry. `priority` breaks probe ties. */
AK_API ak_status ak_registry_add_codec(ak_registry *reg, const ak_codec *codec, int priority,
                                       ak_report *report);

typedef struct ak_plugin_info {
    const ak_codec *codec;
    const char *path;   /* shared object, or "(built-in)" */
    int priority;
} ak_plugin_info;

typedef struct ak_refused_plugin {
    const char *name;   /* the config section's name, or the file name */
    const char *path;
    const char *reason;
} ak_refused_plugin;

AK_API size_t ak_registry_count(const ak_registry *reg);
AK_API const ak_plugin_info *ak_registry_plugin(const ak_registry *reg, size_t index);
AK_API const ak_plugin_info *ak_registry_find(const ak_registry *reg, const char *name);
AK_API size_t ak_registry_refused_count(const ak_registry *reg);
AK_API const ak_refused_plugin *ak_registry_refused(const ak_registry *reg, size_t index);
/* The config file that was used, or NULL for the built-in default. */
AK_API const char *ak_registry_config_path(const ak_registry *reg);
/* The bone-name dictionary named by the config's `bone_names`, or NULL. */
AK_API const char *ak_registry_bone_names(const ak_registry *reg);

/* ------------------------------------------------------------------------
 * Probing, reading and writing.
 * ------------------------------------------------------------------------ */
typedef struct ak_options {
    uint32_t struct_size;
    const char *format;    /* plugin name; NULL = probe (read) or by extension (write) */
    const char *filename;  /* used in messages and for the extension */
    const char *const *params; /* NULL-terminated "key=value" strings for the plugin */
    size_t max_alloc;      /* read memory cap in bytes; 0 = the default (see below) */
    /* API 1.2: ak_read_flags. */
    uint32_t flags;
} ak_options;

typedef enum ak_read_flags {
    /* Validate every document a plugin returns (ak_doc_validate()) and fail
     * the read with AK_E_DATA on any error, with quaternions more than 1%
     * off unit length counted as errors too: the CLI's --strict, for plugin
     * authors to find reversed times or unnormalised rotations at once. */
    AK_READ_STRICT = 1,
    /* 1.4: the document's outline, for a host that lists files rather than
     * plays them (the CLI's `info`): clips, tracks, bones, events,
     * properties, durations and the skeleton as a full read gives them,
     * every channel empty and its key count in ak_track.outline_keys. A
     * plugin that does not read outlines reads in full: ak_doc_outline()
     * tells which one came back. Statistics count an outline's keys like a
     * full document's; writing an outline (or anything it was merged or
     * copied into) is refused with AK_E_USAGE, and so is a diff. Reading
     * ped_cretaceous.ifp in a fresh process: 1.9 ms in full, 0.9 ms as an
     * outline. */
    AK_READ_OUTLINE = 2,
    AK_READ_FLAGS_MAX_ = INT32_MAX
} ak_read_flags;

/* Unless max_alloc says otherwise, a read of n input bytes may allocate
 *   - AK_READ_ALLOC_FACTOR * n + AK_READ_ALLOC_BASE bytes for all that
 *     input bytes can become: clips, tracks, names, properties, events,
 *     bones, stored bytes, mesh blobs and the plugin's scratch memory;
 *   - plus, counted apart, what the counts need, up to AK_READ_KEY_FACTOR
 *     * n + AK_READ_KEY_BASE bytes: each key array twice (72 bytes a key,
 *     once more for its stored bytes and the plugin's working memory per
 *     key; arrays that grow by doubling keep their old copy) and what
 *     plugins reserve for their libraries (ak_job_reserve: the JSON
 *     reader's parse tree). Bit-packed formats store a key in a few bits
 *     and a JSON number's tree node is 48 bytes, hence the larger factor.
 * So a file of zeros, long names or huge properties stops at 16 times its
 * size, and no read takes more than 256 * n + 64 MiB. Besides that,
 * ak_read_file() holds the input once. An explicit max_alloc caps all of
 * it together. (API 1.2: 256 * n + 64 MiB was one cap for everything.) */
#define AK_READ_ALLOC_FACTOR 16u
#define AK_READ_ALLOC_BASE (32u * 1024u * 1024u)
#define AK_READ_KEY_FACTOR 240u
#define AK_READ_KEY_BASE (32u * 1024u * 1024u)

typedef struct ak_probe_result {
    const ak_codec *codec; /* the winner, or NULL */
    int score;
    const ak_codec *runner_up; /* the other codec of a tie */
} ak_probe_result;

/* Asks every enabled codec; the highest score wins, a tie that the
 * priorities do not break is AK_E_AMBIGUOUS, no score above 0 is
 * AK_E_NOFORMAT. Probes are first asked without `filename`; when exactly
 * one codec claims the bytes by magic (AK_PROBE_MAGIC) it wins at once,
 * otherwise all are asked again with the name and that round decides
 * (since 1.4, after its first release: before, one round with the name). */
AK_API ak_status ak_probe(const ak_registry *reg, const void *bytes, size_t size,
                          const char *filename, ak_probe_result *result, ak_report *report);

AK_API ak_status ak_read(const ak_registry *reg, const void *bytes, size_t size,
                         const ak_options *options, ak_doc **out, ak_report *report);
/* Maps the file and reads it. */
AK_API ak_status ak_read_file(const ak_registry *reg, const char *path, const ak_options *options,
                              ak_doc **out, ak_report *report);

/* Encodes `doc` into a new buffer freed with ak_buffer_free(). Before
 * writing, everything the target cannot hold is reported as a warning. */
AK_API ak_status ak_write(const ak_registry *reg, const ak_doc *doc, const ak_options *options,
                          unsigned char **bytes, size_t *size, ak_report *report);
AK_API void ak_buffer_free(const ak_registry *reg, unsigned char *bytes);

typedef enum ak_write_flags {
    AK_WRITE_OVERWRITE = 1, /* replace an existing file */
    AK_WRITE_FLAGS_MAX_ = INT32_MAX
} ak_write_flags;

/* Encodes and writes atomically: a temporary file in the same folder,
 * flushed, then renamed over `path`. On any failure `path` is untouched. */
AK_API ak_status ak_write_file(const ak_registry *reg, const ak_doc *doc, const char *path,
                               const ak_options *options, unsigned flags, ak_report *report);

/* The atomic file write on its own. */
AK_API ak_status ak_file_replace(const char *path, const void *bytes, size_t size, unsigned flags,
                                 ak_report *report);

/* Loads a whole file into memory; free with ak_file_unmap(). The file is
 * read, not mapped (since 1.2), so a file truncated by another process
 * during a read gives an error (AK_E_IO), never SIGBUS; a FIFO or other
 * non-regular file is refused at once (AK_E_NOINPUT) instead of blocking. */
typedef struct ak_mapped_file {
    const unsigned char *data;
    size_t size;
    int mapped_;   /* private */
} ak_mapped_file;
AK_API ak_status ak_file_map(const char *path, ak_mapped_file *file, ak_report *report);
AK_API void ak_file_unmap(ak_mapped_file *file);

#ifdef __cplusplus
}
#endif
#endif /* ANIMKIT_H */
