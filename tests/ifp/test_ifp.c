/* test_ifp.c - the GTA .ifp codec: corpus reads and byte-exact rewrites,
 * values checked against an independent byte walker in this file, VC/SA
 * consistency, synthetic ANP2 / float frame types / III ANIMs / ANLF files,
 * key edits, hand-built documents and a bad-input sweep. */
#include "testutil.h"
#include "../../plugins/ifp/ifp.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static ak_registry *registry(void)
{
    const ak_codec *codecs[] = { ifp_codec(), NULL };
    return ak_test_registry(codecs);
}

typedef struct msgs {
    char text[8192];
    unsigned warnings, errors;
} msgs;

static void collect(void *user, const ak_message *m)
{
    msgs *ms = user;
    if (m->severity == AK_WARNING)
        ms->warnings++;
    if (m->severity == AK_ERROR)
        ms->errors++;
    size_t n = strlen(ms->text);
    if (n + 2 < sizeof ms->text)
        snprintf(ms->text + n, sizeof ms->text - n, "%s\n", m->text);
}

static ak_status read_flags(ak_registry *reg, const unsigned char *b, size_t n, const char *name, uint32_t flags,
                            ak_doc **doc, msgs *ms, ak_report *rep)
{
    memset(ms, 0, sizeof *ms);
    memset(rep, 0, sizeof *rep);
    rep->on_message = collect;
    rep->user = ms;
    ak_options o = { sizeof o, NULL, name, NULL, 0, flags };
    return ak_read(reg, b, n, &o, doc, rep);
}

static ak_status read_msgs(ak_registry *reg, const unsigned char *b, size_t n, const char *name, ak_doc **doc,
                           msgs *ms, ak_report *rep)
{
    return read_flags(reg, b, n, name, 0, doc, ms, rep);
}

static ak_status write_with(ak_registry *reg, const ak_doc *doc, const char *variant, const char *filename,
                            unsigned char **out, size_t *size, msgs *ms)
{
    char param[64];
    const char *params[2] = { NULL, NULL };
    if (variant) {
        snprintf(param, sizeof param, "variant=%s", variant);
        params[0] = param;
    }
    ak_report rep;
    memset(ms, 0, sizeof *ms);
    memset(&rep, 0, sizeof rep);
    rep.on_message = collect;
    rep.user = ms;
    ak_options o = { sizeof o, "ifp", filename, params, 0, 0 };
    return ak_write(reg, doc, &o, out, size, &rep);
}

