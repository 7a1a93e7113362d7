/* read_d.c - family D (.mab of Watch Dogs 1, 2, Legion, Far Cry 4 and 5):
 * header layouts, key times, 48-bit constant rotations, the chunked
 * JointRotations bitstream and joint translations (fact sheet 3-8). */
#include "mab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ANCHORS 32

enum anchor_kind { A_SECTION, A_HASHES, A_FLAGS, A_KEYTIMES, A_CONST };

typedef struct anchor {
    size_t off;
    int kind;
    int index; /* section index for A_SECTION */
} anchor;

typedef struct dlayout {
    const char *variant;
    unsigned version;
    size_t bones;
    size_t hash_off, flag_off;
    size_t kt_off, keys;  /* key times and their count F */
    double tick_rate;     /* ticks per second of the key times */
    double frame_rate;    /* as stored, 0 if none */
    double duration;
    int const_both;       /* constant rotation = flags 0x30 (else 0x20 alone) */
    size_t const_off;
    size_t rot_off;       /* JointRotations, or 0 */
    size_t tr_off;        /* joint translations, or 0 */
    int tr_decode;        /* the layout says how to decode them */
    size_t table_off;     /* translation compression entries */
    size_t table_count;
    size_t table_first;   /* entry of the first animated-translation bone */
    long dc_const, dc_anim, dc_const_tr, dc_anim_tr; /* -1 = not stored */
    int last_frame;       /* -1 = not stored */
    size_t bones_at, rate_at, last_at; /* where those header fields are */
    size_t anchors;
    anchor anchor[MAX_ANCHORS];
} dlayout;

static void add_anchor(dlayout *L, size_t off, int kind, int index)
{
    if (L->anchors < MAX_ANCHORS)
        L->anchor[L->anchors++] = (anchor){ off, kind, index };
}

/* End of the span that starts at `off`: the next larger anchor or the end. */
static size_t span_end(const mab_ctx *c, const dlayout *L, size_t off)
{
    size_t end = c->size;
    for (size_t i = 0; i < L->anchors; i++)
        if (L->anchor[i].off > off && L->anchor[i].off < end)
            end = L->anchor[i].off;
    return end;
}

static float f32_at(const mab_ctx *c, size_t off) { return ak_bits_f32(ak_load_u32(c->bytes + off)); }

/* An offset field (relative to `base`) that must land inside the file. */
static int section_at(mab_ctx *c, size_t field_off, uint64_t value, size_t base, size_t *out, const char *what)
{
    uint64_t abs = value + base;
    if (abs > c->size) {
        ak_fail(c->job, AK_E_DATA, (int64_t)field_off,
                "offset of %s is %llu (file offset %llu), past the end of the file (%zu bytes)", what,
                (unsigned long long)value, (unsigned long long)abs, c->size);
        return 0;
    }
    *out = (size_t)abs;
    return 1;
}

static const char *section_names_wd[12] = {
    "key times", "translation compression table", "displacement rotations", "displacement translations",
    "constant rotations", "constant translations", "joint rotations", "joint translations",
    "anchors", "section 9", "section 10", "section 11",
};

/* ---- headers ----------------------------------------------------------- */

