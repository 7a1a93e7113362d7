/*
 * mab.h - internal interface of the Dunia / Disrupt .mab plugin.
 *
 * Two families (fact sheet mab.md):
 *  - family D (Watch Dogs 1, 2, Legion, Far Cry 4, 5): bone CRC-32 hashes,
 *    a flag byte per bone, u16 key times, the chunked JointRotations
 *    bitstream and 48-bit constant quaternions;
 *  - family S (Far Cry 2, 3, Blood Dragon): bone masks, 48-bit quaternions
 *    in groups of eight frames with presence bytes.
 *
 * The model: one clip named after the file; one track per bone (family D:
 * bone "" with the CRC-32 hash; FC2: the mask bit as bone id; FC3: one
 * track per constant / keyed slot, as the bytes that may map slots to bones
 * are undecoded). Animated rotations get one key per stored key time,
 * constant ones a single key at 0. Nothing is dropped: the header up to
 * the first array, every section the model does not hold, and the tails
 * after modelled arrays are doc props ("header", "section.N", "*.tail");
 * flag bytes are track props; each key keeps its stored integers.
 *
 * Readings the sheet leaves open, taken here and reported when they matter:
 *  - WDL/WD2/WD1/FC5 joint translations (flag 0x40) use compression entry
 *    dataCounts[1] + k for the k-th animated-translation bone (S1: entry
 *    1; or entry k when dataCounts[6] equals their count alone), and are
 *    only kept when every chunk ends exactly on its table boundary, else a
 *    warning; one shared decoder (read_d.c, joint_translations);
 *  - FC5 translations: stream at ad + offsets[6], entries at ad +
 *    offsets[0] (sheet 3.3), their counts at the WDL dataCounts indices
 *    [1], [5], [6] (the sheet confirms only [4] for FC5);
 *  - FC4's pointers at 0x28/0x2C are taken relative to 0x18 like its
 *    offsets; FC4 translations and constant translations everywhere are
 *    not decoded (warning, raw bytes kept);
 *  - FC2's last keyed group ends with its section (sheet 11.15).
 */
#ifndef ANIMKIT_MAB_H
#define ANIMKIT_MAB_H

#include <animkit/plugin.h>

#include <math.h>
#include <string.h>

/* Version words (u16 at offset 0). */
#define MAB_V_FC2 0x004Cu
#define MAB_V_FC3 0x0061u
#define MAB_V_FC3BD 0x0062u
#define MAB_V_FC4 0x0081u
#define MAB_V_PRIMAL 0x0082u
#define MAB_V_FC5 0x00B0u
#define MAB_V_WD1 0x329Bu
#define MAB_V_WD2 0x46AFu
#define MAB_V_WDL 0x46B4u

const ak_codec *mab_codec(void);

/* Name of a version word ("Watch Dogs Legion"...), or NULL if unknown. */
const char *mab_version_name(unsigned version);

/* ---- bit reading (bits.c) ---------------------------------------------- */

/* LSB-first bit reader over [data, data + size); bits past the end read 0
 * and set `over`. */
typedef struct mab_bits {
    const unsigned char *data;
    size_t size;
    uint64_t pos; /* in bits from data */
    int over;
} mab_bits;

void mab_bits_init(mab_bits *b, const unsigned char *data, size_t size);

/* The 8 bytes from `byte` on as a little-endian word; bytes past the end
 * read as 0. */
static inline uint64_t mab_bits_window(const mab_bits *b, uint64_t byte)
{
    uint64_t w = 0;
    if (byte < b->size && b->size - byte >= 8) {
        const unsigned char *p = b->data + byte;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(&w, p, sizeof w); /* one load (gcc -O2 keeps the loop below byte by byte) */
#else
        for (int i = 7; i >= 0; i--)
            w = w << 8 | p[i];
#endif
        return w;
    }
    for (uint64_t i = 0; byte + i < b->size && i < 8; i++)
        w |= (uint64_t)b->data[byte + i] << (8 * i);
    return w;
}

