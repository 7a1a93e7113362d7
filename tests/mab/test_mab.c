/* test_mab.c - the mab plugin: the Watch Dogs Legion corpus file, synthetic
 * files of every supported version (tests/mab/mab_fixture.c), probes,
 * unsupported versions and a bad-input sweep. */
#include "testutil.h"

#include "../../plugins/mab/mab.h"
#include "mab_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEGION "mab/wdl_trained-idle_mplyr_000f_norm_nowep.mab"

static ak_registry *reg_mab(void)
{
    const ak_codec *codecs[] = { mab_codec(), NULL };
    return ak_test_registry(codecs);
}

static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const unsigned char *p) { return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16; }

static const ak_track *track_by_hash(const ak_clip *clip, uint32_t hash)
{
    for (size_t i = 0; i < clip->track_count; i++)
        if (clip->tracks[i]->has_bone_hash && clip->tracks[i]->bone_hash == hash)
            return clip->tracks[i];
    return NULL;
}

static const ak_track *track_by_name(const ak_clip *clip, const char *name)
{
    for (size_t i = 0; i < clip->track_count; i++)
        if (strcmp(clip->tracks[i]->bone, name) == 0)
            return clip->tracks[i];
    return NULL;
}

typedef struct warn_log {
    unsigned count;
    char text[16][256];
} warn_log;

static void on_msg(void *user, const ak_message *m)
{
    warn_log *w = user;
    if (m->severity == AK_WARNING && w->count < 16)
        snprintf(w->text[w->count++], sizeof w->text[0], "%s", m->text);
}

/* Family D keeps every byte: the raw props (header, tails, sections) plus
 * what the model holds (4-byte hashes, flag bytes, u16 key times, 6-byte
 * constant rotations) add up to the file. */
static size_t accounted_bytes(const ak_doc *doc, size_t keys)
{
    size_t total = 0;
    for (size_t i = 0; i < doc->props.count; i++) {
        const ak_prop *p = &doc->props.items[i];
        if (p->type == AK_PROP_BYTES && (strcmp(p->key, "header") == 0 || strncmp(p->key, "section.", 8) == 0 ||
                                         strstr(p->key, ".tail") != NULL))
            total += p->size;
    }
    const ak_clip *clip = doc->clips[0];
    total += 2 * keys;
    for (size_t t = 0; t < clip->track_count; t++) {
        const ak_track *tr = clip->tracks[t];
        total += 5;
        if (tr->channel[AK_ROTATION].count == 1 && tr->channel[AK_ROTATION].keys[0].raw_size == 6)
            total += 6;
    }
    return total;
}

/* ---- the Legion file ---------------------------------------------------- */

/* Bits of one bitstream block (sheet 6), walked by hand from its 6-bit
 * header: independent of the plugin. */
static uint32_t getbits(const unsigned char *d, size_t size, uint64_t *pos, unsigned n)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++, (*pos)++)
        if ((*pos >> 3) < size && ((d[*pos >> 3] >> (*pos & 7)) & 1))
            v |= 1u << i;
    return v;
}

/* The bit readers against a bit-at-a-time reference: every width 1 to
 * 32 at every bit offset of a buffer, up to and past its end. */
static uint32_t ref_bits(const unsigned char *data, size_t size, uint64_t pos, unsigned n, int *over)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++, pos++) {
        if (pos / 8 < size)
            v |= (uint32_t)((data[pos / 8] >> (pos % 8)) & 1u) << i;
        else
            *over = 1;
    }
    return v;
}

START_TEST(bit_reader_every_width_and_offset)
{
    unsigned char buf[24];
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < sizeof buf; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
    size_t granted = 0;
    for (size_t size = 0; size <= sizeof buf; size++)
        for (uint64_t pos = 0; pos <= 8 * sizeof buf + 8; pos++)
            for (unsigned n = 1; n <= 32; n++) {
                mab_bits b;
                mab_bits_init(&b, buf, size);
                b.pos = pos;
                int over = 0;
                uint32_t want = ref_bits(buf, size, pos, n, &over);
                uint32_t got = mab_bits_get(&b, n);
                ck_assert_msg(got == want, "size %zu pos %llu n %u: %08x, expected %08x", size,
                              (unsigned long long)pos, n, got, want);
                ck_assert_int_eq(b.over, over);
                ck_assert_uint_eq(b.pos, pos + n);
                /* The unchecked form: room exactly when the field and a
                 * 64-bit window past it lie in the buffer, then the same. */
                mab_bits c;
                mab_bits_init(&c, buf, size);
                c.pos = pos;
                int fits = pos + n + 64 <= 8 * (uint64_t)size;
                ck_assert_int_eq(mab_bits_room(&c, n), fits);
                if (fits) {
                    ck_assert_uint_eq(mab_bits_get_in(&c, n), want);
                    ck_assert_uint_eq(c.pos, pos + n);
                    granted++;
                }
            }
    ck_assert_uint_gt(granted, 0);
    /* Reads in sequence agree with one long reference walk. */
    mab_bits b;
    mab_bits_init(&b, buf, sizeof buf);
    uint64_t pos = 0;
    for (unsigned n = 1; pos + n <= 8 * sizeof buf; n = n % 32 + 1) {
        int over = 0;
        ck_assert_uint_eq(mab_bits_get(&b, n), ref_bits(buf, sizeof buf, pos, n, &over));
        pos += n;
    }
    ck_assert_int_eq(b.over, 0);
    ck_assert_uint_eq(mab_bits_get(&b, 0), 0);
    /* Room for a block's fields counts them all: 5 fields of 9 bits need
     * 45 bits and the window after them. */
    mab_bits_init(&b, buf, 14); /* 112 bits */
    b.pos = 3;
    ck_assert_int_eq(mab_bits_room(&b, 5 * 9), 1); /* 3 + 45 + 64 = 112 */
    ck_assert_uint_eq(mab_bits_get_in(&b, 0), 0);
    ck_assert_uint_eq(b.pos, 3);
    b.pos = 4;
    ck_assert_int_eq(mab_bits_room(&b, 5 * 9), 0);
    b.pos = 200; /* past the end */
    ck_assert_int_eq(mab_bits_room(&b, 0), 0);
}
END_TEST