/* Watch Dogs Legion / 2 (sheet 3.1) and Watch Dogs 1 (3.2). */
static ak_status header_wd(mab_ctx *c, dlayout *L, int legion)
{
    const size_t base = 0x10;
    const size_t fixed = legion ? 0x80 : 0x60;
    const size_t noff = legion ? 12 : 11, ndc = legion ? 10 : 7;
    const size_t tag = legion ? 0x20 : 0x14;
    const size_t dc_at = legion ? 0x32 : 0x22, off_at = legion ? 0x48 : 0x30;
    ak_doc *doc = c->doc;
    if (c->size < fixed)
        return ak_fail(c->job, AK_E_DATA, (int64_t)c->size, "truncated %s header: %zu bytes needed, %zu present",
                       L->variant, fixed, c->size);
    const unsigned char *b = c->bytes;
    if (b[tag] != 'a' || b[tag + 1] != 'N' || (b[tag + 2] != 'i' && b[tag + 2] != 'p'))
        return ak_fail(c->job, AK_E_DATA, (int64_t)tag, "no 'aNi' or 'aNp' tag where the %s layout puts it",
                       L->variant);
    char tagname[4] = { (char)b[tag], (char)b[tag + 1], (char)b[tag + 2], 0 };
    L->bones_at = legion ? 0x30 : 0x20;
    L->rate_at = legion ? 0x2C : 0x18;
    L->last_at = legion ? 0x7C : 0x5C;
    uint16_t bw = ak_load_u16(b + L->bones_at);
    L->bones = legion ? (bw & 0x0FFFu) : (bw & 0x7FFFu);
    L->duration = f32_at(c, legion ? 0x28 : 0x1C);
    L->frame_rate = legion ? f32_at(c, 0x2C) : 0.0;
    L->tick_rate = legion ? L->frame_rate : 120.0;
    L->last_frame = ak_load_u16(b + (legion ? 0x7C : 0x5C));
    L->const_both = 1;
    L->dc_anim_tr = L->dc_const_tr = -1;
    L->dc_const = ak_load_u16(b + dc_at + 2 * 2);
    L->dc_anim = ak_load_u16(b + dc_at + 2 * 4);
    L->dc_const_tr = ak_load_u16(b + dc_at + 2 * 3);
    L->dc_anim_tr = ak_load_u16(b + dc_at + 2 * 5);
    L->table_count = ak_load_u16(b + dc_at + 2 * 6);
    L->table_first = ak_load_u16(b + dc_at + 2 * 1);
    L->hash_off = fixed;
    L->flag_off = fixed + 4 * L->bones;
    add_anchor(L, L->hash_off, A_HASHES, 0);
    add_anchor(L, L->flag_off, A_FLAGS, 0);

    size_t off[12] = { 0 };
    for (size_t i = 0; i < noff; i++) {
        uint32_t v = ak_load_u32(b + off_at + 4 * i);
        if (v == 0)
            continue;
        if (!section_at(c, off_at + 4 * i, v, base, &off[i], section_names_wd[i]))
            return AK_E_DATA;
        add_anchor(L, off[i], i == 0 ? A_KEYTIMES : i == 4 ? A_CONST : A_SECTION, (int)i);
    }
    if (!off[0] || !off[1])
        return ak_fail(c->job, AK_E_DATA, off_at, "the key-time section (offsets[0] to offsets[1]) is missing");
    if (off[1] < off[0] || (off[1] - off[0]) % 2)
        return ak_fail(c->job, AK_E_DATA, off_at + 4,
                       "key-time section from %zu to %zu is not a whole number of u16 times", off[0], off[1]);
    L->kt_off = off[0];
    L->keys = (off[1] - off[0]) / 2;
    L->const_off = off[4];
    L->rot_off = off[6];
    L->tr_off = off[7];
    L->table_off = off[1];
    L->tr_decode = 1;

    ak_props *p = &doc->props;
    if (!mab_prop_string(c, p, "tag", tagname) || !mab_prop_int(c, p, "anim_flags", b[tag + 3]) ||
        !mab_prop_int(c, p, "data_size", ak_load_u32(b + tag + 4)) ||
        !mab_prop_int(c, p, "bone_word", bw) ||
        !mab_prop_bytes(c, p, "data_counts", dc_at, 2 * ndc) ||
        !mab_prop_bytes(c, p, "offsets", off_at, 4 * noff) ||
        !mab_prop_int(c, p, "last_frame", L->last_frame))
        return AK_E_NOMEM;
    if (legion && (!mab_prop_int(c, p, "skeleton_crc", (int64_t)(ak_load_u32(b + 0x10) |
                                                                 (uint64_t)ak_load_u32(b + 0x14) << 32)) ||
                   !mab_prop_int(c, p, "skeleton_path_id", (int64_t)(ak_load_u32(b + 0x18) |
                                                                     (uint64_t)ak_load_u32(b + 0x1C) << 32))))
        return AK_E_NOMEM;
    return AK_OK;
}

/* Far Cry 5 / New Dawn (sheet 3.3): the 'aNi' block with most bones. */
size_t mab_fc5_find_block(const unsigned char *bytes, size_t size, size_t limit, unsigned *bones)
{
    size_t best = (size_t)-1;
    unsigned best_bones = 0;
    size_t end = size < limit ? size : limit;
    for (size_t i = 0x10; i + 0x58 <= size && i < end; i++) {
        if (bytes[i] != 'a' || bytes[i + 1] != 'N' || bytes[i + 2] != 'i')
            continue;
        unsigned fl = bytes[i + 3];
        if (fl != 0x03 && fl != 0x07 && fl != 0x0F && fl != 0x23 && fl != 0x2F)
            continue;
        unsigned n = ak_load_u16(bytes + i + 0x10);
        if (n < 1 || n > 1023)
            continue;
        if (n > best_bones) {
            best_bones = n;
            best = i;
        }
    }
    *bones = best_bones;
    return best;
}

