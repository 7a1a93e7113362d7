/* mab_fixture.c - synthetic .mab files from the fact sheet (see the header). */
#include "mab_fixture.h"

#include <animkit/animkit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- a growing little-endian buffer ------------------------------------- */

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
    int bad;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->bad)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q) {
            b->bad = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    if (d)
        memcpy(b->p + b->n, d, n);
    else
        memset(b->p + b->n, 0, n);
    b->n += n;
}
static void u8(buf *b, unsigned v) { unsigned char c = (unsigned char)v; put(b, &c, 1); }
static void u16(buf *b, unsigned v) { u8(b, v & 0xFF); u8(b, (v >> 8) & 0xFF); }
static void u32(buf *b, uint32_t v) { u16(b, v & 0xFFFF); u16(b, v >> 16); }
static void f32(buf *b, float f) { uint32_t v; memcpy(&v, &f, 4); u32(b, v); }
static void zeros(buf *b, size_t n) { put(b, NULL, n); }
static void align(buf *b, size_t a) { while (b->n % a) u8(b, 0); }
static void set16(buf *b, size_t at, unsigned v)
{
    if (b->bad || at + 2 > b->n)
        return;
    b->p[at] = (unsigned char)v;
    b->p[at + 1] = (unsigned char)(v >> 8);
}
static void set32(buf *b, size_t at, uint32_t v) { set16(b, at, v & 0xFFFF); set16(b, at + 2, v >> 16); }

/* ---- LSB-first bit writer (sheet 6) --------------------------------------- */

typedef struct bitw {
    buf *b;
    size_t start;  /* byte where this chunk began */
    uint64_t bits; /* bits written in this chunk */
} bitw;

static void bits_put(bitw *w, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        size_t byte = w->start + (size_t)(w->bits >> 3);
        while (w->b->n <= byte && !w->b->bad)
            u8(w->b, 0);
        if (w->b->bad)
            return;
        if ((v >> i) & 1u)
            w->b->p[byte] |= (unsigned char)(1u << (w->bits & 7));
        w->bits++;
    }
}

/* ---- quantisation ------------------------------------------------------- */

static const double S[17] = {
    0.0,           0.0,           0.33333334,    0.14285715,     0.06666667,     0.032258064,
    0.015873017,   0.0078740157,  0.0039215689,  0.0019569471,   0.00097751711,  0.00048851978,
    0.00024420026, 0.00012208521, 0.000061038882, 0.000030518509, 0.000015259022,
};

double mabfx_step(unsigned bits, double range)
{
    if (bits <= 1)
        return range + 1.0 / 127.0 + 1e-6;
    /* base <= min < base + 1/127 and hi is rounded up by < 1/127.5: the
     * slope spans at most range + 2/127; the rounding error is half a step. */
    return 0.5 * (range + 2.0 / 127.0) * S[bits] + 1e-6;
}

/* One component over the frames of a chunk: constant (u16) or varying
 * (u16 header + b-bit fields). Writes it and returns the decoded values
 * and, per frame, the field written (the u16 when constant). */
static void put_component(bitw *w, const double *v, unsigned nf, unsigned bits, int constant, double *dec,
                          uint32_t *field)
{
    if (constant) {
        long u = lround((v[0] + 1.0) * 32767.5);
        u = u < 0 ? 0 : u > 65535 ? 65535 : u;
        bits_put(w, (uint32_t)u, 16);
        for (unsigned f = 0; f < nf; f++) {
            dec[f] = (double)u / 32767.5 - 1.0;
            field[f] = (uint32_t)u;
        }
        return;
    }
    double lo = v[0], hi = v[0];
    for (unsigned f = 1; f < nf; f++) {
        lo = v[f] < lo ? v[f] : lo;
        hi = v[f] > hi ? v[f] : hi;
    }
    long l8 = (long)floor((lo + 1.0) * 127.0);
    l8 = l8 < 0 ? 0 : l8 > 255 ? 255 : l8;
    double base = (double)l8 / 127.0 - 1.0;
    long h8 = (long)ceil((hi - base) * 127.5);
    h8 = h8 < 0 ? 0 : h8 > 255 ? 255 : h8;
    double slope = (double)h8 / 127.5 * S[bits];
    bits_put(w, (uint32_t)(l8 | h8 << 8), 16);
    uint32_t maxr = (1u << bits) - 1u;
    for (unsigned f = 0; f < nf; f++) {
        long r = slope > 0.0 ? lround((v[f] - base) / slope) : 0;
        r = r < 0 ? 0 : r > (long)maxr ? (long)maxr : r;
        bits_put(w, (uint32_t)r, bits);
        dec[f] = base + (double)r * slope;
        field[f] = (uint32_t)r;
    }
}

