/* read.c - the skeleton of a RenderWare clump: the first clump's frame
 * list, each frame's Node Name and HAnim PLG, everything else skipped by
 * its chunk size without being read.
 *
 * Every chunk header is checked against the chunk that holds it (or the
 * file), every count against the bytes left, before anything is read or
 * allocated. Parents must come before their child, which rules out cycles. */
#include "dff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Above this orthonormality error a frame matrix counts as sheared: its
 * stored 3x3 is kept in a prop (the fact sheet finds 13 such frames in 2,142). */
#define DFF_SHEAR 1e-3
/* The games copy names into a 24-byte field with its NUL. */
#define DFF_NAME_FIELD 23u

typedef struct dff_chunk {
    uint32_t type, size, stamp;
    size_t offset;   /* file offset of the header */
    ak_reader body;  /* the payload */
} dff_chunk;

typedef struct dff_rd {
    ak_job *job;
    ak_doc *doc;
    size_t frames;
    /* the first HAnim hierarchy (node records in the input) */
    const unsigned char *nodes;
    size_t node_count, node_offset;
    size_t extra_hierarchies;
    /* findings reported once at the end */
    size_t sheared, long_names, nul_names, duplicate_plugins;
    double worst_shear;
    size_t worst_frame;
} dff_rd;

static const char *chunk_name(uint32_t type)
{
    switch (type) {
    case DFF_STRUCT: return "Struct";
    case DFF_EXTENSION: return "Extension";
    case DFF_FRAMELIST: return "Frame List";
    case DFF_CLUMP: return "Clump";
    case DFF_UVANIMDICT: return "UV Animation Dictionary";
    case DFF_HANIM: return "HAnim PLG";
    case DFF_NODENAME: return "Node Name";
    default: return "chunk";
    }
}

/* What to return after a failed allocation: the job already holds the
 * reason when the heap hit the read's cap. */
static ak_status no_memory(dff_rd *d, size_t off)
{
    if (ak_job_failed(d->job))
        return AK_E_NOMEM;
    return ak_fail(d->job, AK_E_NOMEM, (int64_t)off, "out of memory");
}

static ak_status or_no_memory(dff_rd *d, ak_status st, size_t off)
{
    return st == AK_OK ? AK_OK : no_memory(d, off);
}

/* The next chunk inside `parent` (named `where` in messages). */
static ak_status next_chunk(dff_rd *d, ak_reader *parent, const char *where, dff_chunk *c)
{
    size_t left = ak_remaining(parent);
    c->offset = parent->pos;
    if (left < DFF_HEADER)
        return ak_fail(d->job, AK_E_DATA, (int64_t)c->offset,
                       "%zu bytes left in the %s: too few for a chunk header (12)", left, where);
    c->type = ak_u32(parent);
    c->size = ak_u32(parent);
    c->stamp = ak_u32(parent);
    if (c->size > left - DFF_HEADER)
        return ak_fail(d->job, AK_E_DATA, (int64_t)c->offset,
                       "%s 0x%X of %u bytes runs past the end of the %s (%zu bytes left)", chunk_name(c->type),
                       (unsigned)c->type, (unsigned)c->size, where, left - DFF_HEADER);
    c->body = ak_sub(parent, c->size, chunk_name(c->type));
    return AK_OK;
}

uint32_t dff_stamp_version(uint32_t stamp)
{
    if (stamp & 0xFFFF0000u)
        return (((stamp >> 14) & 0x3FF00u) + 0x30000u) | ((stamp >> 16) & 0x3Fu);
    return stamp << 8;
}

uint32_t dff_stamp_build(uint32_t stamp) { return stamp & 0xFFFF0000u ? stamp & 0xFFFFu : 0; }

/* ---- frames ------------------------------------------------------------- */

static ak_status frame_props(dff_rd *d, size_t i, uint32_t flags, const unsigned char *matrix, double error,
                             size_t off)
{
    ak_bone *b = &d->doc->skeleton.bones[i];
    ak_status st = ak_prop_set_int(d->doc, &b->props, DFF_P_MATRIX_FLAGS, flags);
    if (st == AK_OK && error >= DFF_SHEAR) {
        st = ak_prop_set_bytes(d->doc, &b->props, DFF_P_MATRIX, matrix, 36);
        if (!d->sheared++ || error > d->worst_shear) {
            d->worst_shear = error;
            d->worst_frame = i;
        }
    }
    return or_no_memory(d, st, off);
}

