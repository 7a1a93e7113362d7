/* read.c - decoding .ani files into the document model.
 *
 * Layout (fact sheet §1): "ANI\0", int32 version, int32 event count,
 * events (string type, string sub-info, float time), int32 total time,
 * int32 track count, tracks (string bone, float weight, int32 key count,
 * keys: rotation, float[3] position, int32 time). Strings are an int32
 * length and that many raw bytes, no terminator. */
#include "ani.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ani_rd {
    ak_job *job;
    ak_reader r;
    ak_doc *doc;
    int version;
    size_t nan_keys;
} ani_rd;

/* A string's stored bytes, *len of them, not terminated. Returns NULL
 * after an error (already reported). */
static const unsigned char *take_string(ani_rd *rd, const char *what, size_t *len)
{
    size_t at = rd->r.pos;
    int32_t n = ak_i32(&rd->r);
    if (rd->r.failed)
        return NULL;
    if (n < 0) {
        ak_fail(rd->job, AK_E_DATA, (int64_t)at, "%s: negative string length %d", what, (int)n);
        return NULL;
    }
    if ((size_t)n > ak_remaining(&rd->r)) {
        ak_fail(rd->job, AK_E_DATA, (int64_t)at,
                "%s: string length %d is more than the %zu bytes left", what, (int)n,
                ak_remaining(&rd->r));
        return NULL;
    }
    if (n > ANI_MAX_STRING)
        ak_warn(rd->job, (int64_t)at,
                "%s is %d bytes long: the engine reads strings into a 260-byte buffer and "
                "overflows it at 260 bytes or more (this file cannot be written back as it is)",
                what, (int)n);
    *len = (size_t)n;
    return ak_bytes(&rd->r, (size_t)n, what);
}

/* The same as a NUL-terminated copy in `buf` (job scratch when longer
 * than `cap`); *bytes and *len are the stored bytes. */
static char *read_string(ani_rd *rd, const char *what, char *buf, size_t cap,
                         const unsigned char **bytes, size_t *len)
{
    const unsigned char *p = take_string(rd, what, len);
    if (!p)
        return NULL;
    size_t n = *len;
    char *s = buf;
    if (n >= cap) {
        s = ak_job_alloc(rd->job, n + 1, 1);
        if (!s)
            return NULL;
    }
    if (n)
        memcpy(s, p, n);
    s[n] = '\0';
    *bytes = p;
    return s;
}

static void free_string(ani_rd *rd, char *s, char *buf)
{
    if (s != buf)
        ak_job_free(rd->job, s);
}

/* When a string holds a NUL, the model keeps only the part before it; the
 * whole bytes go into a property so that the writer can re-emit them. */
static ak_status keep_bytes(ani_rd *rd, ak_props *props, const char *key,
                            const unsigned char *bytes, size_t len)
{
    if (!memchr(bytes, 0, len))
        return AK_OK;
    return ak_prop_set_bytes(rd->doc, props, key, bytes, len);
}

static int32_t read_count(ani_rd *rd, const char *what, size_t min_size)
{
    size_t at = rd->r.pos;
    int32_t n = ak_i32(&rd->r);
    if (rd->r.failed)
        return -1;
    if (n < 0) {
        ak_fail(rd->job, AK_E_DATA, (int64_t)at, "negative count of %s: %d", what, (int)n);
        return -1;
    }
    if (!ak_need_array(&rd->r, (uint64_t)n, min_size, what))
        return -1;
    return n;
}

static ak_status nomem(ani_rd *rd)
{
    return ak_fail(rd->job, AK_E_NOMEM, (int64_t)rd->r.pos, "out of memory");
}