START_TEST(legion_file)
{
    size_t n;
    unsigned char *bytes = ak_test_corpus_file(LEGION, &n);
    if (!bytes)
        return;
    ak_registry *reg = reg_mab();
    warn_log wl = { 0 };
    ak_report rep = { 0 };
    rep.on_message = on_msg;
    rep.user = &wl;
    ak_doc *doc = NULL;
    ck_assert_int_eq(ak_test_try_read(reg, bytes, n, LEGION, &doc, &rep), AK_OK);
    for (unsigned i = 0; i < wl.count; i++) {
        printf("legion warning: %s\n", wl.text[i]);
        ck_assert_msg(strstr(wl.text[i], "joint rotations") == NULL, "rotation warning: %s", wl.text[i]);
        ck_assert_msg(strstr(wl.text[i], "joint translations") == NULL, "translation warning: %s", wl.text[i]);
    }
    ck_assert_str_eq(doc->format, "mab");
    ck_assert_str_eq(doc->variant, "WDL");
    ck_assert_uint_eq(doc->clip_count, 1);
    const ak_clip *clip = doc->clips[0];

    /* Header facts straight from the bytes (sheet 3.1). */
    size_t bones = le16(bytes + 0x30) & 0x0FFF;
    ck_assert_uint_eq(bones, 71);
    ck_assert_uint_eq(clip->track_count, bones);
    ck_assert(fabs(clip->duration - 39.0667) < 1e-3);
    ck_assert(fabs(clip->frame_rate - 30.0) < 1e-9);
    ck_assert(fabs(clip->tick_rate - 30.0) < 1e-9);

    /* Chunk table at B + offsets[6]: 58 chunks, each ending exactly where
     * the walk of its blocks ends. */
    size_t rot = 0x10 + le32(bytes + 0x48 + 4 * 6);
    size_t chunks = le32(bytes + rot) / 4 - 1;
    ck_assert_uint_eq(chunks, 58);
    size_t keys = 461;
    size_t flags = 0x80 + 4 * bones;
    for (size_t c = 0; c < chunks; c++) {
        size_t a = le32(bytes + rot + 4 * c), e = le32(bytes + rot + 4 * c + 4);
        unsigned nf = c + 1 < chunks ? 8 : (unsigned)(keys - 8 * c);
        uint64_t pos = 0;
        for (size_t b = 0; b < bones; b++) {
            unsigned f = bytes[flags + b];
            if (!(f & 0x10) || (f & 0x30) == 0x30)
                continue;
            unsigned cf = getbits(bytes + rot + a, e - a, &pos, 6);
            pos += (cf & 8) ? nf : 0;
            for (unsigned k = 0; k < 3; k++)
                pos += 16 + ((cf >> k) & 1 ? 0 : (uint64_t)nf * ((f & 15) + 1));
        }
        ck_assert_msg((pos + 7) / 8 == e - a, "chunk %zu: %llu bits in %zu bytes", c, (unsigned long long)pos, e - a);
    }
    ck_assert_uint_eq(chunks, 58);

    /* Keys: 461 per animated bone with the stored ticks; constant ones 1. */
    size_t animated = 0, constant = 0;
    double *steps = malloc(sizeof(double) * 71 * 461);
    size_t nsteps = 0;
    for (size_t t = 0; t < clip->track_count; t++) {
        const ak_track *tr = clip->tracks[t];
        ck_assert(tr->has_bone_hash);
        ck_assert_str_eq(tr->bone, "");
        ck_assert_uint_eq(tr->bone_hash, le32(bytes + 0x80 + 4 * t));
        const ak_channel *ch = &tr->channel[AK_ROTATION];
        unsigned f = bytes[flags + t];
        if ((f & 0x30) == 0x30) {
            constant++;
            ck_assert_uint_eq(ch->count, 1);
            ck_assert_uint_eq(ch->keys[0].raw_size, 6);
            static const unsigned char ident[6] = { 0xFF, 0xBF, 0xFF, 0xBF, 0xFF, 0x3F };
            if (memcmp(ch->keys[0].raw, ident, 6) == 0)
                ck_assert(fabs(ch->keys[0].v[3] - 1.0) < 1e-4 && fabs(ch->keys[0].v[0]) < 1e-4);
        } else if (f & 0x10) {
            animated++;
            ck_assert_uint_eq(ch->count, keys);
            ck_assert_int_eq(ch->keys[0].tick, 0);
            ck_assert_int_eq(ch->keys[1].tick, 3);
            ck_assert_int_eq(ch->keys[2].tick, 5);
            ck_assert_int_eq(ch->keys[keys - 1].tick, 1172);
            ck_assert(fabs(ch->keys[keys - 1].time - 1172.0 / 30.0) < 1e-9);
        }
        for (size_t k = 0; k < ch->count; k++) {
            const double *v = ch->keys[k].v;
            double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
            ck_assert_msg(fabs(len - 1.0) < 2e-3, "track %zu key %zu length %g", t, k, len);
            if (k) {
                const double *u = ch->keys[k - 1].v;
                double dot = fabs(u[0] * v[0] + u[1] * v[1] + u[2] * v[2] + u[3] * v[3]) / len;
                dot = dot > 1.0 ? 1.0 : dot;
                steps[nsteps++] = 2.0 * acos(dot) * 180.0 / M_PI;
            }
        }
    }
    ck_assert_uint_eq(animated, 60);
    ck_assert_uint_eq(constant, 11);
    /* Median key-to-key change (sheet: 0.17 degrees). */
    for (size_t i = 1; i < nsteps; i++)
        for (size_t j = i; j > 0 && steps[j - 1] > steps[j]; j--) {
            double tmp = steps[j];
            steps[j] = steps[j - 1];
            steps[j - 1] = tmp;
        }
    double median = steps[nsteps / 2];
    printf("legion: %zu key-to-key steps, median %.4f deg, max %.3f deg\n", nsteps, median, steps[nsteps - 1]);
    ck_assert(median > 0.10 && median < 0.25);
    free(steps);

    /* Bone names through the dictionary. */
    const char *names[] = { "Pelvis", "L Thigh", "pelvis" };
    ck_assert_uint_eq(ak_doc_name_bones(doc, names, 3), 2);
    const ak_track *pelvis = track_by_name(clip, "Pelvis");
    ck_assert_ptr_nonnull(pelvis);
    ck_assert_uint_eq(pelvis->bone_hash, 0xB021FD58u);
    ck_assert_ptr_nonnull(track_by_name(clip, "L Thigh"));
    ck_assert_ptr_null(track_by_name(clip, "pelvis"));
    /* Pelvis translation (sheet 8: height about 0.973 m). */
    ck_assert_uint_eq(pelvis->channel[AK_TRANSLATION].count, keys);
    ck_assert(fabs(pelvis->channel[AK_TRANSLATION].keys[0].v[2] - 0.973) < 0.005);
    ck_assert_int_eq(ak_prop_int(&pelvis->props, "translation_bits", -1), 10);
    ck_assert_int_eq(ak_prop_int(&pelvis->props, "translation_entry", -1), 1);

    /* Kept bytes: the header up to the hashes, the flag pad. */
    const ak_prop *hdr = ak_prop_get(&doc->props, "header");
    ck_assert_ptr_nonnull(hdr);
    ck_assert_uint_eq(hdr->size, 0x80);
    ck_assert(memcmp(hdr->data, bytes, 0x80) == 0);
    ck_assert_ptr_nonnull(ak_prop_get(&doc->props, "section.6"));
    ck_assert_int_eq(ak_prop_int(&pelvis->props, "flags", -1), bytes[flags]);
    ck_assert_uint_eq(accounted_bytes(doc, keys), n);

    /* Probe. */
    ck_assert_int_eq(mab_codec()->probe(bytes, n, LEGION), AK_PROBE_MAGIC);
    ck_assert_int_eq(mab_codec()->probe(bytes, n, NULL), AK_PROBE_MAGIC);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(bytes);
}
END_TEST