static ak_status read_frame(dff_rd *d, ak_reader *r, size_t i)
{
    size_t off = r->pos;
    const unsigned char *p = ak_bytes(r, DFF_FRAME_SIZE, "frame");
    if (!p)
        return AK_E_DATA;
    double m[3][3], pos[3];
    for (int k = 0; k < 12; k++) {
        double v = ak_bits_f32(ak_load_u32(p + 4 * k));
        if (!isfinite(v))
            return ak_fail(d->job, AK_E_DATA, (int64_t)(off + 4 * (size_t)k),
                           "frame %zu: a non-finite value in its %s", i, k < 9 ? "matrix" : "position");
        if (k < 9)
            m[k / 3][k % 3] = v;
        else
            pos[k - 9] = v;
    }
    int32_t parent = (int32_t)ak_load_u32(p + 48);
    uint32_t flags = ak_load_u32(p + 52);
    if (parent < -1 || (int64_t)parent >= (int64_t)i)
        return ak_fail(d->job, AK_E_DATA, (int64_t)(off + 48),
                       "frame %zu: parent %ld is not an earlier frame (parents come before their children)", i,
                       (long)parent);
    double q[4], error;
    if (!dff_matrix_rotation(m, q, &error))
        return ak_fail(d->job, AK_E_DATA, (int64_t)off,
                       "frame %zu: its matrix is mirrored or flat, so it has no rotation", i);
    ak_bone *b = ak_bone_add(d->doc, "");
    if (!b)
        return no_memory(d, off);
    b->parent = parent;
    memcpy(b->translation, pos, sizeof pos);
    memcpy(b->rotation, q, sizeof q);
    return frame_props(d, i, flags, p, error, off);
}

static ak_status read_frames(dff_rd *d, ak_reader *r)
{
    size_t off = r->pos;
    if (!ak_need(r, 4, "frame count"))
        return AK_E_DATA;
    int32_t count = ak_i32(r);
    if (count < 1)
        return ak_fail(d->job, AK_E_DATA, (int64_t)off, "frame count %ld: a frame list needs at least one frame",
                       (long)count);
    if (!ak_need_array(r, (uint64_t)count, DFF_FRAME_SIZE, "frames"))
        return AK_E_DATA;
    d->frames = (size_t)count;
    for (size_t i = 0; i < d->frames; i++) {
        ak_status st = read_frame(d, r, i);
        if (st != AK_OK)
            return st;
    }
    return AK_OK;
}

/* ---- per-frame plugins ---------------------------------------------------- */

static ak_status read_name(dff_rd *d, ak_reader *r, size_t frame, size_t off)
{
    size_t n = ak_remaining(r);
    const unsigned char *p = ak_bytes(r, n, "name");
    if (!p && n)
        return AK_E_DATA;
    const unsigned char *nul = n ? memchr(p, 0, n) : NULL;
    size_t len = nul ? (size_t)(nul - p) : n;
    char *text = ak_job_alloc(d->job, len + 1, 1);
    if (!text)
        return no_memory(d, off);
    if (len)
        memcpy(text, p, len);
    ak_bone *b = &d->doc->skeleton.bones[frame];
    ak_status st = ak_bone_set_name(d->doc, b, text);
    ak_job_free(d->job, text);
    if (st == AK_OK && nul) {
        st = ak_prop_set_bytes(d->doc, &b->props, DFF_P_NAME_RAW, p, n);
        d->nul_names++;
    }
    if (len > DFF_NAME_FIELD)
        d->long_names++;
    return or_no_memory(d, st, off);
}