static ak_status read_events(ani_rd *rd, ak_clip *clip)
{
    int32_t count = read_count(rd, "events", 12);
    if (count < 0)
        return AK_E_DATA;
    for (int32_t i = 0; i < count; i++) {
        char tbuf[ANI_MAX_STRING + 1], ibuf[ANI_MAX_STRING + 1];
        const unsigned char *tb = NULL, *ib = NULL;
        size_t tn = 0, in = 0;
        char *type = read_string(rd, "event type", tbuf, sizeof tbuf, &tb, &tn);
        if (!type)
            return AK_E_DATA;
        char *info = read_string(rd, "event sub-info", ibuf, sizeof ibuf, &ib, &in);
        if (!info) {
            free_string(rd, type, tbuf);
            return AK_E_DATA;
        }
        uint32_t bits = ak_u32(&rd->r);
        ak_event *e = NULL;
        ak_status st = AK_E_DATA;
        if (!rd->r.failed) {
            /* Times are milliseconds (§11); the model wants seconds. */
            e = ak_event_add(clip, (double)ak_bits_f32(bits) / 1000.0, type, info);
            st = e ? AK_OK : AK_E_NOMEM;
        }
        if (st == AK_OK)
            st = ak_prop_set_int(rd->doc, &e->props, ANI_PROP_TIME_BITS, bits);
        if (st == AK_OK)
            st = keep_bytes(rd, &e->props, ANI_PROP_TYPE_BYTES, tb, tn);
        if (st == AK_OK)
            st = keep_bytes(rd, &e->props, ANI_PROP_INFO_BYTES, ib, in);
        free_string(rd, type, tbuf);
        free_string(rd, info, ibuf);
        if (st == AK_E_NOMEM)
            return nomem(rd);
        if (st != AK_OK)
            return st;
    }
    return AK_OK;
}

static ak_status read_keys(ani_rd *rd, ak_track *t)
{
    size_t rot_size = ani_rotation_size(rd->version);
    size_t key_size = rot_size + 12 + 4;
    int32_t count = read_count(rd, "keys", key_size);
    if (count < 0)
        return AK_E_DATA;
    size_t at = rd->r.pos;
    const unsigned char *p = ak_bytes(&rd->r, (size_t)count * key_size, "keys");
    if (!p)
        return AK_E_DATA;
    if (!count)
        return AK_OK;
    /* Keys in bulk; the key records stored once, keys pointing into them. */
    size_t n = (size_t)count;
    ak_key *rk = ak_keys_append_uninit(t, AK_ROTATION, n); /* every field set below */
    ak_key *tk = rk ? ak_keys_append_uninit(t, AK_TRANSLATION, n) : NULL;
    const unsigned char *stored = tk ? ak_doc_store(rd->doc, p, n * key_size) : NULL;
    if (!stored)
        return nomem(rd);
    for (size_t i = 0; i < n; i++, p += key_size, at += key_size) {
        int32_t ms = (int32_t)ak_peek_u32(p + rot_size + 12);
        float q[4];
        switch (rd->version) {
        case ANI_V_FLOAT:
            for (int c = 0; c < 4; c++)
                q[c] = ak_peek_f32(p + 4 * c);
            break;
        case ANI_V_SMALL3:
            ani_decode_4001(ak_load_u32(p), q);
            if (q[0] != q[0] || q[1] != q[1] || q[2] != q[2] || q[3] != q[3]) {
                if (!rd->nan_keys)
                    ak_warn(rd->job, (int64_t)at,
                            "rotation word %08X decodes to NaN (its three stored values square-sum "
                            "above 1; the engine does the same)", (unsigned)ak_load_u32(p));
                rd->nan_keys++;
            }
            break;
        default:
            ani_decode_4002(ak_load_u32(p), ak_load_u32(p + 4), q);
            break;
        }
        double time = (double)ms / 1000.0;
        rk[i].tick = ms;
        rk[i].time = time;
        for (int c = 0; c < 4; c++)
            rk[i].v[c] = (double)q[c];
        tk[i].tick = ms;
        tk[i].time = time;
        for (int c = 0; c < 3; c++)
            tk[i].v[c] = (double)ak_peek_f32(p + rot_size + 4 * c);
        tk[i].v[3] = 0.0;
    }
    if (ak_keys_set_raw(rk, n, stored, key_size, rot_size) != AK_OK ||
        ak_keys_set_raw(tk, n, stored + rot_size, key_size, 12) != AK_OK)
        return nomem(rd);
    return AK_OK;
}