static ak_status header_fc5(mab_ctx *c, dlayout *L)
{
    unsigned nb;
    size_t tag = mab_fc5_find_block(c->bytes, c->size, c->size, &nb);
    if (tag == (size_t)-1)
        return ak_fail(c->job, AK_E_DATA, 0x10,
                       "no 'aNi' block (with flags 03/07/0F/23/2F and 1..1023 bones) found in the file");
    size_t blocks = 0;
    for (size_t i = 0x10; i + 3 <= c->size; i++)
        blocks += c->bytes[i] == 'a' && c->bytes[i + 1] == 'N' && c->bytes[i + 2] == 'i';
    const unsigned char *b = c->bytes;
    size_t ad = tag - 0x10;
    L->bones_at = ad + 0x20;
    L->rate_at = L->last_at = ad + 0x1C;
    L->bones = nb;
    L->duration = f32_at(c, ad + 0x18);
    L->frame_rate = f32_at(c, ad + 0x1C);
    L->tick_rate = L->frame_rate;
    L->last_frame = -1;
    L->const_both = 0;
    L->dc_const = L->dc_const_tr = L->dc_anim_tr = -1;
    L->dc_anim = ak_load_u16(b + ad + 0x22 + 2 * 4);
    L->hash_off = ad + 0x68;
    L->flag_off = L->hash_off + 4 * L->bones;
    if (L->flag_off + L->bones > c->size)
        return ak_fail(c->job, AK_E_DATA, (int64_t)ad + 0x20, "%zu bone hashes and flags run past the end",
                       L->bones);
    L->kt_off = L->flag_off + L->bones;
    add_anchor(L, L->hash_off, A_HASHES, 0);
    add_anchor(L, L->flag_off, A_FLAGS, 0);
    add_anchor(L, L->kt_off, A_KEYTIMES, 0);
    size_t off[12] = { 0 };
    for (size_t i = 0; i < 12; i++) {
        uint32_t v = ak_load_u32(b + ad + 0x38 + 4 * i);
        if (v == 0)
            continue;
        static const char *names[12] = { "translation compression table", "section 1", "section 2",
                                         "constant rotations", "section 4", "joint rotations",
                                         "joint translations", "section 7", "section 8", "section 9",
                                         "section 10", "section 11" };
        if (!section_at(c, ad + 0x38 + 4 * i, v, ad, &off[i], names[i]))
            return AK_E_DATA;
        add_anchor(L, off[i], i == 3 ? A_CONST : A_SECTION, (int)i);
    }
    if (!off[0] || off[0] < L->kt_off || (off[0] - L->kt_off) % 2)
        return ak_fail(c->job, AK_E_DATA, (int64_t)ad + 0x38,
                       "key times (from %zu to offsets[0] = %zu) are not a whole number of u16 times", L->kt_off,
                       off[0]);
    L->keys = (off[0] - L->kt_off) / 2;
    L->const_off = off[3];
    L->rot_off = off[5];
    L->tr_off = off[6];
    /* Translation compression entries start at offsets[0] (sheet 3.3);
     * their counts are read at the WDL dataCounts indices, which the sheet
     * confirms for [4] only. */
    L->table_off = off[0];
    L->table_first = ak_load_u16(b + ad + 0x22 + 2 * 1);
    L->dc_anim_tr = ak_load_u16(b + ad + 0x22 + 2 * 5);
    L->table_count = ak_load_u16(b + ad + 0x22 + 2 * 6);
    L->tr_decode = 1;
    ak_props *p = &c->doc->props;
    if (!mab_prop_int(c, p, "block_offset", (int64_t)tag) || !mab_prop_int(c, p, "blocks", (int64_t)blocks) ||
        !mab_prop_int(c, p, "anim_flags", b[tag + 3]) ||
        !mab_prop_int(c, p, "data_size", ak_load_u32(b + ad + 0x14)) ||
        !mab_prop_bytes(c, p, "data_counts", ad + 0x22, 20) ||
        !mab_prop_bytes(c, p, "offsets", ad + 0x38, 48))
        return AK_E_NOMEM;
    if (blocks > 1)
        ak_warn(c->job, (int64_t)tag,
                "the file holds %zu 'aNi' blocks; only the one with most bones (%zu, at %zu) is decoded, "
                "the others are kept as raw bytes",
                blocks, L->bones, tag);
    return AK_OK;
}

/* Far Cry 4 (sheet 3.4): u16 offsets from 0x18, arrays at the end. */
static ak_status header_fc4(mab_ctx *c, dlayout *L)
{
    const size_t base = 0x18;
    if (c->size < 0x54)
        return ak_fail(c->job, AK_E_DATA, (int64_t)c->size, "truncated FC4 header: 84 bytes needed, %zu present",
                       c->size);
    const unsigned char *b = c->bytes;
    if (b[0x18] != 'a' || b[0x19] != 'N' || b[0x1A] != 'i')
        return ak_fail(c->job, AK_E_DATA, 0x18, "no 'aNi' tag at 0x18 where the FC4 layout puts it");
    L->bones_at = 0x1C;
    L->rate_at = L->last_at = 0x18;
    L->bones = ak_load_u16(b + 0x1C);
    L->duration = f32_at(c, 0x20);
    L->frame_rate = 0.0;
    L->tick_rate = 30.0;
    L->last_frame = -1;
    L->const_both = 0;
    L->dc_const = L->dc_anim = L->dc_const_tr = L->dc_anim_tr = -1;
    if (!section_at(c, 0x28, ak_load_u32(b + 0x28), base, &L->flag_off, "the bone flag array") ||
        !section_at(c, 0x2C, ak_load_u32(b + 0x2C), base, &L->hash_off, "the bone hash array"))
        return AK_E_DATA;
    add_anchor(L, L->hash_off, A_HASHES, 0);
    add_anchor(L, L->flag_off, A_FLAGS, 0);
    size_t off[10] = { 0 };
    for (size_t i = 0; i < 10; i++) {
        unsigned v = ak_load_u16(b + 0x40 + 2 * i);
        if (v == 0)
            continue;
        static const char *names[10] = { "constant rotations", "section 1", "key times", "section 3",
                                         "joint rotations", "joint translations", "section 6",
                                         "section 7", "section 8", "section 9" };
        if (!section_at(c, 0x40 + 2 * i, v, base, &off[i], names[i]))
            return AK_E_DATA;
        add_anchor(L, off[i], i == 0 ? A_CONST : i == 2 ? A_KEYTIMES : A_SECTION, (int)i);
    }
    if (!off[2])
        return ak_fail(c->job, AK_E_DATA, 0x44, "the key-time section (offsets[2]) is missing");
    size_t end = span_end(c, L, off[2]);
    if ((end - off[2]) % 2)
        return ak_fail(c->job, AK_E_DATA, 0x44, "key times from %zu to %zu are not a whole number of u16 times",
                       off[2], end);
    L->kt_off = off[2];
    L->keys = (end - off[2]) / 2;
    L->const_off = off[0];
    L->rot_off = off[4];
    L->tr_off = off[5];
    L->tr_decode = 0;
    ak_props *p = &c->doc->props;
    if (!mab_prop_int(c, p, "anim_flags", b[0x1B]) || !mab_prop_bytes(c, p, "offsets", 0x40, 20))
        return AK_E_NOMEM;
    return AK_OK;
}

