/* robust.c - shared pieces of the robustness tests (see robust.h). */
#include "robust.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef AK_HAVE_IFP
#include "../../plugins/ifp/ifp.h"
#endif
#ifdef AK_HAVE_ANI
#include "../../plugins/ani/ani.h"
#endif
#ifdef AK_HAVE_ANM
#include "../../plugins/anm/anm.h"
#endif
#ifdef AK_HAVE_MAB
#include "../../plugins/mab/mab.h"
#endif
#ifdef AK_HAVE_JSON
#include "../../plugins/json/json.h"
#endif
#ifdef AK_HAVE_DFF
#include "../../plugins/dff/dff.h"
#endif

/* ---- allocator ------------------------------------------------------------ */

#define HDR 16u /* keeps the alignment malloc gives */
#define MAGIC 0x5a17c0deu

typedef struct block_hdr {
    size_t size;
    uint32_t magic;
} block_hdr;

static int refuse(rb_alloc *a, size_t size, size_t old_size)
{
    a->calls++;
    if (size > a->max_block)
        a->max_block = size;
    if (a->fail_at && a->calls == a->fail_at) {
        a->refused++;
        return 1;
    }
    if (a->cap_bytes && size > old_size && a->live_bytes - old_size + size > a->cap_bytes) {
        a->refused++;
        return 1;
    }
    return 0;
}

static void note_bytes(rb_alloc *a)
{
    if (a->live_bytes > a->peak_bytes)
        a->peak_bytes = a->live_bytes;
}

static void *rb_malloc(void *user, size_t size)
{
    rb_alloc *a = user;
    if (refuse(a, size, 0) || size > SIZE_MAX - HDR)
        return NULL;
    unsigned char *p = malloc(size + HDR);
    if (!p)
        return NULL;
    block_hdr h = { size, MAGIC };
    memcpy(p, &h, sizeof h);
    a->live++;
    a->live_bytes += size;
    note_bytes(a);
    return p + HDR;
}

static int header_of(rb_alloc *a, void *ptr, block_hdr *h)
{
    memcpy(h, (unsigned char *)ptr - HDR, sizeof *h);
    if (h->magic != MAGIC) {
        a->bad_frees++;
        return 0;
    }
    return 1;
}

static void rb_free(void *user, void *ptr)
{
    rb_alloc *a = user;
    if (!ptr)
        return;
    block_hdr h;
    if (!header_of(a, ptr, &h))
        return;
    unsigned char *base = (unsigned char *)ptr - HDR;
    h.magic = 0;
    memcpy(base, &h, sizeof h);
    a->live--;
    a->live_bytes -= h.size;
    free(base);
}

static void *rb_realloc(void *user, void *ptr, size_t size)
{
    rb_alloc *a = user;
    if (!ptr)
        return rb_malloc(user, size);
    block_hdr h;
    if (!header_of(a, ptr, &h))
        return NULL;
    if (refuse(a, size, h.size) || size > SIZE_MAX - HDR)
        return NULL;
    unsigned char *p = realloc((unsigned char *)ptr - HDR, size + HDR);
    if (!p)
        return NULL;
    a->live_bytes = a->live_bytes - h.size + size;
    h.size = size;
    memcpy(p, &h, sizeof h);
    note_bytes(a);
    return p + HDR;
}

ak_allocator rb_alloc_make(rb_alloc *state)
{
    ak_allocator al = { rb_malloc, rb_realloc, rb_free, state };
    return al;
}

void rb_alloc_arm(rb_alloc *state, long fail_at)
{
    state->fail_at = fail_at;
    state->calls = 0;
    state->refused = 0;
    state->peak_bytes = state->live_bytes;
    state->max_block = 0;
}

ak_registry *rb_registry(rb_alloc *state, const ak_codec *const *codecs)
{
    /* The registry copies the allocator struct, so a local one will do. */
    ak_allocator al = rb_alloc_make(state);
    ak_registry_config cfg = { sizeof cfg, AK_REG_NO_PLUGINS, NULL, &al, NULL, NULL, NULL };
    ak_registry *reg = NULL;
    ak_report rep = { 0 };
    ck_assert_int_eq(ak_registry_open(&cfg, &reg, &rep), AK_OK);
    for (; codecs && *codecs; codecs++)
        ck_assert_msg(ak_registry_add_codec(reg, *codecs, 0, &rep) == AK_OK, "%s", rep.message);
    return reg;
}

