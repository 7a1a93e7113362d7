/* write.c - encoding a document as ANP3, ANP2, ANPK or ANLF.
 *
 * A document read from the same family (ANP3/ANP2 or ANPK/ANLF) keeps its
 * stored fields (props) and key bytes (raw) wherever they are still valid,
 * so an untouched document writes back byte-identical. Everything else is
 * encoded from the model: int16 values truncated from value x 4096 (rotation)
 * and value x 1024 (translation), times rounded from time x 60 + 0.5. */
#include "ifp.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct ifp_wr {
    ak_job *job;
    const ak_doc *doc;
    ak_sink *out;
    ifp_variant var;
    int same;         /* the doc's props and raw bytes belong to this family */
    size_t resampled; /* tracks whose channels were merged onto one time line */
    size_t clamped;   /* values outside the int16 range */
    size_t truncated; /* names cut to fit their field */
    size_t no_trans;  /* KRTS bones written without translation keys */
    size_t scale_dropped;
    size_t long_tracks;  /* ANP3/ANP2 bones with more than 65535 frames (SA keeps 16 bits) */
    size_t long_names;   /* ANPK animation names over 23 characters (the games keep 23) */
    size_t short_clips;  /* clips whose duration lies after their last key */
} ifp_wr;

typedef struct ifp_frame {
    double time;
    double q[4], t[3], s[3];
    const ak_key *rk, *tk, *sk; /* the source keys when the channels line up */
    unsigned clean;             /* bit c: channel c's source key is untouched */
} ifp_frame;

/* ------------------------------------------------------------------ */
/* Props and names                                                     */
/* ------------------------------------------------------------------ */

static const ak_prop *prop(const ifp_wr *w, const ak_props *props, const char *key)
{
    return w->same ? ak_prop_get(props, key) : NULL;
}

static int64_t prop_int(const ifp_wr *w, const ak_props *props, const char *key, int64_t fallback)
{
    return w->same ? ak_prop_int(props, key, fallback) : fallback;
}

static int64_t stale_get(const ifp_wr *w, const ak_props *props, const char *key, int64_t computed)
{
    return w->same ? ifp_stale_get(props, key, computed) : computed;
}

/* 1 if the text of a raw field equals `text`. */
static int raw_matches(const unsigned char *raw, size_t n, const char *text)
{
    size_t len = ifp_field_len(raw, n);
    return len == strlen(text) && memcmp(raw, text, len) == 0;
}

/* A fixed-size name field: the stored bytes if the name is unchanged, else
 * the name padded with zeros (cut to n - 1 bytes). */
static void put_field(ifp_wr *w, const ak_props *props, const char *key, const char *text, size_t n)
{
    const ak_prop *raw = props ? prop(w, props, key) : NULL;
    if (raw && raw->type == AK_PROP_BYTES && raw->size == n && raw_matches(raw->data, n, text)) {
        ak_put(w->out, raw->data, n);
        return;
    }
    size_t len = strlen(text);
    if (len > n - 1) {
        len = n - 1;
        w->truncated++;
    }
    ak_put(w->out, text, len);
    ak_put_zeros(w->out, n - len);
}

static size_t pad4(size_t n) { return (n + 3u) & ~(size_t)3u; }

/* A text chunk payload (NAME, INFO name): stored bytes and size when the
 * text is unchanged, else text + NUL padded to 4. Writes size + payload;
 * `prefix` bytes (the INFO count) go before the text. */
static void put_text_chunk(ifp_wr *w, const char *tag, const unsigned char *prefix, size_t plen,
                           const ak_prop *raw, const ak_prop *rawsize, const char *text)
{
    ak_put(w->out, tag, 4);
    if (raw && rawsize && raw->type == AK_PROP_BYTES && rawsize->type == AK_PROP_INT && rawsize->i >= (int64_t)plen &&
        rawsize->i <= UINT32_MAX && pad4((size_t)rawsize->i) == plen + raw->size &&
        raw_matches(raw->data, raw->size, text)) {
        ak_put_u32(w->out, (uint32_t)rawsize->i);
        ak_put(w->out, prefix, plen);
        ak_put(w->out, raw->data, raw->size);
        return;
    }
    size_t len = strlen(text);
    if (len > 0xFFFFu) {
        len = 0xFFFFu;
        w->truncated++;
    }
    size_t size = plen + len + 1;
    ak_put_u32(w->out, (uint32_t)size);
    ak_put(w->out, prefix, plen);
    ak_put(w->out, text, len);
    ak_put_zeros(w->out, pad4(size) - size + 1);
}