/* A key's stored bytes: its three fields, then `flags` and `last`. */
static void put_raw(unsigned char raw[8], uint32_t field[3][8], unsigned f, unsigned flags, unsigned last)
{
    for (unsigned k = 0; k < 3; k++) {
        raw[2 * k] = (unsigned char)field[k][f];
        raw[2 * k + 1] = (unsigned char)(field[k][f] >> 8);
    }
    raw[6] = (unsigned char)flags;
    raw[7] = (unsigned char)last;
}

/* Rotation block of one bone in one chunk (sheet 6). */
static void put_rot_block(bitw *w, const mabfx_track *t, size_t first, unsigned nf, double (*out)[4],
                          mabfx_spec *st)
{
    const double (*q)[4] = t->in + first;
    unsigned m = 0;
    if (t->force_implicit >= 0) {
        m = (unsigned)t->force_implicit;
    } else {
        double best = -1.0;
        for (unsigned c = 0; c < 4; c++) {
            double mn = 2.0;
            for (unsigned f = 0; f < nf; f++)
                mn = fabs(q[f][c]) < mn ? fabs(q[f][c]) : mn;
            if (mn > best)
                best = mn, m = c;
        }
    }
    uint32_t signs = 0;
    for (unsigned f = 0; f < nf; f++)
        if (q[f][m] < 0.0)
            signs |= 1u << f;
    int sb = signs != 0 || t->force_signs;
    double comp[3][8], dec[3][8];
    uint32_t field[3][8];
    unsigned constant = 0;
    for (unsigned k = 0; k < 3; k++) {
        unsigned src = k < m ? k : k + 1;
        int same = 1;
        for (unsigned f = 0; f < nf; f++) {
            comp[k][f] = q[f][src];
            same &= comp[k][f] == comp[k][0];
        }
        if (same && nf > 1)
            constant |= 1u << k;
    }
    bits_put(w, constant | (sb ? 8u : 0u) | m << 4, 6);
    for (unsigned k = 0; k < 3; k++) {
        st->n_const_comp += (constant >> k) & 1u;
        st->n_var_comp += !((constant >> k) & 1u);
    }
    st->n_sign_blocks += (unsigned)sb;
    st->n_implicit[m]++;
    if (sb)
        bits_put(w, signs, nf);
    for (unsigned k = 0; k < 3; k++)
        put_component(w, comp[k], nf, t->bits, (constant >> k) & 1u, dec[k], field[k]);
    for (unsigned f = 0; t->raw && f < nf; f++)
        put_raw(t->raw[first + f], field, f, constant | (sb ? 8u : 0u) | m << 4, (signs >> f) & 1u);
    for (unsigned f = 0; f < nf; f++) {
        double s = dec[0][f] * dec[0][f] + dec[1][f] * dec[1][f] + dec[2][f] * dec[2][f];
        double r = 0.0, d[3] = { dec[0][f], dec[1][f], dec[2][f] };
        if (s <= 1.0)
            r = sqrt(1.0 - s);
        else
            for (unsigned k = 0; k < 3; k++)
                d[k] /= sqrt(s);
        if ((signs >> f) & 1u)
            r = -r;
        for (unsigned k = 0; k < 3; k++)
            out[f][k < m ? k : k + 1] = d[k];
        out[f][m] = r;
    }
}