/* ---- synthetic family D files ------------------------------------------- */

#define NB 24
#define MAXF 40

typedef struct fixture {
    mabfx_track track[NB];
    double in[NB][MAXF][4], out[NB][MAXF][4];
    double tin[NB][MAXF][3], tout[NB][MAXF][3];
    unsigned char raw[NB][MAXF][8], traw[NB][MAXF][8]; /* family D animated keys' stored bytes */
    unsigned char keyed[NB][MAXF];
    uint16_t ticks[MAXF];
    char name[NB][16];
    mabfx_spec spec;
    double range[NB][MAXF / 8 + 1]; /* largest component range per chunk */
} fixture;

static void normalise(double *q)
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++)
        q[k] /= n;
}

/* A smooth rotation around a bone-specific axis with a dominant component
 * `dom` (0..3) of sign `sgn`. */
static void make_rotation(double *q, unsigned bone, size_t f, unsigned dom, double sgn)
{
    double a = 0.05 * (double)f + 0.3 * bone;
    q[0] = 0.25 * sin(a + 0.1 * bone);
    q[1] = 0.2 * cos(1.3 * a);
    q[2] = 0.15 * sin(0.7 * a + 1.0);
    q[3] = 0.1 * cos(a);
    q[dom] = sgn * (0.9 + 0.05 * sin(a));
    normalise(q);
}

/* Builds the spec of a family-D fixture with `frames` keys. */
static void fixture_d(fixture *fx, unsigned version, size_t frames, int with_tr)
{
    memset(fx, 0, sizeof *fx);
    mabfx_spec *s = &fx->spec;
    s->version = version;
    s->frames = frames;
    s->ticks = fx->ticks;
    s->track = fx->track;
    s->ntracks = NB;
    for (size_t f = 0; f < frames; f++)
        fx->ticks[f] = (uint16_t)(f * 2 + (f % 3 == 0)); /* strictly increasing, uneven */
    double rate = version == 0x329B ? 120.0 : version == 0x81 ? 30.0 : 30.0;
    s->fps = 30.0f;
    s->duration = (float)(fx->ticks[frames - 1] / rate);
    for (unsigned b = 0; b < NB; b++) {
        mabfx_track *t = &fx->track[b];
        snprintf(fx->name[b], sizeof fx->name[b], "Bone%02u", b);
        t->hash = ak_crc32(fx->name[b], strlen(fx->name[b]));
        t->in = (const double(*)[4])fx->in[b];
        t->out = fx->out[b];
        t->raw = fx->raw[b];
        t->force_implicit = -1;
        unsigned dom = b % 4;
        double sgn = (b / 4) % 2 ? -1.0 : 1.0;
        if (b < 16) {
            /* bits 1..16; every dominant index; negative implicit ones. */
            t->rot = MABFX_ANIM;
            t->bits = b + 1;
            for (size_t f = 0; f < frames; f++) {
                make_rotation(fx->in[b][f], b, f, dom, sgn);
                if (b % 5 == 2) /* a component constant over the whole clip */
                    fx->in[b][f][(dom + 1) % 4] = 0.125;
                if (b % 7 == 3 && f % 2) /* the implicit flips sign per frame */
                    fx->in[b][f][dom] = -fx->in[b][f][dom];
            }
            if (b % 5 == 2)
                for (size_t f = 0; f < frames; f++) {
                    /* keep the constant one exact, renormalise the others */
                    double *q = fx->in[b][f];
                    unsigned c = (dom + 1) % 4;
                    double rest = 0.0;
                    for (unsigned k = 0; k < 4; k++)
                        rest += k == c ? 0.0 : q[k] * q[k];
                    double sc = sqrt((1.0 - 0.125 * 0.125) / rest);
                    for (unsigned k = 0; k < 4; k++)
                        if (k != c)
                            q[k] *= sc;
                }
            if (b == 1)
                t->force_signs = 1;
        } else if (b < 20) {
            /* forced implicit index 0..3 on a rotation whose forced
             * component stays >= 0.3 in size */
            t->rot = MABFX_ANIM;
            t->bits = 12;
            t->force_implicit = (int)(b - 16);
            for (size_t f = 0; f < frames; f++) {
                make_rotation(fx->in[b][f], b, f, (b - 15) % 4, 1.0);
                fx->in[b][f][b - 16] = -0.4 - 0.01 * (double)(f % 4);
                normalise(fx->in[b][f]);
            }
        } else if (b < 22) {
            t->rot = MABFX_CONST;
            make_rotation(fx->in[b][0], b, 0, b % 4, b == 20 ? 1.0 : -1.0);
        } else {
            t->rot = MABFX_NONE;
        }
        /* Animated translations: several bit depths and scales; inputs
         * are scale * (centre + wobble) with the wobble within +-0.02 of
         * the scaled unit (TR_RANGE per chunk), so a component is either
         * varying or, where its wobble is 0, constant. */
        static const struct {
            unsigned bone, bits;
            uint32_t code;
            double cen[3], amp[3];
        } trs[] = {
            { 0, 1, 3410, { 0.1, -0.2, 0.5 }, { 0.02, 0.01, 0.0 } },      /* 1 bit: slope 0 */
            { 3, 10, 3410, { 0.0, -0.3, 0.93 }, { 0.01, 0.0, 0.01 } },    /* S1-like entry, y constant */
            { 5, 4, 1678, { -0.4, 0.3, 0.2 }, { 0.02, 0.02, 0.02 } },     /* scale ~0.5 */
            { 9, 7, 6711, { 0.6, 0.0, -0.6 }, { 0.0, 0.015, 0.02 } },     /* scale ~2.0 */
            { 13, 13, 3410, { -0.9, 0.9, 0.0 }, { 0.02, 0.02, 0.0 } },
            { 21, 2, 3410, { 0.25, 0.5, -0.75 }, { 0.0, 0.0, 0.0 } },     /* all constant */
            { 22, 16, 3410, { 0.0, 0.0, 0.95 }, { 0.01, 0.02, 0.01 } },
            { 23, 8, 33554, { -0.5, 0.45, 0.1 }, { 0.02, 0.0, 0.02 } },   /* scale ~10 */
        };
        for (size_t i = 0; with_tr && i < sizeof trs / sizeof trs[0]; i++) {
            if (trs[i].bone != b)
                continue;
            t->tr = MABFX_ANIM;
            t->tr_bits = trs[i].bits;
            t->tr_code = trs[i].code;
            t->tin = (const double(*)[3])fx->tin[b];
            t->tout = fx->tout[b];
            t->traw = fx->traw[b];
            double sc = (double)trs[i].code * 0.00029802325;
            for (size_t f = 0; f < frames; f++)
                for (unsigned k = 0; k < 3; k++)
                    fx->tin[b][f][k] = sc * (trs[i].cen[k] + trs[i].amp[k] * sin(0.35 * (double)f + k + b));
        }
    }
    for (unsigned b = 0; b < NB; b++)
        for (size_t c = 0; 8 * c < frames; c++) {
            double r = 0.0;
            for (unsigned k = 0; k < 4; k++) {
                double lo = 2, hi = -2;
                for (size_t f = 8 * c; f < frames && f < 8 * c + 8; f++) {
                    lo = fx->in[b][f][k] < lo ? fx->in[b][f][k] : lo;
                    hi = fx->in[b][f][k] > hi ? fx->in[b][f][k] : hi;
                }
                r = hi - lo > r ? hi - lo : r;
            }
            fx->range[b][c] = r;
        }
}