/* The package name: stored, else the output file's base name, else "anim". */
static const char *package_name(const ifp_wr *w, const char *key, char *buf, size_t size)
{
    /* The block's own name, else the name of a plain package or of the
     * first ANLF block (conversions between ANPK and ANLF). */
    const char *const keys[3] = { key, IFP_P_PACKAGE, "ifp.b0.package" };
    for (int i = 0; i < 3; i++) {
        const ak_prop *p = ak_prop_get(&w->doc->props, keys[i]);
        if (p && p->type == AK_PROP_STRING)
            return (const char *)p->data;
    }
    const char *file = ak_job_filename(w->job);
    if (file && *file) {
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        size_t n = strcspn(base, ".");
        if (n && n < size) {
            memcpy(buf, base, n);
            buf[n] = '\0';
            return buf;
        }
    }
    return "anim";
}

/* ------------------------------------------------------------------ */
/* Frames: one time line for the channels a record holds               */
/* ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Equal times, or the same bits (NaN read from a file). */
static int same_time(double a, double b) { return a == b || memcmp(&a, &b, sizeof a) == 0; }

/* Builds the frame list of a track for records holding rotation (always),
 * translation (use_t) and scale (use_s). Returns 0 when out of memory. */
static int build_frames(ifp_wr *w, const ak_track *t, int use_t, int use_s, ifp_frame **out, size_t *count)
{
    const ak_channel *ch[3] = { &t->channel[AK_ROTATION], use_t ? &t->channel[AK_TRANSLATION] : NULL,
                                use_s ? &t->channel[AK_SCALE] : NULL };
    *out = NULL;
    *count = 0;
    size_t n = 0;
    int aligned = 1, any = 0;
    for (int c = 0; c < 3; c++) {
        if (!ch[c] || !ch[c]->count)
            continue;
        if (!any) {
            n = ch[c]->count;
            any = 1;
        } else if (ch[c]->count != n) {
            aligned = 0;
        }
    }
    if (!any)
        return 1;
    if (aligned) {
        for (int c = 1; c < 3 && aligned; c++) {
            if (!ch[c] || !ch[c]->count)
                continue;
            for (int p = 0; p < c && aligned; p++) {
                if (!ch[p] || !ch[p]->count)
                    continue;
                for (size_t i = 0; i < n; i++)
                    if (!same_time(ch[c]->keys[i].time, ch[p]->keys[i].time)) {
                        aligned = 0;
                        break;
                    }
                break;
            }
        }
    }
    double *times = NULL;
    if (!aligned) {
        size_t total = 0;
        for (int c = 0; c < 3; c++)
            total += ch[c] ? ch[c]->count : 0;
        times = ak_job_alloc(w->job, total, sizeof *times);
        if (!times)
            return 0;
        n = 0;
        for (int c = 0; c < 3; c++)
            for (size_t i = 0; ch[c] && i < ch[c]->count; i++)
                if (isfinite(ch[c]->keys[i].time))
                    times[n++] = ch[c]->keys[i].time;
        qsort(times, n, sizeof *times, cmp_double);
        size_t u = 0;
        for (size_t i = 0; i < n; i++)
            if (!u || times[i] != times[u - 1])
                times[u++] = times[i];
        n = u;
        w->resampled++;
    }
    ifp_frame *f = ak_job_alloc(w->job, n, sizeof *f);
    if (!f) {
        ak_job_free(w->job, times);
        return 0;
    }
    /* Whether keys are untouched is asked once per channel, not per key. */
    size_t clean[3] = { 0, 0, 0 };
    for (int c = 0; c < 3 && aligned && w->same; c++)
        if (ch[c])
            clean[c] = ak_keys_unchanged(ch[c]->keys, ch[c]->count);
    for (size_t i = 0; i < n; i++) {
        ifp_frame *fr = &f[i];
        fr->q[3] = 1;
        fr->s[0] = fr->s[1] = fr->s[2] = 1;
        if (aligned) {
            for (int c = 0; c < 3; c++) {
                if (!ch[c] || !ch[c]->count)
                    continue;
                const ak_key *k = &ch[c]->keys[i];
                fr->time = k->time;
                fr->clean |= (unsigned)(i < clean[c]) << c;
                if (c == 0) {
                    fr->rk = k;
                    memcpy(fr->q, k->v, sizeof fr->q);
                } else if (c == 1) {
                    fr->tk = k;
                    memcpy(fr->t, k->v, sizeof fr->t);
                } else {
                    fr->sk = k;
                    memcpy(fr->s, k->v, sizeof fr->s);
                }
            }
        } else {
            fr->time = times[i];
            double v[4];
            if (ak_channel_sample(ch[0], AK_ROTATION, fr->time, v))
                memcpy(fr->q, v, sizeof fr->q);
            if (ch[1] && ak_channel_sample(ch[1], AK_TRANSLATION, fr->time, v))
                memcpy(fr->t, v, sizeof fr->t);
            if (ch[2] && ak_channel_sample(ch[2], AK_SCALE, fr->time, v))
                memcpy(fr->s, v, sizeof fr->s);
        }
    }
    ak_job_free(w->job, times);
    *out = f;
    *count = n;
    return 1;
}