int rb_clean_error(ak_status st)
{
    return st == AK_E_DATA || st == AK_E_UNSUPPORTED || st == AK_E_LIMIT || st == AK_E_NOMEM;
}

/* ---- the synthetic codec -------------------------------------------------- */

#define TST_RATE 30.0

static int tst_probe(const unsigned char *b, size_t n, const char *f)
{
    (void)f;
    return n >= 4 && memcmp(b, "TST1", 4) == 0 ? AK_PROBE_MAGIC : 0;
}

static const char *tst_string(ak_reader *r, char *buf, const char *what)
{
    uint8_t n = ak_u8(r);
    const unsigned char *p = ak_bytes(r, n, what);
    if (!p)
        return NULL;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

static ak_status tst_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    ak_reader r;
    ak_reader_init(&r, job, bytes, size);
    const unsigned char *magic = ak_bytes(&r, 4, "magic");
    if (!magic || memcmp(magic, "TST1", 4) != 0)
        return ak_fail(job, AK_E_DATA, 0, "not a TST1 file");
    if (ak_prop_set_int(doc, &doc->props, "tst.version", 1) != AK_OK)
        return AK_E_NOMEM;
    uint32_t clips = ak_u32(&r);
    if (!ak_need_array(&r, clips, 10, "clips"))
        return AK_E_DATA;
    char name[256];
    for (uint32_t c = 0; c < clips; c++) {
        int64_t at = (int64_t)r.pos;
        if (!tst_string(&r, name, "clip name"))
            return AK_E_DATA;
        ak_clip *clip = ak_clip_add(doc, name);
        if (!clip)
            return AK_E_NOMEM;
        clip->duration = ak_f32(&r);
        clip->tick_rate = TST_RATE;
        if (ak_prop_set_int(doc, &clip->props, "tst.offset", at) != AK_OK)
            return AK_E_NOMEM;
        uint32_t tracks = ak_u32(&r);
        if (!ak_need_array(&r, tracks, 5, "tracks"))
            return AK_E_DATA;
        for (uint32_t t = 0; t < tracks; t++) {
            if (!tst_string(&r, name, "bone name"))
                return AK_E_DATA;
            ak_track *track = ak_track_add(clip, name);
            if (!track)
                return AK_E_NOMEM;
            uint32_t keys = ak_u32(&r);
            if (!ak_need_array(&r, keys, 20, "keys"))
                return AK_E_DATA;
            if (ak_channel_reserve(track, AK_ROTATION, keys) != AK_OK)
                return AK_E_NOMEM;
            for (uint32_t k = 0; k < keys; k++) {
                const unsigned char *raw = r.data + r.pos;
                ak_key *key = ak_key_add(track, AK_ROTATION);
                if (!key)
                    return AK_E_NOMEM;
                key->tick = ak_u32(&r);
                key->time = (double)key->tick / TST_RATE;
                for (int i = 0; i < 4; i++)
                    key->v[i] = ak_f32(&r);
                if (ak_key_set_raw(track, key, raw, 20) != AK_OK)
                    return AK_E_NOMEM;
            }
        }
        uint32_t events = ak_u32(&r);
        if (!ak_need_array(&r, events, 5, "events"))
            return AK_E_DATA;
        for (uint32_t e = 0; e < events; e++) {
            uint32_t tick = ak_u32(&r);
            if (!tst_string(&r, name, "event type"))
                return AK_E_DATA;
            ak_event *ev = ak_event_add(clip, tick / TST_RATE, name, "");
            if (!ev)
                return AK_E_NOMEM;
        }
    }
    if (r.failed)
        return AK_E_DATA;
    if (ak_remaining(&r))
        ak_warn(job, (int64_t)r.pos, "%zu bytes of trailing data ignored", ak_remaining(&r));
    return ak_doc_set_format(doc, "tst", "TST1");
}

static void put_string(ak_sink *out, const char *s)
{
    size_t n = strlen(s);
    if (n > 255)
        n = 255;
    ak_put_u8(out, (uint8_t)n);
    ak_put(out, s, n);
}