/* ---- bitstreams -------------------------------------------------------- */

typedef struct chunk_table {
    size_t off;        /* section start */
    size_t count;      /* chunks */
    const unsigned char *entries; /* count + 1 u32 (E[0] = T) */
    size_t span;       /* bytes of the section */
} chunk_table;

static size_t entry(const chunk_table *t, size_t i) { return ak_load_u32(t->entries + 4 * i); }

/* Reads and checks a chunk table (sheet 6): T = 4 (n + 1), ascending
 * entries, all inside the section. */
static ak_status read_table(mab_ctx *c, const dlayout *L, size_t off, size_t chunks, const char *what,
                            chunk_table *t)
{
    t->off = off;
    t->span = span_end(c, L, off) - off;
    ak_reader r;
    ak_reader_init(&r, c->job, c->bytes, off + t->span);
    r.pos = off;
    uint32_t first = ak_u32(&r);
    if (r.failed)
        return AK_E_DATA;
    if (first < 4 || first % 4 || first / 4 - 1 != chunks)
        return ak_fail(c->job, AK_E_DATA, (int64_t)off,
                       "%s chunk table starts with %u, expected 4 * (%zu chunks + 1) = %zu", what, first, chunks,
                       4 * (chunks + 1));
    r.pos = off;
    if (!ak_need_array(&r, chunks + 1, 4, "chunk table entries"))
        return AK_E_DATA;
    t->entries = c->bytes + off;
    t->count = chunks;
    for (size_t i = 1; i <= chunks; i++) {
        size_t e = entry(t, i), prev = entry(t, i - 1);
        if (e < prev)
            return ak_fail(c->job, AK_E_DATA, (int64_t)(off + 4 * i),
                           "%s chunk table does not ascend: entry %zu is %zu, after %zu", what, i, e, prev);
        if (e > t->span)
            return ak_fail(c->job, AK_E_DATA, (int64_t)(off + 4 * i),
                           "%s chunk %zu ends at %zu, past the section's %zu bytes", what, i - 1, e, t->span);
    }
    return AK_OK;
}

/* Where one bone's sample set in a chunk goes (rotation: 4 values;
 * translation: 3): straight into the stream's scratch arrays. */
typedef struct chunk_out {
    double (*v)[4];
    unsigned char (*raw)[8];
} chunk_out;

#if defined(__GNUC__)
#define MAB_ALWAYS_INLINE __attribute__((always_inline))
#else
#define MAB_ALWAYS_INLINE
#endif

/* One component's `nf` stored fields (sheet 6; translations, sheet 8,
 * the same): the 16-bit word, then, unless the component is constant, a
 * field of `bits` bits a frame. Its values go to val[], its fields to q[]
 * (the constant's word when it is constant). The fields of a block that
 * lies well inside its chunk are taken without a check each (those
 * checks were a tenth of reading the Legion file). Always inline: called
 * out of line, as the compiler chose, it cost as much as the checks. */
MAB_ALWAYS_INLINE static inline void component(mab_bits *bs, unsigned nf, unsigned bits, int constant,
                                               double val[8], uint16_t q[8])
{
    uint32_t u = mab_bits_get(bs, 16);
    if (constant) {
        for (unsigned f = 0; f < nf; f++) {
            val[f] = (double)u / 32767.5 - 1.0;
            q[f] = (uint16_t)u;
        }
        return;
    }
    double base = (double)(u & 0xFF) / 127.0 - 1.0;
    double slope = (double)(u >> 8) / 127.5 * mab_slope_scale(bits);
    if (mab_bits_room(bs, (uint64_t)nf * bits))
        for (unsigned f = 0; f < nf; f++) {
            uint32_t r = mab_bits_get_in(bs, bits);
            val[f] = base + (double)r * slope;
            q[f] = (uint16_t)r;
        }
    else
        for (unsigned f = 0; f < nf; f++) {
            uint32_t r = mab_bits_get(bs, bits);
            val[f] = base + (double)r * slope;
            q[f] = (uint16_t)r;
        }
}

/* A block's three components: values and fields, component-major. */
typedef struct block_fields {
    double val[3][8];
    uint16_t q[3][8];
} block_fields;

static inline void read_fields(mab_bits *bs, unsigned nf, unsigned bits, unsigned cflags, block_fields *b)
{
    for (unsigned k = 0; k < 3; k++)
        component(bs, nf, bits, (cflags >> k) & 1, b->val[k], b->q[k]);
}

/* Frame f's stored bytes: the three components' fields, the block's
 * flags and `last` (a rotation's sign bit). Two stores, not eight: the
 * bytes one by one were a twentieth of reading the Legion file. */
static inline void put_stored(unsigned char raw[8], const uint16_t q[3][8], unsigned f, unsigned flags, unsigned last)
{
    ak_poke_u32(raw, (uint32_t)q[0][f] | (uint32_t)q[1][f] << 16);
    ak_poke_u32(raw + 4, (uint32_t)q[2][f] | flags << 16 | last << 24);
}

