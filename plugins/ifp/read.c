/* read.c - decoding ANP3, ANP2, ANPK and ANLF packages into a document.
 *
 * Everything is parsed by counts; size fields are only compared with what
 * the data says (a mismatch is a warning, and the stored value is kept for
 * the writer). Every count is checked with ak_need_array() before use. */
#include "ifp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct ifp_rd {
    ak_job *job;
    ak_doc *doc;
    ak_reader r;
    ifp_variant var;
    int outline;           /* keys counted, not decoded (ak_job_outline) */
    size_t junk_names;     /* name fields with bytes after their NUL */
    int64_t junk_first;    /* offset of the first one */
} ifp_rd;

/* The status to return once something failed: the reader and the heap
 * have already recorded the error in the job. */
static ak_status failed(ifp_rd *d, int64_t off)
{
    if (d->r.failed)
        return AK_E_DATA;
    if (ak_job_failed(d->job))
        return AK_E_LIMIT;
    return ak_fail(d->job, AK_E_NOMEM, off, "out of memory");
}

static ak_status chk(ifp_rd *d, ak_status st, int64_t off)
{
    if (st == AK_OK && !d->r.failed)
        return AK_OK;
    if (d->r.failed)
        return AK_E_DATA;
    if (ak_job_failed(d->job))
        return st;
    return ak_fail(d->job, st, off, "out of memory");
}

/* The length of a fixed field's text, and whether the field is that text
 * + zeros. */
static size_t field_span(const unsigned char *p, size_t n, int *canonical)
{
    size_t len = ifp_field_len(p, n);
    *canonical = ifp_field_zero_padded(p, n, len);
    return len;
}

/* Copies the text of a fixed field into buf (at most n bytes + NUL), and
 * says whether the field is that text + zeros. */