/* Raw bytes of a key when they can be re-emitted; `clean` when the key is
 * already known untouched. */
static const unsigned char *raw_of(const ifp_wr *w, const ak_key *k, uint32_t size, unsigned clean)
{
    if (!w->same || !k || k->raw_size != size || (!clean && ak_key_changed(k)))
        return NULL;
    return k->raw;
}

static int16_t enc16(ifp_wr *w, double v, double scale)
{
    double x = v * scale;
    if (!isfinite(x)) {
        w->clamped++;
        return 0;
    }
    x = trunc(x);
    if (x > 32767.0 || x < -32768.0) {
        w->clamped++;
        return x > 0 ? 32767 : -32768;
    }
    return (int16_t)x;
}

static int16_t enc_time(ifp_wr *w, double t)
{
    double x = floor(t * 60.0 + 0.5);
    if (!isfinite(x)) {
        w->clamped++;
        return 0;
    }
    if (x > 32767.0 || x < -32768.0) {
        w->clamped++;
        return x > 0 ? 32767 : -32768;
    }
    return (int16_t)x;
}

static float enc_f32(ifp_wr *w, double v)
{
    if (isfinite(v) && fabs(v) > FLT_MAX) {
        w->clamped++;
        return v > 0 ? FLT_MAX : -FLT_MAX;
    }
    return (float)v;
}

/* ------------------------------------------------------------------ */
/* ANP3 / ANP2                                                         */
/* ------------------------------------------------------------------ */

static int anp_type(const ifp_wr *w, const ak_track *t)
{
    int64_t stored = prop_int(w, &t->props, IFP_P_FRAME_TYPE, 0);
    int fl = stored == 1 || stored == 2;
    size_t nr = t->channel[AK_ROTATION].count, nt = t->channel[AK_TRANSLATION].count;
    int has_t = nt > 0 || (nr == 0 && (stored == 2 || stored == 4));
    return fl ? (has_t ? 2 : 1) : (has_t ? 4 : 3);
}

static void put_anp_frame(ifp_wr *w, int type, const ifp_frame *f)
{
    ak_sink *o = w->out;
    if (type >= 3) {
        const unsigned char *r = raw_of(w, f->rk, 10, f->clean & 1);
        if (r) {
            ak_put(o, r, 10);
        } else {
            for (int c = 0; c < 4; c++)
                ak_put_i16(o, enc16(w, f->q[c], 4096.0));
            ak_put_i16(o, enc_time(w, f->time));
        }
        if (type == 4) {
            r = raw_of(w, f->tk, 6, f->clean & 2);
            if (r)
                ak_put(o, r, 6);
            else
                for (int c = 0; c < 3; c++)
                    ak_put_i16(o, enc16(w, f->t[c], 1024.0));
        }
    } else {
        const unsigned char *r = raw_of(w, f->rk, 20, f->clean & 1);
        if (r) {
            ak_put(o, r, 20);
        } else {
            for (int c = 0; c < 4; c++)
                ak_put_f32(o, enc_f32(w, f->q[c]));
            ak_put_f32(o, enc_f32(w, f->time));
        }
        if (type == 2) {
            r = raw_of(w, f->tk, 12, f->clean & 2);
            if (r)
                ak_put(o, r, 12);
            else
                for (int c = 0; c < 3; c++)
                    ak_put_f32(o, enc_f32(w, f->t[c]));
        }
    }
}