static double tick_rate_of(unsigned version)
{
    return version == 0x329B ? 120.0 : 30.0;
}

/* With $AK_MAB_FIXTURE_DIR set, the synthetic files are also saved there
 * (seeds for fuzz/run.sh, or files to look at with the CLI). */
static void save_fixture(const unsigned char *b, size_t n, const char *variant, size_t frames)
{
    const char *dir = getenv("AK_MAB_FIXTURE_DIR");
    if (!dir || !*dir)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s-%zu.mab", dir, variant, frames);
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fwrite(b, 1, n, fp);
        fclose(fp);
    }
}

static void check_d(unsigned version, const char *variant, size_t frames, int with_tr)
{
    fixture *fx = calloc(1, sizeof *fx);
    fixture_d(fx, version, frames, with_tr);
    size_t n;
    unsigned char *bytes = mabfx_build(&fx->spec, &n);
    ck_assert_ptr_nonnull(bytes);
    save_fixture(bytes, n, variant, frames);
    ck_assert_int_eq(mab_codec()->probe(bytes, n, NULL), AK_PROBE_MAGIC);
    ak_registry *reg = reg_mab();
    warn_log wl = { 0 };
    ak_report rep = { 0 };
    rep.on_message = on_msg;
    rep.user = &wl;
    ak_doc *doc = NULL;
    ak_status st = ak_test_try_read(reg, bytes, n, "fixture.mab", &doc, &rep);
    ck_assert_msg(st == AK_OK, "%s F=%zu: %s", variant, frames, rep.message);
    for (unsigned i = 0; i < wl.count; i++)
        ck_assert_msg(0, "%s F=%zu: unexpected warning %s", variant, frames, wl.text[i]);
    ck_assert_str_eq(doc->variant, variant);
    const ak_clip *clip = doc->clips[0];
    ck_assert_str_eq(clip->name, "fixture");
    ck_assert_uint_eq(clip->track_count, NB);
    double rate = tick_rate_of(version);
    ck_assert(fabs(clip->tick_rate - rate) < 1e-9);
    double worst = 0.0, tr_worst = 0.0, worst_at[17] = { 0 };
    int64_t ntr = 0;
    for (unsigned b = 0; b < NB; b++) {
        const mabfx_track *t = &fx->track[b];
        const ak_track *tr = track_by_hash(clip, t->hash);
        ck_assert_ptr_nonnull(tr);
        ck_assert_ptr_eq(tr, clip->tracks[b]);
        const ak_channel *ch = &tr->channel[AK_ROTATION];
        size_t want = t->rot == MABFX_ANIM ? frames : t->rot == MABFX_CONST ? 1 : 0;
        ck_assert_uint_eq(ch->count, want);
        for (size_t k = 0; k < ch->count; k++) {
            const ak_key *key = &ch->keys[k];
            if (t->rot == MABFX_ANIM) {
                ck_assert_int_eq(key->tick, fx->ticks[k]);
                ck_assert(fabs(key->time - fx->ticks[k] / rate) < 1e-12);
                ck_assert_uint_eq(key->raw_size, 8);
                ck_assert_msg(memcmp(key->raw, fx->raw[b][k], 8) == 0, "%s F=%zu bone %u key %zu: stored bytes",
                              variant, frames, b, k);
            }
            for (int c = 0; c < 4; c++)
                ck_assert_msg(fabs(key->v[c] - fx->out[b][k][c]) < 1e-9,
                              "%s F=%zu bone %u key %zu comp %d: %.9f, expected %.9f", variant, frames, b, k, c,
                              key->v[c], fx->out[b][k][c]);
            /* ... and the input within the quantisation. */
            double err = 0.0, imp = 1.0, sg = 1.0;
            if (t->rot == MABFX_CONST) { /* sheet 7: stored with r >= 0, i.e. maybe negated */
                double dot = 0.0;
                for (int c = 0; c < 4; c++)
                    dot += key->v[c] * fx->in[b][k][c];
                sg = dot < 0.0 ? -1.0 : 1.0;
            }
            for (int c = 0; c < 4; c++) {
                double d = fabs(key->v[c] - sg * fx->in[b][k][c]);
                err = d > err ? d : err;
                imp = fabs(fx->in[b][k][c]) > 0.0 && fabs(fx->in[b][k][c]) < imp && fabs(fx->in[b][k][c]) > 0.3
                          ? fabs(fx->in[b][k][c])
                          : imp;
            }
            double q = t->rot == MABFX_CONST ? 4.315969e-05 : mabfx_step(t->bits, fx->range[b][k / 8]);
            /* the rebuilt implicit one amplifies by at most 3 / |implicit| */
            double tol = q * (1.0 + 3.0 / 0.3) + 1e-6;
            ck_assert_msg(err <= tol, "%s F=%zu bone %u (bits %u) key %zu: error %g above %g", variant, frames, b,
                          t->bits, k, err, tol);
            worst = err > worst ? err : worst;
        }
        const ak_channel *tc = &tr->channel[AK_TRANSLATION];
        if (t->tr == MABFX_ANIM) {
            ck_assert_uint_eq(tc->count, frames);
            double sc = (double)t->tr_code * 0.00029802325;
            /* quantisation of a varying component (wobble range <= 0.04 in
             * scaled units) or of a constant u16 one, times the scale */
            double tol = sc * (mabfx_step(t->tr_bits, 0.04) + 0.5 / 32767.5) + 1e-9;
            const ak_prop *sp_ = ak_prop_get(&tr->props, "translation_scale");
            ck_assert(sp_ && sp_->type == AK_PROP_FLOAT && fabs(sp_->f - sc) < 1e-9);
            ck_assert_int_eq(ak_prop_int(&tr->props, "translation_bits", -1), t->tr_bits);
            ck_assert_int_eq(ak_prop_int(&tr->props, "translation_entry", -1), ntr);
            ntr++;
            for (size_t k = 0; k < frames; k++) {
                ck_assert_int_eq(tc->keys[k].tick, fx->ticks[k]);
                ck_assert(fabs(tc->keys[k].time - fx->ticks[k] / rate) < 1e-12);
                ck_assert_uint_eq(tc->keys[k].raw_size, 7);
                ck_assert_msg(memcmp(tc->keys[k].raw, fx->traw[b][k], 7) == 0,
                              "%s F=%zu bone %u key %zu: translation's stored bytes", variant, frames, b, k);
                for (int c = 0; c < 3; c++) {
                    ck_assert_msg(fabs(tc->keys[k].v[c] - fx->tout[b][k][c]) < 1e-9,
                                  "%s F=%zu bone %u key %zu translation %d: %.9f, expected %.9f", variant, frames,
                                  b, k, c, tc->keys[k].v[c], fx->tout[b][k][c]);
                    double err = fabs(tc->keys[k].v[c] - fx->tin[b][k][c]);
                    ck_assert_msg(err <= tol, "%s F=%zu bone %u (%u bits) key %zu translation %d: error %g above %g",
                                  variant, frames, b, t->tr_bits, k, c, err, tol);
                    tr_worst = err / sc > tr_worst ? err / sc : tr_worst;
                    worst_at[t->tr_bits] = err / sc > worst_at[t->tr_bits] ? err / sc : worst_at[t->tr_bits];
                }
            }
        } else {
            ck_assert_uint_eq(tc->count, 0);
        }
        ck_assert_int_eq(ak_prop_int(&tr->props, "flags", -1) & 0x3F,
                         t->rot == MABFX_CONST ? 0x30 : t->rot == MABFX_ANIM ? 0x10 | (t->bits - 1) : 0);
    }
    (void)worst;
    ck_assert_uint_eq(accounted_bytes(doc, frames), n);
    /* The fixture exercised what it is meant to. */
    const mabfx_spec *sp = &fx->spec;
    ck_assert_uint_gt(sp->n_var_comp, 0);
    ck_assert_uint_gt(sp->n_sign_blocks, 0);
    for (int m = 0; m < 4; m++)
        ck_assert_uint_gt(sp->n_implicit[m], 0);
    if (frames > 1)
        ck_assert_uint_gt(sp->n_const_comp, 0);
    if (frames % 8)
        ck_assert_uint_gt(sp->n_partial_chunks, 0);
    if (with_tr) {
        ck_assert_uint_gt(sp->n_tr_var_comp, 0);
        if (frames > 1) /* one frame: the fixture writes every component as varying */
            ck_assert_uint_gt(sp->n_tr_const_comp, 0);
        if (frames % 8)
            ck_assert_uint_gt(sp->n_tr_partial_chunks, 0);
        unsigned depths = 0;
        for (unsigned k = 1; k <= 16; k++)
            depths += sp->n_tr_bits[k] > 0;
        ck_assert_uint_ge(depths, 6);
        if (frames == 37)
            printf("%s F=%zu: %lld translation bones, %u varying / %u constant components, worst error %.3g "
                   "(scaled units)\n",
                   variant, frames, (long long)ntr, sp->n_tr_var_comp, sp->n_tr_const_comp, tr_worst);
        if (frames == 37 && version == 0xB0) {
            printf("%s F=%zu worst translation error by bits (scaled units):", variant, frames);
            for (unsigned k = 1; k <= 16; k++)
                if (sp->n_tr_bits[k])
                    printf(" %u:%.2g", k, worst_at[k]);
            printf("\n");
        }
    }
    /* Names resolve through the dictionary. */
    const char *names[2] = { fx->name[0], fx->name[NB - 1] };
    ck_assert_uint_eq(ak_doc_name_bones(doc, names, 2), 2);
    ck_assert_str_eq(clip->tracks[0]->bone, fx->name[0]);
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(bytes);
    free(fx);
}

