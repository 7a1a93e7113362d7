/* read.c - decoding EANM files (sheet §1-§10) into one clip.
 *
 * Time: the frame rate is not stored anywhere (§10). Frame numbers are the
 * native ticks (key.tick); seconds assume the read parameter fps (default
 * 30 frames per second, an assumption): time = frame / fps, tick_rate =
 * fps, frame_rate = 0 (not stored).
 *
 * The file is walked once into a flat list of records (one per FRM2/FRM3
 * key or FRMN BONE block) and the layout property (chunk headers and the
 * bone of each record, in file order), then keys are built per bone in
 * frame order. */
#include "anm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One record, kept small (there is one per key group of the file): the
 * payload offsets follow from off, kind, flags and order (payload_of). */
typedef struct rec {
    size_t off;         /* FRM2/FRM3: the bone byte; FRMN: the 'BONE' tag */
    uint32_t frame, bone;
    uint32_t mesh_size;
    uint16_t flags;     /* FRM2/3 flags, or synthesised for FRMN */
    uint8_t kind;       /* ANM_TAG_* */
    uint8_t order;      /* FRMN sub-chunk order */
} rec;

/* The chunk being read. Its layout entry (see ANM_P_LAYOUT) is written
 * as it is read: the header when it opens, a bone per record, the count
 * when it closes. Written in the walk, the layout took no pass of its own
 * over chunks of one or two records (files that key a bone or two a frame
 * have such chunks by the dozen). */
typedef struct chunk {
    uint8_t kind;
    uint32_t frame;
    size_t head;  /* its header's offset in the layout */
    size_t count; /* records */
} chunk;

#define ANM_LAYOUT_HEAD 9 /* kind u8, frame u32, record count u32 */

/* reader_start sets every field. */
typedef struct reader_state {
    ak_job *job;
    ak_reader r;
    const unsigned char *data;
    uint32_t bones;
    uint32_t frms;
    rec *recs;
    size_t nrec, caprec;
    int presized;       /* presize_lists has run */
    unsigned char *lay; /* the layout property, as it is read */
    size_t nlay, caplay;
    rec *sorted;       /* sort_records: copies of recs in bone order */
    size_t *bone_end; /* while reading: [b + 1] counts bone b's records; then sort_records */
    uint64_t *tallies;  /* per bone: its records' keys, as lanes (tally_of) */
    int tallied;        /* no FRMN block nor mesh: the tallies hold every key */
} reader_state;

static int is_tag(const ak_reader *r, const char *tag)
{
    return ak_left(r) >= 4 && memcmp(r->data + r->pos, tag, 4) == 0;
}

/* A printable rendering of the 4 bytes at `p` for messages. */
static void tag_text(const unsigned char *p, size_t n, char out[20])
{
    size_t o = 0;
    for (size_t i = 0; i < n && i < 4; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
            out[o++] = (char)p[i];
        else
            o += (size_t)snprintf(out + o, 5, "\\x%02x", p[i]);
    }
    out[o] = '\0';
}

/* `list` (holding `used` bytes) moved to a new block of `count` x `size`
 * bytes, or NULL (the old block is then kept). ak_job_realloc would also
 * clear the new part, which the scratch lists only ever write (horse.anm:
 * about 40,000 instructions a read, 2 %, went to growing the layout so;
 * hmmwv: 2,700 of 150,000 to growing the records). */
static void *grow_uninit(ak_job *job, void *list, size_t used, size_t count, size_t size)
{
    void *p = ak_job_alloc_uninit(job, count, size);
    if (!p)
        return NULL;
    if (used)
        memcpy(p, list, used);
    ak_job_free(job, list);
    return p;
}

static int reserve_recs(reader_state *st, size_t cap)
{
    rec *p = grow_uninit(st->job, st->recs, st->nrec * sizeof *p, cap, sizeof *p);
    if (!p)
        return 0;
    st->recs = p;
    st->caprec = cap;
    return 1;
}

static inline void set_rec(rec *x, size_t off, uint32_t frame, uint32_t bone, uint8_t kind, uint16_t flags)
{
    x->off = off;
    x->frame = frame;
    x->bone = bone;
    x->mesh_size = 0;
    x->flags = flags;
    x->kind = kind;
    x->order = 0;
}

/* What an FRM2/FRM3 record without a mesh adds to its bone's tally: one
 * 12-bit lane a channel (lane c counts channel c's keys) and a fifth for
 * the mirror bit, indexed by its flags. Counted as the walk takes each
 * record, they spare build_track a pass over the bone's records (hmmwv
 * read 3 % faster in the benchmark, bench/HISTORY.md, thirty-third
 * round). A lane holds 4095: a bone with more records is tallied record
 * by record, and so is every bone of a file with an FRMN block or a mesh,
 * whose keys the flags alone do not give. tally() counts an FRM2/FRM3
 * record through the same table, so that the rules live here alone. */
#define TALLY_LANE_MAX 0xFFFu
#define TALLY_MIRROR_LANE 4
#define TALLY_BIT(f, bits, lane) ((uint64_t)!!((f) & (bits)) << (12 * (lane)))
#define TALLY_OF(f)                                                                                            \
    (TALLY_BIT(f, ANM_F_ROT, AK_ROTATION) | TALLY_BIT(f, ANM_F_POS, AK_TRANSLATION) |                          \
     TALLY_BIT(f, ANM_F_SCALE, AK_SCALE) | TALLY_BIT(f, ANM_F_VIS_ON | ANM_F_VIS_OFF, AK_VISIBILITY) |         \
     TALLY_BIT(f, ANM_F_MIRROR, TALLY_MIRROR_LANE))
#define TALLY_OF4(f) TALLY_OF(f), TALLY_OF((f) + 1), TALLY_OF((f) + 2), TALLY_OF((f) + 3)
#define TALLY_OF16(f) TALLY_OF4(f), TALLY_OF4((f) + 4), TALLY_OF4((f) + 8), TALLY_OF4((f) + 12)
static const uint64_t tally_of[ANM_F_KNOWN + 1] = {
    TALLY_OF16(0), TALLY_OF16(16), TALLY_OF16(32), TALLY_OF16(48),
    TALLY_OF16(64), TALLY_OF16(80), TALLY_OF16(96), TALLY_OF16(112),
};

/* The bytes an FRM2/FRM3 key stores, by channel: three float32s, or the
 * record's visibility bits. */
static const unsigned char frm2_key_bytes[AK_CHANNELS] = {
    [AK_ROTATION] = 12, [AK_TRANSLATION] = 12, [AK_SCALE] = 12, [AK_VISIBILITY] = 1
};

static inline size_t tally_lane(uint64_t tally, int lane) { return (size_t)(tally >> (12 * lane) & TALLY_LANE_MAX); }

/* Adds what a tally counts to the keys and stored bytes of each channel
 * (a channel at a time, so that each size is a constant). */
static inline void add_lane(uint64_t tally, int c, size_t keys[AK_CHANNELS], size_t raw[AK_CHANNELS])
{
    size_t k = tally_lane(tally, c);
    keys[c] += k;
    raw[c] += k * frm2_key_bytes[c];
}

