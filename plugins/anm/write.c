/* write.c - encoding a clip as an EANM file.
 *
 * Two modes:
 *  - layout: the clip still has exactly the records (bone, frame) that
 *    were read (layout prop and per-bone record tables): chunks, frame
 *    numbers, record order, flags, FRMN sub-chunk order and mesh bodies are
 *    re-emitted as read; untouched keys re-emit their stored bytes, edited
 *    ones are re-encoded. An untouched document comes out byte-identical.
 *  - generate: anything else (edited structure, new clips, other formats):
 *    sparse like real files: full keys (position, orientation, scale if the
 *    bone has any, visibility) for every bone on the first and last frame,
 *    elsewhere only channels whose encoded value changed; chunks by
 *    ascending frame, bones ascending, FRM2/FRM3 chunks split at 255 keys.
 *
 * Times become frames at the write parameter fps (default: the rate the
 * document was read with, else 30 frames per second; the format stores no
 * rate). Parameter variant: 4.0 (FRMN), 6.0, 6.1 (FRM2), frmn, frm2, frm3
 * (frame tag only; the version stays the document's when it fits).
 */
#include "anm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CH_ROT = AK_ROTATION, CH_POS = AK_TRANSLATION, CH_SCALE = AK_SCALE, CH_VIS = AK_VISIBILITY };
#define HAS(c) (1u << (c))

typedef struct wch {
    uint32_t frame;
    const ak_key *key; /* its address orders keys of one frame as the channel does */
} wch;

typedef struct wrec {
    uint32_t frame, bone;
    unsigned short has;             /* HAS(channel) bits */
    unsigned short used;
    unsigned short clean;           /* HAS(channel): key[channel] known untouched (replay_track) */
    const ak_key *key[AK_CHANNELS]; /* key at the frame, or the sampled source; NULL = default */
    const anm_extra *ex;
} wrec;

typedef struct wtrack {
    const ak_track *t;
    wch *ch[AK_CHANNELS];
    size_t n[AK_CHANNELS];
    anm_extra *ex;
    size_t nex;
    const unsigned char *mesh;
    size_t mesh_size;
    int mirrored;
    const ak_prop *records;          /* the track's ANM_P_RECORDS, when well formed */
    const ak_prop *records_any, *mesh_prop, *mirrored_prop, *name_prop; /* find_track_props */
    wrec *recs;
    size_t nrec;
    wrec *rec_slice; /* this track's room in wctx.rec_pool: one record per stored record, zeroed,
                      * or per key when keys_say_all (after all the stored ones, not cleared); recs
                      * is either this, NULL or an allocation of the track's own (drop_records) */
    int keys_say_all; /* keyed, without stored records (the reader leaves them to the keys where
                       * they say them in full): replay_keys derives them */
    size_t hint; /* find_rec: where the next record is likely; replay_walk: the next record */
    const ak_key *clean_end[AK_CHANNELS]; /* keys before this one are untouched (asked once; rotation
                                           * and scale only, the others are encoded first: enc_vec) */
} wtrack;

typedef struct bname {
    const void *bytes;
    size_t size;
} bname;

typedef struct wctx {
    ak_job *job;
    const ak_clip *clip;
    ak_sink *out;
    double fps;
    uint32_t version;
    int forced_tag; /* -1 = none */
    int default_tag;
    uint32_t frms;
    wtrack *tr;
    size_t ntr;
    /* The tracks that may hold records, ascending: those with keys or
     * stored records, or every track once generate_records runs. The
     * loops over records walk these, not every bone (citroen_bodyback:
     * 1 of 44). */
    uint32_t *busy;
    size_t nbusy;
    bname *names; /* BMAP's bytes of each track's name */
    size_t names_total; /* BMAP's size after its count: 4 + the bytes, per name */
    wrec **lay;          /* layout mode: the records in layout order */
    int lay_in_pool;     /* lay is replay_layout's, in pool: not freed apart */
    /* Scratch of every track in one block (tracks take slices): the
     * channel lists, then the stored records. */
    wch *pool;
    wrec *rec_pool;      /* records_on_extras of every track, zeroed (tracks take slices), in pool */
    /* Output gathered for the sink: BMAP, then the frame chunks, put when
     * the next chunk (FRMN: BONE record) might not fit, before a mesh body
     * and at the end (a put per chunk was a tenth of writing shahed136). */
    unsigned char *buf;
    size_t cap, used;    /* at least chunk_buf_size and BONE_HEAD_MAX */
    unsigned char *buf_room; /* pool's last part: buf when cap fits in buf_room_size */
    size_t buf_room_size;
    unsigned rounded, merged, badrot;
} wctx;

static ak_status nomem(wctx *w) { return ak_fail(w->job, AK_E_NOMEM, -1, "out of memory"); }

static int cmp_wch(const void *a, const void *b)
{
    const wch *x = a, *y = b;
    if (x->frame != y->frame)
        return x->frame < y->frame ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_extra(const void *a, const void *b)
{
    const anm_extra *x = a, *y = b;
    return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* Channel entries (wch) that hold `count` items of `size` bytes. */
static size_t slots_for(size_t count, size_t size)
{
    return count / sizeof(wch) * size + ((count % sizeof(wch)) * size + sizeof(wch) - 1) / sizeof(wch);
}

/* ---- per-track preparation ---- */

/* The channel's keys as frames into `list` (room for all of them). */
static ak_status prepare_channel(wctx *w, wtrack *wt, int c, wch *list)
{
    const ak_channel *ch = &wt->t->channel[c];
    if (!ch->count)
        return AK_OK;
    size_t n = 0;
    int ordered = 1;
    for (size_t i = 0; i < ch->count; i++) {
        const ak_key *k = &ch->keys[i];
        double f = k->time * w->fps;
        if (!(f >= -0.5 && f < 4294967295.0)) { /* NaN and infinities too */
            return ak_fail(w->job, AK_E_DATA, -1,
                           "bone '%s': %s key at %g s is outside the frame range of the format", wt->t->bone,
                           ak_channel_name((ak_channel_kind)c), k->time);
        }
        /* f + 0.5 >= 0 here, so truncation is floor(f + 0.5), without a
         * library call per key. */
        uint32_t frame = (uint32_t)(f + 0.5);
        /* replay_track and key_frame take a key as on its frame by the
         * same 1e-4. The three stay apart: one helper for them moved the
         * writer's code and cost a write its goal (bench/HISTORY.md,
         * thirty-sixth round); t_key_times_against_frames holds them to
         * one rule. */
        if (fabs(f - frame) > 1e-4)
            w->rounded++;
        /* Of keys on one frame the later wins; merged as they come while
         * the frames ascend (as read, they always do). */
        wch e = { frame, k };
        if (n && ordered && list[n - 1].frame == frame) {
            list[n - 1] = e;
            w->merged++;
            continue;
        }
        if (n && frame < list[n - 1].frame)
            ordered = 0;
        list[n++] = e;
    }
    if (!ordered) { /* keys out of order (edited): sort, keeping equal frames in order */
        qsort(list, n, sizeof *list, cmp_wch);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (m && list[m - 1].frame == list[i].frame) {
                list[m - 1] = list[i];
                w->merged++;
            } else {
                list[m++] = list[i];
            }
        }
        n = m;
    }
    wt->ch[c] = list;
    wt->n[c] = n;
    return AK_OK;
}

/* The track's properties this writer reads, found in one walk over them:
 * a lookup by name compared every key in turn. All begin with "anm.", so
 * the letter after it picks the one name to compare (string compares
 * were an eighth of writing a many-bone file). */
static void find_track_props(wtrack *wt)
{
    const ak_props *props = &wt->t->props;
    wt->records_any = wt->mesh_prop = wt->mirrored_prop = wt->name_prop = NULL;
    for (size_t i = 0; i < props->count; i++) {
        const ak_prop *p = &props->items[i];
        const char *k = p->key;
        if (k[0] != 'a' || k[1] != 'n' || k[2] != 'm' || k[3] != '.')
            continue;
        if (k[4] == 'r' && !strcmp(k, ANM_P_RECORDS))
            wt->records_any = p;
        else if (k[4] == 'm' && k[5] == 'e' && !strcmp(k, ANM_P_MESH))
            wt->mesh_prop = p;
        else if (k[4] == 'm' && k[5] == 'i' && !strcmp(k, ANM_P_MIRRORED))
            wt->mirrored_prop = p;
        else if (k[4] == 'n' && !strcmp(k, ANM_P_NAME))
            wt->name_prop = p;
    }
}

/* The track's stored records (ANM_P_RECORDS) when there are any and the
 * property is well formed, else NULL (prepare_extras warns). */
static const ak_prop *records_prop(const wtrack *wt)
{
    const ak_prop *rp = wt->records_any;
    if (!rp || rp->type != AK_PROP_BYTES || rp->size == 0 || rp->size % ANM_EXTRA_SIZE)
        return NULL;
    return rp;
}

/* Mesh bodies are placed only by the stored records that point into them:
 * a track whose records property is missing, empty or malformed loses
 * its mesh animation, which is said rather than done silently (the
 * writer derives records from the keys, and keys carry no mesh). */
static void warn_mesh_unplaced(wctx *w, const wtrack *wt)
{
    const ak_prop *mp = wt->mesh_prop;
    if (mp && mp->type == AK_PROP_BYTES && mp->size)
        ak_warn(w->job, -1, "bone '%s': %zu bytes of mesh animation (%s) have no record in %s to place them and are dropped",
                wt->t->bone, mp->size, ANM_P_MESH, ANM_P_RECORDS);
}

/* The track's mirror bit and mesh bodies, from its properties. */
static inline void take_mesh_and_mirror(wtrack *wt)
{
    const ak_prop *mp = wt->mesh_prop, *mirr = wt->mirrored_prop;
    wt->mirrored = mirr && mirr->type == AK_PROP_INT && mirr->i != 0;
    if (mp && mp->type == AK_PROP_BYTES) {
        wt->mesh = mp->data;
        wt->mesh_size = mp->size;
    }
}

/* 1 when the record's mesh body, if it has one, lies within the track's
 * mesh prop. */
static int mesh_in_bounds(const wtrack *wt, const anm_extra *e)
{
    return !(e->flags & ANM_F_MESH) || (e->mesh_off <= wt->mesh_size && e->mesh_size <= wt->mesh_size - e->mesh_off);
}

/* The stored records (wt->records) into `ex` (room for all of them). */
static ak_status prepare_extras(wctx *w, wtrack *wt, anm_extra *ex)
{
    const ak_prop *rp = wt->records;
    take_mesh_and_mirror(wt);
    if (!rp) {
        const ak_prop *bad = wt->records_any;
        if (bad && bad->type == AK_PROP_BYTES && bad->size % ANM_EXTRA_SIZE)
            ak_warn(w->job, -1, "bone '%s': property %s is malformed and ignored", wt->t->bone, ANM_P_RECORDS);
        return AK_OK;
    }
    size_t n = rp->size / ANM_EXTRA_SIZE;
    wt->ex = ex;
    unsigned dropped = 0;
    int strict = 1; /* frames strictly ascending, as read: nothing to sort or merge */
    for (size_t i = 0; i < n; i++) {
        anm_extra *e = &wt->ex[i];
        anm_extra_load(rp->data + i * ANM_EXTRA_SIZE, e);
        if (!mesh_in_bounds(wt, e)) {
            e->flags &= (uint16_t)~ANM_F_MESH;
            dropped++;
        }
        if (e->kind > ANM_TAG_FRM3)
            e->kind = ANM_TAG_FRM2;
        if (i && e->frame <= e[-1].frame)
            strict = 0;
    }
    if (dropped)
        ak_warn(w->job, -1, "bone '%s': %u mesh blobs point outside %s and are dropped", wt->t->bone, dropped,
                ANM_P_MESH);
    wt->nex = n;
    if (strict)
        return AK_OK;
    size_t s = 1;
    while (s < n && wt->ex[s].frame >= wt->ex[s - 1].frame)
        s++;
    if (s < n)
        qsort(wt->ex, n, sizeof *wt->ex, cmp_extra);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || wt->ex[m - 1].frame != wt->ex[i].frame)
            wt->ex[m++] = wt->ex[i];
    wt->nex = m;
    return AK_OK;
}