static const size_t frame_counts[] = { 1, 8, 21, 37 };

START_TEST(synthetic_wdl)
{
    for (size_t i = 0; i < 4; i++)
        check_d(0x46B4, "WDL", frame_counts[i], 1);
}
END_TEST

START_TEST(synthetic_wd2)
{
    for (size_t i = 0; i < 4; i++)
        check_d(0x46AF, "WD2", frame_counts[i], 1);
}
END_TEST

START_TEST(synthetic_wd1)
{
    for (size_t i = 0; i < 4; i++)
        check_d(0x329B, "WD1", frame_counts[i], 1);
}
END_TEST

START_TEST(synthetic_fc5)
{
    for (size_t i = 0; i < 4; i++) {
        check_d(0x00B0, "FC5", frame_counts[i], 0);
        check_d(0x00B0, "FC5", frame_counts[i], 1);
    }
}
END_TEST

START_TEST(synthetic_fc4)
{
    for (size_t i = 0; i < 4; i++)
        check_d(0x0081, "FC4", frame_counts[i], 0);
}
END_TEST

/* ---- synthetic family S files -------------------------------------------- */

#define SB 7

static void fixture_s(fixture *fx, unsigned version, size_t last_frame)
{
    memset(fx, 0, sizeof *fx);
    mabfx_spec *s = &fx->spec;
    s->version = version;
    s->frames = last_frame + 1;
    s->track = fx->track;
    s->ntracks = SB;
    s->fps = version == 0x4C ? 30.0f : 32.0f;
    s->duration = (float)last_frame / s->fps;
    static const unsigned char patterns[4] = { 0x00, 0x7F, 0x08, 0x41 };
    static const unsigned ids[SB] = { 40, 3, 17, 0, 9, 100, 5 };
    for (unsigned b = 0; b < SB; b++) {
        mabfx_track *t = &fx->track[b];
        t->bone_id = ids[b];
        t->in = (const double(*)[4])fx->in[b];
        t->out = fx->out[b];
        t->keyed = fx->keyed[b];
        if (b < 4) {
            t->rot = MABFX_ANIM;
            for (size_t f = 0; f <= last_frame; f++) {
                make_rotation(fx->in[b][f], b, f, (b + f / 8) % 4, (f / 8) % 2 ? -1.0 : 1.0);
                unsigned p = patterns[(b + f / 8) % 4];
                fx->keyed[b][f] = f % 8 == 0 || ((p >> (f % 8 - 1)) & 1u);
            }
        } else if (b < 6) {
            t->rot = MABFX_CONST;
            make_rotation(fx->in[b][0], b, 0, b % 4, -1.0);
        }
        if (version == 0x4C && (b == 1 || b == 4 || b == 6)) {
            t->tr = b == 4 ? MABFX_CONST : MABFX_ANIM;
            t->tin = (const double(*)[3])fx->tin[b];
            t->tout = fx->tout[b];
            for (size_t f = 0; f <= last_frame; f++)
                for (int k = 0; k < 3; k++)
                    fx->tin[b][f][k] = 0.1 * k + 0.01 * (double)f + b;
        }
    }
}