static inline void add_tally(uint64_t tally, size_t keys[AK_CHANNELS], size_t raw[AK_CHANNELS])
{
    add_lane(tally, AK_ROTATION, keys, raw);
    add_lane(tally, AK_TRANSLATION, keys, raw);
    add_lane(tally, AK_SCALE, keys, raw);
    add_lane(tally, AK_VISIBILITY, keys, raw);
}

/* Room for `n` more records: doubling from 64, or to exactly what is
 * asked when that is more. Each record takes at least 3 input bytes and
 * callers ask only for records the input holds, so the growth is bounded
 * by the input size. */
static int room_for_recs(reader_state *st, size_t n)
{
    if (n <= st->caprec - st->nrec)
        return 1;
    size_t want = st->caprec ? st->caprec * 2 : 64;
    return reserve_recs(st, want < st->nrec + n ? st->nrec + n : want);
}

/* Room for `n` more layout bytes: doubling from 256, or to exactly what
 * is asked when that is more. Every layout byte stands for input bytes (a
 * chunk header of 9 for at least 6, a record's 4 for at least 3), so the
 * growth is bounded by the input size. */
static int grow_layout(reader_state *st, size_t n)
{
    size_t want = st->caplay ? st->caplay * 2 : 256;
    if (want < st->nlay + n)
        want = st->nlay + n;
    unsigned char *p = grow_uninit(st->job, st->lay, st->nlay, want, 1);
    if (!p)
        return 0;
    st->lay = p;
    st->caplay = want;
    return 1;
}

static inline int room_for_layout(reader_state *st, size_t n)
{
    return n <= st->caplay - st->nlay || grow_layout(st, n);
}

/* A chunk's layout header at `h`; the count is set again when a chunk
 * read record by record closes. */
static inline void put_chunk_head(unsigned char *h, uint8_t kind, uint32_t frame, size_t count)
{
    h[0] = kind;
    ak_poke_u32(h + 1, frame);
    ak_poke_u32(h + 5, (uint32_t)count);
}

/* Opens chunk `c` with its header in the layout (its records make room
 * for themselves, one by one). */
static inline int open_chunk(reader_state *st, chunk *c, uint8_t kind, uint32_t frame)
{
    if (!room_for_layout(st, ANM_LAYOUT_HEAD))
        return 0;
    put_chunk_head(st->lay + st->nlay, kind, frame, 0);
    c->kind = kind;
    c->frame = frame;
    c->head = st->nlay;
    c->count = 0;
    st->nlay += ANM_LAYOUT_HEAD;
    return 1;
}

static inline void close_chunk(reader_state *st, const chunk *c)
{
    ak_poke_u32(st->lay + c->head + 5, (uint32_t)c->count);
}

static inline rec *new_rec(reader_state *st, size_t off, uint32_t frame, uint32_t bone, uint8_t kind, uint16_t flags)
{
    if ((st->nrec == st->caprec && !room_for_recs(st, 1)) || !room_for_layout(st, 4))
        return NULL;
    rec *x = &st->recs[st->nrec++];
    st->bone_end[bone + 1]++;
    if (kind == ANM_TAG_FRMN || (flags & ANM_F_MESH))
        st->tallied = 0;
    else
        st->tallies[bone] += tally_of[flags];
    set_rec(x, off, frame, bone, kind, flags);
    ak_poke_u32(st->lay + st->nlay, bone);
    st->nlay += 4;
    return x;
}

/* Bytes of an FRM2/FRM3 key record without a mesh: bone, flags and a
 * float[3] per POS, ROT and SCALE bit, indexed by key_shape(). */
static const unsigned char key_size[8] = { 3, 15, 15, 27, 15, 27, 27, 39 };

static inline unsigned key_shape(unsigned flags)
{
    return (flags & (ANM_F_POS | ANM_F_ROT)) | (flags & ANM_F_SCALE) >> 4;
}

/* Offsets of a record's payloads; SIZE_MAX where it has none. */
typedef struct payload {
    size_t pos, rot, scale; /* float[3] each; FRMN: rot = the MATR rows, pos = its last row */
    size_t visi;            /* FRMN: the VISI int32 */
    size_t mesh;            /* the mesh body */
} payload;

static inline payload payload_of(const rec *x)
{
    payload p = { SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX };
    if (x->kind != ANM_TAG_FRMN) {
        size_t at = x->off + 3; /* §8: pos, rot, scale, mesh in this order */
        if (x->flags & ANM_F_POS) {
            p.pos = at;
            at += 12;
        }
        if (x->flags & ANM_F_ROT) {
            p.rot = at;
            at += 12;
        }
        if (x->flags & ANM_F_SCALE) {
            p.scale = at;
            at += 12;
        }
        if (x->flags & ANM_F_MESH)
            p.mesh = at + 4;
        return p;
    }
    size_t at = x->off + 8; /* 'BONE', u32 bone, then the sub-chunks in file order */
    for (int i = 0; i < 3; i++) {
        int code = (x->order >> (2 * i)) & 3;
        if (code == ANM_SUB_END)
            break;
        at += 4;
        if (code == ANM_SUB_MATR) {
            p.rot = at;
            p.pos = at + 36;
            at += 48;
        } else if (code == ANM_SUB_VISI) {
            p.visi = at;
            at += 4;
        } else {
            p.mesh = at + 4;
            at += 4 + (size_t)x->mesh_size;
        }
    }
    return p;
}

static int check_bone(reader_state *st, uint32_t bone, size_t off)
{
    if (bone >= st->bones) {
        ak_fail(st->job, AK_E_DATA, (int64_t)off, "bone index %u is outside BMAP (%u bones)", bone,
                st->bones);
        return 0;
    }
    return 1;
}

/* One FRM2 / FRM3 key record (§7, §8), every field checked. */
static int read_key(reader_state *st, chunk *c)
{
    ak_reader *r = &st->r;
    size_t off = r->pos;
    uint8_t bone = ak_take_u8(r, "byte");
    uint16_t flags = ak_take_u16(r, "16-bit value");
    if (r->failed || !check_bone(st, bone, off))
        return 0;
    if (flags & ~ANM_F_KNOWN) {
        ak_fail(st->job, AK_E_UNSUPPORTED, (int64_t)off + 1,
                "key flags 0x%04x set bits above 0x40 whose payload is undocumented", flags);
        return 0;
    }
    rec *x = new_rec(st, off, c->frame, bone, c->kind, flags);
    if (!x)
        return 0;
    if (flags & ANM_F_POS)
        ak_take(r, 12, "position");
    if (flags & ANM_F_ROT)
        ak_take(r, 12, "orientation");
    if (flags & ANM_F_SCALE)
        ak_take(r, 12, "scale");
    if (flags & ANM_F_MESH) {
        uint32_t size = ak_take_u32(r, "32-bit value");
        x->mesh_size = size;
        ak_take(r, size, "mesh payload");
    }
    if (r->failed)
        return 0;
    c->count++;
    return 1;
}

/* The largest key record without a mesh: 3 bytes of bone and flags and
 * three float[3] payloads. */
#define ANM_KEY_MAX 39

/* Records k.. of a chunk of `count` (§7, §8), one by one: FRM3 chunks,
 * and what the run below leaves of an FRM2 chunk (from a record with a
 * mesh, or near the end of the input). */