static void put_tr_block(bitw *w, const mabfx_track *t, size_t first, unsigned nf, double (*out)[3],
                         mabfx_spec *st)
{
    double scale = (double)t->tr_code * 0.00029802325;
    double comp[3][8], dec[3][8];
    uint32_t field[3][8];
    unsigned constant = 0;
    for (unsigned k = 0; k < 3; k++) {
        int same = 1;
        for (unsigned f = 0; f < nf; f++) {
            comp[k][f] = t->tin[first + f][k] / scale;
            same &= comp[k][f] == comp[k][0];
        }
        if (same && nf > 1)
            constant |= 1u << k;
    }
    bits_put(w, constant, 3);
    for (unsigned k = 0; k < 3; k++) {
        st->n_tr_const_comp += (constant >> k) & 1u;
        st->n_tr_var_comp += !((constant >> k) & 1u);
    }
    st->n_tr_bits[t->tr_bits]++; /* 1..16, checked by mabfx_build */
    for (unsigned k = 0; k < 3; k++)
        put_component(w, comp[k], nf, t->tr_bits, (constant >> k) & 1u, dec[k], field[k]);
    for (unsigned f = 0; f < nf; f++)
        for (unsigned k = 0; k < 3; k++)
            out[f][k] = dec[k][f] * scale;
    for (unsigned f = 0; t->traw && f < nf; f++)
        put_raw(t->traw[first + f], field, f, constant, 0);
}

/* A chunked stream (table + chunks) at the end of `b`; `tr` = translations. */
static void put_stream(buf *b, mabfx_spec *s, int tr)
{
    size_t start = b->n, chunks = (s->frames + 7) / 8;
    u32(b, (uint32_t)(4 * (chunks + 1)));
    zeros(b, 4 * chunks);
    for (size_t c = 0; c < chunks; c++) {
        unsigned nf = (unsigned)(s->frames - 8 * c < 8 ? s->frames - 8 * c : 8);
        bitw w = { b, b->n, 0 };
        s->n_partial_chunks += !tr && nf < 8;
        s->n_tr_partial_chunks += tr && nf < 8;
        for (size_t i = 0; i < s->ntracks; i++) {
            mabfx_track *t = &s->track[i];
            if (tr && t->tr == MABFX_ANIM)
                put_tr_block(&w, t, 8 * c, nf, t->tout + 8 * c, s);
            else if (!tr && t->rot == MABFX_ANIM)
                put_rot_block(&w, t, 8 * c, nf, t->out + 8 * c, s);
        }
        while (b->n < w.start + (w.bits + 7) / 8)
            u8(b, 0);
        set32(b, start + 4 * (c + 1), (uint32_t)(b->n - start));
    }
    zeros(b, 3); /* readers may load a 32-bit window past the last chunk */
}

/* 48-bit quaternion (sheet 7); returns the decode in `out`. */
static void put_quat48(buf *b, const double *in, int w2_signed, double *out)
{
    const double K = 4.315969e-05, C = 0.7071068;
    double q[4] = { in[0], in[1], in[2], in[3] };
    unsigned m = 0;
    for (unsigned c = 1; c < 4; c++)
        if (fabs(q[c]) > fabs(q[m]))
            m = c;
    if (q[m] < 0.0)
        for (unsigned c = 0; c < 4; c++)
            q[c] = -q[c];
    unsigned w[3];
    for (unsigned k = 0; k < 3; k++) {
        long v = lround((q[k < m ? k : k + 1] + C) / K);
        w[k] = (unsigned)(v < 0 ? 0 : v > 0x7FFF ? 0x7FFF : v);
    }
    u16(b, w[0] | (m & 1u) << 15);
    u16(b, w[1] | (m >> 1) << 15);
    u16(b, w[2]);
    double a = w[0] * K - C, bb = w[1] * K - C, c = (w2_signed ? (double)(int16_t)w[2] : (double)w[2]) * K - C;
    double s = 1.0 - a * a - bb * bb - c * c, r = s > 0.0 ? sqrt(s) : 0.0;
    double v[3] = { a, bb, c };
    for (unsigned k = 0; k < 3; k++)
        out[k < m ? k : k + 1] = v[k];
    out[m] = r;
}