static uint16_t r16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t r32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static float rf(const unsigned char *p)
{
    uint32_t u = r32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* ------------------------------------------------------------------ */
/* An independent walker over the raw bytes (written from the fact      */
/* sheet, sharing no code with the plugin).                             */
/* ------------------------------------------------------------------ */

typedef struct wkey {
    size_t anim, bone, idx;
    size_t off;      /* offset of the record */
    int type;        /* ANP frame type 1-4, or 10/11/12 for KR00/KRT0/KRTS */
    double time;
    long tick;       /* int16 time, types 3/4 */
    double q[4];     /* in the model's convention (ANPK conjugated) */
    double qfile[4]; /* as stored */
    double t[3], s[3];
} wkey;

typedef void (*wkey_fn)(void *user, const wkey *k);

typedef struct walk {
    size_t anims, bones, zero_bones;
    size_t rkeys, tkeys, skeys;
    size_t data_end;
} walk;

static int walk_anp(const unsigned char *d, size_t n, int anp3, walk *w, wkey_fn fn, void *u)
{
    if (n < 36)
        return 0;
    size_t p = 36, anims = r32(d + 32);
    for (size_t a = 0; a < anims; a++) {
        size_t hs = anp3 ? 36 : 28;
        if (p + hs > n)
            return 0;
        size_t nb = r32(d + p + 24);
        p += hs;
        for (size_t b = 0; b < nb; b++) {
            if (p + 36 > n)
                return 0;
            uint32_t type = r32(d + p + 24), fc = r32(d + p + 28);
            p += 36;
            size_t rs = type == 1 ? 20 : type == 2 ? 32 : type == 3 ? 10 : type == 4 ? 16 : 0;
            if (!rs || fc > (n - p) / rs)
                return 0;
            w->bones++;
            w->zero_bones += fc == 0;
            for (size_t k = 0; k < fc; k++) {
                const unsigned char *f = d + p + k * rs;
                wkey key;
                memset(&key, 0, sizeof key);
                key.anim = a;
                key.bone = b;
                key.idx = k;
                key.off = p + k * rs;
                key.type = (int)type;
                if (type >= 3) {
                    for (int c = 0; c < 4; c++)
                        key.q[c] = key.qfile[c] = (int16_t)r16(f + 2 * c) / 4096.0;
                    key.tick = (int16_t)r16(f + 8);
                    key.time = key.tick / 60.0;
                    if (type == 4)
                        for (int c = 0; c < 3; c++)
                            key.t[c] = (int16_t)r16(f + 10 + 2 * c) / 1024.0;
                } else {
                    for (int c = 0; c < 4; c++)
                        key.q[c] = key.qfile[c] = rf(f + 4 * c);
                    key.time = rf(f + 16);
                    if (type == 2)
                        for (int c = 0; c < 3; c++)
                            key.t[c] = rf(f + 20 + 4 * c);
                }
                w->rkeys++;
                w->tkeys += type == 2 || type == 4;
                if (fn)
                    fn(u, &key);
            }
            p += fc * rs;
        }
        w->anims++;
    }
    w->data_end = p;
    return 1;
}

static size_t pad4(size_t x) { return (x + 3) & ~(size_t)3; }

/* One ANPK block at *pp. Animation indexes continue from w->anims. */
static int walk_anpk_block(const unsigned char *d, size_t n, size_t *pp, walk *w, wkey_fn fn, void *u)
{
    size_t p = *pp;
    if (p + 20 > n || memcmp(d + p, "ANPK", 4) || memcmp(d + p + 8, "INFO", 4))
        return 0;
    size_t isz = r32(d + p + 12);
    size_t anims = r32(d + p + 16);
    p += 16 + pad4(isz);
    for (size_t a = 0; a < anims; a++) {
        if (p + 8 > n || memcmp(d + p, "NAME", 4))
            return 0;
        p += 8 + pad4(r32(d + p + 4));
        if (p + 24 > n || memcmp(d + p, "DGAN", 4) || memcmp(d + p + 8, "INFO", 4))
            return 0;
        size_t nb = r32(d + p + 16);
        p += 16 + pad4(r32(d + p + 12));
        for (size_t b = 0; b < nb; b++) {
            if (p + 16 > n || memcmp(d + p, "CPAN", 4) || memcmp(d + p + 8, "ANIM", 4))
                return 0;
            size_t asz = r32(d + p + 12);
            if (p + 16 + asz > n || asz < 44)
                return 0;
            int32_t fc = (int32_t)r32(d + p + 16 + 28);
            p += 16 + asz;
            w->bones++;
            if (fc <= 0) {
                w->zero_bones++;
                continue;
            }
            if (p + 8 > n)
                return 0;
            int kind = !memcmp(d + p, "KR00", 4) ? 0 : !memcmp(d + p, "KRT0", 4) ? 1 : !memcmp(d + p, "KRTS", 4) ? 2 : -1;
            if (kind < 0)
                return 0;
            size_t stride = kind == 0 ? 20 : kind == 1 ? 32 : 44;
            p += 8;
            if ((size_t)fc > (n - p) / stride)
                return 0;
            for (int32_t k = 0; k < fc; k++) {
                const unsigned char *f = d + p + (size_t)k * stride;
                wkey key;
                memset(&key, 0, sizeof key);
                key.anim = w->anims;
                key.bone = b;
                key.idx = (size_t)k;
                key.off = p + (size_t)k * stride;
                key.type = 10 + kind;
                for (int c = 0; c < 4; c++)
                    key.qfile[c] = rf(f + 4 * c);
                key.q[0] = -key.qfile[0];
                key.q[1] = -key.qfile[1];
                key.q[2] = -key.qfile[2];
                key.q[3] = key.qfile[3];
                if (kind >= 1)
                    for (int c = 0; c < 3; c++)
                        key.t[c] = rf(f + 16 + 4 * c);
                if (kind == 2)
                    for (int c = 0; c < 3; c++)
                        key.s[c] = rf(f + 28 + 4 * c);
                key.time = rf(f + stride - 4);
                w->rkeys++;
                w->tkeys += kind >= 1;
                w->skeys += kind == 2;
                if (fn)
                    fn(u, &key);
            }
            p += (size_t)fc * stride;
        }
        w->anims++;
    }
    *pp = p;
    return 1;
}

static int walk_file(const unsigned char *d, size_t n, walk *w, wkey_fn fn, void *u)
{
    memset(w, 0, sizeof *w);
    if (n < 4)
        return 0;
    if (!memcmp(d, "ANP3", 4) || !memcmp(d, "ANP2", 4))
        return walk_anp(d, n, d[3] == '3', w, fn, u);
    size_t p = 0;
    if (!memcmp(d, "ANPK", 4)) {
        if (!walk_anpk_block(d, n, &p, w, fn, u))
            return 0;
    } else if (!memcmp(d, "ANLF", 4) && n >= 12) {
        size_t blocks = r32(d + 8);
        p = 12;
        for (size_t b = 0; b < blocks; b++)
            if (!walk_anpk_block(d, n, &p, w, fn, u))
                return 0;
    } else {
        return 0;
    }
    w->data_end = p;
    return 1;
}

/* Compares every key of a document with the walker's decoding. */
typedef struct cmp_ctx {
    const ak_doc *doc;
    size_t checked, bad;
} cmp_ctx;

static void cmp_key(void *user, const wkey *k)
{
    cmp_ctx *c = user;
    if (k->anim >= c->doc->clip_count || k->bone >= c->doc->clips[k->anim]->track_count) {
        c->bad++;
        return;
    }
    const ak_track *t = c->doc->clips[k->anim]->tracks[k->bone];
    if (k->idx >= t->channel[AK_ROTATION].count) {
        c->bad++;
        return;
    }
    const ak_key *q = &t->channel[AK_ROTATION].keys[k->idx];
    int ok = q->time == k->time || (isnan(q->time) && isnan(k->time));
    for (int i = 0; i < 4; i++)
        ok &= q->v[i] == k->q[i] || (isnan(q->v[i]) && isnan(k->q[i]));
    if (k->type == 3 || k->type == 4)
        ok &= q->tick == k->tick;
    if (k->type == 2 || k->type == 4 || k->type == 11 || k->type == 12) {
        const ak_channel *ch = &t->channel[AK_TRANSLATION];
        ok &= k->idx < ch->count;
        if (ok) {
            for (int i = 0; i < 3; i++)
                ok &= ch->keys[k->idx].v[i] == k->t[i];
            ok &= ch->keys[k->idx].time == q->time;
        }
    }
    if (k->type == 12) {
        const ak_channel *ch = &t->channel[AK_SCALE];
        ok &= k->idx < ch->count;
        if (ok)
            for (int i = 0; i < 3; i++)
                ok &= ch->keys[k->idx].v[i] == k->s[i];
    }
    c->checked++;
    if (!ok && c->bad++ < 5)
        printf("key mismatch: anim %zu bone %zu key %zu (record at %zu)\n", k->anim, k->bone, k->idx, k->off);
}

static void check_doc_against_bytes(const ak_doc *doc, const unsigned char *b, size_t n, const char *name)
{
    walk w;
    cmp_ctx c = { doc, 0, 0 };
    ck_assert_msg(walk_file(b, n, &w, cmp_key, &c), "%s: the test walker failed", name);
    ak_doc_stats s;
    ak_doc_stats_get(doc, &s);
    ck_assert_uint_eq(s.clips, w.anims);
    ck_assert_uint_eq(s.tracks, w.bones);
    ck_assert_uint_eq(s.keys[AK_ROTATION], w.rkeys);
    ck_assert_uint_eq(s.keys[AK_TRANSLATION], w.tkeys);
    ck_assert_uint_eq(s.keys[AK_SCALE], w.skeys);
    ck_assert_uint_eq(c.checked, w.rkeys);
    ck_assert_msg(c.bad == 0, "%s: %zu keys differ from the bytes", name, c.bad);
}

/* ------------------------------------------------------------------ */
/* Outlines (AK_READ_OUTLINE)                                          */
/* ------------------------------------------------------------------ */

static ak_status read_outline(ak_registry *reg, const unsigned char *b, size_t n, const char *name, ak_doc **doc,
                              msgs *ms, ak_report *rep)
{
    return read_flags(reg, b, n, name, AK_READ_OUTLINE, doc, ms, rep);
}

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void same_props(const ak_props *a, const ak_props *b, const char *what)
{
    ck_assert_msg(a->count == b->count, "%s: %zu props against %zu", what, a->count, b->count);
    for (size_t i = 0; i < a->count; i++) {
        const ak_prop *x = &a->items[i], *y = &b->items[i];
        ck_assert_str_eq(x->key, y->key);
        ck_assert_int_eq(x->type, y->type);
        ck_assert_int_eq(x->i, y->i);
        ck_assert(same_double(x->f, y->f));
        ck_assert_uint_eq(x->size, y->size);
        ck_assert(x->size == 0 || memcmp(x->data, y->data, x->size) == 0);
    }
}

/* An outline holds what the full read holds, bit for bit, except the keys:
 * every channel empty, its count in outline_keys. */
static void check_outline_matches(const ak_doc *full, const ak_doc *ol, const char *name)
{
    ck_assert_int_eq(ak_doc_outline(full), 0);
    ck_assert_int_eq(ak_doc_outline(ol), 1);
    ck_assert_str_eq(ol->format, full->format);
    ck_assert_str_eq(ol->variant, full->variant);
    same_props(&full->props, &ol->props, name);
    ck_assert_uint_eq(ol->clip_count, full->clip_count);
    for (size_t c = 0; c < full->clip_count; c++) {
        const ak_clip *fc = full->clips[c], *oc = ol->clips[c];
        ck_assert_str_eq(oc->name, fc->name);
        ck_assert_msg(same_double(oc->duration, fc->duration), "%s, clip %zu: duration %.17g, full %.17g", name, c,
                      oc->duration, fc->duration);
        ck_assert(same_double(oc->frame_rate, fc->frame_rate) && same_double(oc->tick_rate, fc->tick_rate));
        ck_assert_uint_eq(oc->event_count, fc->event_count);
        same_props(&fc->props, &oc->props, fc->name);
        ck_assert_uint_eq(oc->track_count, fc->track_count);
        for (size_t i = 0; i < fc->track_count; i++) {
            const ak_track *ft = fc->tracks[i], *ot = oc->tracks[i];
            ck_assert_str_eq(ot->bone, ft->bone);
            ck_assert(ot->bone_id == ft->bone_id && ot->has_bone_id == ft->has_bone_id);
            ck_assert(ot->bone_hash == ft->bone_hash && ot->has_bone_hash == ft->has_bone_hash);
            ck_assert(same_double(ot->weight, ft->weight) && ot->skeleton_bone == ft->skeleton_bone);
            same_props(&ft->props, &ot->props, ft->bone);
            for (int k = 0; k < AK_CHANNELS; k++) {
                ck_assert_uint_eq(ot->channel[k].count, 0);
                ck_assert_ptr_null(ot->channel[k].keys);
                ck_assert_uint_eq(ot->outline_keys[k], ft->channel[k].count);
                ck_assert_uint_eq(ft->outline_keys[k], 0);
            }
        }
    }
    ak_doc_stats a, b;
    ak_doc_stats_get(full, &a);
    ak_doc_stats_get(ol, &b);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
}

/* Reads `b` both ways: the same outcome, the same messages, and where the
 * full read succeeds an outline that matches it and the test's own walk of
 * the bytes. A full read stopped by the key cap may outline fine. */
static void check_outline_read(ak_registry *reg, const unsigned char *b, size_t n, const char *name)
{
    ak_doc *full = NULL, *ol = NULL;
    msgs fm, om;
    ak_report frep, orep;
    ak_status fst = read_msgs(reg, b, n, name, &full, &fm, &frep);
    ak_status ost = read_outline(reg, b, n, name, &ol, &om, &orep);
    if (fst != AK_E_LIMIT) {
        ck_assert_msg(ost == fst, "%s: outline %s, full read %s", name, ak_status_name(ost), ak_status_name(fst));
        ck_assert_str_eq(om.text, fm.text);
        ck_assert_int_eq(orep.offset, frep.offset);
    }
    if (fst == AK_OK) {
        check_outline_matches(full, ol, name);
        walk w;
        if (walk_file(b, n, &w, NULL, NULL)) {
            ak_doc_stats s;
            ak_doc_stats_get(ol, &s);
            ck_assert(s.clips == w.anims && s.tracks == w.bones);
            ck_assert(s.keys[AK_ROTATION] == w.rkeys && s.keys[AK_TRANSLATION] == w.tkeys &&
                      s.keys[AK_SCALE] == w.skeys);
        }
    }
    ak_doc_free(full);
    ak_doc_free(ol);
}

/* ------------------------------------------------------------------ */
/* Corpus                                                              */
/* ------------------------------------------------------------------ */

typedef struct corpus_file {
    const char *name;
    const char *variant;
    size_t anims;     /* fact sheet §6 */
    const char *warn; /* substrings that must appear among the read warnings, '|' separated; "" = no warnings */
} corpus_file;

static const corpus_file corpus[] = {
    { "ifp/Fortnite_pt3.ifp", "ANP3", 5, "follow the last animation" },
    { "ifp/camera.ifp", "ANP3", 1, "leftover bytes" },
    { "ifp/covers.ifp", "ANP3", 19, "size field|zero bytes of padding" },
    { "ifp/deagle.ifp", "ANP3", 5, NULL },
    { "ifp/ped_cretaceous.ifp", "ANP3", 294, "leftover bytes" },
    { "ifp/render.ifp", "ANP3", 1, NULL },
    { "ifp/vice.ifp", "ANPK", 234, "" },
    { "ifp/walking_cuffed.ifp", "ANP3", 1, "" },
    { "ifp/weapc.ifp", "ANP3", 2, "" },
    { "ifp/yat.ifp", "ANP3", 1, "" },
};
#define NCORPUS (sizeof corpus / sizeof corpus[0])


static void check_warnings(const corpus_file *f, const msgs *ms)
{
    ck_assert_uint_eq(ms->errors, 0);
    if (!f->warn)
        return;
    if (!*f->warn) {
        ck_assert_msg(ms->warnings == 0, "%s: unexpected warnings:\n%s", f->name, ms->text);
        return;
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", f->warn);
    for (char *s = strtok(buf, "|"); s; s = strtok(NULL, "|"))
        ck_assert_msg(strstr(ms->text, s) != NULL, "%s: no warning with '%s' in:\n%s", f->name, s, ms->text);
}

START_TEST(t_corpus_file)
{
    const corpus_file *f = &corpus[_i];
    size_t n;
    unsigned char *b = ak_test_corpus_file(f->name, &n);
    if (!b)
        return;
    ak_registry *reg = registry();
    ak_doc *doc = NULL;
    msgs ms;
    ak_report rep;
    ak_status st = read_msgs(reg, b, n, f->name, &doc, &ms, &rep);
    ck_assert_msg(st == AK_OK, "%s: %s", f->name, rep.message);
    ck_assert_str_eq(doc->format, "ifp");
    ck_assert_str_eq(doc->variant, f->variant);
    ck_assert_uint_eq(doc->clip_count, f->anims);
    check_warnings(f, &ms);
    check_doc_against_bytes(doc, b, n, f->name);

    /* The model's own checks find no errors. */
    ak_report vrep = { 0 };
    ck_assert_uint_eq(ak_doc_validate(doc, f->name, &vrep), 0);

    /* Same-format write: byte-identical. */
    unsigned char *out;
    size_t on;
    msgs wm;
    ck_assert_int_eq(write_with(reg, doc, NULL, NULL, &out, &on, &wm), AK_OK);
    ck_assert_msg(ak_test_same_bytes(b, n, out, on, f->name), "%s: rewrite differs", f->name);
    ck_assert_uint_eq(wm.warnings, 0);
    ak_buffer_free(reg, out);

    /* A deep copy writes the same bytes as well. */
    ak_doc *copy = ak_doc_clone(doc);
    ck_assert_ptr_nonnull(copy);
    ck_assert_int_eq(write_with(reg, copy, NULL, NULL, &out, &on, &wm), AK_OK);
    ck_assert(ak_test_same_bytes(b, n, out, on, "clone"));
    ak_buffer_free(reg, out);
    ak_doc_free(copy);

    check_outline_read(reg, b, n, f->name);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(b);
}
END_TEST

/* Record bytes of every key, in file order. */
typedef struct rec_ctx {
    const unsigned char *base;
    unsigned char *buf;
    size_t n, cap;
} rec_ctx;

static void rec_fn(void *user, const wkey *k)
{
    rec_ctx *r = user;
    static const size_t sizes[13] = { 0, 20, 32, 10, 16, 0, 0, 0, 0, 0, 20, 32, 44 };
    size_t sz = sizes[k->type];
    if (r->n + sz > r->cap) {
        r->cap = (r->n + sz) * 2;
        r->buf = realloc(r->buf, r->cap);
        ck_assert_ptr_nonnull(r->buf);
    }
    memcpy(r->buf + r->n, r->base + k->off, sz);
    r->n += sz;
}

/* A document that does not come from ifp (no props or raw bytes usable)
 * is encoded from its values alone; the engine encoding reproduces every
 * key record, and clean files come out whole. */
START_TEST(t_foreign_reencode)
{
    const corpus_file *f = &corpus[_i];
    size_t n;
    unsigned char *b = ak_test_corpus_file(f->name, &n);
    if (!b)
        return;
    ak_registry *reg = registry();
    ak_doc *doc = ak_test_read(reg, b, n, f->name);
    ak_doc *copy = ak_doc_clone(doc);
    ck_assert_int_eq(ak_doc_set_format(copy, "other", ""), AK_OK);
    unsigned char *out;
    size_t on;
    msgs wm;
    ck_assert_int_eq(write_with(reg, copy, f->variant, NULL, &out, &on, &wm), AK_OK);
    ck_assert_msg(strstr(wm.text, "merged") == NULL, "%s", wm.text);
    ck_assert_msg(strstr(wm.text, "clamped") == NULL, "%s", wm.text);
    rec_ctx a = { b, NULL, 0, 0 }, c = { out, NULL, 0, 0 };
    walk wa, wc;
    ck_assert(walk_file(b, n, &wa, rec_fn, &a));
    ck_assert(walk_file(out, on, &wc, rec_fn, &c));
    ck_assert_uint_eq(wa.rkeys, wc.rkeys);
    ck_assert_msg(a.n == c.n && memcmp(a.buf, c.buf, a.n) == 0, "%s: re-encoded key records differ", f->name);
    ck_assert_uint_eq(on, wc.data_end);
    if (f->warn && !*f->warn && strcmp(f->variant, "ANP3") == 0)
        ck_assert_msg(ak_test_same_bytes(b, n, out, on, f->name), "%s: clean file re-encoded differently", f->name);
    free(a.buf);
    free(c.buf);
    ak_buffer_free(reg, out);
    ak_doc_free(copy);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(b);
}
END_TEST

/* A known key of ped_cretaceous.ifp decoded by hand from fixed offsets:
 * the first frame of the first bone of the first animation. */
START_TEST(t_known_key)
{
    size_t n;
    unsigned char *b = ak_test_corpus_file("ifp/ped_cretaceous.ifp", &n);
    if (!b)
        return;
    ak_registry *reg = registry();
    ak_doc *doc = ak_test_read(reg, b, n, "ped_cretaceous.ifp");
    /* header 36, animation header 36, bone header 36: first frame at 108. */
    ck_assert(!memcmp(b, "ANP3", 4));
    uint32_t type = r32(b + 72 + 24);
    ck_assert(type == 3 || type == 4);
    char bone[25] = { 0 };
    memcpy(bone, b + 72, 24);
    char anim[25] = { 0 };
    memcpy(anim, b + 36, 24);
    const ak_clip *clip = doc->clips[0];
    ck_assert_str_eq(clip->name, anim);
    ck_assert_str_eq(clip->tracks[0]->bone, bone);
    ck_assert_int_eq(clip->tracks[0]->bone_id, (int32_t)r32(b + 72 + 32));
    ck_assert_int_eq(clip->tracks[0]->has_bone_id, 1);
    const ak_key *k = &clip->tracks[0]->channel[AK_ROTATION].keys[0];
    for (int c = 0; c < 4; c++)
        ck_assert_double_eq_tol(k->v[c], (int16_t)r16(b + 108 + 2 * c) / 4096.0, 1e-12);
    ck_assert_int_eq(k->tick, (int16_t)r16(b + 116));
    ck_assert_double_eq_tol(k->time, (int16_t)r16(b + 116) / 60.0, 1e-12);
    ck_assert_double_eq(clip->tick_rate, 60.0);
    ck_assert_uint_eq(k->raw_size, 10);
    ck_assert(!memcmp(k->raw, b + 108, 10));
    if (type == 4) {
        const ak_key *t = &clip->tracks[0]->channel[AK_TRANSLATION].keys[0];
        for (int c = 0; c < 3; c++)
            ck_assert_double_eq_tol(t->v[c], (int16_t)r16(b + 118 + 2 * c) / 1024.0, 1e-12);
    }
    /* Lookup is case-insensitive, first match. */
    char upper[25];
    for (int i = 0; i < 25; i++)
        upper[i] = (char)(anim[i] >= 'a' && anim[i] <= 'z' ? anim[i] - 32 : anim[i]);
    ck_assert_ptr_eq(ak_doc_find_clip(doc, upper), clip);
    const ak_prop *pkg = ak_prop_get(&doc->props, IFP_P_PACKAGE);
    ck_assert_ptr_nonnull(pkg);
    ck_assert_str_eq((const char *)pkg->data, (const char *)b + 8);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(b);
}
END_TEST

/* Vice City (ANPK) and San Andreas (ANP3) agree on shared animations once
 * ANPK is conjugated. */
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *skip_spaces(const char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        int x = *a >= 'A' && *a <= 'Z' ? *a + 32 : *a, y = *b >= 'A' && *b <= 'Z' ? *b + 32 : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

START_TEST(t_vc_sa)
{
    size_t nv, ns;
    unsigned char *bv = ak_test_corpus_file("ifp/vice.ifp", &nv);
    if (!bv)
        return;
    unsigned char *bs = ak_test_corpus_file("ifp/ped_cretaceous.ifp", &ns);
    ck_assert_ptr_nonnull(bs);
    ak_registry *reg = registry();
    ak_doc *vc = ak_test_read(reg, bv, nv, "vice.ifp");
    ak_doc *sa = ak_test_read(reg, bs, ns, "ped.ifp");
    size_t cap = 200000, n = 0, nabseil = 0;
    double *dots = malloc(cap * sizeof *dots), *raw = malloc(cap * sizeof *raw), abseil[4096];
    ck_assert(dots && raw);
    for (size_t c = 0; c < vc->clip_count; c++) {
        const ak_clip *cv = vc->clips[c];
        const ak_clip *cs = ak_doc_find_clip(sa, cv->name);
        if (!cs || ak_doc_find_clip(vc, cv->name) != cv)
            continue;
        for (size_t i = 0; i < cv->track_count; i++) {
            const ak_track *tv = cv->tracks[i];
            const ak_track *ts = NULL;
            for (size_t j = 0; j < cs->track_count && !ts; j++)
                if (ieq(skip_spaces(cs->tracks[j]->bone), skip_spaces(tv->bone)))
                    ts = cs->tracks[j];
            if (!ts)
                continue;
            const ak_channel *rv = &tv->channel[AK_ROTATION], *rs = &ts->channel[AK_ROTATION];
            for (size_t k = 0; k < rv->count; k++) {
                double tick = rv->keys[k].time * 60;
                if (fabs(tick - floor(tick + 0.5)) > 0.01)
                    continue;
                for (size_t m = 0; m < rs->count; m++) {
                    if (rs->keys[m].tick != (int64_t)floor(tick + 0.5))
                        continue;
                    const double *a = rv->keys[k].v, *s = rs->keys[m].v;
                    /* conjugating back = the raw file value of the ANPK key */
                    double d = a[0] * s[0] + a[1] * s[1] + a[2] * s[2] + a[3] * s[3];
                    double r = -a[0] * s[0] - a[1] * s[1] - a[2] * s[2] + a[3] * s[3];
                    if (n < cap) {
                        dots[n] = fabs(d);
                        raw[n++] = fabs(r);
                    }
                    if (ieq(cv->name, "abseil") && nabseil < 4096)
                        abseil[nabseil++] = fabs(d);
                    break;
                }
            }
        }
    }
    ck_assert_uint_gt(n, 10000);
    ck_assert_uint_gt(nabseil, 30);
    qsort(dots, n, sizeof *dots, cmpd);
    qsort(raw, n, sizeof *raw, cmpd);
    qsort(abseil, nabseil, sizeof *abseil, cmpd);
    printf("VC/SA: %zu key pairs, median |dot| %.4f conjugated, %.4f raw; abseil %.5f\n", n, dots[n / 2],
           raw[n / 2], abseil[nabseil / 2]);
    ck_assert(dots[n / 2] > 0.97);
    ck_assert(raw[n / 2] < 0.9);
    ck_assert(abseil[nabseil / 2] > 0.999);
    free(dots);
    free(raw);
    ak_doc_free(vc);
    ak_doc_free(sa);
    ak_registry_free(reg);
    free(bv);
    free(bs);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Synthetic files                                                     */
/* ------------------------------------------------------------------ */

typedef struct bb {
    unsigned char *p;
    size_t n, cap;
} bb;

static void b_put(bb *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void b_u32(bb *b, uint32_t v)
{
    unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
    b_put(b, x, 4);
}
static void b_i16(bb *b, int v)
{
    unsigned char x[2] = { (unsigned char)v, (unsigned char)((unsigned)v >> 8) };
    b_put(b, x, 2);
}
static void b_f32(bb *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    b_u32(b, u);
}
static void b_field(bb *b, const char *s, size_t n)
{
    unsigned char f[32] = { 0 };
    memcpy(f, s, strlen(s));
    b_put(b, f, n);
}
static void b_set32(bb *b, size_t off, uint32_t v)
{
    b->p[off] = (unsigned char)v;
    b->p[off + 1] = (unsigned char)(v >> 8);
    b->p[off + 2] = (unsigned char)(v >> 16);
    b->p[off + 3] = (unsigned char)(v >> 24);
}

/* ANP2: frame types 1-4, id -1, a zero-frame bone, case-variant and exact
 * duplicate animation names. Values are chosen by hand. */
static bb make_anp2(void)
{
    bb b = { 0 };
    b_put(&b, "ANP2", 4);
    b_u32(&b, 0);
    b_field(&b, "synth2", 24);
    b_u32(&b, 3);
    /* animation 0 */
    b_field(&b, "Walk_A", 24);
    b_u32(&b, 5);
    b_field(&b, " Pelvis", 24); /* type 1 */
    b_u32(&b, 1);
    b_u32(&b, 2);
    b_u32(&b, 1);
    b_f32(&b, 0.0f), b_f32(&b, 0.0f), b_f32(&b, 0.6f), b_f32(&b, 0.8f), b_f32(&b, 0.0f);
    b_f32(&b, 0.6f), b_f32(&b, 0.0f), b_f32(&b, 0.0f), b_f32(&b, 0.8f), b_f32(&b, 0.5f);
    b_field(&b, "Root", 24); /* type 2 */
    b_u32(&b, 2);
    b_u32(&b, 2);
    b_u32(&b, 0);
    b_f32(&b, 0), b_f32(&b, 0), b_f32(&b, 0), b_f32(&b, 1), b_f32(&b, 0), b_f32(&b, 0.25f), b_f32(&b, -1.5f), b_f32(&b, 2.0f);
    b_f32(&b, 0), b_f32(&b, 0), b_f32(&b, 0), b_f32(&b, 1), b_f32(&b, 0.75f), b_f32(&b, 0.5f), b_f32(&b, -1.0f), b_f32(&b, 2.0f);
    b_field(&b, "Spine", 24); /* type 3 */
    b_u32(&b, 3);
    b_u32(&b, 3);
    b_u32(&b, 2);
    b_i16(&b, 0), b_i16(&b, 0), b_i16(&b, 0), b_i16(&b, 4096), b_i16(&b, 0);
    b_i16(&b, -2896), b_i16(&b, 0), b_i16(&b, 0), b_i16(&b, 2896), b_i16(&b, 15);
    b_i16(&b, 100), b_i16(&b, -200), b_i16(&b, 300), b_i16(&b, 4080), b_i16(&b, 30);
    b_field(&b, "Head", 24); /* type 4 */
    b_u32(&b, 4);
    b_u32(&b, 2);
    b_u32(&b, 5);
    b_i16(&b, 0), b_i16(&b, 0), b_i16(&b, 0), b_i16(&b, 4096), b_i16(&b, -3), b_i16(&b, 512), b_i16(&b, -1024), b_i16(&b, 7);
    b_i16(&b, 0), b_i16(&b, 2896), b_i16(&b, 0), b_i16(&b, 2896), b_i16(&b, 45), b_i16(&b, 0), b_i16(&b, 0), b_i16(&b, -32768);
    b_field(&b, "door_prop", 24); /* zero frames, id -1 */
    b_u32(&b, 3);
    b_u32(&b, 0);
    b_u32(&b, 0xFFFFFFFFu);
    /* animation 1: case variant */
    b_field(&b, "walk_a", 24);
    b_u32(&b, 1);
    b_field(&b, "Spine", 24);
    b_u32(&b, 3);
    b_u32(&b, 1);
    b_u32(&b, 2);
    b_i16(&b, 0), b_i16(&b, 0), b_i16(&b, 0), b_i16(&b, 4096), b_i16(&b, 0);
    /* animation 2: exact duplicate, no bones */
    b_field(&b, "Walk_A", 24);
    b_u32(&b, 0);
    b_set32(&b, 4, (uint32_t)b.n - 8);
    return b;
}

/* ANP3 with float frame types 1/2 only, stale frame-data bytes, a wrong
 * size, junk after a NUL, flags 0 and a junk tail. */
static bb make_anp3_float(size_t *data_end)
{
    bb b = { 0 };
    b_put(&b, "ANP3", 4);
    b_u32(&b, 0);
    b_put(&b, "fpack\0Junk\0\0\0\0\0\0\0\0\0\0\0\0\0", 24);
    b_u32(&b, 1);
    b_field(&b, "float_anim", 24);
    b_u32(&b, 2);
    b_u32(&b, 999); /* stale: real 2*20 + 1*32 = 72 */
    b_u32(&b, 0);
    b_field(&b, "Bone1", 24);
    b_u32(&b, 1);
    b_u32(&b, 2);
    b_u32(&b, 3);
    b_f32(&b, 0.1f), b_f32(&b, 0.2f), b_f32(&b, 0.3f), b_f32(&b, 0.9f), b_f32(&b, -0.25f);
    b_f32(&b, -0.0f), b_f32(&b, 0.0f), b_f32(&b, 0.0f), b_f32(&b, 1.0f), b_f32(&b, 1.0f / 3.0f);
    b_field(&b, "Bone2", 24);
    b_u32(&b, 2);
    b_u32(&b, 1);
    b_u32(&b, 4);
    b_f32(&b, 0), b_f32(&b, 0), b_f32(&b, 0), b_f32(&b, 1), b_f32(&b, 0.125f), b_f32(&b, 10.5f), b_f32(&b, -20.25f), b_f32(&b, 1e-3f);
    *data_end = b.n;
    b_set32(&b, 4, 12345);
    b_put(&b, "stale tail bytes", 16);
    return b;
}

static size_t chunk_begin(bb *b, const char *tag)
{
    b_put(b, tag, 4);
    b_u32(b, 0);
    return b->n;
}
static void chunk_end(bb *b, size_t at) { b_set32(b, at - 4, (uint32_t)(b->n - at)); }
static void b_name_chunk(bb *b, const char *tag, const char *s)
{
    size_t len = strlen(s) + 1;
    b_put(b, tag, 4);
    b_u32(b, (uint32_t)len);
    b_put(b, s, len);
    static const unsigned char z[4] = { 0 };
    b_put(b, z, pad4(len) - len);
}

static void b_anim(bb *b, const char *bone, int frames, int w40, int form48, int w44)
{
    b_put(b, "ANIM", 4);
    b_u32(b, form48 ? 48 : 44);
    b_field(b, bone, 28);
    b_u32(b, (uint32_t)frames);
    b_u32(b, 0);
    b_u32(b, (uint32_t)(frames - 1));
    b_u32(b, (uint32_t)w40);
    if (form48)
        b_u32(b, (uint32_t)w44);
}

/* One ANPK block: a III animation (48-byte ANIMs, child/sibling, a
 * zero-frame bone), a VC one (44-byte, ids incl. 2000, KRTS, -0.0) and an
 * empty one with an odd name length. */
static void make_anpk_block(bb *b, const char *pkg, int stale_size)
{
    size_t top = chunk_begin(b, "ANPK");
    b_put(b, "INFO", 4);
    b_u32(b, (uint32_t)(4 + strlen(pkg) + 1));
    b_u32(b, 3);
    b_put(b, pkg, strlen(pkg) + 1);
    static const unsigned char z[4] = { 0 };
    b_put(b, z, pad4(4 + strlen(pkg) + 1) - (4 + strlen(pkg) + 1));
    /* III animation */
    b_name_chunk(b, "NAME", "idle_chat");
    size_t dgan = chunk_begin(b, "DGAN");
    b_put(b, "INFO", 4);
    b_u32(b, 8);
    b_u32(b, 3);
    b_u32(b, 0);
    size_t cpan = chunk_begin(b, "CPAN");
    b_anim(b, "Swaist", 2, 1, 1, -1);
    b_put(b, "KRT0", 4);
    b_u32(b, 64);
    b_f32(b, 0.5f), b_f32(b, 0.5f), b_f32(b, 0.5f), b_f32(b, 0.5f), b_f32(b, 0.0f), b_f32(b, 0.1f), b_f32(b, 0.2f), b_f32(b, 0.0f);
    b_f32(b, 0.0f), b_f32(b, 0.0f), b_f32(b, 0.0f), b_f32(b, 1.0f), b_f32(b, 0.3f), b_f32(b, 0.4f), b_f32(b, 0.5f), b_f32(b, 0.0625f);
    chunk_end(b, cpan);
    cpan = chunk_begin(b, "CPAN");
    b_anim(b, "Smid", 1, -1, 1, 2);
    b_put(b, "KR00", 4);
    b_u32(b, 20);
    b_f32(b, 0.0f), b_f32(b, -0.6f), b_f32(b, 0.0f), b_f32(b, 0.8f), b_f32(b, 0.0f);
    chunk_end(b, cpan);
    cpan = chunk_begin(b, "CPAN");
    b_anim(b, "Sfoot", 0, -1, 1, -1);
    chunk_end(b, cpan);
    chunk_end(b, dgan);
    /* VC animation */
    b_name_chunk(b, "NAME", "BIKE_fallR");
    dgan = chunk_begin(b, "DGAN");
    b_put(b, "INFO", 4);
    b_u32(b, 8);
    b_u32(b, 2);
    b_u32(b, 861);
    cpan = chunk_begin(b, "CPAN");
    b_anim(b, "Root", 1, 0, 0, 0);
    b_put(b, "KRTS", 4);
    b_u32(b, 44);
    b_f32(b, 0.0f), b_f32(b, 0.0f), b_f32(b, 0.0f), b_f32(b, 1.0f), b_f32(b, 0.454f), b_f32(b, 0.0f), b_f32(b, 0.0f);
    b_f32(b, 1.0f), b_f32(b, 1.0f), b_f32(b, 0.99f), b_f32(b, 0.0f);
    chunk_end(b, cpan);
    cpan = chunk_begin(b, "CPAN");
    b_anim(b, "L Toe0", 1, 2000, 0, 0);
    b_put(b, "KR00", 4);
    b_u32(b, 20);
    b_f32(b, -0.0f), b_f32(b, 0.0f), b_f32(b, 0.0f), b_f32(b, 1.0f), b_f32(b, 0.0f);
    chunk_end(b, cpan);
    chunk_end(b, dgan);
    /* empty animation with a 6-byte name */
    b_name_chunk(b, "NAME", "empty");
    dgan = chunk_begin(b, "DGAN");
    b_put(b, "INFO", 4);
    b_u32(b, 8);
    b_u32(b, 0);
    b_u32(b, 0);
    chunk_end(b, dgan);
    chunk_end(b, top);
    if (stale_size)
        b_set32(b, top - 4, (uint32_t)(b->n - top) - 5844);
}

static void roundtrip_bytes(ak_registry *reg, const ak_doc *doc, const bb *b, const char *what)
{
    unsigned char *out;
    size_t on;
    msgs wm;
    ck_assert_int_eq(write_with(reg, doc, NULL, NULL, &out, &on, &wm), AK_OK);
    ck_assert_msg(ak_test_same_bytes(b->p, b->n, out, on, what), "%s: rewrite differs", what);
    ck_assert_uint_eq(wm.warnings, 0);
    ak_buffer_free(reg, out);
}

/* "Text + zeros" by its definition, one byte at a time, against the word
 * at a time check: every length, every end of text, every stray byte. */
static int canonical_by_definition(const unsigned char *p, size_t n)
{
    size_t len = 0;
    while (len < n && p[len])
        len++;
    if (len == n)
        return 0;
    for (size_t i = len; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

START_TEST(t_field_canonical)
{
    unsigned char buf[40];
    size_t checked = 0, canonical = 0;
    for (size_t n = 1; n <= sizeof buf; n++)
        for (size_t len = 0; len <= n; len++)
            for (size_t stray = 0; stray <= n; stray++) { /* stray == n: none */
                memset(buf, 0, sizeof buf);
                memset(buf, 'a', len);
                if (stray < n)
                    buf[stray] = 0x80;
                int want = canonical_by_definition(buf, n);
                ck_assert_msg(ifp_field_canonical(buf, n) == want, "n %zu, text %zu, stray byte at %zu", n,
                              len, stray);
                checked++;
                canonical += (size_t)want;
            }
    ck_assert_uint_gt(canonical, 0);
    ck_assert_uint_gt(checked - canonical, 0);
}
END_TEST

START_TEST(t_synth_anp2)
{
    bb b = make_anp2();
    ak_registry *reg = registry();
    ak_doc *doc;
    msgs ms;
    ak_report rep;
    ck_assert_int_eq(read_msgs(reg, b.p, b.n, "anp2.ifp", &doc, &ms, &rep), AK_OK);
    ck_assert_uint_eq(ms.warnings, 0);
    ck_assert_str_eq(doc->variant, "ANP2");
    ck_assert_uint_eq(doc->clip_count, 3);
    check_doc_against_bytes(doc, b.p, b.n, "anp2");
    const ak_clip *c = doc->clips[0];
    ck_assert_str_eq(c->name, "Walk_A");
    ck_assert_str_eq(doc->clips[1]->name, "walk_a");
    ck_assert_ptr_eq(ak_doc_find_clip(doc, "WALK_A"), c);
    ck_assert_ptr_eq(ak_doc_find_clip(doc, "walk_a"), c);
    ck_assert_uint_eq(c->track_count, 5);
    ck_assert_double_eq(c->tick_rate, 60.0);
    /* type 1 */
    const ak_track *t = c->tracks[0];
    ck_assert_str_eq(t->bone, " Pelvis");
    ck_assert_int_eq(t->bone_id, 1);
    ck_assert_uint_eq(t->channel[AK_ROTATION].count, 2);
    ck_assert_uint_eq(t->channel[AK_TRANSLATION].count, 0);
    ck_assert_double_eq(t->channel[AK_ROTATION].keys[1].v[0], (double)0.6f);
    ck_assert_double_eq(t->channel[AK_ROTATION].keys[1].time, 0.5);
    ck_assert_int_eq(t->channel[AK_ROTATION].keys[1].tick, 30);
    /* type 2 */
    t = c->tracks[1];
    ck_assert_uint_eq(t->channel[AK_TRANSLATION].count, 2);
    ck_assert_double_eq(t->channel[AK_TRANSLATION].keys[0].v[1], -1.5);
    ck_assert_double_eq(t->channel[AK_TRANSLATION].keys[1].time, 0.75);
    /* type 3 */
    t = c->tracks[2];
    ck_assert_double_eq_tol(t->channel[AK_ROTATION].keys[1].v[0], -2896 / 4096.0, 1e-15);
    ck_assert_double_eq_tol(t->channel[AK_ROTATION].keys[1].time, 0.25, 1e-15);
    ck_assert_int_eq(t->channel[AK_ROTATION].keys[2].tick, 30);
    /* type 4 */
    t = c->tracks[3];
    ck_assert_int_eq(t->bone_id, 5);
    ck_assert_double_eq(t->channel[AK_TRANSLATION].keys[0].v[0], 0.5);
    ck_assert_double_eq(t->channel[AK_TRANSLATION].keys[0].v[1], -1.0);
    ck_assert_double_eq(t->channel[AK_TRANSLATION].keys[1].v[2], -32.0);
    ck_assert_double_eq_tol(t->channel[AK_ROTATION].keys[0].time, -3 / 60.0, 1e-15);
    /* zero-frame bone with id -1 */
    t = c->tracks[4];
    ck_assert_int_eq(t->bone_id, -1);
    ck_assert_int_eq(t->has_bone_id, 1);
    ck_assert_uint_eq(t->channel[AK_ROTATION].count, 0);
    ck_assert_double_eq_tol(c->duration, 0.75, 1e-12);
    roundtrip_bytes(reg, doc, &b, "anp2");
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(b.p);
}
END_TEST

START_TEST(t_synth_anp3_float)
{
    size_t data_end;
    bb b = make_anp3_float(&data_end);
    ak_registry *reg = registry();
    ak_doc *doc;
    msgs ms;
    ak_report rep;
    ck_assert_int_eq(read_msgs(reg, b.p, b.n, "float.ifp", &doc, &ms, &rep), AK_OK);
    ck_assert_uint_eq(ms.errors, 0);
    ck_assert_msg(strstr(ms.text, "frame-data byte count says 999") != NULL, "%s", ms.text);
    ck_assert_msg(strstr(ms.text, "size field says 12345") != NULL, "%s", ms.text);
    ck_assert_msg(strstr(ms.text, "16 bytes follow the last animation") != NULL, "%s", ms.text);
    ck_assert_msg(strstr(ms.text, "leftover bytes") != NULL, "%s", ms.text);
    ck_assert_uint_eq(ms.warnings, 4);
    check_doc_against_bytes(doc, b.p, b.n, "float");
    const ak_clip *c = doc->clips[0];
    ck_assert_double_eq(c->tick_rate, 0.0);
    ck_assert_int_eq(ak_prop_int(&c->props, IFP_P_FLAGS, -1), 0);
    const ak_prop *pkg = ak_prop_get(&doc->props, IFP_P_PACKAGE);
    ck_assert_str_eq((const char *)pkg->data, "fpack");
    ck_assert_double_eq(c->tracks[0]->channel[AK_ROTATION].keys[0].time, -0.25);
    ck_assert(signbit(c->tracks[0]->channel[AK_ROTATION].keys[1].v[0]));
    ck_assert_double_eq(c->tracks[1]->channel[AK_TRANSLATION].keys[0].v[0], 10.5);
    roundtrip_bytes(reg, doc, &b, "float");
    /* The stale fields are recomputed once the data changes size. */
    ak_key *k = ak_key_add(doc->clips[0]->tracks[0], AK_ROTATION);
    k->time = 0.5;
    unsigned char *out;
    size_t on;
    msgs wm;
    ck_assert_int_eq(write_with(reg, doc, NULL, NULL, &out, &on, &wm), AK_OK);
    ck_assert_uint_eq(r32(out + 36 + 28), 3 * 20 + 32);
    ck_assert_uint_eq(r32(out + 4), data_end + 20 - 8);
    ck_assert_uint_eq(on, data_end + 20 + 16);
    ck_assert(!memcmp(out + data_end + 20, "stale tail bytes", 16));
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(b.p);
}
END_TEST

START_TEST(t_synth_anpk)
{
    bb b = { 0 };
    make_anpk_block(&b, "ped", 1);
    ak_registry *reg = registry();
    ak_doc *doc;
    msgs ms;
    ak_report rep;
    ck_assert_int_eq(read_msgs(reg, b.p, b.n, "anpk.ifp", &doc, &ms, &rep), AK_OK);
    ck_assert_uint_eq(ms.errors, 0);
    ck_assert_msg(strstr(ms.text, "ANPK size field") != NULL, "%s", ms.text);
    ck_assert_uint_eq(ms.warnings, 1);
    ck_assert_str_eq(doc->variant, "ANPK");
    check_doc_against_bytes(doc, b.p, b.n, "anpk");
    ck_assert_uint_eq(doc->clip_count, 3);
    const ak_clip *c = doc->clips[0];
    ck_assert_str_eq(c->name, "idle_chat");
    ck_assert_int_eq(ak_prop_int(&c->props, IFP_P_ANIM_SIZE, 0), 48);
    const ak_track *t = c->tracks[0];
    ck_assert_int_eq(t->has_bone_id, 0);
    ck_assert_int_eq(ak_prop_int(&t->props, IFP_P_CHILD, 9), 1);
    ck_assert_int_eq(ak_prop_int(&t->props, IFP_P_SIBLING, 9), -1);
    ck_assert_int_eq(ak_prop_int(&c->tracks[1]->props, IFP_P_SIBLING, 9), 2);
    /* conjugated: file (0.5,0.5,0.5,0.5) -> (-0.5,-0.5,-0.5,0.5) */
    ck_assert_double_eq(t->channel[AK_ROTATION].keys[0].v[0], -0.5);
    ck_assert_double_eq(t->channel[AK_ROTATION].keys[0].v[3], 0.5);
    ck_assert_double_eq(t->channel[AK_TRANSLATION].keys[1].v[2], 0.5);
    ck_assert_double_eq(t->channel[AK_TRANSLATION].keys[1].time, 0.0625);
    ck_assert_double_eq_tol(c->tracks[1]->channel[AK_ROTATION].keys[0].v[1], 0.6, 1e-7);
    ck_assert_uint_eq(c->tracks[2]->channel[AK_ROTATION].count, 0);
    ck_assert_str_eq(c->tracks[2]->bone, "Sfoot");
    c = doc->clips[1];
    ck_assert_int_eq(ak_prop_int(&c->props, IFP_P_DGAN_UNKNOWN, 0), 861);
    ck_assert_int_eq(c->tracks[0]->has_bone_id, 1);
    ck_assert_int_eq(c->tracks[0]->bone_id, 0);
    ck_assert_int_eq(c->tracks[1]->bone_id, 2000);
    ck_assert_double_eq_tol(c->tracks[0]->channel[AK_SCALE].keys[0].v[2], 0.99, 1e-7);
    ck_assert_double_eq_tol(c->tracks[0]->channel[AK_TRANSLATION].keys[0].v[0], 0.454, 1e-7);
    ck_assert_str_eq(doc->clips[2]->name, "empty");
    roundtrip_bytes(reg, doc, &b, "anpk");

    /* Editing one rotation value changes exactly its 4 bytes, conjugated. */
    ak_key *k = &doc->clips[0]->tracks[0]->channel[AK_ROTATION].keys[1];
    k->v[0] = 0.25;
    unsigned char *out;
    size_t on;
    msgs wm;
    ck_assert_int_eq(write_with(reg, doc, NULL, NULL, &out, &on, &wm), AK_OK);
    ck_assert_uint_eq(on, b.n);
    walk w;
    ck_assert(walk_file(b.p, b.n, &w, NULL, NULL));
    /* the Swaist key 1 record: find it by value in the original */
    size_t rec = 0;
    for (size_t i = 0; i + 32 <= b.n; i++)
        if (!memcmp(b.p + i, "KRT0", 4)) {
            rec = i + 8 + 32;
            break;
        }
    ck_assert_uint_gt(rec, 0);
    for (size_t i = 0; i < on; i++)
        if (i < rec || i >= rec + 4)
            ck_assert_msg(out[i] == b.p[i], "byte %zu changed", i);
    ck_assert(rf(out + rec) == -0.25f);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(b.p);
}
END_TEST

START_TEST(t_synth_anlf)
{
    bb b = { 0 };
    b_put(&b, "ANLF", 4);
    b_u32(&b, 0);
    b_u32(&b, 2);
    make_anpk_block(&b, "ped", 0);
    make_anpk_block(&b, "blockTwo", 0);
    b_set32(&b, 4, (uint32_t)b.n - 8);
    ak_registry *reg = registry();
    ak_doc *doc;
    msgs ms;
    ak_report rep;
    ck_assert_int_eq(read_msgs(reg, b.p, b.n, "anlf.ifp", &doc, &ms, &rep), AK_OK);
    ck_assert_uint_eq(ms.warnings, 0);
    ck_assert_str_eq(doc->variant, "ANLF");
    check_doc_against_bytes(doc, b.p, b.n, "anlf");
    ck_assert_uint_eq(doc->clip_count, 6);
    ck_assert_int_eq(ak_prop_int(&doc->clips[4]->props, IFP_P_BLOCK, -1), 1);
    roundtrip_bytes(reg, doc, &b, "anlf");
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(b.p);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Edits of a corpus file                                              */
/* ------------------------------------------------------------------ */

typedef struct find_ctx {
    int type;
    size_t skip;
    wkey found;
    int have;
} find_ctx;

static void find_key_fn(void *user, const wkey *k)
{
    find_ctx *f = user;
    if (f->have || k->type != f->type || k->idx == 0)
        return;
    if (f->skip) {
        f->skip--;
        return;
    }
    f->found = *k;
    f->have = 1;
}

START_TEST(t_edit_key)
{
    size_t n;
    unsigned char *b = ak_test_corpus_file("ifp/ped_cretaceous.ifp", &n);
    if (!b)
        return;
    ak_registry *reg = registry();
    ak_doc *doc = ak_test_read(reg, b, n, "ped.ifp");
    walk w;
    find_ctx f4 = { 4, 500, { 0 }, 0 }, f3 = { 3, 700, { 0 }, 0 };
    ck_assert(walk_file(b, n, &w, find_key_fn, &f4));
    ck_assert(walk_file(b, n, &w, find_key_fn, &f3));
    ck_assert(f4.have && f3.have);
    ak_track *t4 = doc->clips[f4.found.anim]->tracks[f4.found.bone];
    ak_track *t3 = doc->clips[f3.found.anim]->tracks[f3.found.bone];
    ak_key *q = &t4->channel[AK_ROTATION].keys[f4.found.idx];
    ak_key *tr = &t4->channel[AK_TRANSLATION].keys[f4.found.idx];
    double nq = q->v[1] > 0 ? q->v[1] - 0.3 : q->v[1] + 0.3;
    double nt = tr->v[0] + 0.37;
    q->v[1] = nq;
    tr->v[0] = nt;
    /* a time edit on a rotation-only bone: one tick later, kept in order */
    ak_key *k3 = &t3->channel[AK_ROTATION].keys[f3.found.idx];
    int64_t old_tick = k3->tick;
    int next_ok = f3.found.idx + 1 >= t3->channel[AK_ROTATION].count ||
                  t3->channel[AK_ROTATION].keys[f3.found.idx + 1].tick > old_tick + 1;
    if (next_ok)
        k3->time = (double)(old_tick + 1) / 60.0;

    unsigned char *out;
    size_t on;
    msgs wm;
    ck_assert_int_eq(write_with(reg, doc, NULL, NULL, &out, &on, &wm), AK_OK);
    ck_assert_uint_eq(wm.warnings, 0);
    ck_assert_uint_eq(on, n);
    size_t o4 = f4.found.off, o3 = f3.found.off;
    size_t changed = 0;
    for (size_t i = 0; i < n; i++) {
        int allowed = (i >= o4 + 2 && i < o4 + 4) || (i >= o4 + 10 && i < o4 + 12) ||
                      (next_ok && i >= o3 + 8 && i < o3 + 10);
        if (out[i] != b[i]) {
            changed++;
            ck_assert_msg(allowed, "byte %zu changed outside the edited keys", i);
        }
    }
    ck_assert_uint_gt(changed, 0);
    /* Engine encoding: truncation of value x 4096 / x 1024. */
    ck_assert_int_eq((int16_t)r16(out + o4 + 2), (int)trunc(nq * 4096));
    ck_assert_int_eq((int16_t)r16(out + o4 + 10), (int)trunc(nt * 1024));
    if (next_ok)
        ck_assert_int_eq((int16_t)r16(out + o3 + 8), old_tick + 1);
    ak_doc *back = ak_test_read(reg, out, on, "edited.ifp");
    const ak_track *b4 = back->clips[f4.found.anim]->tracks[f4.found.bone];
    ck_assert(fabs(b4->channel[AK_ROTATION].keys[f4.found.idx].v[1] - nq) < 1.0 / 4096);
    ck_assert(fabs(b4->channel[AK_TRANSLATION].keys[f4.found.idx].v[0] - nt) < 1.0 / 1024);
    ak_doc_free(back);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* A document built by hand                                            */
/* ------------------------------------------------------------------ */

static void add_rot(ak_track *t, double time, double x, double y, double z, double w)
{
    ak_key *k = ak_key_add(t, AK_ROTATION);
    ck_assert_ptr_nonnull(k);
    k->time = time;
    k->v[0] = x, k->v[1] = y, k->v[2] = z, k->v[3] = w;
}
static void add_vec(ak_track *t, ak_channel_kind kind, double time, double x, double y, double z)
{
    ak_key *k = ak_key_add(t, kind);
    ck_assert_ptr_nonnull(k);
    k->time = time;
    k->v[0] = x, k->v[1] = y, k->v[2] = z;
}

static ak_doc *hand_doc(void)
{
    const double h = 0.70710678118654752;
    ak_doc *doc = ak_doc_new();
    ak_clip *c = ak_clip_add(doc, "dance");
    ak_track *root = ak_track_add(c, "Root");
    root->bone_id = 0;
    root->has_bone_id = 1;
    add_rot(root, 0, 0, 0, 0, 1);
    add_rot(root, 1.0 / 30, -h, 0, 0, h);
    add_rot(root, 0.5, 0, h, 0, h);
    add_vec(root, AK_TRANSLATION, 0, 0, 0, 0);
    add_vec(root, AK_TRANSLATION, 1.0 / 30, 0.5, -0.25, 1.0);
    add_vec(root, AK_TRANSLATION, 0.5, 1.1, 0, -2.0);
    ak_track *head = ak_track_add(c, " Head");
    head->bone_id = 5;
    head->has_bone_id = 1;
    add_rot(head, 0, 0, 0, 0, 1);
    add_rot(head, 0.25, 0.1, 0.2, 0.3, sqrt(1 - 0.14));
    ak_track *hip = ak_track_add(c, "Hip"); /* no id; channels at different times */
    add_rot(hip, 0, 0, 0, 0, 1);
    add_rot(hip, 1, 0, 0, h, h);
    add_vec(hip, AK_TRANSLATION, 0, 0, 0, 0);
    add_vec(hip, AK_TRANSLATION, 0.5, 1, 2, 3);
    add_vec(hip, AK_TRANSLATION, 1, 2, 2, 2);
    ak_clip *c2 = ak_clip_add(doc, "second_clip_with_a_long_name_over_24");
    ak_track *s = ak_track_add(c2, "Scaled");
    add_rot(s, 0, 0, 0, 0, 1);
    add_vec(s, AK_TRANSLATION, 0, 1, 2, 3);
    add_vec(s, AK_SCALE, 0, 1, 1, 2);
    ak_track *far = ak_track_add(c2, "Far"); /* 40 m: over the int16 range of 32 m */
    add_vec(far, AK_TRANSLATION, 0, 40, -40, 0);
    return doc;
}

/* Mirroring a clip through the struct, as a host does across the x = 0
 * plane (x of every translation and y, z of every rotation negated): the
 * keys read from a file, whose stored bytes the writer would otherwise
 * re-emit, must come out mirrored. Two sign flips at once in one key went
 * unnoticed by the change check before, and the edit was lost. */
START_TEST(t_mirror_through_struct)
{
    ak_registry *reg = registry();
    ak_doc *hand = hand_doc();
    unsigned char *file, *out;
    size_t fn, on;
    msgs wm;
    ck_assert_int_eq(write_with(reg, hand, NULL, "dance.ifp", &file, &fn, &wm), AK_OK);
    ak_doc_free(hand);
    ak_doc *doc = ak_test_read(reg, file, fn, "dance.ifp");
    ak_doc *was = ak_test_read(reg, file, fn, "dance.ifp");
    size_t mirrored = 0;
    for (size_t c = 0; c < doc->clip_count; c++)
        for (size_t t = 0; t < doc->clips[c]->track_count; t++) {
            ak_track *tr = doc->clips[c]->tracks[t];
            for (size_t i = 0; i < tr->channel[AK_ROTATION].count; i++) {
                ak_key *k = &tr->channel[AK_ROTATION].keys[i];
                k->v[1] = -k->v[1];
                k->v[2] = -k->v[2];
                mirrored += k->v[1] != 0 && k->v[2] != 0;
            }
            for (size_t i = 0; i < tr->channel[AK_TRANSLATION].count; i++)
                tr->channel[AK_TRANSLATION].keys[i].v[0] *= -1;
        }
    ck_assert_uint_gt(mirrored, 0); /* the Head key: y and z both not 0 */
    ck_assert_int_eq(write_with(reg, doc, NULL, "mirrored.ifp", &out, &on, &wm), AK_OK);
    ak_doc *back = ak_test_read(reg, out, on, "mirrored.ifp");
    ck_assert_uint_eq(back->clip_count, was->clip_count);
    for (size_t c = 0; c < was->clip_count; c++)
        for (size_t t = 0; t < was->clips[c]->track_count; t++) {
            const ak_track *a = was->clips[c]->tracks[t], *b = back->clips[c]->tracks[t];
            for (int ch = AK_ROTATION; ch <= AK_TRANSLATION; ch++) {
                ck_assert_uint_eq(b->channel[ch].count, a->channel[ch].count);
                for (size_t i = 0; i < a->channel[ch].count; i++) {
                    const double *va = a->channel[ch].keys[i].v, *vb = b->channel[ch].keys[i].v;
                    double want[4] = { va[0], va[1], va[2], va[3] };
                    if (ch == AK_ROTATION)
                        want[1] = -want[1], want[2] = -want[2];
                    else
                        want[0] = -want[0];
                    for (int j = 0; j < 4; j++) /* one step of the stored integers */
                        ck_assert_msg(fabs(vb[j] - want[j]) <= 1.0 / 1024, "clip %zu track %zu %s key %zu v[%d]: %g, not %g",
                                      c, t, ak_channel_name((ak_channel_kind)ch), i, j, vb[j], want[j]);
                }
            }
        }
    ak_doc_free(back);
    ak_doc_free(was);
    ak_doc_free(doc);
    ak_buffer_free(reg, out);
    ak_buffer_free(reg, file);
    ak_registry_free(reg);
}
END_TEST

START_TEST(t_hand_anp3)
{
    ak_registry *reg = registry();
    ak_doc *doc = hand_doc();
    doc->clips[0]->duration = 2.0; /* longer than its last key (1 s) */
    unsigned char *out;
    size_t on;
    msgs wm;
    ck_assert_int_eq(write_with(reg, doc, NULL, "out/dance_pack.ifp", &out, &on, &wm), AK_OK);
    ck_assert_msg(strstr(wm.text, "hold at the end is lost") != NULL, "%s", wm.text);
    ck_assert_msg(strstr(wm.text, "merged") != NULL, "%s", wm.text);
    ck_assert_msg(strstr(wm.text, "scale keys dropped") != NULL, "%s", wm.text);
    ck_assert_msg(strstr(wm.text, "too long") != NULL, "%s", wm.text);
    ck_assert_msg(strstr(wm.text, "clamped") != NULL, "%s", wm.text);
    /* Layout by hand: header, names zero-padded, computed sizes. */
    ck_assert(!memcmp(out, "ANP3", 4));
    ck_assert_uint_eq(r32(out + 4), on - 8);
    ck_assert(!memcmp(out + 8, "dance_pack\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 24));
    ck_assert_uint_eq(r32(out + 32), 2);
    ck_assert(!memcmp(out + 36, "dance\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 24));
    ck_assert_uint_eq(r32(out + 60), 3);
    ck_assert_uint_eq(r32(out + 64), 3 * 16 + 2 * 10 + 3 * 16);
    ck_assert_uint_eq(r32(out + 68), 1);
    size_t p = 72; /* Root */
    ck_assert(!memcmp(out + p, "Root", 5));
    ck_assert_uint_eq(r32(out + p + 24), 4);
    ck_assert_uint_eq(r32(out + p + 28), 3);
    ck_assert_uint_eq(r32(out + p + 32), 0);
    const unsigned char *f = out + p + 36 + 16; /* second frame */
    ck_assert_int_eq((int16_t)r16(f), -2896); /* trunc(-0.7071 x 4096), not floor */
    ck_assert_int_eq((int16_t)r16(f + 6), 2896);
    ck_assert_int_eq((int16_t)r16(f + 8), 2); /* 1/30 s x 60 + 0.5 */
    ck_assert_int_eq((int16_t)r16(f + 10), 512);
    ck_assert_int_eq((int16_t)r16(f + 12), -256);
    ck_assert_int_eq((int16_t)r16(f + 14), 1024);
    f += 16;
    ck_assert_int_eq((int16_t)r16(f + 8), 30);
    ck_assert_int_eq((int16_t)r16(f + 10), (int)trunc(1.1 * 1024));
    p += 36 + 48; /* Head */
    ck_assert_uint_eq(r32(out + p + 24), 3);
    ck_assert_uint_eq(r32(out + p + 32), 5);
    f = out + p + 36 + 10; /* 0.1, 0.2, 0.3 x 4096 = 409.6, 819.2, 1228.8: truncated */
    ck_assert_int_eq((int16_t)r16(f), 409);
    ck_assert_int_eq((int16_t)r16(f + 2), 819);
    ck_assert_int_eq((int16_t)r16(f + 4), 1228);
    ck_assert_int_eq((int16_t)r16(f + 8), 15);
    p += 36 + 20; /* Hip: union of times 0, 0.5, 1 */
    ck_assert_uint_eq(r32(out + p + 24), 4);
    ck_assert_uint_eq(r32(out + p + 28), 3);
    ck_assert_int_eq((int32_t)r32(out + p + 32), -1);
    f = out + p + 36 + 16;
    ck_assert_int_eq((int16_t)r16(f + 8), 30);
    /* slerp halfway to 90 degrees about z: 45 degrees */
    ck_assert_int_eq((int16_t)r16(f + 4), (int)trunc(sin(acos(-1.0) / 8) * 4096));
    ck_assert_int_eq((int16_t)r16(f + 10), 1024);
    p += 36 + 48; /* second clip: name cut to 23 characters */
    ck_assert(!memcmp(out + p, "second_clip_with_a_long", 23));
    ck_assert_uint_eq(out[p + 23], 0);

    ak_doc *back = ak_test_read(reg, out, on, "dance.ifp");
    ck_assert_str_eq(back->variant, "ANP3");
    const ak_track *far = back->clips[1]->tracks[1];
    ck_assert_uint_eq(far->channel[AK_ROTATION].count, 1); /* identity rotation added */
    ck_assert_double_eq(far->channel[AK_ROTATION].keys[0].v[3], 1.0);
    ck_assert_double_eq(far->channel[AK_TRANSLATION].keys[0].v[0], 32767 / 1024.0);
    ck_assert_double_eq(far->channel[AK_TRANSLATION].keys[0].v[1], -32768 / 1024.0);
    const ak_clip *c = back->clips[0], *oc = doc->clips[0];
    for (size_t i = 0; i < 2; i++) {
        const ak_track *t = c->tracks[i], *ot = oc->tracks[i];
        ck_assert_str_eq(t->bone, ot->bone);
        ck_assert_int_eq(t->bone_id, ot->bone_id);
        for (int ch = 0; ch < 2; ch++) {
            ck_assert_uint_eq(t->channel[ch].count, ot->channel[ch].count);
            for (size_t k = 0; k < t->channel[ch].count; k++) {
                double tol = ch == 0 ? 1.0 / 4096 : 1.0 / 1024;
                ck_assert(fabs(t->channel[ch].keys[k].time - ot->channel[ch].keys[k].time) <= 1.0 / 120);
                for (int v = 0; v < (ch == 0 ? 4 : 3); v++)
                    ck_assert(fabs(t->channel[ch].keys[k].v[v] - ot->channel[ch].keys[k].v[v]) < tol);
            }
        }
    }
    ck_assert_int_eq(c->tracks[2]->bone_id, -1);
    ck_assert_uint_eq(c->tracks[2]->channel[AK_ROTATION].count, 3);
    /* The reread document writes itself back byte-identically. */
    unsigned char *out2;
    size_t on2;
    ck_assert_int_eq(write_with(reg, back, NULL, NULL, &out2, &on2, &wm), AK_OK);
    ck_assert(ak_test_same_bytes(out, on, out2, on2, "reread"));
    ak_buffer_free(reg, out2);
    ak_doc_free(back);
    ak_buffer_free(reg, out);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

/* A document that says it is ifp but whose keys have no stored bytes (as
 * JSON written by hand gives): the writers' fast paths for untouched
 * stored records must not apply, every key is encoded from its values. */
START_TEST(t_ifp_doc_without_stored_bytes)
{
    ak_registry *reg = registry();
    static const char *const variants[] = { "ANP3", "ANPK" };
    for (size_t v = 0; v < 2; v++) {
        ak_doc *doc = hand_doc();
        ck_assert_int_eq(ak_doc_set_format(doc, "ifp", variants[v]), AK_OK);
        unsigned char *out;
        size_t on;
        msgs wm;
        ck_assert_int_eq(write_with(reg, doc, NULL, NULL, &out, &on, &wm), AK_OK);
        ak_doc *back = ak_test_read(reg, out, on, "nobytes.ifp");
        ck_assert_str_eq(back->variant, variants[v]);
        const ak_channel *a = &doc->clips[0]->tracks[0]->channel[AK_ROTATION];
        const ak_channel *b = &back->clips[0]->tracks[0]->channel[AK_ROTATION];
        ck_assert_uint_eq(b->count, a->count);
        for (size_t k = 0; k < a->count; k++)
            for (int c = 0; c < 4; c++) /* ANP3 int16: value x 4096 truncated */
                ck_assert_double_eq_tol(b->keys[k].v[c], a->keys[k].v[c], 1.0 / 4096);
        ak_doc_free(back);
        ak_buffer_free(reg, out);
        ak_doc_free(doc);
    }
    ak_registry_free(reg);
}
END_TEST

START_TEST(t_hand_variants)
{
    ak_registry *reg = registry();
    ak_doc *doc = hand_doc();
    static const char *const variants[] = { "ANPK", "anp2", "ANLF" };
    for (size_t v = 0; v < 3; v++) {
        unsigned char *out;
        size_t on;
        msgs wm;
        ck_assert_int_eq(write_with(reg, doc, variants[v], NULL, &out, &on, &wm), AK_OK);
        ak_doc *back = ak_test_read(reg, out, on, "variant.ifp");
        ck_assert_uint_eq(back->clip_count, 2);
        check_doc_against_bytes(back, out, on, variants[v]);
        int anpk = v != 1;
        const ak_track *s = back->clips[1]->tracks[0];
        ck_assert_uint_eq(s->channel[AK_SCALE].count, anpk ? 1 : 0);
        if (anpk) {
            ck_assert_msg(strstr(wm.text, "longer than 23") != NULL, "%s", wm.text);
            ck_assert_str_eq(back->clips[1]->name, "second_clip_with_a_long_name_over_24");
            ck_assert_double_eq(s->channel[AK_SCALE].keys[0].v[2], 2.0);
            ck_assert(!memcmp(out + (v == 2 ? 12 : 0), "ANPK", 4));
            /* the same rotation values after the conjugation round trip */
            const ak_key *k = &back->clips[0]->tracks[0]->channel[AK_ROTATION].keys[1];
            ck_assert_double_eq_tol(k->v[0], -0.70710678118654752, 1e-7);
            ck_assert_double_eq_tol(k->time, 1.0 / 30, 1e-7);
            ck_assert_int_eq(back->clips[0]->tracks[1]->bone_id, 5);
        } else {
            ck_assert_msg(strstr(wm.text, "scale keys dropped") != NULL, "%s", wm.text);
            ck_assert_str_eq(back->variant, "ANP2");
        }
        ak_doc_free(back);
        ak_buffer_free(reg, out);
    }
    unsigned char *out;
    size_t on;
    msgs wm;
    ck_assert_int_eq(write_with(reg, doc, "ANP9", NULL, &out, &on, &wm), AK_E_USAGE);
    ak_doc_free(doc);
    ak_registry_free(reg);
}
END_TEST

START_TEST(t_probe)
{
    const ak_codec *c = ifp_codec();
    ck_assert_int_eq(c->probe((const unsigned char *)"ANP3xxxx", 8, NULL), AK_PROBE_MAGIC);
    ck_assert_int_eq(c->probe((const unsigned char *)"ANP2", 4, NULL), AK_PROBE_MAGIC);
    ck_assert_int_eq(c->probe((const unsigned char *)"ANPK", 4, NULL), AK_PROBE_MAGIC);
    ck_assert_int_eq(c->probe((const unsigned char *)"ANLF", 4, NULL), AK_PROBE_MAGIC);
    ck_assert_int_eq(c->probe((const unsigned char *)"RIFF", 4, NULL), 0);
    ck_assert_int_eq(c->probe((const unsigned char *)"RIFF", 4, "a/b.IFP"), AK_PROBE_EXTENSION);
    ck_assert_int_eq(c->probe((const unsigned char *)"AN", 2, NULL), 0);
    ck_assert(c->caps & AK_CAP_SCALE);
    ck_assert(c->caps & AK_CAP_MULTI_CLIP);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Bad input                                                           */
/* ------------------------------------------------------------------ */

static void expect_clean_error(ak_registry *reg, const unsigned char *b, size_t n, const char *what, size_t at)
{
    ak_doc *doc = NULL;
    msgs ms;
    ak_report rep;
    ak_status st = read_msgs(reg, b, n, "bad.ifp", &doc, &ms, &rep);
    ck_assert_msg(st == AK_E_DATA || st == AK_E_UNSUPPORTED, "%s at %zu: status %s", what, at, ak_status_name(st));
    ck_assert_ptr_null(doc);
    ck_assert_msg(rep.offset >= 0 && strstr(rep.message, "at byte") != NULL, "%s at %zu: no offset in '%s'", what,
                  at, rep.message);
    check_outline_read(reg, b, n, "bad.ifp");
}

/* Any outcome but a crash; an error must carry an offset (or be the memory cap). */
static void expect_no_crash(ak_registry *reg, const unsigned char *b, size_t n, const char *what, size_t at)
{
    ak_doc *doc = NULL;
    msgs ms;
    ak_report rep;
    check_outline_read(reg, b, n, "fuzz.ifp");
    ak_status st = read_msgs(reg, b, n, "fuzz.ifp", &doc, &ms, &rep);
    if (st == AK_OK) {
        /* Whatever reads, writes back byte-identically. */
        unsigned char *out;
        size_t on;
        msgs wm;
        ck_assert_int_eq(write_with(reg, doc, NULL, NULL, &out, &on, &wm), AK_OK);
        ck_assert_msg(ak_test_same_bytes(b, n, out, on, what), "%s at %zu: rewrite differs", what, at);
        ak_buffer_free(reg, out);
        ak_doc_free(doc);
        return;
    }
    ck_assert_msg(st == AK_E_DATA || st == AK_E_UNSUPPORTED || st == AK_E_LIMIT, "%s at %zu: %s", what, at,
                  ak_status_name(st));
    ck_assert_msg(st == AK_E_LIMIT || rep.offset >= 0, "%s at %zu: no offset in '%s'", what, at, rep.message);
}

static void sweep_truncations(ak_registry *reg, const unsigned char *b, size_t n, const char *name)
{
    walk w;
    ck_assert(walk_file(b, n, &w, NULL, NULL));
    size_t end = w.data_end;
    unsigned char *copy = malloc(end ? end : 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, b, end);
    size_t step = end <= 4096 ? 1 : end / 120;
    for (size_t cut = 0; cut < end; cut += (cut < 512 ? 1 : step))
        expect_clean_error(reg, copy, cut, name, cut);
    expect_clean_error(reg, copy, end - 1, name, end - 1);
    free(copy);
}

static void poke32(unsigned char *b, size_t off, uint32_t v)
{
    b[off] = (unsigned char)v;
    b[off + 1] = (unsigned char)(v >> 8);
    b[off + 2] = (unsigned char)(v >> 16);
    b[off + 3] = (unsigned char)(v >> 24);
}

/* Inflated counts and corrupted tags at the first structures of a file. */
static void sweep_fields(ak_registry *reg, const unsigned char *b, size_t n, const char *name)
{
    unsigned char *c = malloc(n);
    ck_assert_ptr_nonnull(c);
    static const uint32_t huge[] = { 0x7FFFFFFFu, 0xFFFFFFFFu, 0x80000000u, 0x0FFFFFFFu };
    size_t fields[8], nf = 0;
    size_t tags[8], nt = 0;
    int anp = !memcmp(b, "ANP3", 4) || !memcmp(b, "ANP2", 4);
    if (anp) {
        int anp3 = b[3] == '3';
        size_t bone = 36 + (anp3 ? 36 : 28);
        fields[nf++] = 32;        /* animation count */
        fields[nf++] = 36 + 24;   /* bone count */
        fields[nf++] = bone + 28; /* frame count */
        tags[nt++] = bone + 24;   /* frame type */
    } else {
        size_t p = !memcmp(b, "ANLF", 4) ? 12 : 0;
        if (p)
            fields[nf++] = 8;
        size_t info = p + 8;
        fields[nf++] = info + 8; /* animation count */
        size_t name_at = info + 8 + pad4(r32(b + info + 4));
        size_t dgan = name_at + 8 + pad4(r32(b + name_at + 4));
        fields[nf++] = dgan + 16;      /* bone count */
        fields[nf++] = dgan + 24 + 16 + 28; /* frame count */
        tags[nt++] = p;
        tags[nt++] = info;
        tags[nt++] = name_at;
        tags[nt++] = dgan;
        tags[nt++] = dgan + 8;
        tags[nt++] = dgan + 24;
        tags[nt++] = dgan + 24 + 8;
        tags[nt++] = dgan + 24 + 16 + r32(b + dgan + 24 + 12); /* key chunk */
    }
    for (size_t i = 0; i < nf; i++)
        for (size_t h = 0; h < sizeof huge / sizeof huge[0]; h++) {
            memcpy(c, b, n);
            poke32(c, fields[i], huge[h]);
            expect_clean_error(reg, c, n, name, fields[i]);
        }
    for (size_t i = 0; i < nt; i++) {
        memcpy(c, b, n);
        if (anp)
            poke32(c, tags[i], 7);
        else
            memcpy(c + tags[i], "XXXX", 4);
        expect_clean_error(reg, c, n, name, tags[i]);
    }
    if (!memcmp(b, "ANPK", 4)) {
        size_t info = 8, name_at = info + 8 + pad4(r32(b + info + 4));
        size_t anim = name_at + 8 + pad4(r32(b + name_at + 4)) + 24 + 8;
        memcpy(c, b, n);
        poke32(c, anim + 4, 40); /* unknown ANIM size */
        expect_clean_error(reg, c, n, name, anim);
        memcpy(c, b, n);
        poke32(c, info + 4, 0x7FFFFFF0u); /* huge INFO size */
        expect_clean_error(reg, c, n, name, info);
    }
    free(c);
}

/* Random byte corruption of small files: never a crash or a hang. */
static void sweep_random(ak_registry *reg, const unsigned char *b, size_t n, const char *name, unsigned rounds)
{
    unsigned char *c = malloc(n);
    ck_assert_ptr_nonnull(c);
    uint32_t s = 12345u + (uint32_t)n;
    for (unsigned r = 0; r < rounds; r++) {
        memcpy(c, b, n);
        int flips = 1 + (int)(r % 4);
        for (int i = 0; i < flips; i++) {
            s = s * 1664525u + 1013904223u;
            size_t at = (s >> 8) % (n < 512 ? n : 512 + (s % 3 == 0 ? n - 512 : 0));
            s = s * 1664525u + 1013904223u;
            c[at] = (r & 1) ? (unsigned char)(s >> 24) : (unsigned char)(c[at] ^ (1u << (s >> 29)));
        }
        expect_no_crash(reg, c, n, name, r);
    }
    free(c);
}

START_TEST(t_bad_corpus)
{
    ak_registry *reg = registry();
    for (size_t i = 0; i < NCORPUS; i++) {
        size_t n;
        unsigned char *b = ak_test_corpus_file(corpus[i].name, &n);
        if (!b)
            break;
        sweep_truncations(reg, b, n, corpus[i].name);
        sweep_fields(reg, b, n, corpus[i].name);
        if (n < 30000)
            sweep_random(reg, b, n, corpus[i].name, 300);
        free(b);
    }
    ak_registry_free(reg);
}
END_TEST

/* One file of each variant: ANP2, ANP3 with float times, ANPK, and an
 * ANLF of two ANPK blocks. */
static void make_synthetic(bb files[4])
{
    size_t de;
    files[0] = make_anp2();
    files[1] = make_anp3_float(&de);
    memset(&files[2], 0, 2 * sizeof files[0]);
    make_anpk_block(&files[2], "ped", 0);
    b_put(&files[3], "ANLF", 4);
    b_u32(&files[3], 0);
    b_u32(&files[3], 2);
    make_anpk_block(&files[3], "a", 0);
    make_anpk_block(&files[3], "b", 0);
}

START_TEST(t_bad_synthetic)
{
    ak_registry *reg = registry();
    bb files[4];
    make_synthetic(files);
    for (int i = 0; i < 4; i++) {
        sweep_truncations(reg, files[i].p, files[i].n, "synthetic");
        sweep_fields(reg, files[i].p, files[i].n, "synthetic");
        sweep_random(reg, files[i].p, files[i].n, "synthetic", 400);
        free(files[i].p);
    }
    /* Short and foreign inputs. */
    expect_clean_error(reg, (const unsigned char *)"ANP", 3, "short", 3);
    expect_clean_error(reg, (const unsigned char *)"ANP3\0\0\0\0", 8, "header", 8);
    ak_doc *doc = NULL;
    msgs ms;
    ak_report rep;
    ak_options o = { sizeof o, "ifp", "x.ifp", NULL, 0, 0 };
    memset(&rep, 0, sizeof rep);
    ck_assert_int_eq(ak_read(reg, "RIFFxxxxxxxx", 12, &o, &doc, &rep), AK_E_DATA);
    ck_assert_int_eq(read_msgs(reg, (const unsigned char *)"ANCTxxxx", 8, "x.ifp", &doc, &ms, &rep), AK_E_UNSUPPORTED);
    ak_registry_free(reg);
}
END_TEST

/* Every variant outlines as it reads; an outline, and whatever its clips
 * are copied into, is never written, and a diff refuses it. */
START_TEST(t_outline)
{
    ak_registry *reg = registry();
    bb files[4];
    make_synthetic(files);
    for (int i = 0; i < 4; i++)
        check_outline_read(reg, files[i].p, files[i].n, "synthetic.ifp");

    ak_doc *ol = NULL, *full = NULL;
    msgs ms;
    ak_report rep;
    ck_assert_int_eq(read_outline(reg, files[0].p, files[0].n, "anp2.ifp", &ol, &ms, &rep), AK_OK);
    ck_assert_int_eq(read_msgs(reg, files[0].p, files[0].n, "anp2.ifp", &full, &ms, &rep), AK_OK);
    ak_doc_stats s;
    ak_doc_stats_get(ol, &s);
    ck_assert_uint_gt(s.keys[AK_ROTATION], 0);
    unsigned char *out = NULL;
    size_t on = 0;
    ck_assert_int_eq(write_with(reg, ol, NULL, NULL, &out, &on, &ms), AK_E_USAGE);
    ck_assert_ptr_null(out);
    ck_assert_ptr_nonnull(strstr(ms.text, "outline"));
    /* A failed write leaves the file it would have replaced alone. */
    char dir[PATH_MAX], path[PATH_MAX + 16];
    ak_test_tmpdir("outline", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/keep.ifp", dir);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    fputs("old bytes", fp);
    fclose(fp);
    ak_report wrep = { 0 };
    ck_assert_int_eq(ak_write_file(reg, ol, path, NULL, AK_WRITE_OVERWRITE, &wrep), AK_E_USAGE);
    size_t kn;
    unsigned char *kept = ak_test_slurp(path, &kn);
    ck_assert(kn == 9 && memcmp(kept, "old bytes", 9) == 0);
    free(kept);
    /* Copies stay outlines: a clone, a merge into a full document, one clip. */
    ak_doc *clone = ak_doc_clone(ol);
    ck_assert_int_eq(ak_doc_outline(clone), 1);
    ak_doc_stats cs;
    ak_doc_stats_get(clone, &cs);
    ck_assert(memcmp(&s, &cs, sizeof s) == 0);
    ck_assert_int_eq(write_with(reg, clone, NULL, NULL, &out, &on, &ms), AK_E_USAGE);
    ak_doc *one = ak_doc_extract_clip(ol, 0);
    ck_assert_int_eq(ak_doc_outline(one), 1);
    ck_assert_int_eq(ak_doc_outline(full), 0);
    ck_assert_int_eq(ak_doc_merge(full, ol), AK_OK);
    ck_assert_int_eq(ak_doc_outline(full), 1);
    ck_assert_int_eq(write_with(reg, full, NULL, NULL, &out, &on, &ms), AK_E_USAGE);
    ak_diff *diff = NULL;
    ck_assert_int_eq(ak_doc_diff(ol, clone, 0.0, &diff), AK_E_USAGE);
    ck_assert_ptr_null(diff);
    /* A full document takes no key counts. */
    ak_doc *hand = ak_doc_new();
    ak_clip *c = ak_clip_add(hand, "c");
    ak_track *t = ak_track_add(c, "b");
    ck_assert_int_eq(ak_keys_outline(t, AK_ROTATION, 3), AK_E_USAGE);
    ck_assert_uint_eq(t->outline_keys[AK_ROTATION], 0);
    ak_doc_free(hand);
    ak_doc_free(one);
    ak_doc_free(clone);
    ak_doc_free(full);
    ak_doc_free(ol);
    for (int i = 0; i < 4; i++)
        free(files[i].p);
    ak_registry_free(reg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ifp");
    TCase *tc = tcase_create("ifp");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, t_probe);
    tcase_add_loop_test(tc, t_corpus_file, 0, (int)NCORPUS);
    tcase_add_loop_test(tc, t_foreign_reencode, 0, (int)NCORPUS);
    tcase_add_test(tc, t_known_key);
    tcase_add_test(tc, t_vc_sa);
    tcase_add_test(tc, t_synth_anp2);
    tcase_add_test(tc, t_synth_anp3_float);
    tcase_add_test(tc, t_synth_anpk);
    tcase_add_test(tc, t_synth_anlf);
    tcase_add_test(tc, t_edit_key);
    tcase_add_test(tc, t_mirror_through_struct);
    tcase_add_test(tc, t_hand_anp3);
    tcase_add_test(tc, t_hand_variants);
    tcase_add_test(tc, t_ifp_doc_without_stored_bytes);
    tcase_add_test(tc, t_bad_corpus);
    tcase_add_test(tc, t_bad_synthetic);
    tcase_add_test(tc, t_outline);
    tcase_add_test(tc, t_field_canonical);
    suite_add_tcase(s, tc);
    return ak_test_run(s);
}