static int keys_from(reader_state *st, chunk *c, size_t k, size_t count)
{
    for (; k < count; k++)
        if (!read_key(st, c))
            return 0;
    return 1;
}

/* FRM2 / FRM3 keys after the frame number: the count, then the records. */
static int read_keys(reader_state *st, chunk *c)
{
    ak_reader *r = &st->r;
    uint8_t count = ak_take_u8(r, "byte");
    /* The library call only to report: a chunk's worth of calls was a
     * tenth of reading a file of many small chunks. */
    if ((size_t)count * 3 > ak_left(r) && !ak_need_array(r, count, 3, "FRM2/FRM3 keys"))
        return 0;
    if (r->failed)
        return 0;
    return keys_from(st, c, 0, count);
}

/* FRMN BONE blocks (§6). */
static int read_bones(reader_state *st, chunk *c)
{
    ak_reader *r = &st->r;
    while (is_tag(r, "BONE")) {
        size_t off = r->pos;
        ak_take(r, 4, "BONE");
        uint32_t bone = ak_take_u32(r, "32-bit value");
        if (r->failed || !check_bone(st, bone, off + 4))
            return 0;
        rec *x = new_rec(st, off, c->frame, bone, ANM_TAG_FRMN, 0);
        if (!x)
            return 0;
        int nsub = 0;
        for (;;) {
            size_t soff = r->pos;
            int code = is_tag(r, "MATR") ? ANM_SUB_MATR
                       : is_tag(r, "VISI") ? ANM_SUB_VISI
                       : is_tag(r, "MESH") ? ANM_SUB_MESH
                                           : ANM_SUB_END;
            if (code == ANM_SUB_END)
                break;
            for (int i = 0; i < nsub; i++)
                if (((x->order >> (2 * i)) & 3) == code) {
                    ak_fail(st->job, AK_E_UNSUPPORTED, (int64_t)soff,
                            "BONE block of bone %u holds a second %.4s sub-chunk (not supported)", bone,
                            (const char *)r->data + soff);
                    return 0;
                }
            x->order = (uint8_t)(x->order | code << (2 * nsub));
            nsub++;
            ak_take(r, 4, "sub-chunk tag");
            if (code == ANM_SUB_MATR) {
                x->flags |= ANM_F_POS | ANM_F_ROT;
                ak_take(r, 48, "MATR");
            } else if (code == ANM_SUB_VISI) {
                int32_t v = ak_i32(r);
                x->flags |= v ? ANM_F_VIS_ON : ANM_F_VIS_OFF;
            } else {
                uint32_t size = ak_take_u32(r, "32-bit value");
                x->mesh_size = size;
                x->flags |= ANM_F_MESH;
                ak_take(r, size, "MESH payload");
            }
            if (r->failed)
                return 0;
        }
        c->count++;
    }
    return 1;
}

static int frame_width(uint32_t frms)
{
    uint32_t max = frms - 1;
    return max <= 0xFFu ? 1 : max <= 0xFFFFu ? 2 : 4;
}

/* After the first chunk with records: room for as many records and
 * layout bytes as the rest of the input holds at the density so far
 * (never more than a record per 3 bytes, or 3 layout bytes per 2),
 * instead of doubling from a few dozen. */
static int presize_lists(reader_state *st, size_t start)
{
    const ak_reader *r = &st->r;
    size_t used = r->pos - start, left = r->size - r->pos;
    if (!used || !st->nrec)
        return 1;
    size_t est = st->nrec + left / 3;
    if (left / used < est / st->nrec) /* no overflow: left / used <= left */
        est = st->nrec + st->nrec * (left / used + 1);
    if (est > st->caprec && !reserve_recs(st, est))
        return 0;
    size_t lay = st->nlay + left + left / 2;
    if (left / used < lay / st->nlay) /* nlay >= 13: a header and a record */
        lay = st->nlay + st->nlay * (left / used + 1);
    return room_for_layout(st, lay - st->nlay);
}

/* 1 if an FRM2 chunk starts at `p`, `left` bytes from the end, and the
 * records its count announces fit at their smallest (else read_keys
 * reports that count). */
static inline int frm2_chunk_at(const unsigned char *p, size_t left)
{
    return left >= 7 && memcmp(p, "FRM2", 4) == 0 && (size_t)p[6] * 3 <= left - 7;
}

/* Records the run below can still take without growing a list: each
 * chunk takes at most count + 3 of these (count records; 9 + 4 x count
 * layout bytes, counted in fours). */
static inline size_t run_room(const reader_state *st)
{
    size_t recs = st->caprec - st->nrec, lay = (st->caplay - st->nlay) / 4;
    return recs < lay ? recs : lay;
}

/* The reader state brought up to the run's cursors. */
static inline void run_sync(reader_state *st, size_t pos, const rec *x, const unsigned char *lw)
{
    st->r.pos = pos;
    st->nrec = (size_t)(x - st->recs);
    st->nlay = (size_t)(lw - st->lay);
}

/* The lists sized for the rest of the file, once, after the first chunk
 * that gives records (presize_lists). */
static inline int presize_once(reader_state *st, size_t start)
{
    if (st->presized || !st->nrec)
        return 1;
    st->presized = 1;
    return presize_lists(st, start);
}

/* A run of FRM2 chunks (most files are one such run), read in one loop
 * over chunks and records with what it needs in locals: the lists as
 * write cursors and one budget for both (run_room). Through the reader
 * state and a call per chunk, a file of one-record chunks (a bone or two
 * keyed a frame) spent more on each chunk than on its record. The first
 * time the budget runs out, the lists are sized for the rest of the file
 * (presize_lists) at the density read so far. Stops before the first
 * chunk frm2_chunk_at does not take, or within a chunk at the first
 * record that might not fit at its largest or has a mesh, a bad bone or
 * unknown flags (keys_from reads or reports the rest of that chunk). */