static size_t count_rot(const mabfx_spec *s, int kind)
{
    size_t n = 0;
    for (size_t i = 0; i < s->ntracks; i++)
        n += s->track[i].rot == kind;
    return n;
}

static size_t count_tr(const mabfx_spec *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->ntracks; i++)
        n += s->track[i].tr == MABFX_ANIM;
    return n;
}

static unsigned flag_of(const mabfx_track *t, int with_tr)
{
    unsigned f = t->rot == MABFX_CONST ? 0x30 : t->rot == MABFX_ANIM ? 0x10 | ((t->bits - 1) & 0x0F) : 0;
    if (with_tr && t->tr == MABFX_ANIM)
        f |= 0x40;
    return f;
}

static void put_consts(buf *b, const mabfx_spec *s, int w2_signed)
{
    for (size_t i = 0; i < s->ntracks; i++)
        if (s->track[i].rot == MABFX_CONST)
            put_quat48(b, s->track[i].in[0], w2_signed, s->track[i].out[0]);
}

/* ---- family D ----------------------------------------------------------- */

/* Watch Dogs Legion / 2 (legion = 1) and Watch Dogs 1 (legion = 0). */
static void build_wd(buf *b, mabfx_spec *s, int legion)
{
    const size_t B = 0x10, noff = legion ? 12 : 11, ndc = legion ? 10 : 7;
    const size_t dc_at = legion ? 0x32 : 0x22, off_at = legion ? 0x48 : 0x30;
    size_t nb = s->ntracks, nt = count_tr(s);
    u16(b, s->version);
    zeros(b, 14);
    if (legion) {
        zeros(b, 16); /* skeleton CRC and path id */
        put(b, "aNi", 3);
        u8(b, 0x07);
        u32(b, 0); /* data size, patched */
        f32(b, s->duration);
        f32(b, s->fps);
        u16(b, (unsigned)nb);
    } else {
        zeros(b, 4); /* 0x10 unknown */
        put(b, "aNi", 3);
        u8(b, 0x07);
        u32(b, 0);
        f32(b, s->duration);
        u16(b, (unsigned)nb);
    }
    size_t dc = b->n;
    zeros(b, 2 * ndc + (legion ? 2 : 0));
    size_t offs = b->n;
    zeros(b, 4 * noff);
    if (legion)
        u32(b, 0);
    u16(b, (unsigned)(s->frames - 1));
    u16(b, 0);
    set16(b, dc + 2 * 2, (unsigned)count_rot(s, MABFX_CONST));
    set16(b, dc + 2 * 4, (unsigned)count_rot(s, MABFX_ANIM));
    set16(b, dc + 2 * 5, (unsigned)nt);
    set16(b, dc + 2 * 6, (unsigned)nt);
    (void)dc_at;
    (void)off_at;
    for (size_t i = 0; i < nb; i++)
        u32(b, s->track[i].hash);
    for (size_t i = 0; i < nb; i++)
        u8(b, flag_of(&s->track[i], 1));
    align(b, 2);
    size_t off[12];
    off[0] = b->n; /* key times */
    for (size_t f = 0; f < s->frames; f++)
        u16(b, s->ticks[f]);
    off[1] = b->n; /* translation compression entries */
    for (size_t i = 0; i < nb; i++)
        if (s->track[i].tr == MABFX_ANIM)
            u32(b, (s->track[i].tr_bits & 0xFF) | s->track[i].tr_code << 8);
    off[2] = off[3] = off[4] = b->n;
    put_consts(b, s, 0);
    off[5] = off[6] = b->n;
    if (count_rot(s, MABFX_ANIM))
        put_stream(b, s, 0);
    off[7] = b->n;
    if (nt)
        put_stream(b, s, 1);
    for (size_t i = 8; i < 12; i++)
        off[i] = b->n;
    for (size_t i = 0; i < noff; i++)
        set32(b, offs + 4 * i, (uint32_t)(off[i] - B));
    set32(b, legion ? 0x24 : 0x18, (uint32_t)(b->n - B));
}