/* The next n <= 32 bits. One 64-bit window holds any n <= 32 bits at any
 * of the 8 bit offsets within a byte (7 + 32 < 64): one load and a shift
 * per call; inline because the decoder calls it for every field. */
static inline uint32_t mab_bits_get(mab_bits *b, unsigned n)
{
    if (!n)
        return 0;
    uint64_t w = mab_bits_window(b, b->pos >> 3) >> (b->pos & 7);
    if (b->pos + n > (uint64_t)b->size * 8)
        b->over = 1;
    b->pos += n;
    return (uint32_t)(w & (UINT64_MAX >> (64 - n)));
}

/* 1 when the next `n` bits and a whole 64-bit window past them lie in
 * the data: mab_bits_get_in() may then take them without checks. */
static inline int mab_bits_room(const mab_bits *b, uint64_t n)
{
    uint64_t total = (uint64_t)b->size * 8;
    return b->pos <= total && n <= total - b->pos && total - b->pos - n >= 64;
}

/* mab_bits_get() for bits mab_bits_room() vouched for (n <= 32). */
static inline uint32_t mab_bits_get_in(mab_bits *b, unsigned n)
{
    uint64_t w;
    memcpy(&w, b->data + (b->pos >> 3), sizeof w);
    w >>= b->pos & 7;
    b->pos += n;
    return (uint32_t)(w & (((uint64_t)1 << n) - 1));
}

/* S[b] of the sheet's table (b = 0..16), inline: read for every
 * component of every block. */
extern const double mab_slope_table[17];
static inline double mab_slope_scale(unsigned bits) { return bits <= 16 ? mab_slope_table[bits] : 0.0; }

/* Decodes a 48-bit quaternion (sheet section 7) into x, y, z, w.
 * `w2_signed`: family S reads the third word as int16. */
void mab_quat48(const unsigned char *p, int w2_signed, double q[4]);

/* Builds a rotation from three stored components, the implicit index and
 * the sign bit (sheet section 6, reconstruction). */
/* Inline: called once per decoded rotation key. */
static inline void mab_quat_rebuild(const double stored[3], unsigned implicit, int negative, double q[4])
{
    double v[3] = { stored[0], stored[1], stored[2] };
    double s = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    double r = 0.0;
    if (s <= 1.0) {
        r = sqrt(1.0 - s);
    } else {
        double n = sqrt(s);
        v[0] /= n, v[1] /= n, v[2] /= n;
    }
    if (negative)
        r = -r;
    implicit &= 3u;
    for (unsigned c = 0; c < 3; c++)
        q[c < implicit ? c : c + 1] = v[c];
    q[implicit] = r;
}

/* ---- reading --------------------------------------------------------- */

/* Per-read state shared by the family readers. */
typedef struct mab_ctx {
    ak_job *job;
    const unsigned char *bytes;
    size_t size;
    ak_doc *doc;
    ak_clip *clip;
} mab_ctx;

/* Props helpers: each returns 0 and fails the job when out of memory. */
int mab_prop_int(mab_ctx *c, ak_props *props, const char *key, int64_t v);
int mab_prop_float(mab_ctx *c, ak_props *props, const char *key, double v);
int mab_prop_bytes(mab_ctx *c, ak_props *props, const char *key, size_t off, size_t n);
int mab_prop_string(mab_ctx *c, ak_props *props, const char *key, const char *v);
/* Fails the job with AK_E_NOMEM unless it already failed. */
ak_status mab_oom(mab_ctx *c);

/* The codec's read entry (read.c). */
ak_status mab_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc);

ak_status mab_read_family_d(mab_ctx *c, unsigned version);
ak_status mab_read_family_s(mab_ctx *c, unsigned version);

/* Offset of the first 'aNi' block header an FC5 file would use, or
 * (size_t)-1. Scans at most `limit` bytes. Used by the probe too. */
size_t mab_fc5_find_block(const unsigned char *bytes, size_t size, size_t limit, unsigned *bones);

#endif