static int read_frm2_run(reader_state *st, size_t start)
{
    const unsigned char *d = st->r.data;
    const size_t size = st->r.size;
    const uint32_t bones = st->bones;
    size_t *per_bone = st->bone_end + 1;
    uint64_t *tallies = st->tallies;
    size_t pos = st->r.pos, room = run_room(st), last_size = key_size[0];
    uint16_t last_flags = 0;
    rec *x = st->recs + st->nrec;
    unsigned char *lw = st->lay + st->nlay;
    /* Where a record still fits at its largest: beyond, read_key reads
     * with every bound checked (no record starts at 0). */
    const size_t last_fit = size >= ANM_KEY_MAX ? size - ANM_KEY_MAX : 0;
    while (frm2_chunk_at(d + pos, size - pos)) {
        size_t count = d[pos + 6];
        uint32_t frame = ak_peek_u16(d + pos + 4);
        if (count + 3 > room) {
            run_sync(st, pos, x, lw);
            if (!presize_once(st, start) || !room_for_recs(st, count + 3) || !room_for_layout(st, 4 * (count + 3)))
                return 0;
            x = st->recs + st->nrec;
            lw = st->lay + st->nlay;
            room = run_room(st);
        }
        room -= count + 3;
        put_chunk_head(lw, ANM_TAG_FRM2, frame, count); /* as announced: the loop reads all or leaves */
        lw += ANM_LAYOUT_HEAD;
        pos += 7;
        rec *stop = x + count;
        for (; x < stop; x++, lw += 4) {
            if (pos > last_fit)
                break;
            const unsigned char *p = d + pos;
            uint32_t bone = p[0];
            uint16_t flags = (uint16_t)(p[1] | p[2] << 8); /* LE, as ak_load_u16 */
            if (bone >= bones || (flags & (uint16_t)~ANM_F_KNOWN) || (flags & ANM_F_MESH))
                break;
            per_bone[bone]++;
            tallies[bone] += tally_of[flags];
            set_rec(x, pos, frame, bone, ANM_TAG_FRM2, flags);
            ak_poke_u32(lw, bone);
            /* Records of a chunk mostly share their flags: comparing with the
             * last record's lets the processor predict where the next record
             * starts instead of waiting for this one's flags (measured). */
            if (flags != last_flags) {
                last_flags = flags;
                last_size = key_size[key_shape(flags)];
            }
            pos += last_size;
        }
        if (x != stop) {
            size_t k = count - (size_t)(stop - x);
            run_sync(st, pos, x, lw);
            chunk c = { ANM_TAG_FRM2, frame, st->nlay - 4 * k - ANM_LAYOUT_HEAD, k };
            if (!keys_from(st, &c, k, count))
                return 0;
            close_chunk(st, &c);
            return 1;
        }
    }
    run_sync(st, pos, x, lw);
    return 1;
}

/* The layout's first block: a byte per input byte, up to 4 KiB. Real
 * files' layouts take at most about half that (t62.anm: 829 bytes for
 * 1,611), so a small file's fits and leaves the job's stack scratch the
 * room the records list needs; taken before that list, which then grows
 * in place. Both lists exist before the first chunk: the run's cursors
 * start from them. */
#define ANM_LAYOUT_FIRST 4096

static int read_frames(reader_state *st)
{
    ak_reader *r = &st->r;
    size_t start = r->pos, left = ak_left(r);
    if (!room_for_layout(st, left < ANM_LAYOUT_FIRST ? left : ANM_LAYOUT_FIRST) || !room_for_recs(st, 1))
        return 0;
    while (!r->failed && ak_left(r) > 0) {
        if (!presize_once(st, start)) /* after chunks the run did not read */
            return 0;
        size_t off = r->pos;
        if (frm2_chunk_at(r->data + off, ak_left(r))) {
            if (!read_frm2_run(st, start))
                return 0;
            continue;
        }
        if (ak_left(r) < 4 && !ak_need(r, 4, "chunk tag"))
            return 0;
        if (is_tag(r, "FRMN")) {
            ak_take(r, 4, NULL);
            uint32_t frame = ak_take_u32(r, "32-bit value");
            chunk c;
            if (r->failed || !open_chunk(st, &c, ANM_TAG_FRMN, frame) || !read_bones(st, &c))
                return 0;
            close_chunk(st, &c);
        } else if (is_tag(r, "FRM2")) {
            ak_take(r, 4, NULL);
            uint16_t frame = ak_take_u16(r, "16-bit value");
            chunk c;
            if (r->failed || !open_chunk(st, &c, ANM_TAG_FRM2, frame) || !read_keys(st, &c))
                return 0;
            close_chunk(st, &c);
        } else if (is_tag(r, "FRM3")) {
            if (st->frms == 0) {
                ak_fail(st->job, AK_E_UNSUPPORTED, (int64_t)off,
                        "FRM3 chunk but FRMS is 0: the frame-number width is undefined");
                return 0;
            }
            ak_take(r, 4, NULL);
            int w = frame_width(st->frms);
            uint32_t frame = w == 1   ? ak_take_u8(r, "byte")
                             : w == 2 ? ak_take_u16(r, "16-bit value")
                                      : ak_take_u32(r, "32-bit value");
            chunk c;
            if (r->failed || !open_chunk(st, &c, ANM_TAG_FRM3, frame) || !read_keys(st, &c))
                return 0;
            close_chunk(st, &c);
        } else {
            char t[20];
            tag_text(r->data + off, 4, t);
            const char *hint = is_tag(r, "BONE") || is_tag(r, "MATR") || is_tag(r, "VISI") ||
                                       is_tag(r, "MESH")
                                   ? " outside an FRMN frame"
                               : is_tag(r, "FRMS") || is_tag(r, "BMAP") || is_tag(r, "CMNT")
                                   ? " after the frames began"
                                   : "";
            ak_fail(st->job, AK_E_DATA, (int64_t)off, "unexpected chunk tag '%s'%s (expected FRMN, FRM2 or FRM3)",
                    t, hint);
            return 0;
        }
    }
    return !r->failed;
}

static int cmp_rec(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->bone != y->bone)
        return x->bone < y->bone ? -1 : 1;
    if (x->frame != y->frame)
        return x->frame < y->frame ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off; /* file order */
}

static int in_bone_order(const rec *recs, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (recs[i].bone < recs[i - 1].bone)
            return 0;
    return 1;
}

/* The records ordered by bone, then frame, then file order (st->sorted,
 * so that each bone's records lie together for the passes of build_track;
 * bone b's run ends at st->bone_end[b]): copies by a counting sort by bone
 * (stable, so file order within a bone) unless the file already lists
 * them so (then st->sorted is st->recs, whose layout pass reads only the
 * bone, which a sort within one bone's run leaves as it is), then a sort
 * by frame of only those bones whose frames the file does not already
 * list in strictly ascending order (files write frame after frame, so
 * that is rare). Only such a bone can be keyed twice in one frame number,
 * which cannot be one key per channel and frame: refused. `*max_frame` is
 * the highest frame number. */
static ak_status sort_records(reader_state *st, uint32_t *max_frame)
{
    size_t *next = st->bone_end; /* next[b + 1]: bone b's records, counted as they were read */
    /* The running sum in a register: summed in place, each step waited on
     * the store of the one before (a twelfth of a 44-bone file's read). */
    size_t run = next[0];
    for (uint32_t b = 0; b < st->bones; b++)
        next[b + 1] = run += next[b + 1];
    if (st->nrec && in_bone_order(st->recs, st->nrec)) { /* one bone's file, say: no copies */
        st->sorted = st->recs;
        for (uint32_t b = 0; b < st->bones; b++)
            next[b] = next[b + 1];
    } else {
        rec *sorted = ak_job_alloc_uninit(st->job, st->nrec, sizeof *sorted); /* each slot set once */
        st->sorted = sorted;
        if (!sorted)
            return AK_E_NOMEM;
        for (size_t i = 0; i < st->nrec; i++)
            sorted[next[st->recs[i].bone]++] = st->recs[i];
    }
    rec *sorted = st->sorted;
    /* next[b] is now where bone b's run ends. */
    uint32_t last_frame = 0;
    size_t from = 0;
    for (uint32_t b = 0; b < st->bones; b++) {
        size_t to = next[b];
        for (size_t i = from + 1; i < to; i++)
            if (sorted[i].frame <= sorted[i - 1].frame) {
                qsort(sorted + from, to - from, sizeof *sorted, cmp_rec);
                for (size_t j = from + 1; j < to; j++)
                    if (sorted[j].frame == sorted[j - 1].frame) {
                        const rec *x = sorted[j].off > sorted[j - 1].off ? &sorted[j] : &sorted[j - 1];
                        return ak_fail(st->job, AK_E_UNSUPPORTED, (int64_t)x->off,
                                       "bone %u is keyed twice at frame %u (not supported)", x->bone, x->frame);
                    }
                break;
            }
        if (to > from && sorted[to - 1].frame > last_frame)
            last_frame = sorted[to - 1].frame;
        from = to;
    }
    *max_frame = last_frame;
    return AK_OK;
}