static ak_status read_tracks(ani_rd *rd, ak_clip *clip)
{
    int32_t count = read_count(rd, "tracks", 12);
    if (count < 0)
        return AK_E_DATA;
    for (int32_t i = 0; i < count; i++) {
        size_t len = 0;
        /* Named from the file's bytes: a terminated copy stalled the core's
         * measuring of it. */
        const unsigned char *bytes = take_string(rd, "bone name", &len);
        if (!bytes)
            return AK_E_DATA;
        ak_track *t = ak_track_add_n(clip, (const char *)bytes, len);
        if (!t || keep_bytes(rd, &t->props, ANI_PROP_BONE_BYTES, bytes, len) != AK_OK)
            return nomem(rd);
        uint32_t wbits = ak_u32(&rd->r);
        if (rd->r.failed)
            return AK_E_DATA;
        t->weight = (double)ak_bits_f32(wbits);
        if (ak_prop_set_int(rd->doc, &t->props, ANI_PROP_WEIGHT_BITS, wbits) != AK_OK)
            return nomem(rd);
        ak_status st = read_keys(rd, t);
        if (st != AK_OK)
            return st;
    }
    return AK_OK;
}

ak_status ani_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    ani_rd rd = { job, { 0 }, doc, 0, 0 };
    ak_reader_init(&rd.r, job, bytes, size);
    const unsigned char *magic = ak_bytes(&rd.r, 4, "magic");
    if (!magic)
        return AK_E_DATA;
    if (memcmp(magic, "ANI\0", 4) != 0) {
        if (memcmp(magic, "\xF5\x8D\xB5\xFF", 4) == 0)
            return ak_fail(job, AK_E_UNSUPPORTED, 0,
                           "this looks like a byte-transformed ANI (rotate right 3, XOR FF); "
                           "such files are not supported");
        return ak_fail(job, AK_E_DATA, 0,
                       "not an ANI file: the magic is %02X %02X %02X %02X, expected 41 4E 49 00 (\"ANI\\0\")",
                       magic[0], magic[1], magic[2], magic[3]);
    }
    int32_t version = ak_i32(&rd.r);
    if (rd.r.failed)
        return AK_E_DATA;
    if (version != ANI_V_FLOAT && version != ANI_V_SMALL3 && version != ANI_V_8BYTES)
        return ak_fail(job, AK_E_UNSUPPORTED, 4,
                       "unknown ANI version %d (this plugin reads 4000, 4001 and 4002)", (int)version);
    rd.version = version;
    char variant[16];
    snprintf(variant, sizeof variant, "%d", (int)version);
    char name[256];
    ak_path_stem(ak_job_filename(job), name, sizeof name);
    ak_clip *clip = ak_clip_add(doc, name);
    if (!clip || ak_doc_set_format(doc, "ani", variant) != AK_OK ||
        ak_prop_set_int(doc, &doc->props, ANI_PROP_VERSION, version) != AK_OK)
        return nomem(&rd);
    clip->tick_rate = 1000.0;

    ak_status st = read_events(&rd, clip);
    if (st != AK_OK)
        return st;
    int32_t total = ak_i32(&rd.r);
    if (rd.r.failed)
        return AK_E_DATA;
    clip->duration = (double)total / 1000.0;
    if (ak_prop_set_int(doc, &clip->props, ANI_PROP_TOTAL, total) != AK_OK)
        return nomem(&rd);
    st = read_tracks(&rd, clip);
    if (st != AK_OK)
        return st;
    if (rd.nan_keys > 1)
        ak_warn(job, -1, "%zu rotation words in all decode to NaN", rd.nan_keys);
    size_t left = ak_remaining(&rd.r);
    if (left) {
        ak_warn(job, (int64_t)rd.r.pos, "%zu bytes follow the last track; they are kept as they are", left);
        if (ak_prop_set_bytes(doc, &doc->props, ANI_PROP_TRAILING, rd.r.data + rd.r.pos, left) != AK_OK)
            return nomem(&rd);
    }
    return ak_job_failed(job) ? AK_E_DATA : AK_OK;
}