static void check_s(unsigned version, const char *variant, size_t last_frame)
{
    fixture *fx = calloc(1, sizeof *fx);
    fixture_s(fx, version, last_frame);
    size_t n;
    unsigned char *bytes = mabfx_build(&fx->spec, &n);
    ck_assert_ptr_nonnull(bytes);
    save_fixture(bytes, n, variant, last_frame + 1);
    ck_assert_int_ge(mab_codec()->probe(bytes, n, NULL), 60);
    ak_registry *reg = reg_mab();
    ak_doc *doc = NULL;
    ak_report rep = { 0 };
    ak_status st = ak_test_try_read(reg, bytes, n, "s.mab", &doc, &rep);
    ck_assert_msg(st == AK_OK, "%s: %s", variant, rep.message);
    ck_assert_str_eq(doc->variant, variant);
    const ak_clip *clip = doc->clips[0];
    double fps = fx->spec.fps;
    ck_assert(fabs(clip->tick_rate - fps) < 1e-9);
    ck_assert(fabs(clip->duration - fx->spec.duration) < 1e-6);
    size_t nrot = 0;
    for (unsigned b = 0; b < SB; b++)
        nrot += fx->track[b].rot != MABFX_NONE;
    ck_assert_uint_eq(clip->track_count, version == 0x4C ? SB : nrot);
    for (unsigned b = 0; b < SB; b++) {
        const mabfx_track *t = &fx->track[b];
        const ak_track *tr = NULL;
        if (version == 0x4C) {
            for (size_t i = 0; i < clip->track_count; i++)
                if (clip->tracks[i]->has_bone_id && (unsigned)clip->tracks[i]->bone_id == t->bone_id)
                    tr = clip->tracks[i];
        } else if (t->rot) {
            /* FC3: slots in order, constant ones first */
            size_t slot = 0, base = 0;
            for (unsigned j = 0; j < SB; j++) {
                base += fx->track[j].rot == MABFX_CONST;
                if (j < b && fx->track[j].rot == t->rot)
                    slot++;
            }
            tr = clip->tracks[t->rot == MABFX_CONST ? slot : base + slot];
            ck_assert_int_eq(ak_prop_int(&tr->props, "slot", -1), (int64_t)slot);
        } else {
            continue;
        }
        ck_assert_ptr_nonnull(tr);
        const ak_channel *ch = &tr->channel[AK_ROTATION];
        size_t k = 0;
        if (t->rot == MABFX_CONST) {
            ck_assert_uint_eq(ch->count, 1);
            for (int c = 0; c < 4; c++) {
                ck_assert(fabs(ch->keys[0].v[c] - fx->out[b][0][c]) < 1e-9);
                /* sheet 7: the stored quaternion may be negated */
            }
        } else if (t->rot == MABFX_ANIM) {
            for (size_t f = 0; f <= last_frame; f++) {
                if (!fx->keyed[b][f])
                    continue;
                ck_assert_uint_lt(k, ch->count);
                const ak_key *key = &ch->keys[k++];
                ck_assert_int_eq(key->tick, (int64_t)f);
                ck_assert(fabs(key->time - (double)f / fps) < 1e-12);
                double dot = 0.0;
                for (int c = 0; c < 4; c++) {
                    ck_assert(fabs(key->v[c] - fx->out[b][f][c]) < 1e-9);
                    dot += key->v[c] * fx->in[b][f][c];
                }
                ck_assert_msg(fabs(fabs(dot) - 1.0) < 1e-7, "%s bone %u frame %zu: |dot| = %.9f", variant, b, f,
                              fabs(dot));
            }
            ck_assert_uint_eq(k, ch->count);
        }
        const ak_channel *tc = &tr->channel[AK_TRANSLATION];
        if (t->tr == MABFX_CONST) {
            ck_assert_uint_eq(tc->count, 1);
            for (int c = 0; c < 3; c++)
                ck_assert(tc->keys[0].v[c] == fx->tout[b][0][c]);
        } else if (t->tr == MABFX_ANIM) {
            ck_assert_uint_eq(tc->count, last_frame + 1);
            for (size_t f = 0; f <= last_frame; f++)
                for (int c = 0; c < 3; c++)
                    ck_assert(tc->keys[f].v[c] == fx->tout[b][f][c]);
        }
    }
    ak_doc_free(doc);
    ak_registry_free(reg);
    free(bytes);
    free(fx);
}

START_TEST(synthetic_fc2)
{
    check_s(0x4C, "FC2", 0);
    check_s(0x4C, "FC2", 7);
    check_s(0x4C, "FC2", 21);
    check_s(0x4C, "FC2", 33);
}
END_TEST

START_TEST(synthetic_fc3)
{
    check_s(0x61, "FC3", 21);
    check_s(0x61, "FC3", 33);
    check_s(0x62, "FC3BD", 13);
}
END_TEST

/* ---- versions, probe ------------------------------------------------------ */

START_TEST(unsupported_versions)
{
    ak_registry *reg = reg_mab();
    unsigned char b[256];
    memset(b, 0, sizeof b);
    b[0] = 0x82;
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, "mab", "x.mab", NULL, 0, 0 };
    ck_assert_int_eq(ak_read(reg, b, sizeof b, &o, &doc, &rep), AK_E_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(rep.text, "Primal"));
    ck_assert_int_ge(rep.offset, 0);
    ck_assert_int_gt(mab_codec()->probe(b, sizeof b, "x.mab"), AK_PROBE_EXTENSION);
    ck_assert_int_lt(mab_codec()->probe(b, sizeof b, "x.mab"), AK_PROBE_MAGIC);
    b[0] = 0x99;
    memset(&rep, 0, sizeof rep);
    ck_assert_int_eq(ak_read(reg, b, sizeof b, &o, &doc, &rep), AK_E_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(rep.text, "0x0099"));
    ck_assert_int_eq(mab_codec()->probe(b, sizeof b, "x.mab"), AK_PROBE_EXTENSION);
    ck_assert_int_eq(mab_codec()->probe(b, sizeof b, "x.MAB"), AK_PROBE_EXTENSION);
    ck_assert_int_eq(mab_codec()->probe(b, sizeof b, "x.bin"), 0);
    ck_assert_int_eq(mab_codec()->probe(b, sizeof b, NULL), 0);
    /* WDL version word without its tag: weaker than a magic match. */
    b[0] = 0xB4;
    b[1] = 0x46;
    ck_assert_int_lt(mab_codec()->probe(b, sizeof b, NULL), AK_PROBE_EXTENSION);
    ck_assert_int_lt(mab_codec()->probe(b, sizeof b, "a.mab"), AK_PROBE_MAGIC);
    memcpy(b + 0x20, "aNi", 3);
    ck_assert_int_eq(mab_codec()->probe(b, sizeof b, NULL), AK_PROBE_MAGIC);
    ck_assert_ptr_null(mab_codec()->write);
    ck_assert(mab_codec()->caps & AK_CAP_TRANSLATION);
    ck_assert(mab_codec()->caps & AK_CAP_BONE_HASH);
    ak_registry_free(reg);
}
END_TEST

/* ---- bad input ------------------------------------------------------------ */

static unsigned sweep_errors;

/* Reads `b`; any outcome but a crash, a clean error with an offset, or
 * success is a failure. */