/* Little-endian float32s, inline: every key payload goes through here. */
static void load_floats(const unsigned char *p, float *out, int n)
{
    for (int i = 0; i < n; i++, p += 4)
        out[i] = ak_peek_f32(p);
}

/* Keys per channel, and their stored bytes, that a record gives: an
 * FRM2/FRM3 record's by tally_of, an FRMN record's here (the scale keys
 * build_track adds to FRMN records store no bytes). */
static void tally(const rec *x, size_t keys[AK_CHANNELS], size_t raw[AK_CHANNELS])
{
    if (x->kind != ANM_TAG_FRMN) {
        add_tally(tally_of[x->flags & ANM_F_KNOWN], keys, raw);
        return;
    }
    if (x->flags & ANM_F_POS) {
        keys[AK_TRANSLATION]++;
        raw[AK_TRANSLATION] += 12; /* the MATR's last row */
    }
    if (x->flags & ANM_F_ROT) {
        keys[AK_ROTATION]++;
        raw[AK_ROTATION] += 36; /* the MATR rows */
    }
    if (x->flags & ANM_F_SCALE)
        keys[AK_SCALE]++; /* derived from the MATR: no bytes of its own */
    if (x->flags & (ANM_F_VIS_ON | ANM_F_VIS_OFF)) {
        keys[AK_VISIBILITY]++;
        raw[AK_VISIBILITY] += 4; /* VISI int32 */
    }
}

/* Where one channel's keys of a track go: handed out in order, their
 * stored bytes packed back to back, so that a run of keys whose stored
 * bytes have one size gets them with one ak_keys_set_raw call. */
typedef struct chan_fill {
    ak_key *next, *end;
    unsigned char *raw;          /* where the next key's bytes go */
    ak_key *run;                 /* the first key of the pending run */
    const unsigned char *run_raw;
    size_t run_size;             /* SIZE_MAX: no run yet */
} chan_fill;

static void fill_init(chan_fill *cf, ak_key *keys, size_t count, unsigned char *raw)
{
    cf->next = cf->run = keys;
    cf->end = count ? keys + count : keys;
    cf->raw = raw;
    cf->run_raw = raw;
    cf->run_size = SIZE_MAX;
}

/* Attaches the pending run's bytes (its keys' values are set by now). */
static ak_status fill_flush(chan_fill *cf)
{
    ak_status s = AK_OK;
    if (cf->next != cf->run)
        s = ak_keys_set_raw(cf->run, (size_t)(cf->next - cf->run), cf->run_raw, cf->run_size, cf->run_size);
    cf->run = cf->next;
    cf->run_raw = cf->raw;
    return s;
}

/* 1 when `a`'s pending run ends its channel and `b`'s begins right after
 * it, keys and stored bytes both, with bytes of one size: one
 * ak_keys_set_raw() call then attaches the two (a bone's rotation and
 * translation keys of FRM2 records, which ak_track_keys_append_uninit()
 * put in one block). */
static inline int runs_join(const chan_fill *a, const chan_fill *b)
{
    return a->next == a->end && a->next != a->run && b->run == a->end && b->run_raw == a->raw &&
           b->run_size == a->run_size;
}

/* The channel's next key with its tick, time and `size` stored bytes; the
 * caller sets all four of v (values it does not use to 0: set here first,
 * they were stored twice). NULL when the channel is full (not counted beforehand:
 * cannot happen) or the run's bytes could not be attached. */
static inline ak_key *fill_key(chan_fill *cf, uint32_t frame, double time, const unsigned char *raw, size_t size)
{
    if (cf->next == cf->end)
        return NULL;
    if (size != cf->run_size) {
        if (fill_flush(cf) != AK_OK)
            return NULL;
        cf->run_size = size;
    }
    ak_key *k = cf->next++;
    k->tick = frame;
    k->time = time;
    if (size) {
        memcpy(cf->raw, raw, size);
        cf->raw += size;
    }
    return k;
}

/* Three stored floats into v[0..2] and 0 into v[3], straight into the
 * key (no copy through a local array). */
static inline void load_vec(const unsigned char *p, double *v)
{
    float f[3];
    load_floats(p, f, 3);
    v[0] = f[0];
    v[1] = f[1];
    v[2] = f[2];
    v[3] = 0.0;
}

/* A MATR's rotation and scale, decoded once in the tally and kept for the
 * fill: a decode is a chain of square roots and divisions, the slowest
 * step of a FRMN read (citroen_bodyback.anm), and each was done twice. */
typedef struct {
    double q[4], scale[3];
    int ok;
} matr_decoded;

/* The keys of one FRMN BONE block. */
static ak_status fill_frmn(reader_state *st, chan_fill *cf, const rec *x, const payload *p,
                           const matr_decoded *matr, double time, unsigned *bad_mats)
{
    const unsigned char *d = st->data;
    ak_key *k;
    if (p->rot != SIZE_MAX) {
        if (!matr->ok)
            (*bad_mats)++;
        if (!(k = fill_key(&cf[AK_ROTATION], x->frame, time, d + p->rot, 36)))
            return AK_E_NOMEM;
        memcpy(k->v, matr->q, sizeof matr->q);
        if (!(k = fill_key(&cf[AK_TRANSLATION], x->frame, time, d + p->pos, 12)))
            return AK_E_NOMEM;
        load_vec(d + p->pos, k->v);
        if (x->flags & ANM_F_SCALE) {
            if (!(k = fill_key(&cf[AK_SCALE], x->frame, time, NULL, 0)))
                return AK_E_NOMEM;
            memcpy(k->v, matr->scale, sizeof matr->scale);
            k->v[3] = 0.0;
        }
    }
    if (p->visi != SIZE_MAX) {
        if (!(k = fill_key(&cf[AK_VISIBILITY], x->frame, time, d + p->visi, 4)))
            return AK_E_NOMEM;
        k->v[0] = ak_peek_u32(d + p->visi) != 0 ? 1.0 : 0.0;
        k->v[1] = k->v[2] = k->v[3] = 0.0;
    }
    return AK_OK;
}

/* The keys of one FRM2 / FRM3 record: its payloads follow the bone and
 * flags in the order pos, rot, scale (§8), walked here as they are taken
 * rather than through payload_of (a tenth of a small file's key loop). */