/* The frame records of an ANP3/ANP2 bone exactly as they were read: when
 * every key is untouched and the keys' stored bytes still lie back to back
 * in one block (as the reader stores them), that block, to be written in
 * one piece; else NULL, and the frames are written one by one. */
static const unsigned char *stored_frames(const ifp_wr *w, const ak_track *t, int type, size_t *count)
{
    const ak_channel *rc = &t->channel[AK_ROTATION], *tc = &t->channel[AK_TRANSLATION];
    int has_t = type == 2 || type == 4;
    size_t n = rc->count;
    uint32_t rsz = type >= 3 ? 10 : 20, tsz = type == 4 ? 6 : 12;
    if (!w->same || !n || tc->count != (has_t ? n : 0) || t->channel[AK_SCALE].count)
        return NULL;
    const unsigned char *base = rc->keys[0].raw, *next = base;
    if (!base)
        return NULL; /* no stored bytes (a conversion, a key built by hand) */
    if (ak_keys_unchanged(rc->keys, n) != n || ak_keys_unchanged(tc->keys, tc->count) != tc->count)
        return NULL;
    /* Each key's bytes must start where the previous key's end. */
    for (size_t i = 0; i < n; i++) {
        const ak_key *k = &rc->keys[i];
        if (k->raw != next || k->raw_size != rsz)
            return NULL;
        next = k->raw + rsz;
        if (has_t) {
            const ak_key *tk = &tc->keys[i];
            if (tk->raw != next || tk->raw_size != tsz || !same_time(tk->time, k->time))
                return NULL;
            next = tk->raw + tsz;
        }
    }
    *count = n;
    return base;
}

static ak_status oom(ifp_wr *w) { return ak_fail(w->job, AK_E_NOMEM, -1, "out of memory while encoding"); }

static ak_status write_anp(ifp_wr *w)
{
    const ak_doc *doc = w->doc;
    ak_sink *o = w->out;
    int anp3 = w->var == IFP_ANP3;
    char buf[64];
    ak_put(o, anp3 ? "ANP3" : "ANP2", 4);
    ak_put_u32(o, 0); /* size, patched below */
    put_field(w, &doc->props, IFP_P_PACKAGE_RAW, package_name(w, IFP_P_PACKAGE, buf, sizeof buf), IFP_NAME24);
    ak_put_u32(o, (uint32_t)doc->clip_count);
    for (size_t c = 0; c < doc->clip_count; c++) {
        const ak_clip *clip = doc->clips[c];
        put_field(w, &clip->props, IFP_P_NAME_RAW, clip->name, IFP_NAME24);
        ak_put_u32(o, (uint32_t)clip->track_count);
        size_t fdb_at = ak_sink_size(o);
        if (anp3) {
            ak_put_u32(o, 0);
            ak_put_u32(o, (uint32_t)prop_int(w, &clip->props, IFP_P_FLAGS, 1));
        }
        uint64_t fdb = 0;
        for (size_t i = 0; i < clip->track_count; i++) {
            const ak_track *t = clip->tracks[i];
            int type = anp_type(w, t);
            w->scale_dropped += t->channel[AK_SCALE].count;
            ifp_frame *f = NULL;
            size_t n;
            const unsigned char *block = stored_frames(w, t, type, &n);
            if (!block && !build_frames(w, t, type == 2 || type == 4, 0, &f, &n))
                return oom(w);
            if (n > 0xFFFFu)
                w->long_tracks++;
            if (n > UINT32_MAX) {
                ak_job_free(w->job, f);
                return ak_fail(w->job, AK_E_USAGE, -1, "clip '%s', bone '%s': %zu keys do not fit a bone",
                               clip->name, t->bone, n);
            }
            put_field(w, &t->props, IFP_P_NAME_RAW, t->bone, IFP_NAME24);
            ak_put_u32(o, (uint32_t)type);
            ak_put_u32(o, (uint32_t)n);
            ak_put_i32(o, t->has_bone_id ? t->bone_id : -1);
            if (block)
                ak_put(o, block, n * ifp_frame_size((uint32_t)type));
            else
                for (size_t k = 0; k < n; k++)
                    put_anp_frame(w, type, &f[k]);
            ak_job_free(w->job, f);
            fdb += (uint64_t)n * ifp_frame_size((uint32_t)type);
        }
        if (anp3)
            ak_sink_patch_u32(o, fdb_at, (uint32_t)stale_get(w, &clip->props, IFP_P_FRAME_BYTES, (int64_t)fdb));
    }
    size_t end = ak_sink_size(o);
    ak_sink_patch_u32(o, 4, (uint32_t)stale_get(w, &doc->props, IFP_P_SIZE, (int64_t)end - 8));
    return AK_OK;
}