static ak_status tst_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    (void)job;
    ak_put(out, "TST1", 4);
    ak_put_u32(out, (uint32_t)doc->clip_count);
    for (size_t c = 0; c < doc->clip_count; c++) {
        const ak_clip *clip = doc->clips[c];
        put_string(out, clip->name);
        ak_put_f32(out, (float)clip->duration);
        ak_put_u32(out, (uint32_t)clip->track_count);
        for (size_t t = 0; t < clip->track_count; t++) {
            const ak_track *track = clip->tracks[t];
            const ak_channel *ch = &track->channel[AK_ROTATION];
            put_string(out, track->bone);
            ak_put_u32(out, (uint32_t)ch->count);
            for (size_t k = 0; k < ch->count; k++) {
                const ak_key *key = &ch->keys[k];
                if (!ak_key_changed(key) && key->raw_size == 20) {
                    ak_put(out, key->raw, 20);
                    continue;
                }
                ak_put_u32(out, (uint32_t)(key->time * TST_RATE + 0.5));
                for (int i = 0; i < 4; i++)
                    ak_put_f32(out, (float)key->v[i]);
            }
        }
        ak_put_u32(out, (uint32_t)clip->event_count);
        for (size_t e = 0; e < clip->event_count; e++) {
            ak_put_u32(out, (uint32_t)(clip->events[e].time * TST_RATE + 0.5));
            put_string(out, clip->events[e].type);
        }
    }
    return ak_sink_failed(out) ? AK_E_NOMEM : AK_OK;
}

static const ak_codec tst_codec = {
    AK_ABI_MAJOR, AK_ABI_MINOR, sizeof(ak_codec), AK_CAP_MULTI_CLIP | AK_CAP_EVENTS | AK_CAP_BONE_NAME,
    "tst", "1.0.0", "synthetic test format", "MIT", "tst", tst_probe, tst_read, tst_write,
};

const ak_codec *rb_tst_codec(void) { return &tst_codec; }

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

static void buf_put(buf *b, const void *data, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        ck_assert(b->p != NULL);
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void buf_u32(buf *b, uint32_t v)
{
    unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                           (unsigned char)(v >> 24) };
    buf_put(b, x, 4);
}

static void buf_f32(buf *b, float f) { buf_u32(b, ak_f32_bits(f)); }

static void buf_str(buf *b, const char *s)
{
    unsigned char n = (unsigned char)strlen(s);
    buf_put(b, &n, 1);
    buf_put(b, s, n);
}

unsigned char *rb_tst_build(unsigned clips, unsigned tracks, unsigned keys, size_t *size)
{
    buf b = { 0 };
    buf_put(&b, "TST1", 4);
    buf_u32(&b, clips);
    char name[32];
    for (unsigned c = 0; c < clips; c++) {
        snprintf(name, sizeof name, "clip%u", c);
        buf_str(&b, name);
        buf_f32(&b, keys / (float)TST_RATE);
        buf_u32(&b, tracks);
        for (unsigned t = 0; t < tracks; t++) {
            snprintf(name, sizeof name, "bone%u", t);
            buf_str(&b, name);
            buf_u32(&b, keys);
            for (unsigned k = 0; k < keys; k++) {
                buf_u32(&b, k);
                buf_f32(&b, 0.0f);
                buf_f32(&b, 0.0f);
                buf_f32(&b, 0.6f);
                buf_f32(&b, 0.8f);
            }
        }
        buf_u32(&b, 1);
        buf_u32(&b, 1);
        buf_str(&b, "step");
    }
    *size = b.n;
    return b.p;
}

/* ---- the real plugins ----------------------------------------------------- */

const rb_plugin *rb_plugins(size_t *n)
{
    static rb_plugin list[16];
    size_t count = 0;
#ifdef AK_HAVE_IFP
    list[count++] = (rb_plugin){ "ifp", ifp_codec(), { "ifp/walking_cuffed.ifp", "ifp/weapc.ifp", NULL } };
#endif
#ifdef AK_HAVE_ANI
    list[count++] = (rb_plugin){ "ani", ani_codec(), { "ani/lights_camera_action_100fps_w_music.ani", NULL } };
#endif
#ifdef AK_HAVE_ANM
    list[count++] = (rb_plugin){ "anm", anm_codec(),
                                 { "anm/frm2_v60001_5bones_m4a3_body_r.anm",
                                   "anm/frmn_v40000_44bones_citroen_bodyback_r.anm", NULL } };
#endif
#ifdef AK_HAVE_MAB
    list[count++] = (rb_plugin){ "mab", mab_codec(), { "mab/wdl_trained-idle_mplyr_000f_norm_nowep.mab", NULL } };
#endif
#ifdef AK_HAVE_JSON
    list[count++] = (rb_plugin){ "json", json_codec(), { NULL } };
#endif
#ifdef AK_HAVE_DFF
    list[count++] = (rb_plugin){ "dff", dff_codec(), { "dff/ped_seb.dff", "dff/ped_167.dff", NULL } };
#endif
    *n = count;
    return list;
}