static ak_status fill_frm2(reader_state *st, chan_fill *cf, const rec *x, double time)
{
    const unsigned char *at = st->data + x->off + 3;
    ak_key *k;
    if (x->flags & ANM_F_POS) {
        if (!(k = fill_key(&cf[AK_TRANSLATION], x->frame, time, at, 12)))
            return AK_E_NOMEM;
        load_vec(at, k->v);
        at += 12;
    }
    if (x->flags & ANM_F_ROT) {
        float f[3];
        if (!(k = fill_key(&cf[AK_ROTATION], x->frame, time, at, 12)))
            return AK_E_NOMEM;
        load_floats(at, f, 3);
        anm_quat_from_xyz(f, k->v);
        at += 12;
    }
    if (x->flags & ANM_F_SCALE) {
        if (!(k = fill_key(&cf[AK_SCALE], x->frame, time, at, 12)))
            return AK_E_NOMEM;
        load_vec(at, k->v);
    }
    if (x->flags & (ANM_F_VIS_ON | ANM_F_VIS_OFF)) {
        /* Both bits at once (never seen) read as visible; the raw byte
         * keeps them. */
        unsigned char bits = (unsigned char)(x->flags & (ANM_F_VIS_ON | ANM_F_VIS_OFF));
        if (!(k = fill_key(&cf[AK_VISIBILITY], x->frame, time, &bits, 1)))
            return AK_E_NOMEM;
        k->v[0] = (bits & ANM_F_VIS_ON) ? 1.0 : 0.0;
        k->v[1] = k->v[2] = k->v[3] = 0.0;
    }
    return AK_OK;
}

/* The records table of a bone without mesh records, after all (see
 * build_track). */
static ak_status keep_records_of(ak_doc *doc, ak_track *t, const rec *sorted, size_t n)
{
    unsigned char *table = ak_prop_set_bytes_uninit(doc, &t->props, ANM_P_RECORDS, n * ANM_EXTRA_SIZE);
    if (!table)
        return AK_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const rec *x = &sorted[i];
        anm_extra_store(table + i * ANM_EXTRA_SIZE, x->frame, x->flags, x->kind, x->order, 0, 0);
    }
    return AK_OK;
}

/* Keys, records table and mesh blob of one bone the file keys (n > 0),
 * the table and the blob written where the document keeps them.
 * `bone_tally`: the bone's tally (tally_of), or NULL when the tallies do
 * not hold every key (a mesh body among them, say).
 *
 * A tallied bone without the mirror bit gets no records table when each
 * of its records keys a channel: each is then an FRM2/FRM3 record whose
 * flags are the channels it keys, so its keys say the records in full,
 * and the writer derives them from the keys byte for byte
 * (plugins/anm/README.md). Setting a table for each such bone was a
 * tenth of a read of hmmwv.anm. A record that keys nothing is found as
 * the keys are filled, and its bone then gets its table after all. */
static ak_status build_track(reader_state *st, ak_doc *doc, ak_track *t, rec *sorted, size_t n, double fps,
                             size_t *mesh_total, unsigned *bad_mats, const uint64_t *bone_tally)
{
    /* Cleared element by element: as `= { 0 }` the compiler cleared each with
     * `rep stos`, whose start-up cost is paid per track. */
    size_t counts[AK_CHANNELS], raw[AK_CHANNELS];
    for (int c = 0; c < AK_CHANNELS; c++)
        counts[c] = raw[c] = 0;
    size_t mesh_bytes = 0, mesh_count = 0;
    int has_scale = 0, mirrored = 0;
    matr_decoded few[4], *matrs = NULL;
    size_t counted = 0; /* records whose keys are in counts and raw */
    if (bone_tally && n <= TALLY_LANE_MAX) {
        add_tally(*bone_tally, counts, raw);
        mirrored = tally_lane(*bone_tally, TALLY_MIRROR_LANE) != 0;
        counted = n;
    }
    for (size_t i = counted; i < n; i++) {
        rec *x = &sorted[i];
        tally(x, counts, raw);
        if (x->flags & ANM_F_MESH) {
            mesh_bytes += x->mesh_size;
            mesh_count++;
        }
        if (x->kind == ANM_TAG_FRMN && (x->flags & ANM_F_ROT)) {
            if (!matrs)
                matrs = n <= sizeof few / sizeof few[0] ? few : ak_job_alloc_uninit(st->job, n, sizeof *matrs);
            if (!matrs)
                return AK_E_NOMEM;
            matr_decoded *md = &matrs[i];
            float m[9];
            int mir;
            load_floats(st->data + payload_of(x).rot, m, 9);
            md->ok = anm_matrix_decode(m, md->q, md->scale, &mir);
            for (int a = 0; a < 3; a++)
                if (fabs(md->scale[a] - 1.0) > 1e-4)
                    has_scale = 1;
            if (mir)
                x->flags |= ANM_F_MIRROR;
        }
        if (x->flags & ANM_F_MIRROR)
            mirrored = 1;
    }
    /* A bone whose MATR rows are not unit gets a scale key on every MATR
     * (an absent key keeps the last value, §7). */
    if (has_scale)
        for (size_t i = 0; i < n; i++)
            if (sorted[i].kind == ANM_TAG_FRMN && (sorted[i].flags & ANM_F_ROT)) {
                counts[AK_SCALE]++;
                sorted[i].flags |= ANM_F_SCALE;
            }
    if (mesh_bytes > UINT32_MAX)
        return ak_fail(st->job, AK_E_LIMIT, -1, "bone '%s' holds over 4 GiB of mesh data", t->bone);
    size_t raw_bytes = raw[0] + raw[1] + raw[2] + raw[3];
    /* Not cleared: fill_* writes every byte a key points to. */
    unsigned char *rb = raw_bytes ? ak_doc_store_uninit(doc, raw_bytes) : NULL;
    if (raw_bytes && !rb)
        return ak_fail(st->job, AK_E_NOMEM, -1, "out of memory");
    chan_fill cf[AK_CHANNELS];
    ak_key *keys[AK_CHANNELS];
    if (ak_track_keys_append_uninit(t, counts, keys) != AK_OK)
        return ak_fail(st->job, AK_E_NOMEM, -1, "out of memory");
    for (int c = 0; c < AK_CHANNELS; c++) {
        fill_init(&cf[c], keys[c], counts[c], rb);
        if (raw[c])
            rb += raw[c];
    }

    _Static_assert(ANM_EXTRA_SIZE <= sizeof(rec), "n table entries fit where the n recs are");
    int keys_say_all = counted == n && !mirrored;
    unsigned char *table = NULL, *bone_mesh = NULL;
    if (!keys_say_all && !(table = ak_prop_set_bytes_uninit(doc, &t->props, ANM_P_RECORDS, n * ANM_EXTRA_SIZE)))
        return ak_fail(st->job, AK_E_NOMEM, -1, "out of memory");
    if (mesh_count && !(bone_mesh = ak_prop_set_bytes_uninit(doc, &t->props, ANM_P_MESH, mesh_bytes)))
        return ak_fail(st->job, AK_E_NOMEM, -1, "out of memory");
    ak_status s = AK_OK;
    size_t mesh_at = 0;
    unsigned keyless = 0; /* records that key no channel */
    /* The keys, the records table and the mesh bodies in frame order, in
     * one pass. */
    for (size_t i = 0; i < n && s == AK_OK; i++) {
        const rec *x = &sorted[i];
        keyless += !(x->flags & ANM_F_KEYED);
        double time = x->frame / fps;
        if (x->kind == ANM_TAG_FRMN) {
            payload p = payload_of(x);
            s = fill_frmn(st, cf, x, &p, matrs ? &matrs[i] : NULL, time, bad_mats);
        } else {
            s = fill_frm2(st, cf, x, time);
        }
        uint32_t mesh_off = 0, mesh_size = 0;
        if (x->flags & ANM_F_MESH) {
            mesh_off = (uint32_t)mesh_at;
            mesh_size = x->mesh_size;
            memcpy(bone_mesh + mesh_at, st->data + payload_of(x).mesh, mesh_size);
            mesh_at += mesh_size;
        }
        if (table)
            anm_extra_store(table + i * ANM_EXTRA_SIZE, x->frame, x->flags, x->kind, x->order, mesh_off, mesh_size);
    }
    for (int c = 0; c < AK_CHANNELS && s == AK_OK; c++) {
        if (c + 1 < AK_CHANNELS && runs_join(&cf[c], &cf[c + 1])) {
            cf[c + 1].run = cf[c].run;
            cf[c + 1].run_raw = cf[c].run_raw;
            continue;
        }
        s = fill_flush(&cf[c]);
        if (cf[c].next != cf[c].end) /* counted but not filled (never seen): cleared, not left unset */
            memset(cf[c].next, 0, (size_t)(cf[c].end - cf[c].next) * sizeof(ak_key));
    }
    if (s == AK_OK && keys_say_all && keyless)
        s = keep_records_of(doc, t, sorted, n);
    if (s == AK_OK && mesh_count)
        s = ak_prop_set_int(doc, &t->props, ANM_P_MESH_KEYS, (int64_t)mesh_count);
    if (s == AK_OK && mirrored)
        s = ak_prop_set_int(doc, &t->props, ANM_P_MIRRORED, 1);
    if (matrs && matrs != few)
        ak_job_free(st->job, matrs);
    *mesh_total += mesh_count;
    if (s != AK_OK && !ak_job_failed(st->job))
        ak_fail(st->job, s, -1, "out of memory");
    return s;
}