/* Reads one rotation block (sheet 6) from `bs` into `o`. */
static void rot_block(mab_bits *bs, unsigned nf, unsigned bits, chunk_out *o)
{
    unsigned cflags = mab_bits_get(bs, 6);
    uint32_t signs = (cflags & 8) ? mab_bits_get(bs, nf) : 0;
    unsigned implicit = (cflags >> 4) & 3;
    block_fields b;
    read_fields(bs, nf, bits, cflags, &b);
    for (unsigned f = 0; f < nf; f++) {
        double s[3] = { b.val[0][f], b.val[1][f], b.val[2][f] };
        mab_quat_rebuild(s, implicit, (int)((signs >> f) & 1u), o->v[f]);
        put_stored(o->raw[f], b.q, f, cflags, (signs >> f) & 1u);
    }
}

/* Reads one translation block (sheet 8) into `o`: 3-bit cflags,
 * components as for rotations, times `scale`. */
static void tr_block(mab_bits *bs, unsigned nf, unsigned bits, double scale, chunk_out *o)
{
    unsigned cflags = mab_bits_get(bs, 3);
    block_fields b;
    read_fields(bs, nf, bits, cflags, &b);
    for (unsigned f = 0; f < nf; f++) {
        for (unsigned k = 0; k < 3; k++)
            o->v[f][k] = b.val[k][f] * scale;
        o->v[f][3] = 0.0;
        put_stored(o->raw[f], b.q, f, cflags, 0); /* 7 bytes are kept; the 8th is set all the same */
    }
}

typedef struct stream_job {
    const char *what;
    int translation;
    size_t nb;              /* bones in the stream */
    const size_t *bone;     /* their indices */
    const unsigned *bits;   /* bits per bone */
    const double *scale;    /* translation scale per bone */
    size_t min_block_bits;  /* smallest possible block */
} stream_job;

/* Decodes every chunk in one pass into `v` (4 values) and `raw` (8 bytes)
 * per bone and key, bone-major, and checks that each chunk ends on its
 * table boundary. Counts the chunks whose bits do not fill their bytes
 * exactly and notes the first that needs more than it holds. */
static void run_stream(mab_ctx *c, const dlayout *L, const chunk_table *t, const stream_job *sj, double *v,
                       unsigned char *raw, size_t *slack, size_t *overrun_chunk)
{
    *slack = 0;
    *overrun_chunk = (size_t)-1;
    chunk_out o;
    for (size_t ch = 0; ch < t->count; ch++) {
        size_t a = entry(t, ch), e = entry(t, ch + 1);
        unsigned nf = (unsigned)(L->keys - 8 * ch < 8 ? L->keys - 8 * ch : 8);
        mab_bits bs;
        mab_bits_init(&bs, c->bytes + t->off + a, e - a);
        for (size_t i = 0; i < sj->nb; i++) {
            size_t at = i * L->keys + 8 * ch;
            o.v = (double(*)[4])(v + 4 * at);
            o.raw = (unsigned char(*)[8])(raw + 8 * at);
            if (sj->translation)
                tr_block(&bs, nf, sj->bits[i], sj->scale[i], &o);
            else
                rot_block(&bs, nf, sj->bits[i], &o);
        }
        uint64_t used = (bs.pos + 7) / 8;
        if (bs.over || used > e - a) {
            if (*overrun_chunk == (size_t)-1)
                *overrun_chunk = ch;
        } else if (used < e - a) {
            (*slack)++;
        }
    }
}

/* Appends each bone's decoded keys to its track in bulk, the stored bytes
 * of a bone in one block. */
static ak_status add_stream_keys(mab_ctx *c, const dlayout *L, const stream_job *sj, ak_track **tracks,
                                 const double *v, const unsigned char *raw)
{
    ak_channel_kind kind = sj->translation ? AK_TRANSLATION : AK_ROTATION;
    size_t n = L->keys;
    /* Every bone has the same key times: decoded once. */
    double *time = n ? ak_job_alloc_uninit(c->job, n, sizeof *time) : NULL;
    if (n && !time)
        return AK_E_NOMEM;
    for (size_t f = 0; f < n; f++)
        time[f] = (double)ak_load_u16(c->bytes + L->kt_off + 2 * f) / L->tick_rate;
    for (size_t i = 0; i < sj->nb && n; i++) {
        ak_track *tr = tracks[sj->bone[i]];
        ak_key *k = ak_keys_append_uninit(tr, kind, n); /* every field set below */
        const unsigned char *stored = k ? ak_doc_store(tr->clip->doc, raw + 8 * i * n, 8 * n) : NULL;
        if (!stored) {
            ak_job_free(c->job, time);
            return mab_oom(c);
        }
        const unsigned char *t = c->bytes + L->kt_off;
        for (size_t f = 0; f < n; f++, t += 2) {
            k[f].tick = (int64_t)(t[0] | t[1] << 8);
            k[f].time = time[f];
            memcpy(k[f].v, v + 4 * (i * n + f), sizeof k[f].v);
        }
        if (ak_keys_set_raw(k, n, stored, 8, sj->translation ? 7 : 8) != AK_OK) {
            ak_job_free(c->job, time);
            return mab_oom(c);
        }
    }
    ak_job_free(c->job, time);
    return AK_OK;
}

/* What the walk found: an error (strict mode), or AK_OK with *take = 1
 * when the stream's keys go in, 0 when it stays raw bytes (warned). */