/* ------------------------------------------------------------------ */
/* ANPK / ANLF                                                         */
/* ------------------------------------------------------------------ */

static void put_anpk_frame(ifp_wr *w, int kind, const ifp_frame *f)
{
    ak_sink *o = w->out;
    const unsigned char *r = raw_of(w, f->rk, 20, f->clean & 1);
    unsigned char time[4];
    if (r) {
        ak_put(o, r, 16);
        memcpy(time, r + 16, 4);
    } else {
        ak_put_f32(o, enc_f32(w, -f->q[0]));
        ak_put_f32(o, enc_f32(w, -f->q[1]));
        ak_put_f32(o, enc_f32(w, -f->q[2]));
        ak_put_f32(o, enc_f32(w, f->q[3]));
        uint32_t bits = ak_f32_bits(enc_f32(w, f->time));
        for (int i = 0; i < 4; i++)
            time[i] = (unsigned char)(bits >> (8 * i));
    }
    for (int ch = 1; ch <= kind; ch++) {
        const ak_key *k = ch == 1 ? f->tk : f->sk;
        const double *v = ch == 1 ? f->t : f->s;
        const unsigned char *kr = raw_of(w, k, 12, f->clean & (1u << ch));
        if (kr)
            ak_put(o, kr, 12);
        else
            for (int c = 0; c < 3; c++)
                ak_put_f32(o, enc_f32(w, v[c]));
    }
    ak_put(o, time, 4);
}

/* Whether every key of an ANPK bone (KR00, KRT0 or KRTS by `kind`) is
 * untouched, with stored bytes of the right sizes and one time per record:
 * then the records are rebuilt from the stored bytes alone, without a
 * frame list. */
static int anpk_untouched(const ifp_wr *w, const ak_track *t, int kind)
{
    const ak_channel *rc = &t->channel[AK_ROTATION], *tc = &t->channel[AK_TRANSLATION], *sc = &t->channel[AK_SCALE];
    size_t n = rc->count;
    if (!w->same || !n || tc->count != (kind >= 1 ? n : 0) || sc->count != (kind == 2 ? n : 0))
        return 0;
    if (ak_keys_unchanged(rc->keys, n) != n || ak_keys_unchanged(tc->keys, tc->count) != tc->count ||
        ak_keys_unchanged(sc->keys, sc->count) != sc->count)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const ak_key *rk = &rc->keys[i];
        if (rk->raw_size != 20 || !rk->raw)
            return 0;
        for (int ch = 1; ch <= kind; ch++) {
            const ak_key *k = ch == 1 ? &tc->keys[i] : &sc->keys[i];
            if (k->raw_size != 12 || !k->raw || !same_time(k->time, rk->time))
                return 0;
        }
    }
    return 1;
}

/* The records of an untouched ANPK bone: quaternion, translation, scale
 * and time from the keys' stored bytes. */