ak_doc *rb_sample_doc(void)
{
    ak_doc *doc = ak_doc_new();
    ck_assert(doc != NULL);
    ak_clip *clip = ak_clip_add(doc, "walk");
    ck_assert(clip != NULL);
    clip->duration = 1.0;
    clip->frame_rate = 30.0;
    static const char *const bones[] = { "Root", "Spine" };
    for (int b = 0; b < 2; b++) {
        ak_track *t = ak_track_add(clip, bones[b]);
        ck_assert(t != NULL);
        t->bone_id = b;
        t->has_bone_id = 1;
        t->bone_hash = ak_crc32(bones[b], strlen(bones[b]));
        t->has_bone_hash = 1;
        for (int k = 0; k < 4; k++) {
            ak_key *r = ak_key_add(t, AK_ROTATION);
            ck_assert(r != NULL);
            r->time = k / 3.0;
            r->tick = k * 10;
            r->v[0] = 0.0;
            r->v[1] = 0.0;
            r->v[2] = k % 2 ? 0.6 : 0.0;
            r->v[3] = k % 2 ? 0.8 : 1.0;
            ak_key *p = ak_key_add(t, AK_TRANSLATION);
            ck_assert(p != NULL);
            p->time = k / 3.0;
            p->tick = k * 10;
            p->v[0] = 0.25 * k;
            p->v[1] = 0.5;
            p->v[2] = b;
        }
    }
    ck_assert(ak_event_add(clip, 0.5, "step", "left") != NULL);
    return doc;
}

unsigned char *rb_plugin_input(const rb_plugin *p, size_t *size, char *label, size_t label_size,
                               char *why, size_t why_size)
{
    const ak_codec *codecs[] = { p->codec, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_report rep = { 0 };
    ak_options o = { sizeof o, p->name, NULL, NULL, 0 };
    unsigned char *result = NULL;
    snprintf(why, why_size, "%s: no corpus file found and the plugin cannot write", p->name);
    for (int i = 0; p->corpus[i] && !result; i++) {
        char path[4096];
        if (!ak_test_corpus(p->corpus[i], path, sizeof path))
            continue;
        size_t n;
        unsigned char *bytes = ak_test_slurp(path, &n);
        ak_doc *doc = NULL;
        memset(&rep, 0, sizeof rep);
        if (ak_read(reg, bytes, n, &o, &doc, &rep) == AK_OK) {
            result = bytes;
            *size = n;
            snprintf(label, label_size, "%s", p->corpus[i]);
        } else {
            snprintf(why, why_size, "%s: %s does not read: %s", p->name, p->corpus[i], rep.message);
            free(bytes);
        }
        ak_doc_free(doc);
    }
    if (!result && p->codec->write) {
        ak_registry_free(reg);
        return rb_plugin_synthetic(p, size, label, label_size, why, why_size);
    }
    ak_registry_free(reg);
    return result;
}

unsigned char *rb_plugin_synthetic(const rb_plugin *p, size_t *size, char *label, size_t label_size,
                                   char *why, size_t why_size)
{
    const ak_codec *codecs[] = { p->codec, NULL };
    ak_registry *reg = ak_test_registry(codecs);
    ak_report rep = { 0 };
    ak_options o = { sizeof o, p->name, NULL, NULL, 0 };
    unsigned char *result = NULL;
    snprintf(why, why_size, "%s: the plugin cannot write", p->name);
    if (p->codec->write) {
        ak_doc *sample = rb_sample_doc();
        unsigned char *bytes = NULL;
        size_t n = 0;
        memset(&rep, 0, sizeof rep);
        if (ak_write(reg, sample, &o, &bytes, &n, &rep) == AK_OK) {
            ak_doc *doc = NULL;
            memset(&rep, 0, sizeof rep);
            if (ak_read(reg, bytes, n, &o, &doc, &rep) == AK_OK) {
                result = malloc(n ? n : 1);
                ck_assert(result != NULL);
                memcpy(result, bytes, n);
                *size = n;
                snprintf(label, label_size, "%s written from a hand-built document", p->name);
            } else {
                snprintf(why, why_size, "%s: its own output does not read back: %s", p->name, rep.message);
            }
            ak_doc_free(doc);
        } else {
            snprintf(why, why_size, "%s: cannot write the sample document: %s", p->name, rep.message);
        }
        ak_buffer_free(reg, bytes);
        ak_doc_free(sample);
    }
    ak_registry_free(reg);
    return result;
}