static ak_status read_hanim(dff_rd *d, ak_reader *r, size_t frame, size_t off)
{
    size_t size = ak_remaining(r);
    if (size < 12)
        return ak_fail(d->job, AK_E_DATA, (int64_t)off,
                       "frame %zu: HAnim PLG of %zu bytes; version, id and node count need 12", frame, size);
    int32_t version = ak_i32(r), id = ak_i32(r), count = ak_i32(r);
    if (version != DFF_HANIM_VERSION)
        return ak_fail(d->job, AK_E_UNSUPPORTED, (int64_t)off + DFF_HEADER,
                       "frame %zu: HAnim PLG version 0x%lX (only 0x100 is known)", frame, (unsigned long)version);
    if (count < 0)
        return ak_fail(d->job, AK_E_DATA, (int64_t)off + DFF_HEADER + 8, "frame %zu: HAnim node count %ld", frame,
                       (long)count);
    ak_doc *doc = d->doc;
    ak_bone *b = &doc->skeleton.bones[frame];
    if (id != -1) {
        b->id = id;
        b->has_id = 1;
    }
    if (count == 0)
        return AK_OK;
    if (!ak_need(r, 8, "HAnim hierarchy flags and key-frame size"))
        return AK_E_DATA;
    int32_t flags = ak_i32(r), keysize = ak_i32(r);
    if (!ak_need_array(r, (uint64_t)count, DFF_NODE_SIZE, "HAnim nodes"))
        return AK_E_DATA;
    if (d->nodes) {
        d->extra_hierarchies++;
    } else {
        d->nodes = r->data + r->pos;
        d->node_count = (size_t)count;
        d->node_offset = r->pos;
    }
    ak_status st = ak_prop_set_int(doc, &b->props, DFF_P_HIER_NODES, count);
    if (st == AK_OK)
        st = ak_prop_set_int(doc, &b->props, DFF_P_HIER_FLAGS, flags);
    if (st == AK_OK)
        st = ak_prop_set_int(doc, &b->props, DFF_P_HIER_KEYSIZE, keysize);
    return or_no_memory(d, st, off);
}

static ak_status read_extension(dff_rd *d, ak_reader *ext, size_t frame)
{
    int have_hanim = 0, have_name = 0;
    while (ak_remaining(ext)) {
        dff_chunk c;
        ak_status st = next_chunk(d, ext, "Extension", &c);
        if (st != AK_OK)
            return st;
        if (c.type == DFF_HANIM && !have_hanim++)
            st = read_hanim(d, &c.body, frame, c.offset);
        else if (c.type == DFF_NODENAME && !have_name++)
            st = read_name(d, &c.body, frame, c.offset);
        else if (c.type == DFF_HANIM || c.type == DFF_NODENAME)
            d->duplicate_plugins++;
        if (st != AK_OK)
            return st;
    }
    return AK_OK;
}

static ak_status read_frame_list(dff_rd *d, ak_reader *fl)
{
    dff_chunk c;
    ak_status st = next_chunk(d, fl, "Frame List", &c);
    if (st != AK_OK)
        return st;
    if (c.type != DFF_STRUCT)
        return ak_fail(d->job, AK_E_DATA, (int64_t)c.offset, "the Frame List starts with chunk 0x%X, not a Struct",
                       (unsigned)c.type);
    if ((st = read_frames(d, &c.body)) != AK_OK)
        return st;
    size_t extensions = 0;
    while (ak_remaining(fl)) {
        if ((st = next_chunk(d, fl, "Frame List", &c)) != AK_OK)
            return st;
        if (c.type != DFF_EXTENSION)
            continue; /* librw's findChunk skips whatever lies between */
        if (extensions < d->frames && (st = read_extension(d, &c.body, extensions)) != AK_OK)
            return st;
        extensions++;
    }
    if (extensions != d->frames)
        ak_warn(d->job, (int64_t)fl->pos, "%zu frames but %zu Extensions: %s", d->frames, extensions,
                extensions < d->frames ? "the last frames have no name and no id" : "the extra ones are ignored");
    return AK_OK;
}

/* ---- the HAnim hierarchy against the frames ------------------------------- */

typedef struct id_slot {
    int32_t id;
    uint32_t index;
} id_slot;