static void put_anpk_stored(ifp_wr *w, const ak_track *t, int kind)
{
    const ak_key *rk = t->channel[AK_ROTATION].keys, *tk = t->channel[AK_TRANSLATION].keys,
                 *sk = t->channel[AK_SCALE].keys;
    size_t n = t->channel[AK_ROTATION].count;
    if (kind == 0) {
        for (size_t i = 0; i < n; i++)
            ak_put(w->out, rk[i].raw, 20);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        ak_put(w->out, rk[i].raw, 16);
        ak_put(w->out, tk[i].raw, 12);
        if (kind == 2)
            ak_put(w->out, sk[i].raw, 12);
        ak_put(w->out, rk[i].raw + 16, 4);
    }
}

static ak_status write_anpk_clip(ifp_wr *w, const ak_clip *clip)
{
    ak_sink *o = w->out;
    if (strlen(clip->name) > 23)
        w->long_names++;
    put_text_chunk(w, "NAME", NULL, 0, prop(w, &clip->props, IFP_P_NAME_RAW), prop(w, &clip->props, IFP_P_NAME_SIZE),
                   clip->name);
    ak_put(o, "DGAN", 4);
    size_t dgan_at = ak_sink_size(o);
    ak_put_u32(o, 0);
    const ak_prop *iraw = prop(w, &clip->props, IFP_P_DGAN_INFO_RAW);
    const ak_prop *isz = prop(w, &clip->props, IFP_P_DGAN_INFO_SIZE);
    ak_put(o, "INFO", 4);
    if (iraw && isz && iraw->type == AK_PROP_BYTES && isz->type == AK_PROP_INT && isz->i >= 4 &&
        isz->i <= UINT32_MAX && pad4((size_t)isz->i) == 4 + iraw->size) {
        ak_put_u32(o, (uint32_t)isz->i);
        ak_put_u32(o, (uint32_t)clip->track_count);
        ak_put(o, iraw->data, iraw->size);
    } else {
        ak_put_u32(o, 8);
        ak_put_u32(o, (uint32_t)clip->track_count);
        ak_put_i32(o, (int32_t)prop_int(w, &clip->props, IFP_P_DGAN_UNKNOWN, 0));
    }
    int64_t clip_form = prop_int(w, &clip->props, IFP_P_ANIM_SIZE, 44);
    for (size_t i = 0; i < clip->track_count; i++) {
        const ak_track *t = clip->tracks[i];
        size_t ns = t->channel[AK_SCALE].count, nt = t->channel[AK_TRANSLATION].count;
        int kind = ns ? 2 : nt ? 1 : 0;
        if (kind == 2 && !nt)
            w->no_trans++;
        uint32_t stride = kind == 2 ? IFP_KRTS_STRIDE : kind ? IFP_KRT0_STRIDE : IFP_KR00_STRIDE;
        ifp_frame *f = NULL;
        size_t n = t->channel[AK_ROTATION].count;
        int stored = anpk_untouched(w, t, kind);
        if (!stored && !build_frames(w, t, kind >= 1, kind == 2, &f, &n))
            return oom(w);
        if (n > INT32_MAX) {
            ak_job_free(w->job, f);
            return ak_fail(w->job, AK_E_USAGE, -1, "clip '%s', bone '%s': %zu keys do not fit an ANPK bone",
                           clip->name, t->bone, n);
        }
        int64_t form = prop_int(w, &t->props, IFP_P_ANIM_SIZE, clip_form);
        if (form != 48)
            form = 44;
        ak_put(o, "CPAN", 4);
        size_t cpan_at = ak_sink_size(o);
        ak_put_u32(o, 0);
        ak_put(o, "ANIM", 4);
        ak_put_u32(o, (uint32_t)form);
        put_field(w, &t->props, IFP_P_NAME_RAW, t->bone, IFP_NAME28);
        ak_put_i32(o, (int32_t)n);
        ak_put_i32(o, (int32_t)prop_int(w, &t->props, IFP_P_ANIM_UNK32, 0));
        ak_put_i32(o, (int32_t)stale_get(w, &t->props, IFP_P_ANIM_LAST, (int64_t)n - 1));
        if (form == 44) {
            ak_put_i32(o, t->has_bone_id ? t->bone_id : -1);
        } else {
            ak_put_i32(o, (int32_t)prop_int(w, &t->props, IFP_P_CHILD, -1));
            ak_put_i32(o, (int32_t)prop_int(w, &t->props, IFP_P_SIBLING, -1));
        }
        if (n) {
            ak_put(o, kind == 2 ? "KRTS" : kind ? "KRT0" : "KR00", 4);
            ak_put_u32(o, (uint32_t)stale_get(w, &t->props, IFP_P_KEY_SIZE, (int64_t)n * stride));
            if (stored)
                put_anpk_stored(w, t, kind);
            else
                for (size_t k = 0; k < n; k++)
                    put_anpk_frame(w, kind, &f[k]);
        }
        ak_job_free(w->job, f);
        size_t cpan = ak_sink_size(o) - cpan_at - 4;
        ak_sink_patch_u32(o, cpan_at, (uint32_t)stale_get(w, &t->props, IFP_P_CPAN_SIZE, (int64_t)cpan));
    }
    size_t dgan = ak_sink_size(o) - dgan_at - 4;
    ak_sink_patch_u32(o, dgan_at, (uint32_t)stale_get(w, &clip->props, IFP_P_DGAN_SIZE, (int64_t)dgan));
    return AK_OK;
}