/* Far Cry 5: 'aNi' at 0x20, block base ad = 0x10 (sheet 3.3, 10). */
static void build_fc5(buf *b, mabfx_spec *s)
{
    const size_t ad = 0x10;
    size_t nb = s->ntracks, nt = count_tr(s);
    u16(b, s->version);
    zeros(b, 14);
    zeros(b, 0x10);
    put(b, "aNi", 3);
    u8(b, 0x2F);
    u32(b, 0);
    f32(b, s->duration);
    f32(b, s->fps);
    u16(b, (unsigned)nb);
    size_t dc = b->n;
    zeros(b, 20 + 2);
    size_t offs = b->n; /* ad + 0x38 */
    zeros(b, 48);
    /* dataCounts as WDL (sheet 3.3 names [4]; [5]/[6] follow 3.5). */
    set16(b, dc + 2 * 4, (unsigned)count_rot(s, MABFX_ANIM));
    set16(b, dc + 2 * 5, (unsigned)nt);
    set16(b, dc + 2 * 6, (unsigned)nt);
    for (size_t i = 0; i < nb; i++)
        u32(b, s->track[i].hash);
    for (size_t i = 0; i < nb; i++)
        u8(b, flag_of(&s->track[i], 1));
    for (size_t f = 0; f < s->frames; f++)
        u16(b, s->ticks[f]);
    /* Indices one lower than WDL: [0] translation compression entries
     * (also the end of the key times), [3] constant rotations, [5] the
     * rotation bitstream, [6] the translation stream. */
    size_t off[12];
    off[0] = b->n;
    for (size_t i = 0; i < nb; i++)
        if (s->track[i].tr == MABFX_ANIM)
            u32(b, (s->track[i].tr_bits & 0xFF) | s->track[i].tr_code << 8);
    off[1] = off[2] = off[3] = b->n;
    put_consts(b, s, 0);
    off[4] = off[5] = b->n;
    if (count_rot(s, MABFX_ANIM))
        put_stream(b, s, 0);
    off[6] = b->n;
    if (nt)
        put_stream(b, s, 1);
    for (size_t i = 7; i < 12; i++)
        off[i] = b->n;
    for (size_t i = 0; i < 12; i++)
        set32(b, offs + 4 * i, (uint32_t)(off[i] - ad));
    set32(b, ad + 0x14, (uint32_t)(b->n - ad));
}

/* Far Cry 4: 'aNi' at 0x18, u16 offsets from 0x18, arrays at the end. */
static void build_fc4(buf *b, mabfx_spec *s)
{
    const size_t base = 0x18;
    size_t nb = s->ntracks;
    u16(b, s->version);
    zeros(b, 14);
    zeros(b, 8);
    put(b, "aNi", 3);
    u8(b, 0x07);
    u16(b, (unsigned)nb);
    u16(b, 0);
    f32(b, s->duration);
    zeros(b, 4);
    u32(b, 0); /* 0x28 flags, patched */
    u32(b, 0); /* 0x2C hashes, patched */
    zeros(b, 0x10);
    zeros(b, 20); /* 0x40 u16 offsets[10] */
    size_t kt = b->n;
    for (size_t f = 0; f < s->frames; f++)
        u16(b, s->ticks[f]);
    size_t cst = b->n;
    put_consts(b, s, 0);
    size_t bs = b->n;
    if (count_rot(s, MABFX_ANIM))
        put_stream(b, s, 0);
    align(b, 4);
    size_t hashes = b->n;
    for (size_t i = 0; i < nb; i++)
        u32(b, s->track[i].hash);
    size_t flags = b->n;
    for (size_t i = 0; i < nb; i++)
        u8(b, flag_of(&s->track[i], 0));
    set32(b, 0x28, (uint32_t)(flags - base));
    set32(b, 0x2C, (uint32_t)(hashes - base));
    set16(b, 0x40 + 2 * 0, (unsigned)(cst - base));
    set16(b, 0x40 + 2 * 2, (unsigned)(kt - base));
    set16(b, 0x40 + 2 * 4, (unsigned)(bs - base));
    if (b->n >= 0x10000)
        b->bad = 1;
}