static const char *field_text(char *buf, const unsigned char *p, size_t n, int *canonical)
{
    size_t len = field_span(p, n, canonical);
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

/* A track named by a fixed field, from the file's bytes themselves: a
 * copy made to terminate the name stalled the core's measuring of it. */
static ak_track *add_track_named(ak_clip *clip, const unsigned char *p, size_t n, int *canonical)
{
    size_t len = field_span(p, n, canonical);
    return ak_track_add_n(clip, (const char *)p, len);
}

static void count_junk(ifp_rd *d, int64_t off)
{
    if (!d->junk_names++)
        d->junk_first = off;
}

static void note_junk(ifp_rd *d, const unsigned char *p, size_t n, int64_t off)
{
    if (!ifp_field_canonical(p, n))
        count_junk(d, off);
}

/* Stores the raw field when it is not "text + zeros". */
static ak_status keep_field(ifp_rd *d, ak_props *props, const char *key, const unsigned char *p, size_t n,
                            int canonical, int64_t off)
{
    if (canonical)
        return AK_OK;
    count_junk(d, off);
    return ak_prop_set_bytes(d->doc, props, key, p, n);
}

static int64_t safe_tick(double t)
{
    double x = t * 60.0;
    if (!isfinite(x) || fabs(x) > 9e15)
        return 0;
    return (int64_t)llround(x);
}

/* Tail after the data: kept in a prop, with a warning. */
static ak_status read_tail(ifp_rd *d, const char *key)
{
    size_t end = d->r.pos, n = d->r.size - end;
    if (!n)
        return AK_OK;
    const unsigned char *p = d->r.data + end;
    size_t nonzero = 0;
    for (size_t i = 0; i < n; i++)
        nonzero += p[i] != 0;
    if (nonzero)
        ak_warn(d->job, (int64_t)end,
                "%zu bytes follow the last animation (%zu of them not zero: stale data from an older file); "
                "kept as they are", n, nonzero);
    else
        ak_warn(d->job, (int64_t)end, "%zu zero bytes of padding follow the last animation; kept", n);
    /* Zero padding is kept as its length: a read's memory must not grow
     * with bytes that carry nothing (a 2 GB file of zeros took 4 GB). */
    if (!nonzero && n <= INT64_MAX)
        return chk(d, ak_prop_set_int(d->doc, &d->doc->props, IFP_P_TAIL_ZEROS, (int64_t)n), (int64_t)end);
    return chk(d, ak_prop_set_bytes(d->doc, &d->doc->props, key, p, n), (int64_t)end);
}

/* ------------------------------------------------------------------ */
/* ANP3 / ANP2                                                         */
/* ------------------------------------------------------------------ */

/* Looks ahead over one animation's bones: which frame families occur. */
static void scan_families(const ak_reader *r, uint32_t bones, int *has_int, int *has_float)
{
    ak_reader s = *r;
    s.job = NULL;
    *has_int = *has_float = 0;
    for (uint32_t b = 0; b < bones && !(*has_int && *has_float); b++) {
        const unsigned char *h = ak_take(&s, IFP_NAME24 + 12, NULL);
        if (!h)
            return;
        uint32_t type = ak_peek_u32(h + 24), count = ak_peek_u32(h + 28);
        size_t rs = ifp_frame_size(type);
        if (!rs || !ak_need_array(&s, count, rs, NULL))
            return;
        if (type >= 3)
            *has_int = 1;
        else if (count)
            *has_float = 1;
        ak_take(&s, (size_t)count * rs, NULL);
    }
}

static int16_t s16(const unsigned char *p) { return (int16_t)ak_peek_u16(p); }

static double f32_at(const unsigned char *p) { return ak_peek_f32(p); }

/* The latest finite time of `count` records of `stride` bytes, each with
 * its time at `at`: a 16-bit tick of 1/60 s, or a float of seconds. An
 * outline's clips need it for their durations; the full read finds it
 * while it decodes the same times. */
static double latest_time(const unsigned char *p, size_t count, size_t stride, size_t at, int ticks, double top)
{
    for (size_t i = 0; i < count; i++, p += stride) {
        double time = ticks ? (double)s16(p + at) / 60.0 : f32_at(p + at);
        if (time > top && isfinite(time))
            top = time;
    }
    return top;
}

/* An outline's channels: their key counts, and the bone's latest time. */
static ak_status outline_keys(ifp_rd *d, ak_track *t, size_t channels, size_t count, int64_t off)
{
    ak_status st = AK_OK;
    for (size_t ch = 0; st == AK_OK && ch < channels; ch++)
        st = ak_keys_outline(t, ch == 0 ? AK_ROTATION : ch == 1 ? AK_TRANSLATION : AK_SCALE, count);
    return st == AK_OK ? AK_OK : ak_fail(d->job, st, off, "the key counts do not fit in memory");
}

/* The frames of one bone: keys appended in bulk, the frame records stored
 * once, each key's stored bytes pointing into them. */
static ak_status read_anp_frames(ifp_rd *d, ak_track *t, uint32_t type, uint32_t count, int float_ticks,
                                 double *maxt)
{
    size_t rs = ifp_frame_size(type);
    int has_t = type == 2 || type == 4;
    int64_t off = (int64_t)d->r.pos;
    const unsigned char *p = ak_take(&d->r, (size_t)count * rs, "frames");
    if (!p)
        return AK_E_DATA;
    if (!count)
        return AK_OK;
    if (d->outline) {
        *maxt = latest_time(p, count, rs, type >= 3 ? 8 : 16, type >= 3, *maxt);
        return outline_keys(d, t, has_t ? 2 : 1, count, off);
    }
    /* Every field of these keys is set below. */
    ak_key *q = ak_keys_append_uninit(t, AK_ROTATION, count);
    ak_key *k = q && has_t ? ak_keys_append_uninit(t, AK_TRANSLATION, count) : NULL;
    const unsigned char *stored = q && (k || !has_t) ? ak_doc_store(d->doc, p, (size_t)count * rs) : NULL;
    if (!stored)
        return failed(d, off);
    double top = *maxt;
    for (uint32_t i = 0; i < count; i++, p += rs) {
        double time;
        int64_t tick;
        if (type >= 3) {
            q[i].v[0] = s16(p) / 4096.0;
            q[i].v[1] = s16(p + 2) / 4096.0;
            q[i].v[2] = s16(p + 4) / 4096.0;
            q[i].v[3] = s16(p + 6) / 4096.0;
            tick = s16(p + 8);
            time = (double)tick / 60.0;
        } else {
            for (int c = 0; c < 4; c++)
                q[i].v[c] = f32_at(p + 4 * c);
            time = f32_at(p + 16);
            tick = float_ticks ? safe_tick(time) : 0;
        }
        q[i].time = time;
        q[i].tick = tick;
        if (time > top && isfinite(time))
            top = time;
        if (has_t) {
            k[i].time = time;
            k[i].tick = tick;
            if (type == 4) {
                k[i].v[0] = s16(p + 10) / 1024.0;
                k[i].v[1] = s16(p + 12) / 1024.0;
                k[i].v[2] = s16(p + 14) / 1024.0;
            } else {
                for (int c = 0; c < 3; c++)
                    k[i].v[c] = f32_at(p + 20 + 4 * c);
            }
            k[i].v[3] = 0.0;
        }
    }
    *maxt = top;
    ak_status st = ak_keys_set_raw(q, count, stored, rs, type >= 3 ? 10 : 20);
    if (st == AK_OK && has_t)
        st = ak_keys_set_raw(k, count, stored + (type == 4 ? 10 : 20), rs, type == 4 ? 6 : 12);
    return chk(d, st, off);
}

static ak_status read_anp(ifp_rd *d)
{
    ak_reader *r = &d->r;
    ak_doc *doc = d->doc;
    int anp3 = d->var == IFP_ANP3;
    char name[32];
    int canon;
    ak_status st;

    ak_take(r, 4, "magic");
    uint32_t size = ak_take_u32(r, "32-bit value");
    const unsigned char *pkg = ak_take(r, IFP_NAME24, "package name");
    uint32_t count = ak_take_u32(r, "32-bit value");
    if (r->failed)
        return AK_E_DATA;
    st = ak_prop_set_string(doc, &doc->props, IFP_P_PACKAGE, field_text(name, pkg, IFP_NAME24, &canon));
    if (st == AK_OK)
        st = keep_field(d, &doc->props, IFP_P_PACKAGE_RAW, pkg, IFP_NAME24, canon, 8);
    if ((st = chk(d, st, 8)) != AK_OK)
        return st;
    size_t hdr = anp3 ? 36 : 28;
    if (!ak_need_array(r, count, hdr, "animations"))
        return AK_E_DATA;

    for (uint32_t a = 0; a < count; a++) {
        int64_t aoff = (int64_t)r->pos;
        const unsigned char *an = ak_take(r, IFP_NAME24, "animation name");
        uint32_t bones = ak_take_u32(r, "32-bit value");
        uint32_t fdb = anp3 ? ak_take_u32(r, "32-bit value") : 0;
        uint32_t flags = anp3 ? ak_take_u32(r, "32-bit value") : 0;
        if (r->failed)
            return AK_E_DATA;
        ak_clip *clip = ak_clip_add(doc, field_text(name, an, IFP_NAME24, &canon));
        if (!clip)
            return failed(d, aoff);
        if ((st = chk(d, keep_field(d, &clip->props, IFP_P_NAME_RAW, an, IFP_NAME24, canon, aoff), aoff)) != AK_OK)
            return st;
        if (anp3 && (st = chk(d, ak_prop_set_int(doc, &clip->props, IFP_P_FLAGS, flags), aoff)) != AK_OK)
            return st;
        if (!ak_need_array(r, bones, 36, "bones"))
            return AK_E_DATA;
        int has_int, has_float;
        scan_families(r, bones, &has_int, &has_float);
        int float_ticks = has_int && has_float;
        uint64_t computed = 0;
        double maxt = 0;
        for (uint32_t b = 0; b < bones; b++) {
            int64_t boff = (int64_t)r->pos;
            /* name[24], frame type, frame count, bone id */
            const unsigned char *bn = ak_take(r, IFP_NAME24 + 12, "bone header");
            if (!bn)
                return AK_E_DATA;
            uint32_t type = ak_peek_u32(bn + 24), frames = ak_peek_u32(bn + 28);
            int32_t id = (int32_t)ak_peek_u32(bn + 32);
            size_t rs = ifp_frame_size(type);
            if (!rs)
                return ak_fail(d->job, AK_E_DATA, boff + 24,
                               "bone %u of animation '%s' has frame type %u; only types 1 to 4 exist", b,
                               clip->name, type);
            if (!ak_need_array(r, frames, rs, "frames"))
                return AK_E_DATA;
            computed += (uint64_t)frames * rs;
            ak_track *t = add_track_named(clip, bn, IFP_NAME24, &canon);
            if (!t)
                return failed(d, boff);
            t->bone_id = id;
            t->has_bone_id = 1;
            st = keep_field(d, &t->props, IFP_P_NAME_RAW, bn, IFP_NAME24, canon, boff);
            if (st == AK_OK)
                st = ak_prop_set_int(doc, &t->props, IFP_P_FRAME_TYPE, type);
            if ((st = chk(d, st, boff)) != AK_OK)
                return st;
            if ((st = read_anp_frames(d, t, type, frames, float_ticks, &maxt)) != AK_OK)
                return st;
        }
        clip->tick_rate = has_int ? 60.0 : 0.0;
        clip->duration = maxt;
        if (anp3 && fdb != computed) {
            ak_warn(d->job, aoff + 28,
                    "animation '%s': the frame-data byte count says %u, the frames take %llu bytes; "
                    "the stored value is kept", clip->name, fdb, (unsigned long long)computed);
            if ((st = chk(d, ifp_stale_put(doc, &clip->props, IFP_P_FRAME_BYTES, fdb, (int64_t)computed), aoff)) !=
                AK_OK)
                return st;
        }
    }
    int64_t data_end = (int64_t)r->pos;
    if ((int64_t)size != data_end - 8) {
        ak_warn(d->job, 4,
                "the size field says %u bytes follow offset 8, but the data ends at byte %lld (%lld expected); "
                "the stored value is kept", size, (long long)data_end, (long long)(data_end - 8));
        if ((st = chk(d, ifp_stale_put(doc, &doc->props, IFP_P_SIZE, size, data_end - 8), 4)) != AK_OK)
            return st;
    }
    return read_tail(d, IFP_P_TAIL);
}

/* ------------------------------------------------------------------ */
/* ANPK                                                                */
/* ------------------------------------------------------------------ */

static size_t pad4(size_t n) { return (n + 3u) & ~(size_t)3u; }

/* Reads a chunk header with the expected tag; returns its size. */
static int chunk(ifp_rd *d, const char *tag, uint32_t *size)
{
    int64_t off = (int64_t)d->r.pos;
    const unsigned char *p = ak_take(&d->r, 8, "chunk header");
    if (!p)
        return 0;
    if (memcmp(p, tag, 4) != 0) {
        char got[5];
        for (int i = 0; i < 4; i++)
            got[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
        got[4] = '\0';
        ak_fail(d->job, AK_E_DATA, off, "expected a %s chunk, found '%s'", tag, got);
        d->r.failed = 1;
        return 0;
    }
    *size = ak_peek_u32(p + 4);
    return 1;
}

/* Payload of a chunk whose size must be at least `min`; includes padding. */
static const unsigned char *payload(ifp_rd *d, const char *tag, uint32_t size, uint32_t min)
{
    if (size < min) {
        ak_fail(d->job, AK_E_DATA, (int64_t)d->r.pos - 4, "%s chunk size %u is below the minimum of %u", tag,
                size, min);
        d->r.failed = 1;
        return NULL;
    }
    return ak_take(&d->r, pad4(size), tag);
}

static ak_status stale(ifp_rd *d, ak_props *props, const char *key, uint32_t stored, uint64_t computed,
                       int64_t off, const char *what, const char *where)
{
    if (stored == computed)
        return AK_OK;
    ak_warn(d->job, off, "%s: the %s size field says %u, the content takes %llu bytes; the stored value is kept",
            where, what, stored, (unsigned long long)computed);
    return chk(d, ifp_stale_put(d->doc, props, key, stored, (int64_t)computed), off);
}

static ak_status read_anpk_keys(ifp_rd *d, ak_track *t, int32_t frames, double *maxt, const char *clipname)
{
    int64_t off = (int64_t)d->r.pos;
    const unsigned char *h = ak_take(&d->r, 8, "key chunk header");
    if (!h)
        return AK_E_DATA;
    int kind; /* 0 = R, 1 = RT, 2 = RTS */
    uint32_t stride;
    if (!memcmp(h, "KR00", 4))
        kind = 0, stride = IFP_KR00_STRIDE;
    else if (!memcmp(h, "KRT0", 4))
        kind = 1, stride = IFP_KRT0_STRIDE;
    else if (!memcmp(h, "KRTS", 4))
        kind = 2, stride = IFP_KRTS_STRIDE;
    else
        return ak_fail(d->job, AK_E_DATA, off, "animation '%s', bone '%s': expected a KR00, KRT0 or KRTS chunk",
                       clipname, t->bone);
    uint32_t ksz = ak_peek_u32(h + 4);
    if (!ak_need_array(&d->r, (uint64_t)frames, stride, "keys"))
        return AK_E_DATA;
    ak_status st = stale(d, &t->props, IFP_P_KEY_SIZE, ksz, (uint64_t)frames * stride, off + 4, "key chunk",
                         clipname);
    if (st != AK_OK)
        return st;
    const unsigned char *p = ak_take(&d->r, (size_t)frames * stride, "keys");
    if (!p)
        return AK_E_DATA;
    if (!frames)
        return AK_OK;
    size_t n = (size_t)frames;
    if (d->outline) {
        *maxt = latest_time(p, n, stride, stride - 4, 0, *maxt);
        return outline_keys(d, t, (size_t)kind + 1, n, off);
    }
    /* Every field of these keys is set below. */
    ak_key *keys[3] = { ak_keys_append_uninit(t, AK_ROTATION, n), NULL, NULL };
    for (int ch = 1; ch <= kind && keys[ch - 1]; ch++)
        keys[ch] = ak_keys_append_uninit(t, ch == 1 ? AK_TRANSLATION : AK_SCALE, n);
    /* A rotation's stored bytes are its quaternion and time, which only
     * lie side by side in a KR00 record: the other records are stored as
     * they are and the rotations get a packed copy. */
    const unsigned char *stored = keys[kind] ? ak_doc_store(d->doc, p, n * stride) : NULL;
    unsigned char *packed = stored && kind ? ak_doc_store_uninit(d->doc, n * 20) : NULL; /* all filled below */
    if (!stored || (kind && !packed))
        return failed(d, off);
    size_t toff = stride - 4;
    double top = *maxt;
    for (size_t i = 0; i < n; i++, p += stride) {
        double time = f32_at(p + toff);
        if (time > top && isfinite(time))
            top = time;
        ak_key *q = &keys[0][i];
        q->time = time;
        q->tick = 0;
        /* The file holds the conjugate of the engine's rotation. */
        q->v[0] = -f32_at(p);
        q->v[1] = -f32_at(p + 4);
        q->v[2] = -f32_at(p + 8);
        q->v[3] = f32_at(p + 12);
        if (packed) {
            memcpy(packed + 20 * i, p, 16);
            memcpy(packed + 20 * i + 16, p + toff, 4);
        }
        for (int ch = 1; ch <= kind; ch++) {
            ak_key *k = &keys[ch][i];
            k->time = time;
            k->tick = 0;
            const unsigned char *v = p + 16 + 12 * (ch - 1);
            for (int c = 0; c < 3; c++)
                k->v[c] = f32_at(v + 4 * c);
            k->v[3] = 0.0;
        }
    }
    *maxt = top;
    st = ak_keys_set_raw(keys[0], n, packed ? packed : stored, 20, 20);
    for (int ch = 1; st == AK_OK && ch <= kind; ch++)
        st = ak_keys_set_raw(keys[ch], n, stored + 16 + 12 * (ch - 1), stride, 12);
    return chk(d, st, off);
}

/* One ANPK block (the whole file, or one block of an ANLF). */
static ak_status read_anpk_block(ifp_rd *d, int block)
{
    ak_reader *r = &d->r;
    ak_doc *doc = d->doc;
    char key[96], name[64];
    int canon;
    ak_status st;
    int64_t start = (int64_t)r->pos;
    uint32_t size, isz;
    if (!chunk(d, "ANPK", &size))
        return AK_E_DATA;
    int64_t info_off = (int64_t)r->pos;
    if (!chunk(d, "INFO", &isz))
        return AK_E_DATA;
    const unsigned char *info = payload(d, "INFO", isz, 4);
    if (!info)
        return AK_E_DATA;
    int32_t count = (int32_t)ak_peek_u32(info);
    if (count < 0)
        return ak_fail(d->job, AK_E_DATA, info_off + 8, "negative animation count %d", count);
    size_t plen = pad4(isz) - 4;
    const unsigned char *pname = info + 4;
    size_t nlen = ifp_field_len(pname, isz - 4);
    if (nlen > sizeof name - 1)
        nlen = sizeof name - 1;
    memcpy(name, pname, nlen);
    name[nlen] = '\0';
    st = ak_prop_set_string(doc, &doc->props, ifp_block_key(key, sizeof key, block, IFP_P_PACKAGE), name);
    if (st == AK_OK && (isz != 4 + strlen(name) + 1 || !ifp_field_canonical(pname, plen) ||
                        ifp_field_len(pname, plen) != strlen(name))) {
        note_junk(d, pname, plen, info_off + 12);
        st = ak_prop_set_bytes(doc, &doc->props, ifp_block_key(key, sizeof key, block, IFP_P_PACKAGE_RAW), pname,
                               plen);
        if (st == AK_OK)
            st = ak_prop_set_int(doc, &doc->props, ifp_block_key(key, sizeof key, block, IFP_P_INFO_SIZE), isz);
    }
    if ((st = chk(d, st, info_off)) != AK_OK)
        return st;
    if (!ak_need_array(r, (uint64_t)count, 32, "animations"))
        return AK_E_DATA;

    for (int32_t a = 0; a < count; a++) {
        int64_t aoff = (int64_t)r->pos;
        uint32_t nsz, dsz, disz;
        if (!chunk(d, "NAME", &nsz))
            return AK_E_DATA;
        const unsigned char *np = payload(d, "NAME", nsz, 0);
        if (!np)
            return AK_E_DATA;
        size_t len = ifp_field_len(np, nsz);
        char cname[256];
        size_t clen = len < sizeof cname - 1 ? len : sizeof cname - 1;
        memcpy(cname, np, clen);
        cname[clen] = '\0';
        ak_clip *clip = ak_clip_add(doc, cname);
        if (!clip)
            return failed(d, aoff);
        st = AK_OK;
        if (block >= 0)
            st = ak_prop_set_int(doc, &clip->props, IFP_P_BLOCK, block);
        if (st == AK_OK && (nsz != len + 1 || clen != len || !ifp_field_canonical(np, pad4(nsz)))) {
            note_junk(d, np, pad4(nsz), aoff + 8);
            st = ak_prop_set_bytes(doc, &clip->props, IFP_P_NAME_RAW, np, pad4(nsz));
            if (st == AK_OK)
                st = ak_prop_set_int(doc, &clip->props, IFP_P_NAME_SIZE, nsz);
        }
        if ((st = chk(d, st, aoff)) != AK_OK)
            return st;
        int64_t doff = (int64_t)r->pos;
        if (!chunk(d, "DGAN", &dsz) || !chunk(d, "INFO", &disz))
            return AK_E_DATA;
        const unsigned char *di = payload(d, "INFO", disz, 4);
        if (!di)
            return AK_E_DATA;
        int32_t bones = (int32_t)ak_peek_u32(di);
        if (bones < 0)
            return ak_fail(d->job, AK_E_DATA, doff + 16, "animation '%s': negative bone count %d", clip->name,
                           bones);
        if (disz == 8) {
            int32_t unk = (int32_t)ak_peek_u32(di + 4);
            if (unk)
                st = ak_prop_set_int(doc, &clip->props, IFP_P_DGAN_UNKNOWN, unk);
        } else {
            st = ak_prop_set_bytes(doc, &clip->props, IFP_P_DGAN_INFO_RAW, di + 4, pad4(disz) - 4);
            if (st == AK_OK)
                st = ak_prop_set_int(doc, &clip->props, IFP_P_DGAN_INFO_SIZE, disz);
        }
        if ((st = chk(d, st, doff)) != AK_OK)
            return st;
        if (!ak_need_array(r, (uint64_t)bones, 60, "bones"))
            return AK_E_DATA;
        uint64_t dgan = 8 + pad4(disz);
        double maxt = 0;
        int clip_form = 0;
        for (int32_t b = 0; b < bones; b++) {
            int64_t boff = (int64_t)r->pos;
            uint32_t csz, asz;
            if (!chunk(d, "CPAN", &csz) || !chunk(d, "ANIM", &asz))
                return AK_E_DATA;
            if (asz != 44 && asz != 48) {
                ak_fail(d->job, AK_E_UNSUPPORTED, boff + 12,
                        "animation '%s', bone %d: ANIM size %u (only 44 and 48 are known)", clip->name, b, asz);
                return AK_E_UNSUPPORTED;
            }
            const unsigned char *ap = ak_take(r, asz, "ANIM");
            if (!ap)
                return AK_E_DATA;
            int32_t frames = (int32_t)ak_peek_u32(ap + 28);
            int32_t unk32 = (int32_t)ak_peek_u32(ap + 32);
            int32_t last = (int32_t)ak_peek_u32(ap + 36);
            int32_t w40 = (int32_t)ak_peek_u32(ap + 40);
            if (frames < 0)
                return ak_fail(d->job, AK_E_DATA, boff + 44, "animation '%s', bone %d: negative frame count %d",
                               clip->name, b, frames);
            ak_track *t = add_track_named(clip, ap, IFP_NAME28, &canon);
            if (!t)
                return failed(d, boff);
            st = keep_field(d, &t->props, IFP_P_NAME_RAW, ap, IFP_NAME28, canon, boff + 16);
            if (b == 0) {
                clip_form = (int)asz;
                if (st == AK_OK && asz == 48)
                    st = ak_prop_set_int(doc, &clip->props, IFP_P_ANIM_SIZE, 48);
            } else if (st == AK_OK && (int)asz != clip_form) {
                st = ak_prop_set_int(doc, &t->props, IFP_P_ANIM_SIZE, asz);
            }
            if (asz == 44) {
                t->bone_id = w40;
                t->has_bone_id = 1;
            } else {
                if (st == AK_OK)
                    st = ak_prop_set_int(doc, &t->props, IFP_P_CHILD, w40);
                if (st == AK_OK)
                    st = ak_prop_set_int(doc, &t->props, IFP_P_SIBLING, (int32_t)ak_peek_u32(ap + 44));
            }
            if (st == AK_OK && unk32)
                st = ak_prop_set_int(doc, &t->props, IFP_P_ANIM_UNK32, unk32);
            if (st == AK_OK && (int64_t)last != (int64_t)frames - 1)
                st = ifp_stale_put(doc, &t->props, IFP_P_ANIM_LAST, last, (int64_t)frames - 1);
            if ((st = chk(d, st, boff)) != AK_OK)
                return st;
            uint64_t cpan = 8 + (uint64_t)asz;
            if (frames > 0) {
                size_t before = r->pos;
                if ((st = read_anpk_keys(d, t, frames, &maxt, clip->name)) != AK_OK)
                    return st;
                cpan += r->pos - before;
            }
            if ((st = stale(d, &t->props, IFP_P_CPAN_SIZE, csz, cpan, boff + 4, "CPAN", clip->name)) != AK_OK)
                return st;
            dgan += 8 + cpan;
        }
        if ((st = stale(d, &clip->props, IFP_P_DGAN_SIZE, dsz, dgan, doff + 4, "DGAN", clip->name)) != AK_OK)
            return st;
        clip->duration = maxt;
    }
    uint64_t total = r->pos - (size_t)start - 8;
    return stale(d, &doc->props, ifp_block_key(key, sizeof key, block, IFP_P_SIZE), size, total, start + 4,
                 "ANPK", "package");
}

static ak_status read_anlf(ifp_rd *d)
{
    ak_reader *r = &d->r;
    ak_take(r, 4, "magic");
    uint32_t size = ak_take_u32(r, "32-bit value");
    int32_t blocks = ak_i32(r);
    if (r->failed)
        return AK_E_DATA;
    if (blocks < 0)
        return ak_fail(d->job, AK_E_DATA, 8, "negative ANPK block count %d", blocks);
    if (!ak_need_array(r, (uint64_t)blocks, 20, "ANPK blocks"))
        return AK_E_DATA;
    ak_status st = chk(d, ak_prop_set_int(d->doc, &d->doc->props, IFP_P_BLOCKS, blocks), 8);
    for (int32_t b = 0; st == AK_OK && b < blocks; b++)
        st = read_anpk_block(d, b);
    if (st != AK_OK)
        return st;
    if ((st = stale(d, &d->doc->props, IFP_P_SIZE, size, r->pos - 8, 4, "ANLF", "package")) != AK_OK)
        return st;
    return read_tail(d, IFP_P_TAIL);
}

ak_status ifp_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    ifp_rd d;
    memset(&d, 0, sizeof d);
    d.job = job;
    d.doc = doc;
    d.outline = ak_job_outline(job);
    ak_reader_init(&d.r, job, bytes, size);
    if (!ak_need(&d.r, 4, "magic"))
        return AK_E_DATA;
    int v = ifp_variant_of((const char *)bytes);
    if (v < 0) {
        if (!memcmp(bytes, "ANCT", 4))
            return ak_fail(job, AK_E_UNSUPPORTED, 0, "ANCT containers (LCS/VCS) are not supported");
        return ak_fail(job, AK_E_DATA, 0, "not an IFP file: the magic is not ANP3, ANP2, ANPK or ANLF");
    }
    d.var = (ifp_variant)v;
    ak_status st = ak_doc_set_format(doc, "ifp", ifp_variant_name(d.var));
    if (st != AK_OK)
        return ak_fail(job, st, 0, "out of memory");
    switch (d.var) {
    case IFP_ANP3:
    case IFP_ANP2: st = read_anp(&d); break;
    case IFP_ANPK:
        st = read_anpk_block(&d, -1);
        if (st == AK_OK)
            st = read_tail(&d, IFP_P_TAIL);
        break;
    default: st = read_anlf(&d); break;
    }
    if (st == AK_OK && d.junk_names)
        ak_warn(job, d.junk_first,
                "%zu name fields hold leftover bytes after their terminating NUL; kept for a byte-exact rewrite",
                d.junk_names);
    return st;
}