/* One ANPK block holding the clips of `block` (-1: all clips). */
static ak_status write_anpk_block(ifp_wr *w, int block, int64_t default_block)
{
    const ak_doc *doc = w->doc;
    ak_sink *o = w->out;
    char key[96], key2[96], buf[64];
    size_t start = ak_sink_size(o);
    ak_put(o, "ANPK", 4);
    ak_put_u32(o, 0);
    uint32_t count = 0;
    for (size_t c = 0; c < doc->clip_count; c++)
        count += block < 0 || prop_int(w, &doc->clips[c]->props, IFP_P_BLOCK, default_block) == block;
    unsigned char cnt[4] = { (unsigned char)count, (unsigned char)(count >> 8), (unsigned char)(count >> 16),
                             (unsigned char)(count >> 24) };
    put_text_chunk(w, "INFO", cnt, 4, prop(w, &doc->props, ifp_block_key(key, sizeof key, block, IFP_P_PACKAGE_RAW)),
                   prop(w, &doc->props, ifp_block_key(key2, sizeof key2, block, IFP_P_INFO_SIZE)),
                   package_name(w, ifp_block_key(buf, sizeof buf, block, IFP_P_PACKAGE), buf, sizeof buf));
    for (size_t c = 0; c < doc->clip_count; c++) {
        const ak_clip *clip = doc->clips[c];
        if (block >= 0 && prop_int(w, &clip->props, IFP_P_BLOCK, default_block) != block)
            continue;
        ak_status st = write_anpk_clip(w, clip);
        if (st != AK_OK)
            return st;
    }
    size_t size = ak_sink_size(o) - start - 8;
    ak_sink_patch_u32(o, start + 4,
                      (uint32_t)stale_get(w, &doc->props, ifp_block_key(key, sizeof key, block, IFP_P_SIZE),
                                          (int64_t)size));
    return AK_OK;
}

static ak_status write_anlf(ifp_wr *w)
{
    const ak_doc *doc = w->doc;
    ak_sink *o = w->out;
    int64_t blocks = prop_int(w, &doc->props, IFP_P_BLOCKS, 1), last = -1;
    for (size_t c = 0; c < doc->clip_count; c++) {
        int64_t b = prop_int(w, &doc->clips[c]->props, IFP_P_BLOCK, -1);
        if (b > last)
            last = b;
    }
    if (blocks < last + 1)
        blocks = last + 1;
    if (blocks < 0 || blocks > (int64_t)doc->clip_count + 1024 || (blocks == 0 && doc->clip_count))
        blocks = 1;
    ak_put(o, "ANLF", 4);
    ak_put_u32(o, 0);
    ak_put_i32(o, (int32_t)blocks);
    for (int64_t b = 0; b < blocks; b++) {
        /* Clips without a block index go into the last block. */
        ak_status st = write_anpk_block(w, (int)b, blocks - 1);
        if (st != AK_OK)
            return st;
    }
    ak_sink_patch_u32(o, 4, (uint32_t)stale_get(w, &doc->props, IFP_P_SIZE, (int64_t)ak_sink_size(o) - 8));
    return AK_OK;
}

static int family(int v) { return v == IFP_ANP3 || v == IFP_ANP2 ? 0 : 1; }