static void try_bytes(ak_registry *reg, const unsigned char *b, size_t n, const char *what)
{
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, "mab", "sweep.mab", NULL, 0, 0 };
    ak_status st = ak_read(reg, b, n, &o, &doc, &rep);
    if (st == AK_OK) {
        ak_doc_free(doc);
        return;
    }
    sweep_errors++;
    ck_assert_msg(st == AK_E_DATA || st == AK_E_UNSUPPORTED, "%s: status %s: %s", what, ak_status_name(st),
                  rep.message);
    ck_assert_msg(rep.offset >= 0, "%s: error without an offset: %s", what, rep.message);
    ck_assert_ptr_null(doc);
}

static void sweep(ak_registry *reg, const unsigned char *orig, size_t n, size_t trunc_step, unsigned flips,
                  const char *what)
{
    unsigned char *b = malloc(n);
    char msg[128];
    /* truncation */
    for (size_t cut = 0; cut < n; cut += trunc_step) {
        memcpy(b, orig, cut);
        snprintf(msg, sizeof msg, "%s cut at %zu", what, cut);
        try_bytes(reg, b, cut, msg);
    }
    /* single byte corruptions, u32 inflations, at pseudo-random places */
    uint32_t seed = 12345;
    for (unsigned i = 0; i < flips; i++) {
        memcpy(b, orig, n);
        seed = seed * 1103515245u + 12345u;
        size_t at = (seed >> 8) % n;
        seed = seed * 1103515245u + 12345u;
        unsigned mode = (seed >> 16) % 4;
        if (mode == 0)
            b[at] ^= (unsigned char)(1u << ((seed >> 4) & 7));
        else if (mode == 1)
            b[at] = (unsigned char)(seed >> 24);
        else if (at + 4 <= n) {
            uint32_t v = mode == 2 ? 0xFFFFFFF0u : (seed >> 3);
            memcpy(b + at, &v, 4);
        }
        snprintf(msg, sizeof msg, "%s corrupted at %zu (mode %u)", what, at, mode);
        try_bytes(reg, b, n, msg);
    }
    free(b);
}

/* Targeted damage in a WDL file: offsets out of range, chunk tables that
 * do not ascend, wrong T, inflated counts, bad bit depths. */
static void targeted_wdl(ak_registry *reg, const unsigned char *orig, size_t n)
{
    unsigned char *b = malloc(n);
    size_t bones = le16(orig + 0x30) & 0x0FFF;
    size_t rot = 0x10 + le32(orig + 0x48 + 24);
    ak_report rep;
    ak_doc *doc;
    ak_options o = { sizeof o, "mab", "t.mab", NULL, 0, 0 };
#define EXPECT_DATA(label)                                                                              \
    do {                                                                                                \
        memset(&rep, 0, sizeof rep);                                                                    \
        doc = NULL;                                                                                     \
        ak_status st_ = ak_read(reg, b, n, &o, &doc, &rep);                                             \
        ck_assert_msg(st_ == AK_E_DATA, "%s: got %s (%s)", label, ak_status_name(st_), rep.message);  \
        ck_assert_msg(rep.offset >= 0, "%s: no offset", label);                                        \
    } while (0)
    for (size_t i = 0; i < 12; i++) {
        memcpy(b, orig, n);
        uint32_t v = 0x7FFFFFF0u;
        memcpy(b + 0x48 + 4 * i, &v, 4);
        EXPECT_DATA("offset past the end");
    }
    /* a chunk table entry below its predecessor */
    memcpy(b, orig, n);
    uint32_t e1 = le32(orig + rot + 4), e2 = le32(orig + rot + 8);
    memcpy(b + rot + 4, &e2, 4);
    memcpy(b + rot + 8, &e1, 4);
    EXPECT_DATA("chunk table not ascending");
    ck_assert_ptr_nonnull(strstr(rep.text, "ascend"));
    /* T disagreeing with the chunk count */
    memcpy(b, orig, n);
    uint32_t t = le32(orig + rot) + 4;
    memcpy(b + rot, &t, 4);
    EXPECT_DATA("T");
    /* the last entry past the section */
    memcpy(b, orig, n);
    size_t chunks = le32(orig + rot) / 4 - 1;
    uint32_t big = 0x00FFFFFFu;
    memcpy(b + rot + 4 * chunks, &big, 4);
    EXPECT_DATA("entry past the section");
    /* lastFrame disagreeing with the key times */
    memcpy(b, orig, n);
    b[0x7C] ^= 1;
    EXPECT_DATA("lastFrame");
    /* bone count inflated: hashes and flags no longer fit, or counts differ */
    memcpy(b, orig, n);
    b[0x30] = 0xFF;
    b[0x31] = 0x0F;
    EXPECT_DATA("bone count");
    /* dataCounts[4] disagreeing with the flags */
    memcpy(b, orig, n);
    b[0x32 + 8] ^= 0x40;
    EXPECT_DATA("animated count");
    /* every bit depth of one animated bone: only its own is consistent */
    size_t flags = 0x80 + 4 * bones;
    for (size_t i = 0; i < bones; i++) {
        unsigned f = orig[flags + i];
        if (!(f & 0x10) || (f & 0x30) == 0x30)
            continue;
        for (unsigned nib = 0; nib < 16; nib++) {
            memcpy(b, orig, n);
            b[flags + i] = (unsigned char)((f & 0xF0) | nib);
            try_bytes(reg, b, n, "bit depth");
        }
        break;
    }
#undef EXPECT_DATA
    free(b);
}

/* Reads `b`, expecting success with a warning that holds `warn` (or no
 * warning when NULL); returns the document. */
static ak_doc *read_expect_ok(ak_registry *reg, const unsigned char *b, size_t n, const char *warn, const char *label)
{
    warn_log wl = { 0 };
    ak_report rep = { 0 };
    rep.on_message = on_msg;
    rep.user = &wl;
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, "mab", "t.mab", NULL, 0, 0 };
    ak_status st = ak_read(reg, b, n, &o, &doc, &rep);
    ck_assert_msg(st == AK_OK, "%s: got %s (%s)", label, ak_status_name(st), rep.message);
    int seen = 0;
    for (unsigned i = 0; i < wl.count; i++)
        seen |= warn && strstr(wl.text[i], warn) != NULL;
    ck_assert_msg(warn ? seen : wl.count == 0, "%s: warnings %u, first: %s", label, wl.count,
                  wl.count ? wl.text[0] : "(none)");
    return doc;
}

/* Translation keys in the whole clip. */
static size_t translation_keys(const ak_doc *doc)
{
    size_t n = 0;
    for (size_t t = 0; t < doc->clips[0]->track_count; t++)
        n += doc->clips[0]->tracks[t]->channel[AK_TRANSLATION].count;
    return n;
}

/* Targeted damage to the translations of an FC5 fixture (ad = 0x10):
 * entries past their section and a translation chunk table that does not
 * ascend are clean errors; counts that fit no entry rule, entries with
 * more than 16 bits, bit depths or chunk boundaries that disagree with
 * the bits give a warning, no translation keys, and keep every byte. */