/* ---- family S ----------------------------------------------------------- */

/* Keyed groups (sheet 9.1): for each group, the frame-8g quaternions, the
 * presence bytes (padded to even), then the present subframes per track. */
static void put_groups(buf *b, const mabfx_spec *s, size_t sec, size_t table, size_t last_frame)
{
    size_t groups = (last_frame >> 3) + 1, nk = 0;
    for (size_t g = 0; g < groups; g++) {
        set32(b, table + 4 * g, (uint32_t)(b->n - sec));
        size_t f0 = 8 * g;
        for (size_t i = 0; i < s->ntracks; i++)
            if (s->track[i].rot == MABFX_ANIM)
                put_quat48(b, s->track[i].in[f0], 1, s->track[i].out[f0]);
        nk = 0;
        unsigned char pres[256];
        for (size_t i = 0; i < s->ntracks; i++) {
            const mabfx_track *t = &s->track[i];
            if (t->rot != MABFX_ANIM)
                continue;
            unsigned p = 0;
            for (unsigned k = 0; k < 7; k++) {
                size_t f = f0 + k + 1;
                if (f <= last_frame && (!t->keyed || t->keyed[f]))
                    p |= 1u << k;
            }
            pres[nk++] = (unsigned char)p;
            u8(b, p);
        }
        align(b, 2);
        nk = 0;
        for (size_t i = 0; i < s->ntracks; i++) {
            mabfx_track *t = &s->track[i];
            if (t->rot != MABFX_ANIM)
                continue;
            unsigned p = pres[nk++];
            for (unsigned k = 0; k < 7; k++)
                if ((p >> k) & 1u)
                    put_quat48(b, t->in[f0 + k + 1], 1, t->out[f0 + k + 1]);
        }
    }
}

static void build_fc2(buf *b, const mabfx_spec *s)
{
    const size_t C = 0x10;
    size_t last = s->frames - 1;
    u16(b, s->version);
    u16(b, 1);
    zeros(b, 12);
    unsigned char masks[4][20];
    memset(masks, 0, sizeof masks);
    size_t cnt[4] = { 0 };
    for (size_t i = 0; i < s->ntracks; i++) {
        const mabfx_track *t = &s->track[i];
        unsigned id = t->bone_id;
        if (t->rot)
            masks[t->rot == MABFX_CONST ? 0 : 1][id >> 3] |= (unsigned char)(1u << (id & 7));
        if (t->tr)
            masks[t->tr == MABFX_CONST ? 2 : 3][id >> 3] |= (unsigned char)(1u << (id & 7));
    }
    for (int m = 0; m < 4; m++)
        put(b, masks[m], 20);
    float ident[4] = { 0, 0, 0, 1 };
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 4; k++)
            f32(b, ident[k]);
    put(b, "AnD\x1A", 4);
    f32(b, s->duration);
    zeros(b, 36 + 4);
    size_t off[9] = { 0 };
    /* Sections are written in id order, but bone order within them follows
     * the masks: sort tracks by bone id. */
    mabfx_track *byid[160] = { 0 };
    for (size_t i = 0; i < s->ntracks; i++)
        byid[s->track[i].bone_id] = &s->track[i];
    mabfx_spec sorted = *s;
    mabfx_track tmp[160];
    size_t n = 0;
    for (unsigned id = 0; id < 160; id++)
        if (byid[id])
            tmp[n++] = *byid[id];
    sorted.track = tmp;
    sorted.ntracks = n;
    for (size_t i = 0; i < n; i++) {
        cnt[0] += tmp[i].rot == MABFX_CONST;
        cnt[1] += tmp[i].rot == MABFX_ANIM;
        cnt[2] += tmp[i].tr == MABFX_CONST;
        cnt[3] += tmp[i].tr == MABFX_ANIM;
    }
    align(b, 16);
    if (cnt[0]) {
        off[2] = b->n;
        u16(b, (unsigned)cnt[0]);
        zeros(b, 6);
        put_consts(b, &sorted, 1);
        align(b, 16);
    }
    if (cnt[1]) {
        off[3] = b->n;
        u16(b, (unsigned)cnt[1]);
        u16(b, (unsigned)last);
        u16(b, (unsigned)s->fps);
        u16(b, 0);
        size_t table = b->n;
        zeros(b, 4 * ((last >> 3) + 1));
        put_groups(b, &sorted, off[3], table, last);
        align(b, 16);
    }
    if (cnt[2]) {
        off[4] = b->n;
        u16(b, (unsigned)cnt[2]);
        zeros(b, 6);
        for (size_t i = 0; i < n; i++)
            if (tmp[i].tr == MABFX_CONST)
                for (int k = 0; k < 3; k++) {
                    f32(b, (float)tmp[i].tin[0][k]);
                    tmp[i].tout[0][k] = (float)tmp[i].tin[0][k];
                }
        align(b, 16);
    }
    if (cnt[3]) {
        off[5] = b->n;
        u16(b, (unsigned)cnt[3]);
        u16(b, (unsigned)last);
        u16(b, (unsigned)s->fps);
        u16(b, 0);
        for (size_t f = 0; f <= last; f++)
            for (size_t i = 0; i < n; i++)
                if (tmp[i].tr == MABFX_ANIM)
                    for (int k = 0; k < 3; k++) {
                        f32(b, (float)tmp[i].tin[f][k]);
                        tmp[i].tout[f][k] = (float)tmp[i].tin[f][k];
                    }
        align(b, 16);
    }
    off[8] = b->n;
    for (size_t i = 0; i < 9; i++)
        if (off[i])
            set32(b, C + 0x78 + 4 * i, (uint32_t)(off[i] - C));
}