static ak_status check_stream(mab_ctx *c, size_t off, const stream_job *sj, const chunk_table *tp, int strict,
                              size_t slack, size_t bad, int *take)
{
    *take = 0;
    if (bad != (size_t)-1) {
        size_t at = tp->off + entry(tp, bad);
        if (strict)
            return ak_fail(c->job, AK_E_DATA, (int64_t)at,
                           "%s chunk %zu needs more bits than its %zu bytes hold", sj->what, bad,
                           entry(tp, bad + 1) - entry(tp, bad));
        ak_warn(c->job, (int64_t)at, "%s chunk %zu needs more bits than it holds; %s kept as raw bytes only",
                sj->what, bad, sj->what);
        return AK_OK;
    }
    if (slack) {
        if (!strict) {
            ak_warn(c->job, (int64_t)off,
                    "%s: %zu chunks do not end on their table boundary; kept as raw bytes only", sj->what,
                    slack);
            return AK_OK;
        }
        ak_warn(c->job, (int64_t)off, "%s: %zu chunks hold more bytes than their bits need", sj->what, slack);
    }
    *take = 1;
    return AK_OK;
}

static ak_status decode_stream(mab_ctx *c, const dlayout *L, size_t off, const stream_job *sj, ak_track **tracks,
                               int strict)
{
    size_t chunks = (L->keys + 7) / 8;
    chunk_table t = { 0, 0, NULL, 0 };
    ak_status st = read_table(c, L, off, chunks, sj->what, &t);
    if (st != AK_OK)
        return st;
    /* Every block spends at least min_block_bits: bound the work and the
     * keys by the section's size before walking it. */
    uint64_t avail = (uint64_t)(entry(&t, chunks) - entry(&t, 0)) * 8;
    if ((uint64_t)sj->nb * chunks > avail / sj->min_block_bits) {
        if (strict)
            return ak_fail(c->job, AK_E_DATA, (int64_t)off,
                           "%s: %zu bones x %zu chunks cannot fit in %llu bytes", sj->what, sj->nb, chunks,
                           (unsigned long long)(avail / 8));
        ak_warn(c->job, (int64_t)off, "%s: %zu bones x %zu chunks cannot fit in %llu bytes; not decoded",
                sj->what, sj->nb, chunks, (unsigned long long)(avail / 8));
        return AK_OK;
    }
    /* One pass decodes into scratch; keys reach the document only once the
     * whole stream has proved sound. */
    size_t slack, bad, values = sj->nb * L->keys;
    double *v = ak_job_alloc_uninit(c->job, values, 4 * sizeof *v); /* run_stream fills it all */
    unsigned char *raw = v ? ak_job_alloc_uninit(c->job, values, 8) : NULL;
    if (!raw) {
        ak_job_free(c->job, v);
        return AK_E_NOMEM;
    }
    run_stream(c, L, &t, sj, v, raw, &slack, &bad);
    int take;
    st = check_stream(c, off, sj, &t, strict, slack, bad, &take);
    if (st == AK_OK && take)
        st = add_stream_keys(c, L, sj, tracks, v, raw);
    ak_job_free(c->job, raw);
    ak_job_free(c->job, v);
    return st;
}


/* Animated joint translations (sheet 8), shared by every layout that
 * locates them (WD1, WD2, WDL: offsets[7] and entries at offsets[1];
 * FC5: offsets[6] and entries at offsets[0]). `tbones` lists the natr
 * bones with flag 0x40 in ascending order; `tbits` and `tscale` (natr
 * each) receive their compression entries. Anything the entry rule or the
 * chunk boundaries do not confirm is left undecoded with a warning; the
 * bytes stay in the section props either way. */
static ak_status joint_translations(mab_ctx *c, const dlayout *L, ak_track **tracks, const size_t *tbones,
                                    size_t natr, unsigned *tbits, double *tscale)
{
    const char *why = "the fact sheet does not say how";
    int ok = L->tr_decode && L->tr_off && L->keys;
    if (ok && L->dc_anim_tr >= 0 && (size_t)L->dc_anim_tr != natr) {
        ok = 0;
        why = "the header's animated-translation count differs from the flags";
    }
    size_t first = 0;
    if (ok) {
        /* Entry rule (unconfirmed by the sheet): the entries list the
         * displacement translations, then the animated ones. */
        if (L->table_count == L->table_first + natr)
            first = L->table_first;
        else if (L->table_count == natr)
            first = 0;
        else {
            ok = 0;
            why = "the compression entry count fits no entry-to-bone rule";
        }
    }
    if (ok) {
        ak_reader tr;
        ak_reader_init(&tr, c->job, c->bytes, span_end(c, L, L->table_off));
        tr.pos = L->table_off;
        if (!ak_need_array(&tr, L->table_count, 4, "translation compression entries"))
            return AK_E_DATA;
        for (size_t i = 0; i < natr && ok; i++) {
            uint32_t e = ak_load_u32(c->bytes + L->table_off + 4 * (first + i));
            tbits[i] = e & 0xFF;
            tscale[i] = (double)(e >> 8) * 0.00029802325;
            if (tbits[i] > 16) {
                ak_warn(c->job, (int64_t)(L->table_off + 4 * (first + i)),
                        "translation compression entry gives %u bits (more than 16)", tbits[i]);
                ok = 0;
                why = "a compression entry is out of range";
            }
        }
    }
    for (size_t i = 0; i < natr && ok; i++)
        if (!mab_prop_int(c, &tracks[tbones[i]]->props, "translation_entry", (int64_t)(first + i)) ||
            !mab_prop_int(c, &tracks[tbones[i]]->props, "translation_bits", tbits[i]) ||
            !mab_prop_float(c, &tracks[tbones[i]]->props, "translation_scale", tscale[i]))
            return AK_E_NOMEM;
    if (ok) {
        stream_job sj = { "joint translations", 1, natr, tbones, tbits, tscale, 3 + 48 };
        return decode_stream(c, L, L->tr_off, &sj, tracks, 0);
    }
    ak_warn(c->job, (int64_t)(L->tr_off ? L->tr_off : L->flag_off),
            "%zu animated joint translations are not decoded for %s (%s); their section is kept as raw bytes",
            natr, L->variant, why);
    return AK_OK;
}