static int by_id(const void *a, const void *b)
{
    const id_slot *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Frames sorted by id (count in *n), for lookups that stay O(n log n). */
static id_slot *frames_by_id(dff_rd *d, size_t *n)
{
    const ak_skeleton *sk = &d->doc->skeleton;
    id_slot *ids = ak_job_alloc(d->job, sk->bone_count + 1, sizeof *ids);
    if (!ids)
        return NULL;
    *n = 0;
    for (size_t i = 0; i < sk->bone_count; i++)
        if (sk->bones[i].has_id)
            ids[(*n)++] = (id_slot){ sk->bones[i].id, (uint32_t)i };
    qsort(ids, *n, sizeof *ids, by_id);
    return ids;
}

static long frame_of_id(const id_slot *ids, size_t n, int32_t id)
{
    id_slot key = { id, 0 };
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first slot with an id >= key */
        size_t mid = lo + (hi - lo) / 2;
        if (by_id(&ids[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ids[lo].id == id ? (long)ids[lo].index : -1;
}

/* Node flags and positions go into the props of the frame with the node's
 * id; the cross-checks of the fact sheet (section 5.1) become warnings. */
static ak_status apply_hierarchy(dff_rd *d)
{
    size_t n_ids = 0, off = d->node_offset;
    id_slot *ids = frames_by_id(d, &n_ids);
    long *stack = ids ? ak_job_alloc(d->job, d->node_count + 1, sizeof *stack) : NULL;
    if (!stack)
        return no_memory(d, off);
    /* The stack starts with the hierarchy's own parent (as librw's
     * updateMatrices does): the last leaf's POP takes it. */
    size_t dup_frames = 0, missing = 0, wrong_parent = 0, bad_pops = 0, depth = 1;
    stack[0] = -1;
    for (size_t i = 1; i < n_ids; i++)
        dup_frames += ids[i].id == ids[i - 1].id;
    long current = -1; /* frame of the current parent node */
    ak_doc *doc = d->doc;
    for (size_t k = 0; k < d->node_count; k++) {
        const unsigned char *p = d->nodes + k * DFF_NODE_SIZE;
        int32_t id = (int32_t)ak_load_u32(p), index = (int32_t)ak_load_u32(p + 4);
        uint32_t flags = ak_load_u32(p + 8);
        long frame = frame_of_id(ids, n_ids, id);
        if (frame < 0) {
            missing++;
        } else {
            ak_bone *b = &doc->skeleton.bones[frame];
            ak_status st = ak_prop_set_int(doc, &b->props, DFF_P_HANIM_INDEX, (int64_t)k);
            if (st == AK_OK)
                st = ak_prop_set_int(doc, &b->props, DFF_P_HANIM_FLAGS, flags);
            if (st == AK_OK && index != (int32_t)k)
                st = ak_prop_set_int(doc, &b->props, DFF_P_HANIM_STORED, index);
            if (st != AK_OK)
                return no_memory(d, off);
            if (k > 0 && current >= 0 && b->parent != current)
                wrong_parent++;
        }
        /* PUSH keeps the current parent for a later sibling; POP (a leaf)
         * returns to the last one kept. */
        if (flags & 2u)
            stack[depth++] = current;
        current = frame;
        if (flags & 1u) {
            if (depth)
                current = stack[--depth];
            else
                bad_pops++;
        }
    }
    ak_job_free(d->job, stack);
    ak_job_free(d->job, ids);
    if (dup_frames)
        ak_warn(d->job, (int64_t)off, "%zu frames share their HAnim id with another frame", dup_frames);
    if (missing)
        ak_warn(d->job, (int64_t)off, "%zu of the %zu HAnim nodes have an id that no frame carries", missing,
                d->node_count);
    if (n_ids != d->node_count)
        ak_warn(d->job, (int64_t)off, "%zu frames carry an HAnim id, but the hierarchy has %zu nodes", n_ids,
                d->node_count);
    if (bad_pops)
        ak_warn(d->job, (int64_t)off, "the HAnim hierarchy pops its parent stack %zu times when it is empty",
                bad_pops);
    if (wrong_parent)
        ak_warn(d->job, (int64_t)off,
                "%zu HAnim nodes have a different parent in the hierarchy than in the frame list; "
                "the bones keep the frame list's parents", wrong_parent);
    if (d->extra_hierarchies)
        ak_warn(d->job, (int64_t)off, "%zu more HAnim hierarchies (sub-hierarchies) are ignored",
                d->extra_hierarchies);
    return AK_OK;
}

/* ---- clump and file ------------------------------------------------------- */

static ak_status read_clump_struct(dff_rd *d, ak_reader *r, size_t off)
{
    size_t size = ak_remaining(r);
    if (size < 4)
        return ak_fail(d->job, AK_E_DATA, (int64_t)off, "the Clump's Struct has %zu bytes; its atomic count needs 4",
                       size);
    ak_doc *doc = d->doc;
    ak_status st = ak_prop_set_int(doc, &doc->props, DFF_P_ATOMICS, ak_i32(r));
    if (st == AK_OK && size >= 12) {
        int32_t lights = ak_i32(r), cameras = ak_i32(r);
        st = ak_prop_set_int(doc, &doc->props, DFF_P_LIGHTS, lights);
        if (st == AK_OK)
            st = ak_prop_set_int(doc, &doc->props, DFF_P_CAMERAS, cameras);
    }
    return or_no_memory(d, st, off);
}

static ak_status stamp_props(dff_rd *d, uint32_t stamp, size_t off)
{
    uint32_t v = dff_stamp_version(stamp);
    char text[32];
    snprintf(text, sizeof text, "%u.%u.%u.%u", (unsigned)(v >> 16 & 0xF), (unsigned)(v >> 12 & 0xF),
             (unsigned)(v >> 8 & 0xF), (unsigned)(v & 0xFF));
    ak_doc *doc = d->doc;
    ak_status st = ak_doc_set_format(doc, "dff", text);
    if (st == AK_OK)
        st = ak_prop_set_int(doc, &doc->props, DFF_P_STAMP, stamp);
    if (st == AK_OK)
        st = ak_prop_set_string(doc, &doc->props, DFF_P_VERSION, text);
    if (st == AK_OK)
        st = ak_prop_set_int(doc, &doc->props, DFF_P_BUILD, dff_stamp_build(stamp));
    return or_no_memory(d, st, off);
}

static ak_status read_clump(dff_rd *d, dff_chunk *clump)
{
    ak_status st = stamp_props(d, clump->stamp, clump->offset);
    int have_struct = 0, have_frames = 0;
    while (st == AK_OK && ak_remaining(&clump->body)) {
        dff_chunk c;
        if ((st = next_chunk(d, &clump->body, "Clump", &c)) != AK_OK)
            break;
        if (c.type == DFF_STRUCT && !have_struct) {
            have_struct = 1;
            st = read_clump_struct(d, &c.body, c.offset);
        } else if (c.type == DFF_FRAMELIST && !have_frames) {
            if (!have_struct)
                return ak_fail(d->job, AK_E_DATA, (int64_t)c.offset, "a Frame List before the Clump's Struct");
            have_frames = 1;
            st = read_frame_list(d, &c.body);
        }
    }
    if (st != AK_OK)
        return st;
    if (!have_frames)
        return ak_fail(d->job, AK_E_DATA, (int64_t)clump->offset, "the Clump has no %s",
                       have_struct ? "Frame List" : "Struct");
    return d->nodes ? apply_hierarchy(d) : AK_OK;
}

/* After the first clump: more clumps (one per body type in SA player
 * models), padding or unknown chunks. Counted, never refused. */
static ak_status note_rest(dff_rd *d, ak_reader *r)
{
    size_t clumps = 1, at = r->pos;
    while (ak_remaining(r) >= DFF_HEADER) {
        const unsigned char *h = r->data + r->pos;
        uint32_t type = ak_load_u32(h), size = ak_load_u32(h + 4);
        if (type == 0 || size > ak_remaining(r) - DFF_HEADER)
            break; /* padding (a type-0 header ends the stream) or junk */
        clumps += type == DFF_CLUMP;
        r->pos += DFF_HEADER + size;
    }
    if (clumps > 1)
        ak_warn(d->job, (int64_t)at, "the file holds %zu clumps (say, one per body type); only the first is read",
                clumps);
    return or_no_memory(d, ak_prop_set_int(d->doc, &d->doc->props, DFF_P_CLUMPS, (int64_t)clumps), at);
}

static void report_findings(dff_rd *d)
{
    if (d->sheared)
        ak_warn(d->job, -1,
                "%zu frame matrices are not orthonormal (worst: frame %zu, off by %.3g); their rest rotations are "
                "the closest rotations, the stored matrices are kept in %s", d->sheared, d->worst_frame,
                d->worst_shear, DFF_P_MATRIX);
    if (d->long_names)
        ak_warn(d->job, -1, "%zu frame names are longer than the %u bytes the games keep", d->long_names,
                DFF_NAME_FIELD);
    if (d->nul_names)
        ak_warn(d->job, -1, "%zu frame names hold a NUL byte; the name ends there, the bytes are kept in %s",
                d->nul_names, DFF_P_NAME_RAW);
    if (d->duplicate_plugins)
        ak_warn(d->job, -1, "%zu repeated HAnim or Node Name chunks in frame Extensions are ignored",
                d->duplicate_plugins);
}

ak_status dff_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    dff_rd d = { 0 };
    d.job = job;
    d.doc = doc;
    ak_reader r;
    ak_reader_init(&r, job, bytes, size);
    for (;;) {
        if (!ak_remaining(&r))
            return ak_fail(job, AK_E_DATA, (int64_t)r.pos, "no Clump (chunk 0x10) in the file");
        dff_chunk c;
        ak_status st = next_chunk(&d, &r, "file", &c);
        if (st != AK_OK)
            return st;
        if (c.type == 0)
            return ak_fail(job, AK_E_DATA, (int64_t)c.offset, "the stream ends (a type-0 chunk) before any Clump");
        if (c.type != DFF_CLUMP)
            continue;
        if ((st = read_clump(&d, &c)) != AK_OK)
            return st;
        report_findings(&d);
        return note_rest(&d, &r);
    }
}