static void build_fc3(buf *b, const mabfx_spec *s)
{
    size_t last = s->frames - 1, groups = (last >> 3) + 1;
    u16(b, s->version);
    zeros(b, 0xC4 - 2);
    f32(b, s->duration);
    zeros(b, 36);
    size_t off[9] = { 0 };
    align(b, 16);
    size_t nc = count_rot(s, MABFX_CONST), na = count_rot(s, MABFX_ANIM);
    if (nc) {
        off[2] = b->n;
        u32(b, (uint32_t)nc);
        zeros(b, 4);
        put_consts(b, s, 1);
        align(b, 16);
    }
    if (na) {
        off[3] = b->n;
        u16(b, (unsigned)na);
        u16(b, (unsigned)last);
        f32(b, s->fps);
        size_t table = b->n;
        zeros(b, 4 * (groups + 1));
        put_groups(b, s, off[3], table, last);
        set32(b, table + 4 * groups, (uint32_t)(b->n - off[3]));
        align(b, 16);
    }
    off[8] = b->n;
    for (size_t i = 0; i < 9; i++)
        if (off[i])
            set32(b, 0xC8 + 4 * i, (uint32_t)(off[i] - 0x10));
}

unsigned char *mabfx_build(mabfx_spec *s, size_t *size)
{
    buf b = { NULL, 0, 0, 0 };
    if (s->frames == 0 || s->ntracks == 0)
        return NULL;
    int family_s = s->version == 0x4C || s->version == 0x61 || s->version == 0x62;
    for (size_t i = 0; i < s->ntracks; i++)
        if (!family_s && ((s->track[i].rot == MABFX_ANIM && (s->track[i].bits < 1 || s->track[i].bits > 16)) ||
                          (s->track[i].tr == MABFX_ANIM && (s->track[i].tr_bits < 1 || s->track[i].tr_bits > 16 ||
                                                            s->track[i].tr_code > 0xFFFFFFu))))
            return NULL;
    switch (s->version) {
    case 0x46B4: case 0x46AF: build_wd(&b, s, 1); break;
    case 0x329B: build_wd(&b, s, 0); break;
    case 0x00B0: build_fc5(&b, s); break;
    case 0x0081: build_fc4(&b, s); break;
    case 0x004C: build_fc2(&b, s); break;
    case 0x0061: case 0x0062: build_fc3(&b, s); break;
    default: return NULL;
    }
    if (b.bad) {
        free(b.p);
        return NULL;
    }
    *size = b.n;
    return b.p;
}