/* ---- the common body --------------------------------------------------- */

static ak_status keep_spans(mab_ctx *c, const dlayout *L, size_t nconst)
{
    ak_props *p = &c->doc->props;
    size_t first = c->size;
    for (size_t i = 0; i < L->anchors; i++)
        if (L->anchor[i].off < first)
            first = L->anchor[i].off;
    if (!mab_prop_bytes(c, p, "header", 0, first))
        return AK_E_NOMEM;
    for (size_t i = 0; i < L->anchors; i++) {
        const anchor *a = &L->anchor[i];
        /* One owner per offset: a modelled kind, else the highest index. */
        int owner = 1;
        for (size_t j = 0; j < L->anchors; j++) {
            const anchor *o = &L->anchor[j];
            if (j == i || o->off != a->off)
                continue;
            if (a->kind == A_SECTION && (o->kind != A_SECTION || o->index > a->index))
                owner = 0;
            if (a->kind != A_SECTION && o->kind != A_SECTION && j < i)
                owner = 0;
        }
        if (!owner)
            continue;
        size_t end = span_end(c, L, a->off), model = 0;
        char key[48];
        switch (a->kind) {
        case A_HASHES: model = 4 * L->bones; snprintf(key, sizeof key, "hashes.tail"); break;
        case A_FLAGS: model = L->bones; snprintf(key, sizeof key, "flags.tail"); break;
        case A_KEYTIMES: model = 2 * L->keys; snprintf(key, sizeof key, "key_times.tail"); break;
        case A_CONST: model = 6 * nconst; snprintf(key, sizeof key, "section.%d.tail", a->index); break;
        default: snprintf(key, sizeof key, "section.%d", a->index); break;
        }
        if (model > end - a->off)
            model = end - a->off;
        if (a->kind != A_SECTION && model == end - a->off)
            continue;
        if (!mab_prop_bytes(c, p, key, a->off + model, end - a->off - model))
            return AK_E_NOMEM;
    }
    return AK_OK;
}