static const wch *find_at(const wtrack *wt, int c, uint32_t frame)
{
    size_t lo = 0, hi = wt->n[c];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (wt->ch[c][mid].frame < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < wt->n[c] && wt->ch[c][lo].frame == frame ? &wt->ch[c][lo] : NULL;
}

/* The key in force at `frame`: the last at or before it, else the first
 * (an absent key keeps the last value, §7). NULL when the channel is empty. */
static inline const ak_key *sample(const wtrack *wt, int c, uint32_t frame)
{
    if (!wt->n[c])
        return NULL;
    size_t lo = 0, hi = wt->n[c];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (wt->ch[c][mid].frame <= frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    return wt->ch[c][lo ? lo - 1 : 0].key;
}

static const anm_extra *find_extra(const wtrack *wt, uint32_t frame)
{
    size_t lo = 0, hi = wt->nex;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (wt->ex[mid].frame < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < wt->nex && wt->ex[lo].frame == frame ? &wt->ex[lo] : NULL;
}

static int extra_has_mesh(const anm_extra *e) { return e && (e->flags & ANM_F_MESH); }

/* Sorted unique frames of a track: channel keys, extras, plus `extra1/2`
 * (UINT32_MAX = none). Caller frees. */
static uint32_t *track_frames(wctx *w, const wtrack *wt, uint32_t extra1, uint32_t extra2, size_t *count)
{
    size_t total = wt->nex + 2;
    for (int c = 0; c < AK_CHANNELS; c++)
        total += wt->n[c];
    uint32_t *f = ak_job_alloc_uninit(w->job, total, sizeof *f); /* the first *count are set */
    if (!f)
        return NULL;
    size_t n = 0;
    for (int c = 0; c < AK_CHANNELS; c++)
        for (size_t i = 0; i < wt->n[c]; i++)
            f[n++] = wt->ch[c][i].frame;
    for (size_t i = 0; i < wt->nex; i++)
        f[n++] = wt->ex[i].frame;
    if (extra1 != UINT32_MAX)
        f[n++] = extra1;
    if (extra2 != UINT32_MAX)
        f[n++] = extra2;
    *count = n;
    return f;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The end of the ascending run that starts at `a`. */
static size_t run_end(const uint32_t *f, size_t a, size_t n)
{
    size_t i = a + 1;
    while (i < n && f[i] >= f[i - 1])
        i++;
    return i;
}

/* Sorts `f` by merging its ascending runs pairwise through `tmp`: the
 * frames of a track are a few sorted lists (one per channel, the stored
 * records) laid end to end. */
static void merge_runs(uint32_t *f, uint32_t *tmp, size_t n)
{
    while (run_end(f, 0, n) < n) {
        size_t i = 0, o = 0;
        while (i < n) {
            size_t am = run_end(f, i, n), bm = am < n ? run_end(f, am, n) : am, x = i, y = am;
            while (x < am && y < bm)
                tmp[o++] = f[y] < f[x] ? f[y++] : f[x++];
            while (x < am)
                tmp[o++] = f[x++];
            while (y < bm)
                tmp[o++] = f[y++];
            i = bm;
        }
        memcpy(f, tmp, n * sizeof *f);
    }
}

static size_t unique_sorted(wctx *w, uint32_t *f, size_t n)
{
    uint32_t *tmp = n > 1 ? ak_job_alloc_uninit(w->job, n, sizeof *tmp) : NULL; /* merge space */
    if (tmp)
        merge_runs(f, tmp, n);
    else
        qsort(f, n, sizeof *f, cmp_u32); /* no scratch: the same order, slower */
    ak_job_free(w->job, tmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || f[m - 1] != f[i])
            f[m++] = f[i];
    return m;
}

/* The next frame of a track's channels and stored records after the
 * cursors, or UINT64_MAX when all are used up. */
static inline uint64_t next_frame(const wtrack *wt, const size_t at[AK_CHANNELS], size_t ex_at)
{
    uint64_t m = UINT64_MAX;
    for (int c = 0; c < AK_CHANNELS; c++)
        if (at[c] < wt->n[c] && wt->ch[c][at[c]].frame < m)
            m = wt->ch[c][at[c]].frame;
    if (ex_at < wt->nex && wt->ex[ex_at].frame < m)
        m = wt->ex[ex_at].frame;
    return m;
}

/* A stored record whose channels were all deleted goes away unless it
 * carries a mesh or never had a channel. */
static int keep_record(const wrec *r)
{
    return r->has || (r->ex && (extra_has_mesh(r->ex) || !(r->ex->flags & ANM_F_DERIVED)));
}

/* natural_records when every key lies on a stored record (a document as
 * read, values edited or not): the records' frames are the union, one
 * walk along them, into `recs` (zeroed, room for every stored record).
 * 1 when done; 0 when some key lies elsewhere (then nothing is kept). */
static int records_on_extras(wtrack *wt, uint32_t bone, wrec *recs)
{
    if (!wt->nex)
        return 0;
    wt->recs = recs; /* zeroed, room for nex */
    const wch *at[AK_CHANNELS], *end[AK_CHANNELS]; /* cursors; at == end: used up or empty */
    for (int c = 0; c < AK_CHANNELS; c++) {
        at[c] = wt->ch[c];
        end[c] = wt->n[c] ? wt->ch[c] + wt->n[c] : wt->ch[c];
    }
    for (size_t i = 0; i < wt->nex; i++) {
        wrec *r = &wt->recs[wt->nrec]; /* zeroed */
        uint32_t frame = wt->ex[i].frame;
        r->frame = frame;
        r->bone = bone;
        r->ex = &wt->ex[i];
        for (int c = 0; c < AK_CHANNELS; c++) {
            if (at[c] == end[c] || at[c]->frame > frame)
                continue;
            if (at[c]->frame < frame)
                goto elsewhere;
            r->key[c] = at[c]++->key;
            r->has |= HAS(c);
        }
        if (keep_record(r))
            wt->nrec++;
        else
            memset(r, 0, sizeof *r);
    }
    for (int c = 0; c < AK_CHANNELS; c++)
        if (at[c] != end[c])
            goto elsewhere;
    return 1;
elsewhere:
    wt->recs = NULL;
    wt->nrec = 0;
    return 0;
}

/* Records exactly where the model (and the stored records) have them:
 * records_on_extras when it can; otherwise the channels and the stored
 * records, which each ascend without repeats (prepare_channel,
 * prepare_extras), merged with one cursor each, once to count the frames
 * and once to fill the records. */
static ak_status natural_records(wctx *w, wtrack *wt, uint32_t bone)
{
    if (records_on_extras(wt, bone, wt->rec_slice))
        return AK_OK;
    size_t at[AK_CHANNELS] = { 0 }, ex_at = 0, n = 0;
    for (uint64_t f; (f = next_frame(wt, at, ex_at)) != UINT64_MAX; n++) {
        for (int c = 0; c < AK_CHANNELS; c++)
            if (at[c] < wt->n[c] && wt->ch[c][at[c]].frame == f)
                at[c]++;
        if (ex_at < wt->nex && wt->ex[ex_at].frame == f)
            ex_at++;
    }
    if (!n) { /* a bone never keyed (most of a FRMN file's): no records */
        wt->recs = NULL;
        wt->nrec = 0;
        return AK_OK;
    }
    wt->recs = ak_job_alloc(w->job, n, sizeof *wt->recs);
    if (!wt->recs)
        return nomem(w);
    memset(at, 0, sizeof at);
    ex_at = 0;
    for (uint64_t f; (f = next_frame(wt, at, ex_at)) != UINT64_MAX;) {
        wrec r;
        memset(&r, 0, sizeof r);
        r.frame = (uint32_t)f;
        r.bone = bone;
        for (int c = 0; c < AK_CHANNELS; c++)
            if (at[c] < wt->n[c] && wt->ch[c][at[c]].frame == f) {
                r.key[c] = wt->ch[c][at[c]++].key;
                r.has |= HAS(c);
            }
        if (ex_at < wt->nex && wt->ex[ex_at].frame == f)
            r.ex = &wt->ex[ex_at++];
        if (keep_record(&r))
            wt->recs[wt->nrec++] = r;
    }
    return AK_OK;
}

/* ---- encoding of single values ---- */

/* 1 when `k` is one of the track's keys already known untouched. */
static int known_clean(const wtrack *wt, int c, const ak_key *k)
{
    uintptr_t at = (uintptr_t)k, first = (uintptr_t)wt->t->channel[c].keys;
    return k && at >= first && at < (uintptr_t)wt->clean_end[c];
}

/* known_clean for the record's key of channel c, from the record when
 * replay_track found it so. */
static int rec_clean(const wtrack *wt, const wrec *r, int c)
{
    return (r->clean & HAS(c)) || known_clean(wt, c, r->key[c]);
}

/* 1 when the key was not edited since it was read: `clean` when that is
 * known already, else the change check asked. */
static int untouched(const ak_key *k, int clean)
{
    return clean || !ak_key_changed(k);
}

/* The key's stored bytes can be written as they are. */
static int raw_ok(const ak_key *k, uint32_t size, int clean)
{
    return k && k->raw_size == size && untouched(k, clean);
}

static void put_floats(unsigned char *out, const double *v, int n)
{
    for (int i = 0; i < n; i++)
        ak_poke_u32(out + 4 * i, ak_f32_bits((float)v[i]));
}

/* Three floats from the key's values, or the stored ones when they
 * differ and the key is untouched (a signalling NaN, quieted on its way
 * through a double). Encoded first: where the bytes agree, as they do for
 * every value read, whether the key was touched does not matter, and the
 * writer need not ask for the channel's keys in bulk. Compared in
 * registers before anything is stored (a load of the bytes just stored
 * waits for them). */
static inline void enc_vec(const ak_key *k, double dflt, unsigned char out[12], int clean)
{
    if (!k) {
        const double v[3] = { dflt, dflt, dflt };
        put_floats(out, v, 3);
        return;
    }
    uint32_t bits[3], differ = 0;
    for (int i = 0; i < 3; i++) {
        float f = (float)k->v[i];
        memcpy(&bits[i], &f, 4);
    }
    if (k->raw_size == 12) {
        for (int i = 0; i < 3; i++)
            differ |= bits[i] ^ ak_peek_u32(k->raw + 4 * i);
        if (differ && untouched(k, clean)) {
            memcpy(out, k->raw, 12);
            return;
        }
    }
    for (int i = 0; i < 3; i++)
        ak_poke_u32(out + 4 * i, bits[i]);
}

static inline void enc_rot(wctx *w, const ak_key *k, unsigned char out[12], int clean)
{
    if (raw_ok(k, 12, clean)) {
        memcpy(out, k->raw, 12);
        return;
    }
    static const double id[4] = { 0, 0, 0, 1 };
    float xyz[3];
    if (!anm_quat_to_xyz(k ? k->v : id, xyz))
        w->badrot++;
    for (int i = 0; i < 3; i++)
        ak_poke_u32(out + 4 * i, ak_f32_bits(xyz[i]));
}

/* A visibility key's flag bits, encoded first as enc_vec does: the
 * stored ones only when they differ (both bits, or a VISI value the value
 * does not give) and the key is untouched. */
static unsigned vis_bits(const ak_key *k, int clean)
{
    if (!k)
        return ANM_F_VIS_ON;
    unsigned bits = k->v[0] >= 0.5 ? ANM_F_VIS_ON : ANM_F_VIS_OFF, stored = 0;
    if (k->raw_size == 1)
        stored = k->raw[0] & (ANM_F_VIS_ON | ANM_F_VIS_OFF);
    else if (k->raw_size == 4)
        stored = ak_peek_u32(k->raw) ? ANM_F_VIS_ON : ANM_F_VIS_OFF;
    return stored && stored != bits && untouched(k, clean) ? stored : bits;
}

static uint32_t visi_value(const ak_key *k, int clean)
{
    if (k && k->raw_size == 4) {
        uint32_t value = k->v[0] >= 0.5, stored = ak_peek_u32(k->raw);
        return stored != value && untouched(k, clean) ? stored : value;
    }
    return (vis_bits(k, clean) & ANM_F_VIS_ON) ? 1u : 0u;
}

/* Comparable encoding of one channel (generate mode). */
static void enc_channel(wctx *w, const wtrack *wt, int c, const ak_key *k, unsigned char out[12])
{
    int clean = known_clean(wt, c, k);
    memset(out, 0, 12);
    if (c == CH_ROT)
        enc_rot(w, k, out, clean);
    else if (c == CH_VIS)
        out[0] = (unsigned char)vis_bits(k, clean);
    else
        enc_vec(k, c == CH_SCALE ? 1.0 : 0.0, out, clean);
}

/* ---- sparse generation ---- */

/* Frees the track's records when they are its own (not its slice of the pool). */
static void drop_records(wctx *w, wtrack *wt)
{
    if (wt->recs != wt->rec_slice)
        ak_job_free(w->job, wt->recs);
    wt->recs = NULL;
    wt->nrec = 0;
}

static ak_status generate_records(wctx *w, wtrack *wt, uint32_t bone, uint32_t last)
{
    drop_records(w, wt);
    size_t n;
    uint32_t *f = track_frames(w, wt, 0, last, &n);
    if (!f)
        return nomem(w);
    n = unique_sorted(w, f, n);
    wt->recs = ak_job_alloc(w->job, n, sizeof *wt->recs);
    if (!wt->recs) {
        ak_job_free(w->job, f);
        return nomem(w);
    }
    unsigned char prev[AK_CHANNELS][12];
    int have_prev[AK_CHANNELS] = { 0 };
    for (size_t i = 0; i < n; i++) {
        wrec r;
        memset(&r, 0, sizeof r);
        r.frame = f[i];
        r.bone = bone;
        int full = f[i] == 0 || f[i] == last;
        for (int c = 0; c < AK_CHANNELS; c++) {
            const wch *at = find_at(wt, c, f[i]);
            const ak_key *k = NULL;
            int include = 0;
            if (full) {
                if (wt->n[c]) {
                    k = at ? at->key : sample(wt, c, f[i]);
                    include = 1;
                } else if (c == CH_VIS) {
                    include = 1; /* every bone visible unless keyed otherwise */
                }
            } else if (at) {
                unsigned char e[12];
                enc_channel(w, wt, c, at->key, e);
                k = at->key;
                include = !have_prev[c] || memcmp(e, prev[c], 12) != 0;
            }
            if (include) {
                r.key[c] = k;
                r.has |= HAS(c);
                enc_channel(w, wt, c, k, prev[c]);
                have_prev[c] = 1;
            }
        }
        const anm_extra *ex = find_extra(wt, f[i]);
        if (ex && (extra_has_mesh(ex) || (ex->flags & ANM_F_MIRROR)))
            r.ex = ex;
        if (!r.has && !extra_has_mesh(r.ex))
            continue;
        wt->recs[wt->nrec++] = r;
    }
    ak_job_free(w->job, f);
    return AK_OK;
}

/* ---- layout check ---- */

static wrec *find_rec(wtrack *wt, uint32_t frame)
{
    /* Layouts list a bone's records in frame order: try the one after the
     * last found before searching. */
    if (wt->hint < wt->nrec && wt->recs[wt->hint].frame == frame)
        return &wt->recs[wt->hint++];
    size_t lo = 0, hi = wt->nrec;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (wt->recs[mid].frame < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < wt->nrec && wt->recs[lo].frame == frame) {
        wt->hint = lo + 1;
        return &wt->recs[lo];
    }
    return NULL;
}

/* The chunk of the layout prop at *p: 1 when it is well formed (a known
 * kind, its bones within the prop), with *p moved to its first bone. */
static inline int layout_chunk(const ak_prop *lp, size_t *p, uint8_t *kind, uint32_t *frame, uint32_t *n)
{
    if (lp->size - *p < 9)
        return 0;
    *kind = lp->data[*p];
    *frame = ak_peek_u32(lp->data + *p + 1);
    *n = ak_peek_u32(lp->data + *p + 5);
    *p += 9;
    return *kind <= ANM_TAG_FRM3 && *n <= (lp->size - *p) / 4;
}

/* 1 if the layout prop is well formed and names exactly the records,
 * which w->lay then lists in its order; 0 if not; -1 out of memory. */
static int layout_matches(wctx *w, const ak_prop *lp)
{
    if (!lp || lp->type != AK_PROP_BYTES)
        return 0;
    size_t have = 0;
    for (size_t i = 0; i < w->nbusy; i++)
        have += w->tr[w->busy[i]].nrec;
    w->lay = ak_job_alloc(w->job, have, sizeof *w->lay);
    if (!w->lay)
        return -1;
    size_t total = 0, p = 0;
    while (p < lp->size) {
        uint8_t kind;
        uint32_t frame, n;
        if (!layout_chunk(lp, &p, &kind, &frame, &n))
            return 0;
        for (uint32_t i = 0; i < n; i++, p += 4) {
            uint32_t bone = ak_peek_u32(lp->data + p);
            if (bone >= w->ntr)
                return 0;
            wrec *r = find_rec(&w->tr[bone], frame);
            if (!r || r->used)
                return 0;
            r->used = 1;
            w->lay[total++] = r; /* each record once: total < have */
        }
    }
    return total == have;
}

/* ---- layout mode without the lists: replay ---- */

/* A track's stored records as its records (into `recs`, zeroed, and `ex`,
 * room for all of them), with each channel's keys put on the records they
 * lie on, one channel at a time: 1 when the records are well formed and
 * ascend and every key lies on one (within 1e-4 of its frame, as
 * prepare_channel would round it without a warning), each record taking
 * at most one key a channel; 0 when not, and the regular path decides. A
 * record without a key of a channel gets the key in force there (the last
 * one before it, else the first), which an FRMN record samples
 * (emit_matr) and the others ignore. */
static int replay_track(const wctx *w, wtrack *wt, uint32_t bone, anm_extra *ex, wrec *recs)
{
    const ak_prop *rp = wt->records;
    if (wt->records_any && !rp)
        return 0; /* malformed: the regular path warns */
    take_mesh_and_mirror(wt);
    size_t n = rp ? rp->size / ANM_EXTRA_SIZE : 0;
    for (size_t i = 0; i < n; i++) {
        anm_extra_load(rp->data + i * ANM_EXTRA_SIZE, &ex[i]);
        const anm_extra *e = &ex[i];
        if (e->kind > ANM_TAG_FRM3 || (i && e->frame <= e[-1].frame) || e->frame == UINT32_MAX)
            return 0;
        if (!mesh_in_bounds(wt, e))
            return 0;
        recs[i].frame = e->frame;
        recs[i].bone = bone;
        recs[i].ex = e;
    }
    for (int c = 0; c < AK_CHANNELS; c++) {
        const ak_channel *ch = &wt->t->channel[c];
        if (!ch->count)
            continue;
        const ak_key *keys = ch->keys, *clean_end = wt->clean_end[c];
        size_t j = 0;
        double next = keys[0].time * w->fps; /* key j's frame, unrounded */
        for (size_t i = 0; i < n; i++) {
            wrec *r = &recs[i];
            double d = next - r->frame;
            if (j < ch->count && fabs(d) <= 1e-4) {
                r->key[c] = &keys[j];
                r->has |= HAS(c);
                r->clean |= (unsigned short)(&keys[j] < clean_end ? HAS(c) : 0);
                if (++j < ch->count)
                    next = keys[j].time * w->fps;
                continue;
            }
            if (j < ch->count && d < 0)
                return 0; /* between records, or two keys on one */
            if (c != CH_VIS)
                r->key[c] = &keys[j ? j - 1 : 0];
        }
        if (j < ch->count) /* after the last record, or NaN */
            return 0;
    }
    wt->recs = recs;
    wt->nrec = n;
    return 1;
}

/* The frame of the key at `k` as replay_track takes a key (within 1e-4
 * of a frame number, UINT32_MAX excepted), or UINT64_MAX at `end`; 0
 * when it lies between frames or outside them. */
static int key_frame(const wctx *w, const ak_key *k, const ak_key *end, uint64_t *frame)
{
    if (k == end) {
        *frame = UINT64_MAX;
        return 1;
    }
    double f = k->time * w->fps;
    if (!(f >= -0.5 && f < 4294967294.5)) /* NaN too */
        return 0;
    uint32_t whole = (uint32_t)(f + 0.5);
    *frame = whole;
    return fabs(f - whole) <= 1e-4;
}

/* replay_track for a track without stored records: a record on each
 * frame that any of its channels keys (as natural_records makes them),
 * into `recs` (room for every key of the track, not cleared: each record
 * is set whole), the keys as replay_track puts them. 0 when a key lies
 * between frames or a channel's frames do not ascend, and the regular
 * path decides. */
static int replay_keys(const wctx *w, wtrack *wt, uint32_t bone, wrec *recs)
{
    take_mesh_and_mirror(wt);
    const ak_key *next[AK_CHANNELS], *end[AK_CHANNELS];
    uint64_t at[AK_CHANNELS]; /* the frame of next[c] */
    for (int c = 0; c < AK_CHANNELS; c++) {
        const ak_channel *ch = &wt->t->channel[c];
        next[c] = ch->keys;
        end[c] = ch->count ? ch->keys + ch->count : ch->keys;
        if (!key_frame(w, next[c], end[c], &at[c]))
            return 0;
    }
    size_t n = 0;
    for (;;) {
        uint64_t f = at[0];
        for (int c = 1; c < AK_CHANNELS; c++)
            if (at[c] < f)
                f = at[c];
        if (f == UINT64_MAX)
            break;
        wrec *r = &recs[n++];
        *r = (wrec){ .frame = (uint32_t)f, .bone = bone };
        for (int c = 0; c < AK_CHANNELS; c++) {
            if (at[c] != f) { /* the key in force, as replay_track gives it */
                if (c != CH_VIS && end[c] != wt->t->channel[c].keys)
                    r->key[c] = next[c] != wt->t->channel[c].keys ? next[c] - 1 : next[c];
                continue;
            }
            r->key[c] = next[c];
            r->has |= HAS(c);
            r->clean |= (unsigned short)(next[c] < wt->clean_end[c] ? HAS(c) : 0);
            if (!key_frame(w, ++next[c], end[c], &at[c]) || at[c] <= f)
                return 0;
        }
    }
    wt->recs = recs;
    wt->nrec = n;
    return 1;
}

/* The walk of replay_layout over the layout prop: each entry must be its
 * bone's next record (wtrack.hint counts them), at the chunk's frame, and
 * one that natural_records would keep; 1 when every record was taken. */
static int replay_walk(wctx *w, const ak_prop *lp, size_t nstored)
{
    size_t total = 0, p = 0;
    while (p < lp->size) {
        uint8_t kind;
        uint32_t frame, n;
        if (!layout_chunk(lp, &p, &kind, &frame, &n) || n > nstored - total)
            return 0;
        for (uint32_t i = 0; i < n; i++, p += 4) {
            uint32_t bone = ak_peek_u32(lp->data + p);
            if (bone >= w->ntr)
                return 0;
            wtrack *wt = &w->tr[bone];
            if (wt->hint >= wt->nrec)
                return 0;
            wrec *r = &wt->recs[wt->hint++];
            if (r->frame != frame || !keep_record(r))
                return 0;
            w->lay[total++] = r;
        }
    }
    /* Each record taken at most once, and there are nstored: all of them. */
    return total == nstored;
}

/* Replays the stored records: 1 when each track's keys lie on its stored
 * records (replay_track), or give them (replay_keys), and the layout prop
 * visits those records in order, as a document read and not restructured
 * does; then w->lay lists the records (the tracks' slices of
 * w->rec_pool, their stored records in `ex`) and each track's recs and
 * nrec are set, as natural_records and layout_matches would have them,
 * without the per-channel frame lists and the search. 0 when not, leaving
 * rec_pool zeroed and w->lay NULL for the regular path. `nroom`: the
 * records rec_pool and `lay` have room for. */
static int replay_layout(wctx *w, const ak_prop *lp, size_t nroom, anm_extra *ex, wrec **lay)
{
    if (!lp || lp->type != AK_PROP_BYTES || !nroom)
        return 0;
    int ok = 1;
    size_t nrecs = 0;
    for (size_t i = 0, at = 0; ok && i < w->nbusy; i++) {
        wtrack *wt = &w->tr[w->busy[i]];
        if (wt->keys_say_all) {
            ok = replay_keys(w, wt, w->busy[i], wt->rec_slice);
        } else {
            ok = replay_track(w, wt, w->busy[i], ex + at, wt->rec_slice);
            at += wt->nrec;
        }
        nrecs += wt->nrec;
    }
    w->lay = lay;
    if (ok && nrecs && replay_walk(w, lp, nrecs)) {
        w->lay_in_pool = 1;
        return 1;
    }
    memset(w->rec_pool, 0, nroom * sizeof *w->rec_pool); /* natural_records needs the stored part zeroed */
    for (size_t i = 0; i < w->nbusy; i++) {
        wtrack *wt = &w->tr[w->busy[i]];
        wt->recs = NULL;
        wt->nrec = 0;
        wt->hint = 0;
    }
    w->lay = NULL;
    return 0;
}

/* ---- emission ---- */

static int mirrored_bit(const wctx *w, const wrec *r)
{
    if (r->ex)
        return (r->ex->flags & ANM_F_MIRROR) != 0;
    return w->tr[r->bone].mirrored && (r->has & (HAS(CH_POS) | HAS(CH_ROT)));
}

/* An FRM2/FRM3 key record up to its mesh body: bone, flags, three
 * float[3], the mesh size. */
#define KEY_HEAD_MAX (3 + 36 + 4)
static void flush(wctx *w)
{
    ak_put(w->out, w->buf, w->used);
    w->used = 0;
}

/* What one chunk can take in wctx.buf (a mesh body goes straight to the
 * sink): tag, a frame number of up to 4 bytes, the count and at most 255
 * records, and never more than the document has. */
static size_t chunk_buf_size(const wctx *w)
{
    size_t recs = 0;
    for (size_t i = 0; i < w->nbusy && recs < 255; i++)
        recs += w->tr[w->busy[i]].nrec;
    return 4 + 4 + 1 + (recs < 255 ? recs : 255) * KEY_HEAD_MAX;
}

/* Appends one key record to w->buf (*used bytes so far). */
static ak_status emit_frm2_key(wctx *w, const wrec *r, size_t *used)
{
    if (r->bone > 255)
        return ak_fail(w->job, AK_E_UNSUPPORTED, -1,
                       "bone %u ('%s') is keyed, but FRM2/FRM3 store bone indices in 8 bits (write variant=4.0)",
                       r->bone, w->tr[r->bone].t->bone);
    const wtrack *wt = &w->tr[r->bone];
    unsigned flags = 0;
    if (r->has & HAS(CH_POS))
        flags |= ANM_F_POS;
    if (r->has & HAS(CH_ROT))
        flags |= ANM_F_ROT;
    if (r->has & HAS(CH_SCALE))
        flags |= ANM_F_SCALE;
    if (r->has & HAS(CH_VIS))
        flags |= vis_bits(r->key[CH_VIS], rec_clean(wt, r, CH_VIS));
    if (extra_has_mesh(r->ex))
        flags |= ANM_F_MESH;
    if (mirrored_bit(w, r))
        flags |= ANM_F_MIRROR;
    unsigned char *b = w->buf + *used;
    size_t len = 3;
    b[0] = (unsigned char)r->bone;
    b[1] = (unsigned char)(flags & 0xFFu);
    b[2] = (unsigned char)(flags >> 8);
    if (flags & ANM_F_POS) {
        enc_vec(r->key[CH_POS], 0.0, b + len, rec_clean(wt, r, CH_POS));
        len += 12;
    }
    if (flags & ANM_F_ROT) {
        enc_rot(w, r->key[CH_ROT], b + len, rec_clean(wt, r, CH_ROT));
        len += 12;
    }
    if (flags & ANM_F_SCALE) {
        enc_vec(r->key[CH_SCALE], 1.0, b + len, rec_clean(wt, r, CH_SCALE));
        len += 12;
    }
    if (flags & ANM_F_MESH) {
        ak_poke_u32(b + len, r->ex->mesh_size);
        ak_put(w->out, w->buf, *used + len + 4);
        *used = 0;
        if (r->ex->mesh_size) /* an empty blob may have no mesh prop: no arithmetic on NULL */
            ak_put(w->out, w->tr[r->bone].mesh + r->ex->mesh_off, r->ex->mesh_size);
        return AK_OK;
    }
    *used += len;
    return AK_OK;
}

/* An FRMN BONE record at most, up to its mesh body: BONE and the bone,
 * MATR with nine floats and a position, VISI and its value, MESH and the
 * size. */
#define BONE_HEAD_MAX (8 + 52 + 8 + 8)

/* MATR into w->buf at w->used (52 bytes). */
static void emit_matr(wctx *w, const wrec *r)
{
    const wtrack *wt = &w->tr[r->bone];
    /* A key without its channel bit is the sampled one replay_layout found. */
    const ak_key *kr = (r->has & HAS(CH_ROT)) || r->key[CH_ROT] ? r->key[CH_ROT] : sample(wt, CH_ROT, r->frame);
    const ak_key *kp = (r->has & HAS(CH_POS)) || r->key[CH_POS] ? r->key[CH_POS] : sample(wt, CH_POS, r->frame);
    const ak_key *ks =
        (r->has & HAS(CH_SCALE)) || r->key[CH_SCALE] ? r->key[CH_SCALE] : sample(wt, CH_SCALE, r->frame);
    unsigned char *b = w->buf + w->used;
    memcpy(b, "MATR", 4);
    int rot_clean = kr == r->key[CH_ROT] ? rec_clean(wt, r, CH_ROT) : known_clean(wt, CH_ROT, kr);
    int scale_clean = ks == r->key[CH_SCALE] ? rec_clean(wt, r, CH_SCALE) : known_clean(wt, CH_SCALE, ks);
    if (raw_ok(kr, 36, rot_clean) && (!ks || untouched(ks, scale_clean))) {
        memcpy(b + 4, kr->raw, 36);
    } else {
        static const double id[4] = { 0, 0, 0, 1 };
        double sc[3] = { 1, 1, 1 };
        if (ks)
            memcpy(sc, ks->v, sizeof sc);
        const double *q = kr ? kr->v : id;
        double n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        if (!isfinite(n) || n < 1e-30)
            w->badrot++;
        float m[9];
        anm_matrix_encode(q, sc, mirrored_bit(w, r), m);
        for (int i = 0; i < 9; i++)
            ak_poke_u32(b + 4 + 4 * i, ak_f32_bits(m[i]));
    }
    enc_vec(kp, 0.0, b + 40, kp == r->key[CH_POS] ? rec_clean(wt, r, CH_POS) : known_clean(wt, CH_POS, kp));
    w->used += 52;
}

static void emit_bone(wctx *w, const wrec *r)
{
    int want[4] = { 0 };
    want[ANM_SUB_MATR] = (r->has & (HAS(CH_POS) | HAS(CH_ROT) | HAS(CH_SCALE))) != 0;
    want[ANM_SUB_VISI] = (r->has & HAS(CH_VIS)) != 0;
    want[ANM_SUB_MESH] = extra_has_mesh(r->ex);
    int order[3], n = 0;
    if (r->ex && r->ex->kind == ANM_TAG_FRMN)
        for (int i = 0; i < 3; i++) {
            int code = (r->ex->order >> (2 * i)) & 3;
            if (code == ANM_SUB_END)
                break;
            int dup = 0;
            for (int j = 0; j < n; j++)
                dup |= order[j] == code;
            if (!dup && want[code])
                order[n++] = code;
        }
    for (int code = ANM_SUB_MATR; code <= ANM_SUB_MESH; code++) {
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= order[j] == code;
        if (!dup && want[code])
            order[n++] = code;
    }
    if (w->cap - w->used < BONE_HEAD_MAX)
        flush(w);
    memcpy(w->buf + w->used, "BONE", 4);
    ak_poke_u32(w->buf + w->used + 4, r->bone);
    w->used += 8;
    for (int i = 0; i < n; i++) {
        unsigned char *b = w->buf + w->used;
        if (order[i] == ANM_SUB_MATR) {
            emit_matr(w, r);
        } else if (order[i] == ANM_SUB_VISI) {
            memcpy(b, "VISI", 4);
            ak_poke_u32(b + 4, visi_value(r->key[CH_VIS], rec_clean(&w->tr[r->bone], r, CH_VIS)));
            w->used += 8;
        } else {
            memcpy(b, "MESH", 4);
            ak_poke_u32(b + 4, r->ex->mesh_size);
            w->used += 8;
            flush(w);
            if (r->ex->mesh_size) /* an empty blob may have no mesh prop: no arithmetic on NULL */
                ak_put(w->out, w->tr[r->bone].mesh + r->ex->mesh_off, r->ex->mesh_size);
        }
    }
}

static int frame_width(uint32_t frms)
{
    uint32_t max = frms - 1;
    return max <= 0xFFu ? 1 : max <= 0xFFFFu ? 2 : 4;
}

static void emit_frmn_chunk(wctx *w, uint32_t frame, wrec *const *recs, size_t n)
{
    if (w->cap - w->used < 8)
        flush(w);
    memcpy(w->buf + w->used, "FRMN", 4);
    ak_poke_u32(w->buf + w->used + 4, frame);
    w->used += 8;
    for (size_t i = 0; i < n; i++)
        emit_bone(w, recs[i]);
}

/* One frame chunk holding `n` records (FRM2/FRM3: at most 255). */
static ak_status emit_chunk(wctx *w, int tag, uint32_t frame, wrec *const *recs, size_t n)
{
    if (tag == ANM_TAG_FRMN) {
        emit_frmn_chunk(w, frame, recs, n);
        return AK_OK;
    }
    if (w->cap - w->used < 9 + n * KEY_HEAD_MAX)
        flush(w);
    unsigned char *b = w->buf + w->used;
    size_t len = 4;
    if (tag == ANM_TAG_FRM2) {
        if (frame > 0xFFFFu)
            return ak_fail(w->job, AK_E_UNSUPPORTED, -1,
                           "frame %u does not fit FRM2's 16-bit frame number (write variant=frm3)", frame);
        memcpy(b, "FRM2", 4);
        b[len++] = (unsigned char)frame;
        b[len++] = (unsigned char)(frame >> 8);
    } else {
        if (w->frms == 0)
            return ak_fail(w->job, AK_E_UNSUPPORTED, -1, "FRM3 needs FRMS > 0 for its frame-number width");
        int wd = frame_width(w->frms);
        if ((wd == 1 && frame > 0xFFu) || (wd == 2 && frame > 0xFFFFu))
            return ak_fail(w->job, AK_E_UNSUPPORTED, -1,
                           "frame %u does not fit FRM3's %d-bit frame number for FRMS = %u", frame, wd * 8,
                           w->frms);
        memcpy(b, "FRM3", 4);
        for (int i = 0; i < wd; i++)
            b[len++] = (unsigned char)(frame >> (8 * i));
    }
    b[len++] = (unsigned char)n;
    size_t used = w->used + len;
    for (size_t i = 0; i < n; i++)
        if (emit_frm2_key(w, recs[i], &used) != AK_OK)
            return AK_E_UNSUPPORTED;
    w->used = used;
    return AK_OK;
}

/* Splits FRM2/FRM3 chunks over 255 keys into same-numbered chunks ([GOH]). */
static ak_status emit_group(wctx *w, int tag, uint32_t frame, wrec *const *recs, size_t n)
{
    if (tag == ANM_TAG_FRMN)
        return emit_chunk(w, tag, frame, recs, n);
    size_t at = 0;
    do {
        size_t part = n - at > 255 ? 255 : n - at;
        /* An empty group has no list at all: no arithmetic on NULL. */
        ak_status s = emit_chunk(w, tag, frame, at ? recs + at : recs, part);
        if (s != AK_OK)
            return s;
        at += part;
    } while (at < n);
    return AK_OK;
}

/* The chunks as the layout prop lists them, their records as
 * layout_matches found them. */
static ak_status emit_layout(wctx *w, const ak_prop *lp)
{
    size_t p = 0, at = 0;
    ak_status s = AK_OK;
    while (s == AK_OK && p < lp->size) {
        uint8_t kind;
        uint32_t frame, n;
        /* Well formed, as layout_matches or replay_layout found it, unless
         * another thread changed the document during the write. */
        if (!layout_chunk(lp, &p, &kind, &frame, &n))
            return ak_fail(w->job, AK_E_USAGE, -1, "the document's anm.layout changed during the write");
        p += 4 * (size_t)n;
        int tag = w->forced_tag >= 0 ? w->forced_tag : kind;
        s = emit_group(w, tag, frame, w->lay + at, n);
        at += n;
    }
    return s;
}

static int cmp_wrec_ptr(const void *a, const void *b)
{
    const wrec *x = *(wrec *const *)a, *y = *(wrec *const *)b;
    if (x->frame != y->frame)
        return x->frame < y->frame ? -1 : 1;
    return x->bone < y->bone ? -1 : x->bone > y->bone;
}

static ak_status emit_sorted(wctx *w)
{
    size_t total = 0;
    for (size_t b = 0; b < w->nbusy; b++)
        total += w->tr[w->busy[b]].nrec;
    wrec **all = ak_job_alloc_uninit(w->job, total, sizeof *all); /* every slot set below */
    if (!all)
        return nomem(w);
    size_t n = 0;
    for (size_t b = 0; b < w->nbusy; b++) {
        const wtrack *wt = &w->tr[w->busy[b]];
        for (size_t i = 0; i < wt->nrec; i++)
            all[n++] = &wt->recs[i];
    }
    qsort(all, n, sizeof *all, cmp_wrec_ptr);
    int tag = w->forced_tag >= 0 ? w->forced_tag : w->default_tag;
    ak_status s = AK_OK;
    for (size_t i = 0; s == AK_OK && i < n;) {
        size_t j = i;
        while (j < n && all[j]->frame == all[i]->frame)
            j++;
        s = emit_group(w, tag, all[i]->frame, all + i, j - i);
        i = j;
    }
    ak_job_free(w->job, all);
    return s;
}

/* ---- parameters and header ---- */

static ak_status parse_variant(wctx *w, uint32_t stored)
{
    const char *v = ak_job_param(w->job, "variant");
    int stored6 = stored == ANM_V60 || stored == ANM_V61;
    w->forced_tag = -1;
    if (!v) {
        w->version = stored ? stored : ANM_V60;
        return AK_OK;
    }
    if (!strcmp(v, "4.0")) {
        w->version = ANM_V40;
        w->forced_tag = ANM_TAG_FRMN;
    } else if (!strcmp(v, "6.0")) {
        w->version = ANM_V60;
        w->forced_tag = ANM_TAG_FRM2;
    } else if (!strcmp(v, "6.1")) {
        w->version = ANM_V61;
        w->forced_tag = ANM_TAG_FRM2;
    } else if (!strcmp(v, "frmn") || !strcmp(v, "FRMN")) {
        w->version = ANM_V40;
        w->forced_tag = ANM_TAG_FRMN;
    } else if (!strcmp(v, "frm2") || !strcmp(v, "FRM2")) {
        w->version = stored6 ? stored : ANM_V60;
        w->forced_tag = ANM_TAG_FRM2;
    } else if (!strcmp(v, "frm3") || !strcmp(v, "FRM3")) {
        w->version = stored6 ? stored : ANM_V61;
        w->forced_tag = ANM_TAG_FRM3;
    } else {
        return ak_fail(w->job, AK_E_USAGE, -1,
                       "unknown variant '%s' (use 4.0, 6.0, 6.1, frmn, frm2 or frm3)", v);
    }
    return AK_OK;
}

/* The bytes BMAP stores for the track's name: the raw name when it is the
 * bone's followed by a NUL and more (ANM_P_NAME), else the bone's. */
static const void *name_bytes(const wtrack *wt, size_t *size)
{
    const ak_track *t = wt->t;
    const ak_prop *raw = wt->name_prop;
    size_t len = strlen(t->bone);
    if (raw && raw->type == AK_PROP_BYTES && raw->size > len && raw->size <= UINT32_MAX &&
        memcmp(raw->data, t->bone, len) == 0 && raw->data[len] == 0) {
        *size = raw->size;
        return raw->data;
    }
    *size = len;
    return t->bone;
}

/* n bytes from src to dst. Bone names are short: up to 16 bytes they are
 * two overlapping 8-, 4- or 1-byte moves the compiler inlines, instead of a
 * call per name (the calls were a twelfth of writing citroen_bodyback). */
static void copy_name(unsigned char *dst, const unsigned char *src, size_t n)
{
    if (n >= 8 && n <= 16) {
        memcpy(dst, src, 8);
        memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(dst, src, 4);
        memcpy(dst + n - 4, src + n - 4, 4);
    } else if (n && n < 4) {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    } else if (n) {
        memcpy(dst, src, n);
    }
}

/* BMAP, its names appended to w->buf (8 + w->names_total bytes of room)
 * instead of two puts a name (a third of writing a file of many unkeyed
 * bones, citroen_bodyback). */
static void emit_bmap(wctx *w)
{
    memcpy(w->buf + w->used, "BMAP", 4);
    ak_poke_u32(w->buf + w->used + 4, (uint32_t)w->ntr);
    size_t at = w->used + 8;
    for (size_t t = 0; t < w->ntr; t++) {
        const bname *nm = &w->names[t];
        ak_poke_u32(w->buf + at, (uint32_t)nm->size);
        copy_name(w->buf + at + 4, nm->bytes, nm->size); /* "" may be a literal of no length: no copy */
        at += 4 + nm->size;
    }
    w->used = at;
}

/* The clip's properties this writer reads. */
typedef struct clip_props {
    const ak_prop *version, *tag, *fps, *frms, *layout, *form, *cmnt_count;
} clip_props;

/* Found in one walk, as find_track_props does for a track: seven lookups
 * by name compared every key of the list in turn (a fifth of writing the
 * 68-byte file). All but one begin with "anm.", so the letter after it
 * picks the one or four names to compare. The first of equal keys wins,
 * as with ak_prop_get. */
static clip_props find_clip_props(const ak_props *props)
{
    clip_props cp = { 0 };
    for (size_t i = 0; i < props->count; i++) {
        const ak_prop *p = &props->items[i];
        const char *k = p->key;
        if (k[0] != 'a' || k[1] != 'n' || k[2] != 'm' || k[3] != '.')
            continue;
        const ak_prop **slot = NULL;
        switch (k[4]) {
        case 'v': slot = !strcmp(k, ANM_P_VERSION) ? &cp.version : NULL; break;
        case 'l': slot = !strcmp(k, ANM_P_LAYOUT) ? &cp.layout : NULL; break;
        case 'c': slot = !strcmp(k, ANM_P_CMNT_COUNT) ? &cp.cmnt_count : NULL; break;
        case 'f': /* fps, frms, frame_tag, form: the next letters tell them apart */
            if (k[5] == 'p')
                slot = !strcmp(k, ANM_P_FPS) ? &cp.fps : NULL;
            else if (k[5] == 'r' && k[6] == 'm')
                slot = !strcmp(k, ANM_P_FRMS) ? &cp.frms : NULL;
            else if (k[5] == 'r' && k[6] == 'a')
                slot = !strcmp(k, ANM_P_TAG) ? &cp.tag : NULL;
            else if (k[5] == 'o')
                slot = !strcmp(k, ANM_P_FORM) ? &cp.form : NULL;
            break;
        }
        if (slot && !*slot)
            *slot = p;
    }
    return cp;
}

static int64_t int_or(const ak_prop *p, int64_t fallback)
{
    return p && p->type == AK_PROP_INT ? p->i : fallback;
}

/* The frame tag a string property names (one of anm_tag_names, the whole
 * string), or -1. Its bytes are a NUL-terminated copy, so with four or
 * more of them the compare may take the terminator too. */
static int stored_tag(const ak_prop *tp)
{
    for (int t = 0; tp->size >= 4 && t < 3; t++)
        if (memcmp(tp->data, anm_tag_names[t], 5) == 0)
            return t;
    return -1;
}

/* The records of every track from its channels and stored records
 * (prepare_channel, prepare_extras, natural_records), for a document
 * replay_layout could not walk; `any` and `max_frame` tell whether there
 * are records and the last frame. */
static ak_status regular_records(wctx *w, size_t keys, int *any, uint32_t *max_frame)
{
    wch *wch_at = w->pool;
    anm_extra *ex_at = (anm_extra *)(void *)(w->pool + keys);
    ak_status s = AK_OK;
    for (size_t i = 0; i < w->nbusy; i++) {
        size_t t = w->busy[i];
        wtrack *wt = &w->tr[t];
        for (int c = 0; c < AK_CHANNELS && s == AK_OK; c++) {
            s = prepare_channel(w, wt, c, wch_at);
            wch_at += wt->t->channel[c].count;
        }
        if (s == AK_OK)
            s = prepare_extras(w, wt, ex_at);
        if (s == AK_OK)
            s = natural_records(w, wt, (uint32_t)t);
        if (s != AK_OK)
            return s;
        if (wt->records)
            ex_at += wt->records->size / ANM_EXTRA_SIZE;
        if (wt->nrec) { /* records ascend by frame */
            *any = 1;
            if (wt->recs[wt->nrec - 1].frame > *max_frame)
                *max_frame = wt->recs[wt->nrec - 1].frame;
        }
    }
    if (w->rounded)
        ak_warn(w->job, -1, "%u keys fall between frames at %g frames per second and were rounded to the nearest frame",
                w->rounded, w->fps);
    if (w->merged)
        ak_warn(w->job, -1,
                "%u keys fell on the same frame as another key of their channel at %g frames per second and "
                "were dropped (a higher fps keeps them)",
                w->merged, w->fps);
    return AK_OK;
}

static ak_status write_clip(wctx *w)
{
    const ak_clip *clip = w->clip;
    const ak_props *cp = &clip->props;
    const clip_props found = find_clip_props(cp);
    const ak_prop *vp = found.version;
    uint32_t stored = 0;
    if (vp && vp->type == AK_PROP_INT &&
        (vp->i == ANM_V30 || vp->i == ANM_V40 || vp->i == ANM_V50 || vp->i == ANM_V60 || vp->i == ANM_V61))
        stored = (uint32_t)vp->i;
    ak_status s = parse_variant(w, stored);
    if (s != AK_OK)
        return s;
    const ak_prop *tp = found.tag;
    w->default_tag = w->version < ANM_V60 ? ANM_TAG_FRMN : ANM_TAG_FRM2;
    if (tp && tp->type == AK_PROP_STRING && stored && w->version == stored) {
        int tag = stored_tag(tp);
        if (tag >= 0)
            w->default_tag = tag;
    }

    double fps;
    if (ak_job_param(w->job, "fps")) { /* the write has no default: the number only when given */
        fps = ak_job_param_number(w->job, "fps", 0);
        if (ak_job_failed(w->job))
            return AK_E_USAGE;
        if (!(fps > 0) || !isfinite(fps))
            return ak_fail(w->job, AK_E_USAGE, -1, "parameter fps must be a positive number");
    } else if (found.fps && clip->tick_rate > 0 && isfinite(clip->tick_rate)) {
        fps = clip->tick_rate;
    } else {
        fps = ANM_FPS_ASSUMED;
        ak_warn(w->job, -1, "ANM stores no frame rate: key times become frame numbers at " ANM_TEXT(ANM_FPS_ASSUMED)
                            " frames per second (set parameter fps to change)");
    }
    w->fps = fps;

    w->ntr = clip->track_count;
    if (w->ntr > UINT32_MAX)
        return ak_fail(w->job, AK_E_UNSUPPORTED, -1, "too many tracks for BMAP");
    /* The tracks, their names and the busy list in one block. */
    w->tr = ak_job_alloc_uninit(w->job, w->ntr, sizeof(wtrack) + sizeof(bname) + sizeof(uint32_t));
    if (!w->tr)
        return nomem(w);
    memset(w->tr, 0, w->ntr * sizeof *w->tr);
    w->names = (bname *)(void *)(w->tr + w->ntr);
    w->busy = (uint32_t *)(void *)(w->names + w->ntr);
    size_t keys = 0, nstored = 0, nderived = 0;
    int unplaced = 0; /* a track has mesh bodies but no stored records (warn_mesh_unplaced) */
    for (size_t t = 0; t < w->ntr; t++) {
        wtrack *wt = &w->tr[t];
        wt->t = clip->tracks[t];
        size_t track_keys = 0;
        for (int c = 0; c < AK_CHANNELS; c++) {
            const ak_channel *ch = &wt->t->channel[c];
            track_keys += ch->count;
            /* Positions and visibility are encoded first (enc_vec): only
             * the others need to know which keys are untouched. */
            int ask = (c == CH_ROT || c == CH_SCALE) && ch->count;
            /* Not asked: no key known untouched (the range ends where it
             * starts, so that comparisons stay within the key array). */
            wt->clean_end[c] = ask ? ch->keys + ak_keys_unchanged(ch->keys, ch->count) : ch->keys;
        }
        keys += track_keys;
        find_track_props(wt);
        wt->records = records_prop(wt);
        const ak_prop *ra = wt->records_any;
        wt->keys_say_all = track_keys && !wt->records && (!ra || (ra->type == AK_PROP_BYTES && ra->size == 0));
        if (wt->records)
            nstored += wt->records->size / ANM_EXTRA_SIZE;
        else if (wt->keys_say_all)
            nderived += track_keys; /* each record holds a key */
        unplaced |= !wt->records && wt->mesh_prop;
        /* Idle (no keys, no stored records): nothing to prepare and no natural
         * records. Most bones of a FRMN file are (citroen_bodyback's 43
         * unkeyed bones were a quarter of writing it). */
        if (track_keys || wt->records_any)
            w->busy[w->nbusy++] = (uint32_t)t;
        bname *nm = &w->names[t];
        nm->bytes = name_bytes(wt, &nm->size);
        if (nm->size > UINT32_MAX || nm->size > SIZE_MAX - 4 - w->names_total)
            return ak_fail(w->job, AK_E_LIMIT, -1, "bone '%s': name too long for BMAP", wt->t->bone);
        w->names_total += 4 + nm->size;
    }
    for (size_t t = 0; unplaced && t < w->ntr; t++) /* apart: in the loop above it slowed every write */
        if (!w->tr[t].records)
            warn_mesh_unplaced(w, &w->tr[t]);
    const ak_prop *fp = found.frms;
    const ak_prop *lp = found.layout;
    int frms_ok = fp && fp->type == AK_PROP_INT && fp->i >= 0 && fp->i <= UINT32_MAX;
    /* The records replay_layout may take: the stored ones, and where it
     * has a layout to follow, those the keys give (at most a key each). */
    size_t nroom = nstored + (frms_ok && lp && lp->type == AK_PROP_BYTES ? nderived : 0);
    /* One block of channel entries holds them, then the stored records
     * (16 bytes as an entry is), replay_layout's list of records, the
     * records of every track and the output buffer that
     * replaying the records needs (BMAP, or a chunk of all of
     * them up to 255): one allocation instead of five (each was a few per
     * cent of writing a small file; one per track, a tenth of writing a
     * many-bone file). */
    if (w->names_total > SIZE_MAX - 8)
        return ak_fail(w->job, AK_E_LIMIT, -1, "too many bone names for BMAP");
    size_t room = 9 + (nroom < 255 ? nroom : 255) * KEY_HEAD_MAX;
    if (room < 8 + w->names_total)
        room = 8 + w->names_total;
    if (room < BONE_HEAD_MAX)
        room = BONE_HEAD_MAX;
    size_t ex_slots = slots_for(nstored, sizeof(anm_extra));
    size_t lay_slots = slots_for(nroom, sizeof(wrec *));
    size_t rec_slots = slots_for(nroom, sizeof(wrec)), room_slots = slots_for(room, 1);
    size_t extra = ex_slots + lay_slots; /* each under SIZE_MAX / 16: no wrap */
    if (extra > SIZE_MAX / sizeof(wch) || rec_slots > SIZE_MAX / sizeof(wch) - extra ||
        room_slots > SIZE_MAX / sizeof(wch) - extra - rec_slots ||
        keys > SIZE_MAX / sizeof(wch) - extra - rec_slots - room_slots)
        return ak_fail(w->job, AK_E_LIMIT, -1, "too many keys");
    /* Not cleared but for the records: every other entry is written before
     * it is read (prepare_channel, prepare_extras, replay_track,
     * replay_walk, the emitters). */
    w->pool = ak_job_alloc_uninit(w->job, keys + extra + rec_slots + room_slots, sizeof *w->pool);
    if (!w->pool)
        return nomem(w);
    w->rec_pool = nroom ? (wrec *)(void *)(w->pool + keys + extra) : NULL;
    if (nstored)
        memset(w->rec_pool, 0, nstored * sizeof *w->rec_pool);
    w->buf_room = (unsigned char *)(w->pool + keys + extra + rec_slots);
    w->buf_room_size = room;
    /* An idle track has no records. */
    for (size_t i = 0, stored_at = 0, derived_at = nstored; i < w->nbusy; i++) {
        wtrack *wt = &w->tr[w->busy[i]];
        wt->rec_slice = NULL;
        if (wt->records) {
            wt->rec_slice = w->rec_pool + stored_at;
            stored_at += wt->records->size / ANM_EXTRA_SIZE;
        } else if (wt->keys_say_all && nroom > nstored) {
            wt->rec_slice = w->rec_pool + derived_at;
            for (int c = 0; c < AK_CHANNELS; c++)
                derived_at += wt->t->channel[c].count;
        }
    }
    int layout = frms_ok ? replay_layout(w, lp, nroom, (anm_extra *)(void *)(w->pool + keys),
                                         (wrec **)(void *)(w->pool + keys + ex_slots))
                         : 0;
    uint32_t max_frame = 0;
    int any = 0;
    if (!layout) {
        s = regular_records(w, keys, &any, &max_frame);
        if (s != AK_OK)
            return s;
        layout = layout_matches(w, lp);
        if (layout < 0)
            return nomem(w);
    }
    if (layout && frms_ok) {
        w->frms = (uint32_t)fp->i;
    } else {
        layout = 0;
        uint64_t frms = any ? (uint64_t)max_frame + 1 : 0;
        if (fp && fp->type == AK_PROP_INT && fp->i > 0 && (uint64_t)fp->i > frms && fp->i <= UINT32_MAX)
            frms = (uint64_t)fp->i;
        if (clip->duration > 0 && isfinite(clip->duration)) {
            double d = floor(clip->duration * fps + 0.5) + 1;
            if (d > (double)frms && d < 4294967295.0)
                frms = (uint64_t)d;
        }
        if (frms == 0 && w->ntr)
            frms = 1;
        if (frms > UINT32_MAX)
            return ak_fail(w->job, AK_E_UNSUPPORTED, -1, "the clip is too long for FRMS");
        w->frms = (uint32_t)frms;
        /* Every bone gets records here, the unkeyed ones too (visible at
         * the first and last frame). */
        for (size_t t = 0; t < w->ntr; t++)
            w->busy[t] = (uint32_t)t;
        w->nbusy = w->ntr;
        for (size_t t = 0; t < w->ntr && s == AK_OK; t++)
            s = generate_records(w, &w->tr[t], (uint32_t)t, w->frms ? w->frms - 1 : 0);
        if (s != AK_OK)
            return s;
    }

    ak_sink *out = w->out;
    unsigned char head[16];
    memcpy(head, "EANM", 4);
    ak_poke_u32(head + 4, w->version);
    memcpy(head + 8, "FRMS", 4);
    ak_poke_u32(head + 12, w->frms);
    int64_t form = int_or(found.form, -1);
    if (form == 0 && w->ntr == 0) {
        ak_put(out, head, 8);
        return AK_OK;
    }
    ak_put(out, head, sizeof head);
    int64_t ncmnt = int_or(found.cmnt_count, 0);
    for (int64_t i = 0; i < ncmnt && i < 65536; i++) {
        char key[32];
        snprintf(key, sizeof key, "%s%lld", ANM_P_CMNT, (long long)i);
        const ak_prop *c = ak_prop_get(cp, key);
        if (!c || (c->type != AK_PROP_BYTES && c->type != AK_PROP_STRING))
            continue;
        size_t n = c->size;
        if (n > 0xFFFF) {
            ak_warn(w->job, -1, "CMNT %lld is longer than 65535 bytes and was cut", (long long)i);
            n = 0xFFFF;
        }
        ak_put(out, "CMNT", 4);
        ak_put_u16(out, (uint16_t)n);
        ak_put(out, c->data, n);
    }
    if (form == 1 && w->ntr == 0 && ncmnt == 0)
        return AK_OK;
    size_t names = w->names_total;
    size_t chunk = chunk_buf_size(w);
    w->cap = 8 + names > chunk ? 8 + names : chunk;
    if (w->cap < BONE_HEAD_MAX)
        w->cap = BONE_HEAD_MAX;
    /* Generated records may need more room than the stored ones. */
    w->buf = w->cap <= w->buf_room_size ? w->buf_room : ak_job_alloc_uninit(w->job, w->cap, 1);
    if (!w->buf)
        return nomem(w);
    emit_bmap(w);
    s = layout ? emit_layout(w, lp) : emit_sorted(w);
    if (s == AK_OK)
        flush(w);
    if (s == AK_OK && w->badrot)
        ak_warn(w->job, -1, "%u rotation keys were zero or not finite and were written as identity", w->badrot);
    return s;
}

ak_status anm_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    if (doc->clip_count != 1)
        return ak_fail(job, AK_E_USAGE, -1, "an ANM file holds exactly one clip, the document has %zu",
                       doc->clip_count);
    wctx w;
    memset(&w, 0, sizeof w);
    w.job = job;
    w.clip = doc->clips[0];
    w.out = out;
    ak_status s = write_clip(&w);
    for (size_t i = 0; w.tr && i < w.nbusy; i++) /* only they may own records */
        drop_records(&w, &w.tr[w.busy[i]]);
    ak_job_free(job, w.tr);
    ak_job_free(job, w.pool);
    if (!w.lay_in_pool)
        ak_job_free(job, w.lay);
    if (w.buf != w.buf_room)
        ak_job_free(job, w.buf);
    if (s == AK_OK && ak_sink_failed(out))
        s = ak_fail(job, AK_E_NOMEM, -1, "out of memory while encoding");
    return s;
}