ak_status ifp_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    ifp_wr w;
    memset(&w, 0, sizeof w);
    w.job = job;
    w.doc = doc;
    w.out = out;
    int from = strcmp(doc->format, "ifp") == 0 && strlen(doc->variant) == 4 ? ifp_variant_of(doc->variant) : -1;
    const char *param = ak_job_param(job, "variant");
    int target = from >= 0 ? from : IFP_ANP3;
    if (param) {
        target = strlen(param) == 4 ? ifp_variant_of(param) : -1;
        if (target < 0) {
            char up[5] = { 0 };
            for (int i = 0; i < 4 && param[i]; i++)
                up[i] = (char)(param[i] >= 'a' && param[i] <= 'z' ? param[i] - 32 : param[i]);
            target = strlen(param) == 4 ? ifp_variant_of(up) : -1;
        }
        if (target < 0)
            return ak_fail(job, AK_E_USAGE, -1, "unknown variant '%s': use ANP3, ANP2, ANPK or ANLF", param);
    }
    w.var = (ifp_variant)target;
    w.same = from >= 0 && family(from) == family(target);
    if (doc->clip_count > INT32_MAX)
        return ak_fail(job, AK_E_USAGE, -1, "too many clips (%zu)", doc->clip_count);
    for (size_t c = 0; c < doc->clip_count; c++) {
        const ak_clip *clip = doc->clips[c];
        double last = 0;
        for (size_t i = 0; i < clip->track_count; i++)
            for (int ch = 0; ch < AK_CHANNELS; ch++) {
                const ak_channel *kc = &clip->tracks[i]->channel[ch];
                if (kc->count && kc->keys[kc->count - 1].time > last)
                    last = kc->keys[kc->count - 1].time;
            }
        if (clip->duration > last + 1e-6)
            w.short_clips++;
    }
    ak_status st;
    switch (w.var) {
    case IFP_ANP3:
    case IFP_ANP2: st = write_anp(&w); break;
    case IFP_ANPK: st = write_anpk_block(&w, -1, 0); break;
    default: st = write_anlf(&w); break;
    }
    if (st != AK_OK)
        return st;
    /* The stored tail goes back only into the variant it came from. */
    const ak_prop *tail = from == target ? ak_prop_get(&doc->props, IFP_P_TAIL) : NULL;
    if (tail && tail->type == AK_PROP_BYTES)
        ak_put(out, tail->data, tail->size);
    const ak_prop *zeros = from == target ? ak_prop_get(&doc->props, IFP_P_TAIL_ZEROS) : NULL;
    if (zeros && zeros->type == AK_PROP_INT && zeros->i > 0 && (uint64_t)zeros->i <= SIZE_MAX)
        ak_put_zeros(out, (size_t)zeros->i);
    if (w.scale_dropped && family(target) == 0)
        ak_warn(job, -1, "%zu scale keys dropped: %s has no scale (ANPK KRTS has; write with variant=ANPK)",
                w.scale_dropped, ifp_variant_name(w.var));
    if (w.resampled)
        ak_warn(job, -1,
                "%zu tracks had rotation/translation/scale keys at different times; they were merged onto the "
                "union of their key times (interpolated)", w.resampled);
    if (w.clamped)
        ak_warn(job, -1, "%zu values did not fit the %s encoding and were clamped", w.clamped,
                ifp_variant_name(w.var));
    if (w.truncated)
        ak_warn(job, -1, "%zu names were too long for their field and were cut", w.truncated);
    if (w.no_trans)
        ak_warn(job, -1, "%zu bones have scale but no translation keys; written as KRTS with translation 0",
                w.no_trans);
    if (w.long_tracks)
        ak_warn(job, -1, "%zu bones have more than 65535 frames; San Andreas keeps frame counts in 16 bits",
                w.long_tracks);
    if (w.long_names)
        ak_warn(job, -1, "%zu animation names are longer than 23 characters; the games cut them to 23",
                w.long_names);
    if (w.short_clips)
        ak_warn(job, -1,
                "%zu clips last longer than their last key; IFP stores no duration, so the hold at the end is lost",
                w.short_clips);
    if (ak_sink_failed(out))
        return oom(&w);
    return AK_OK;
}