/* The clip is named after the file; "anm" when there is no name. */
static const char *clip_name_from(const char *file, char *buf, size_t size)
{
    return ak_path_stem(file, buf, size) ? buf : "anm";
}

static inline uint64_t load_u64(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* Nonzero exactly when one of w's bytes is zero. */
static inline uint64_t zero_bytes(uint64_t w) { return (w - 0x0101010101010101u) & ~w & 0x8080808080808080u; }

/* Where a name's first NUL is, or n: bone names are short (mostly 4 to
 * 9 bytes) and rarely hold one, so two overlapping word loads settle most
 * without a call to memchr (a tenth of a 44-bone file's read). */
static inline size_t name_len(const unsigned char *p, size_t n)
{
    uint64_t zeros = 1; /* nonzero: undecided */
    if (n >= 8) {
        zeros = 0;
        for (size_t i = 0; i + 8 < n; i += 8)
            zeros |= zero_bytes(load_u64(p + i));
        zeros |= zero_bytes(load_u64(p + n - 8));
    } else if (n >= 4) {
        zeros = zero_bytes((uint64_t)ak_peek_u32(p) << 32 | ak_peek_u32(p + n - 4));
    }
    if (!zeros)
        return n;
    const unsigned char *nul = memchr(p, 0, n);
    return nul ? (size_t)(nul - p) : n;
}

/* The length of the uint32-length name at `pos` in the reader's window,
 * in *n (0 when fewer than 4 bytes are left); 1 when its bytes fit. */
static inline int bmap_name_fits(const ak_reader *r, size_t pos, uint32_t *n)
{
    size_t left = r->size - pos;
    *n = left >= 4 ? ak_peek_u32(r->data + pos) : 0;
    return left >= 4 && *n <= left - 4;
}

static ak_status read_doc(reader_state *st, ak_doc *doc, double fps)
{
    ak_job *job = st->job;
    ak_reader *r = &st->r;
    if (!ak_need(r, 8, "EANM header"))
        return AK_E_DATA;
    if (memcmp(r->data, "EANM", 4) != 0)
        return ak_fail(job, AK_E_DATA, 0, "not an EANM file (magic is not 'EANM')");
    ak_take(r, 4, NULL);
    uint32_t version = ak_take_u32(r, "32-bit value");
    const char *variant;
    switch (version) {
    case ANM_V40: variant = "4.0"; break;
    case ANM_V60: variant = "6.0"; break;
    case ANM_V61: variant = "6.1"; break;
    case ANM_V30: variant = "3.0"; break;
    case ANM_V50: variant = "5.0"; break;
    default:
        return ak_fail(job, AK_E_UNSUPPORTED, 4, "EANM version 0x%08x (%u.%u) is not supported (4.0, 6.0, 6.1)",
                       version, version >> 16, version & 0xFFFFu);
    }
    if (version == ANM_V30 || version == ANM_V50)
        ak_warn(job, 4, "EANM version %s has never been seen in real files; read by its frame tags", variant);
    char namebuf[256];
    ak_clip *clip = ak_clip_add(doc, clip_name_from(ak_job_filename(job), namebuf, sizeof namebuf));
    if (!clip || ak_doc_set_format(doc, "anm", variant) != AK_OK)
        return ak_fail(job, AK_E_NOMEM, -1, "out of memory");
    clip->tick_rate = fps;
    clip->frame_rate = 0;
    ak_props *cp = &clip->props;
    if (ak_prop_set_int(doc, cp, ANM_P_VERSION, version) != AK_OK ||
        ak_prop_set_float(doc, cp, ANM_P_FPS, fps) != AK_OK)
        return ak_fail(job, AK_E_NOMEM, -1, "out of memory");
    /* Placeholder forms ([BD], unconfirmed): the file may end after the
     * version or after FRMS. */
    if (ak_left(r) == 0)
        return ak_prop_set_int(doc, cp, ANM_P_FORM, 0);
    if (!is_tag(r, "FRMS")) {
        char t[20];
        tag_text(r->data + r->pos, ak_left(r) < 4 ? ak_left(r) : 4, t);
        return ak_fail(job, AK_E_DATA, (int64_t)r->pos, "expected FRMS after the header, found '%s'", t);
    }
    ak_take(r, 4, NULL);
    st->frms = ak_take_u32(r, "32-bit value");
    if (r->failed)
        return AK_E_DATA;
    if (ak_prop_set_int(doc, cp, ANM_P_FRMS, st->frms) != AK_OK)
        return ak_fail(job, AK_E_NOMEM, -1, "out of memory");
    clip->duration = st->frms > 1 ? (st->frms - 1) / fps : 0.0;
    /* §4: zero or more CMNT chunks (uint16 size + text) before BMAP. */
    int64_t ncmnt = 0;
    while (is_tag(r, "CMNT")) {
        ak_take(r, 4, NULL);
        uint16_t n = ak_take_u16(r, "16-bit value");
        const unsigned char *text = ak_take(r, n, "CMNT text");
        if (!text)
            return AK_E_DATA;
        char key[32];
        snprintf(key, sizeof key, "%s%lld", ANM_P_CMNT, (long long)ncmnt);
        if (ak_prop_set_bytes(doc, cp, key, text, n) != AK_OK)
            return ak_fail(job, AK_E_NOMEM, -1, "out of memory");
        ncmnt++;
    }
    if (ncmnt && ak_prop_set_int(doc, cp, ANM_P_CMNT_COUNT, ncmnt) != AK_OK)
        return ak_fail(job, AK_E_NOMEM, -1, "out of memory");
    if (ak_left(r) == 0 && !ncmnt)
        return ak_prop_set_int(doc, cp, ANM_P_FORM, 1);
    if (!is_tag(r, "BMAP")) {
        char t[20];
        tag_text(r->data + r->pos, ak_left(r) < 4 ? ak_left(r) : 4, t);
        return ak_fail(job, AK_E_DATA, (int64_t)r->pos, "expected BMAP, found '%s'", t);
    }
    size_t bmap_off = r->pos;
    ak_take(r, 4, NULL);
    st->bones = ak_take_u32(r, "32-bit value");
    if (!ak_need_array(r, st->bones, 4, "BMAP names"))
        return AK_E_DATA;
    st->bone_end = ak_job_alloc(job, (size_t)st->bones + 1, sizeof *st->bone_end);
    st->tallies = ak_job_alloc(job, (size_t)st->bones + 1, sizeof *st->tallies);
    if (!st->bone_end || !st->tallies)
        return AK_E_NOMEM;
    if (ncmnt) {
        /* [DOC]: a CMNT may select GEM3 string8/24 names, whose byte layout
         * is undocumented. Accept only names that parse unambiguously as
         * uint32-length strings followed by a frame tag or the end. */
        size_t p = r->pos, end = r->size;
        int ok = 1;
        for (uint32_t i = 0; ok && i < st->bones; i++) {
            uint32_t n;
            ok = bmap_name_fits(r, p, &n);
            p += 4 + (size_t)n;
        }
        if (ok && p != end)
            ok = end - p >= 4 && (!memcmp(r->data + p, "FRMN", 4) || !memcmp(r->data + p, "FRM2", 4) ||
                                  !memcmp(r->data + p, "FRM3", 4));
        if (!ok)
            return ak_fail(job, AK_E_UNSUPPORTED, (int64_t)bmap_off,
                           "BMAP after CMNT does not hold uint32-length names; the GEM3 string8/24 name "
                           "form is not documented and not supported");
    }
    /* One check a name with a cursor of our own: the reader's two, each
     * also asking whether it had failed, cost a sixteenth of a 44-bone
     * file's read (974 of 15,984 instructions). A short name goes back to
     * the reader, whose own calls report it as before. */
    size_t pos = r->pos;
    for (uint32_t i = 0; i < st->bones; i++) {
        uint32_t n;
        if (!bmap_name_fits(r, pos, &n)) {
            r->pos = pos;
            if (ak_take_u32(r, "32-bit value"))
                ak_take(r, n, "bone name");
            return AK_E_DATA;
        }
        const unsigned char *name = r->data + pos + 4;
        size_t clen = name_len(name, n);
        ak_track *t = ak_track_add_n(clip, (const char *)name, clen);
        if (!t)
            return ak_fail(job, AK_E_NOMEM, (int64_t)pos, "out of memory");
        if (clen != n && ak_prop_set_bytes(doc, &t->props, ANM_P_NAME, name, n) != AK_OK)
            return ak_fail(job, AK_E_NOMEM, (int64_t)pos, "out of memory");
        pos += 4 + (size_t)n;
    }
    r->pos = pos;
    if (!read_frames(st))
        return AK_E_DATA;

    uint32_t max_frame = 0;
    ak_status s = sort_records(st, &max_frame);
    if (s != AK_OK)
        return s;
    if (st->nrec && max_frame >= st->frms) {
        ak_warn(job, 8, "frame %u lies beyond FRMS = %u (frame_max = FRMS - 1)", max_frame, st->frms);
        clip->duration = max_frame / fps;
    }
    size_t mesh_total = 0;
    unsigned bad = 0;
    /* Only the bones the file keys (in a FRMN file, few of them). */
    const uint64_t *tallies = st->tallied ? st->tallies : NULL;
    size_t from = 0;
    for (uint32_t b = 0; b < st->bones && s == AK_OK; b++) {
        size_t to = st->bone_end[b];
        if (to > from)
            s = build_track(st, doc, clip->tracks[b], st->sorted + from, to - from, fps, &mesh_total, &bad,
                            tallies ? &tallies[b] : NULL);
        from = to;
    }
    if (s != AK_OK)
        return s;
    if (bad)
        ak_warn(job, -1, "%u MATR matrices are degenerate or not finite; their rotation reads as identity", bad);

    /* The layout (chunk order, frame numbers and record order), written
     * as the chunks were read; its first byte is the first chunk's kind. */
    s = ak_prop_set_bytes(doc, cp, ANM_P_LAYOUT, st->lay, st->nlay);
    if (s == AK_OK && st->nlay) { /* a chunk was read */
        s = ak_prop_set_string(doc, cp, ANM_P_TAG, anm_tag_names[st->lay[0]]);
    }
    if (s == AK_OK)
        s = ak_prop_set_int(doc, cp, ANM_P_MESH_KEYS, (int64_t)mesh_total);
    if (s != AK_OK)
        return ak_fail(job, AK_E_NOMEM, -1, "out of memory");
    return AK_OK;
}

/* Field by field: an initializer or memset clearing the whole struct
 * became `rep stos`, whose start-up alone was some 2 % of a small file's
 * read. */
static void reader_start(reader_state *st, ak_job *job, const unsigned char *bytes, size_t size)
{
    st->job = job;
    ak_reader_init(&st->r, job, bytes, size);
    st->data = bytes;
    st->bones = st->frms = 0;
    st->recs = NULL;
    st->nrec = st->caprec = 0;
    st->presized = 0;
    st->lay = NULL;
    st->nlay = st->caplay = 0;
    st->sorted = NULL;
    st->bone_end = NULL;
    st->tallies = NULL;
    st->tallied = 1;
}

ak_status anm_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    /* The frame rate is not stored (§10): assume `fps` frames per second,
     * ANM_FPS_ASSUMED unless the caller says otherwise. Parsed only when
     * given: looking up and parsing the declared default was 2 % of
     * reading a small file. */
    double fps = ak_job_param(job, "fps") ? ak_job_param_number(job, "fps", ANM_FPS_ASSUMED) : ANM_FPS_ASSUMED;
    if (ak_job_failed(job))
        return AK_E_USAGE;
    if (!(fps > 0) || !isfinite(fps))
        return ak_fail(job, AK_E_USAGE, -1, "parameter fps must be a positive number");
    reader_state st;
    reader_start(&st, job, bytes, size);
    ak_status s = read_doc(&st, doc, fps);
    if (st.sorted != st.recs)
        ak_job_free(job, st.sorted);
    ak_job_free(job, st.bone_end);
    ak_job_free(job, st.tallies);
    ak_job_free(job, st.recs);
    ak_job_free(job, st.lay);
    if (s == AK_OK && ak_job_failed(job))
        s = AK_E_DATA;
    return s;
}