static void targeted_fc5_translations(ak_registry *reg, const unsigned char *orig, size_t n, size_t frames)
{
    const size_t ad = 0x10, dc = ad + 0x22, offs = ad + 0x38;
    ck_assert(memcmp(orig + ad + 0x10, "aNi", 3) == 0);
    size_t entries = ad + le32(orig + offs), stream = ad + le32(orig + offs + 4 * 6);
    size_t chunks = (frames + 7) / 8;
    ck_assert_uint_ge(chunks, 3);
    ck_assert_uint_eq(le32(orig + stream), 4 * (chunks + 1));
    unsigned char *b = malloc(n);
    ak_report rep;
    ak_doc *doc;
    ak_options o = { sizeof o, "mab", "t.mab", NULL, 0, 0 };

    /* Undamaged: translations decode, no warning. */
    doc = read_expect_ok(reg, orig, n, NULL, "FC5 undamaged");
    size_t want = translation_keys(doc);
    ck_assert_uint_eq(want, 8 * frames);
    ak_doc_free(doc);

    /* Entries past their section: dataCounts[1] and [6] inflated alike,
     * so the entry rule holds but the entries run off the section. */
    memcpy(b, orig, n);
    b[dc + 2 * 1 + 1] = 0x40;
    b[dc + 2 * 6 + 1] = (unsigned char)(b[dc + 2 * 6 + 1] + 0x40);
    memset(&rep, 0, sizeof rep);
    doc = NULL;
    ak_status st = ak_read(reg, b, n, &o, &doc, &rep);
    ck_assert_msg(st == AK_E_DATA, "entries past the section: %s (%s)", ak_status_name(st), rep.message);
    ck_assert_int_ge(rep.offset, 0);
    ck_assert_ptr_null(doc);

    /* Translation chunk table not ascending. */
    memcpy(b, orig, n);
    memcpy(b + stream + 4, orig + stream + 8, 4);
    memcpy(b + stream + 8, orig + stream + 4, 4);
    memset(&rep, 0, sizeof rep);
    doc = NULL;
    st = ak_read(reg, b, n, &o, &doc, &rep);
    ck_assert_msg(st == AK_E_DATA, "translation table not ascending: %s", ak_status_name(st));
    ck_assert_ptr_nonnull(strstr(rep.text, "ascend"));
    ck_assert_int_eq(rep.offset, (int64_t)(stream + 8));
    ck_assert_ptr_null(doc);

    struct {
        const char *label, *warn;
        size_t at;
        int delta; /* added to the byte at `at` */
    } cases[] = {
        { "entry count fits no rule", "entry-to-bone rule", dc + 2 * 6, 1 },
        { "animated-translation count", "count differs", dc + 2 * 5, 1 },
        { "entry with 17 bits", "more than 16", entries, 16 },       /* first entry: 1 bit -> 17 */
        { "entry with other bits", "needs more bits", entries, 1 },  /* 1 -> 2 bits: chunk 0 grows */
        { "chunk boundary 1 byte early", "needs more bits", stream + 4, -1 },
        { "chunk boundary 1 byte late", "raw bytes", stream + 4, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(b, orig, n);
        b[cases[i].at] = (unsigned char)(b[cases[i].at] + cases[i].delta);
        doc = read_expect_ok(reg, b, n, cases[i].warn, cases[i].label);
        ck_assert_msg(translation_keys(doc) == 0, "%s: %zu translation keys", cases[i].label, translation_keys(doc));
        /* rotations are still there; every byte is kept */
        ck_assert_uint_eq(doc->clips[0]->tracks[0]->channel[AK_ROTATION].count, frames);
        ck_assert_uint_eq(accounted_bytes(doc, frames), n);
        const ak_prop *sec = ak_prop_get(&doc->props, "section.6");
        ck_assert_ptr_nonnull(sec);
        ck_assert(sec->size == n - stream && memcmp(sec->data, b + stream, sec->size) == 0);
        ak_doc_free(doc);
    }
    free(b);
}

START_TEST(bad_input_synthetic)
{
    ak_registry *reg = reg_mab();
    static const unsigned versions[] = { 0x46B4, 0x46AF, 0x329B, 0xB0, 0x81 };
    static const char *names[] = { "WDL", "WD2", "WD1", "FC5", "FC4" };
    fixture *fx = calloc(1, sizeof *fx);
    for (size_t v = 0; v < 5; v++) {
        fixture_d(fx, versions[v], 21, v < 4);
        size_t n;
        unsigned char *bytes = mabfx_build(&fx->spec, &n);
        ck_assert_ptr_nonnull(bytes);
        sweep(reg, bytes, n, 1, 3000, names[v]);
        if (versions[v] == 0x46B4)
            targeted_wdl(reg, bytes, n);
        if (versions[v] == 0xB0)
            targeted_fc5_translations(reg, bytes, n, 21);
        free(bytes);
    }
    static const unsigned sversions[] = { 0x4C, 0x61 };
    for (size_t v = 0; v < 2; v++) {
        fixture_s(fx, sversions[v], 21);
        size_t n;
        unsigned char *bytes = mabfx_build(&fx->spec, &n);
        ck_assert_ptr_nonnull(bytes);
        sweep(reg, bytes, n, 1, 3000, v ? "FC3" : "FC2");
        free(bytes);
    }
    free(fx);
    printf("synthetic sweep: %u clean errors\n", sweep_errors);
    ck_assert_uint_gt(sweep_errors, 1000);
    ak_registry_free(reg);
}
END_TEST

START_TEST(bad_input_legion)
{
    size_t n;
    unsigned char *bytes = ak_test_corpus_file(LEGION, &n);
    if (!bytes)
        return;
    ak_registry *reg = reg_mab();
    unsigned before = sweep_errors;
    sweep(reg, bytes, n, n / 150, 400, "legion");
    targeted_wdl(reg, bytes, n);
    /* truncation anywhere in the bitstream or the header is an error */
    ak_report rep = { 0 };
    ak_doc *doc = NULL;
    ak_options o = { sizeof o, "mab", "t.mab", NULL, 0, 0 };
    ck_assert_int_eq(ak_read(reg, bytes, 0x17000, &o, &doc, &rep), AK_E_DATA);
    ck_assert_uint_gt(sweep_errors, before + 100);
    ak_registry_free(reg);
    free(bytes);
}
END_TEST

static Suite *mab_suite(void)
{
    Suite *s = suite_create("mab");
    TCase *tc = tcase_create("mab");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, bit_reader_every_width_and_offset);
    tcase_add_test(tc, legion_file);
    tcase_add_test(tc, synthetic_wdl);
    tcase_add_test(tc, synthetic_wd2);
    tcase_add_test(tc, synthetic_wd1);
    tcase_add_test(tc, synthetic_fc5);
    tcase_add_test(tc, synthetic_fc4);
    tcase_add_test(tc, synthetic_fc2);
    tcase_add_test(tc, synthetic_fc3);
    tcase_add_test(tc, unsupported_versions);
    tcase_add_test(tc, bad_input_synthetic);
    tcase_add_test(tc, bad_input_legion);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return ak_test_run(mab_suite()); }