static ak_status body(mab_ctx *c, dlayout *L)
{
    ak_clip *clip = c->clip;
    ak_reader r;
    ak_reader_init(&r, c->job, c->bytes, c->size);
    if (L->bones == 0)
        return ak_fail(c->job, AK_E_DATA, (int64_t)L->bones_at, "the %s header gives 0 bones", L->variant);
    r.pos = L->hash_off;
    if (!ak_need_array(&r, L->bones, 4, "bone hashes"))
        return AK_E_DATA;
    r.pos = L->flag_off;
    if (!ak_need_array(&r, L->bones, 1, "bone flags"))
        return AK_E_DATA;
    r.pos = L->kt_off;
    if (!ak_need_array(&r, L->keys, 2, "key times"))
        return AK_E_DATA;
    if (L->tick_rate != L->tick_rate || L->tick_rate <= 0.0 || L->tick_rate > 1.0e6)
        return ak_fail(c->job, AK_E_DATA, (int64_t)L->rate_at, "frame rate %g is not usable for key times", L->tick_rate);
    /* The stored f32 duration may round just below the last key time. */
    clip->duration = L->duration;
    if (L->keys) {
        double last = ak_load_u16(c->bytes + L->kt_off + 2 * (L->keys - 1)) / L->tick_rate;
        if (last > clip->duration && last - clip->duration <= 1e-6 * (last > 1.0 ? last : 1.0))
            clip->duration = last;
    }
    if (!mab_prop_float(c, &c->doc->props, "duration_f32", L->duration))
        return AK_E_NOMEM;
    clip->frame_rate = L->frame_rate;
    clip->tick_rate = L->tick_rate;
    if (L->last_frame >= 0 && (size_t)L->last_frame + 1 != L->keys)
        return ak_fail(c->job, AK_E_DATA, (int64_t)L->last_at, "lastFrame %d does not match the %zu key times", L->last_frame,
                       L->keys);

    /* Tracks, one per bone, with the hash and the flag byte. */
    ak_track **tracks = NULL;
    size_t *cbones = NULL, *abones = NULL, *tbones = NULL;
    unsigned *abits = NULL, *tbits = NULL;
    double *tscale = NULL;
    ak_status st = AK_OK;
    size_t nconst = 0, nanim = 0, nctr = 0, natr = 0;
    tracks = ak_job_alloc(c->job, L->bones, sizeof *tracks);
    cbones = ak_job_alloc(c->job, L->bones, sizeof *cbones);
    abones = ak_job_alloc(c->job, L->bones, sizeof *abones);
    tbones = ak_job_alloc(c->job, L->bones, sizeof *tbones);
    abits = ak_job_alloc(c->job, L->bones, sizeof *abits);
    tbits = ak_job_alloc(c->job, L->bones, sizeof *tbits);
    tscale = ak_job_alloc(c->job, L->bones, sizeof *tscale);
    if (!tracks || !cbones || !abones || !tbones || !abits || !tbits || !tscale) {
        st = mab_oom(c);
        goto done;
    }
    for (size_t i = 0; i < L->bones; i++) {
        ak_track *t = ak_track_add(clip, "");
        if (!t) {
            st = mab_oom(c);
            goto done;
        }
        tracks[i] = t;
        t->bone_hash = ak_load_u32(c->bytes + L->hash_off + 4 * i);
        t->has_bone_hash = 1;
        unsigned f = c->bytes[L->flag_off + i];
        if (!mab_prop_int(c, &t->props, "flags", f) || !mab_prop_int(c, &t->props, "index", (int64_t)i)) {
            st = AK_E_NOMEM;
            goto done;
        }
        int is_const = L->const_both ? (f & 0x30) == 0x30 : (f & 0x20) != 0;
        if (is_const)
            cbones[nconst++] = i;
        else if (f & 0x10) {
            abits[nanim] = (f & 0x0F) + 1;
            abones[nanim++] = i;
        }
        if ((f & 0xC0) == 0xC0)
            nctr++;
        else if ((f & 0xC0) == 0x40)
            tbones[natr++] = i;
    }
    if ((L->dc_const >= 0 && (size_t)L->dc_const != nconst) || (L->dc_anim >= 0 && (size_t)L->dc_anim != nanim)) {
        st = ak_fail(c->job, AK_E_DATA, (int64_t)L->flag_off,
                     "bone flags give %zu constant and %zu bitstream rotations, the header counts %ld and %ld",
                     nconst, nanim, L->dc_const, L->dc_anim);
        goto done;
    }

    /* Key times (checked in bounds above). */
    for (size_t i = 1; i < L->keys; i++)
        if (ak_load_u16(c->bytes + L->kt_off + 2 * i) <= ak_load_u16(c->bytes + L->kt_off + 2 * i - 2)) {
            ak_warn(c->job, (int64_t)(L->kt_off + 2 * i), "key time %zu does not increase", i);
            break;
        }

    /* Constant rotations: 48-bit quaternions in bone order. */
    if (nconst) {
        if (!L->const_off) {
            st = ak_fail(c->job, AK_E_DATA, (int64_t)L->flag_off, "%zu constant rotations but no constant-rotation section", nconst);
            goto done;
        }
        ak_reader cr;
        ak_reader_init(&cr, c->job, c->bytes, span_end(c, L, L->const_off));
        cr.pos = L->const_off;
        if (!ak_need_array(&cr, nconst, 6, "constant rotations")) {
            st = AK_E_DATA;
            goto done;
        }
        for (size_t i = 0; i < nconst; i++) {
            const unsigned char *q = c->bytes + L->const_off + 6 * i;
            ak_track *t = tracks[cbones[i]];
            ak_key *k = ak_key_add(t, AK_ROTATION);
            if (!k) {
                st = mab_oom(c);
                goto done;
            }
            mab_quat48(q, 0, k->v);
            if (ak_key_set_raw(t, k, q, 6) != AK_OK) {
                st = mab_oom(c);
                goto done;
            }
        }
    }

    /* The rotation bitstream. */
    if (nanim) {
        if (!L->rot_off || L->keys == 0) {
            st = ak_fail(c->job, AK_E_DATA, (int64_t)L->flag_off, "%zu bitstream rotations but no %s", nanim,
                         L->keys ? "JointRotations section" : "key times");
            goto done;
        }
        stream_job sj = { "joint rotations", 0, nanim, abones, abits, NULL, 6 + 48 };
        st = decode_stream(c, L, L->rot_off, &sj, tracks, 1);
        if (st != AK_OK)
            goto done;
    }

    /* Joint translations: where the layout tells how (WD1/WD2/WDL/FC5). */
    if (natr) {
        st = joint_translations(c, L, tracks, tbones, natr, tbits, tscale);
        if (st != AK_OK)
            goto done;
    }
    if (nctr)
        ak_warn(c->job, (int64_t)L->flag_off,
                "%zu constant translations are not decoded (their encoding is unknown); kept as raw bytes",
                nctr);
    st = keep_spans(c, L, nconst);
done:
    ak_job_free(c->job, tracks);
    ak_job_free(c->job, cbones);
    ak_job_free(c->job, abones);
    ak_job_free(c->job, tbones);
    ak_job_free(c->job, abits);
    ak_job_free(c->job, tbits);
    ak_job_free(c->job, tscale);
    return st;
}

ak_status mab_read_family_d(mab_ctx *c, unsigned version)
{
    dlayout L;
    memset(&L, 0, sizeof L);
    L.version = version;
    ak_status st;
    switch (version) {
    case MAB_V_WDL: L.variant = "WDL"; st = header_wd(c, &L, 1); break;
    case MAB_V_WD2: L.variant = "WD2"; st = header_wd(c, &L, 1); break;
    case MAB_V_WD1: L.variant = "WD1"; st = header_wd(c, &L, 0); break;
    case MAB_V_FC4: L.variant = "FC4"; st = header_fc4(c, &L); break;
    case MAB_V_FC5: L.variant = "FC5"; st = header_fc5(c, &L); break;
    default: return ak_fail(c->job, AK_E_UNSUPPORTED, 0, "version 0x%04X is not a family-D .mab", version);
    }
    if (st != AK_OK)
        return st;
    if (ak_doc_set_format(c->doc, "mab", L.variant) != AK_OK)
        return mab_oom(c);
    return body(c, &L);
}
