/* write.c - a document with a skeleton as BVH text. A document read from
 * BVH and not edited is written back byte for byte: the hierarchy text
 * while the skeleton still matches it, each joint's values while its keys
 * are untouched. Everything else is generated: tabs, six decimals. */
#include "bvh.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct wjoint {
    uint8_t nch;
    uint8_t ch[BVH_MAX_CHANNELS];
    const ak_track *track;
    int direct;            /* the track has one key per frame, at the frame times */
    int32_t first_child, next_sibling, depth;
} wjoint;

typedef struct writer {
    ak_job *job;
    const ak_doc *doc;
    const ak_clip *clip;
    ak_sink *out;
    double scale;
    int native;            /* read from BVH with this scale: stored text may be reused */
    const char *eol;
    wjoint *joints;        /* one per bone */
    size_t *order;         /* bones in the hierarchy's (depth-first) order */
    size_t frames;
    double frame_time;
    size_t bad_offset; /* 1 + the first bone whose OFFSET (or End Site's) is not finite, else 0 */
} writer;

static void put_str(writer *w, const char *s) { ak_put(w->out, s, strlen(s)); }

/* Six decimals, the way BVH files are usually written. */
static void put_value(writer *w, double v)
{
    char buf[48];
    if (fabs(v) < 1e12) {
        long long n = llround(v * 1e6);
        long long a = n < 0 ? -n : n;
        snprintf(buf, sizeof buf, "%s%lld.%06lld", n < 0 ? "-" : "", a / 1000000, a % 1000000);
    } else {
        ak_format_number(v, 0, buf, sizeof buf);
    }
    put_str(w, buf);
}

static const ak_prop *prop_of(const ak_props *props, const char *key, ak_prop_type type)
{
    const ak_prop *p = ak_prop_get(props, key);
    return p && p->type == type ? p : NULL;
}

static int is_root_layout(const ak_doc *doc, size_t b) { return doc->skeleton.bones[b].parent < 0; }

/* The channels of each bone: as read, else positions and Z X Y rotations
 * for roots and for bones whose track moves, Z X Y rotations otherwise. */
static ak_status plan_channels(writer *w)
{
    const ak_skeleton *s = &w->doc->skeleton;
    static const uint8_t full[6] = { BVH_XPOS, BVH_YPOS, BVH_ZPOS, BVH_ZROT, BVH_XROT, BVH_YROT };
    for (size_t b = 0; b < s->bone_count; b++) {
        wjoint *j = &w->joints[b];
        const ak_prop *p = prop_of(&s->bones[b].props, BVH_P_CHANNELS, AK_PROP_STRING);
        if (p) {
            int n = bvh_parse_channels((const char *)p->data, j->ch);
            if (n < 0)
                return ak_fail(w->job, AK_E_DATA, -1, "bone '%s': %s '%.60s' is not a list of BVH channels",
                               s->bones[b].name, BVH_P_CHANNELS, (const char *)p->data);
            j->nch = (uint8_t)n;
        } else {
            int moves = j->track && j->track->channel[AK_TRANSLATION].count;
            int from = is_root_layout(w->doc, b) || moves ? 0 : 3;
            j->nch = (uint8_t)(6 - from);
            memcpy(j->ch, full + from, j->nch);
        }
    }
    return AK_OK;
}

/* Which track drives each bone: by skeleton_bone, else by name. */
static void match_tracks(writer *w)
{
    size_t unmatched = 0;
    const ak_skeleton *s = &w->doc->skeleton;
    for (size_t t = 0; t < w->clip->track_count; t++) {
        const ak_track *tr = w->clip->tracks[t];
        int32_t b = tr->skeleton_bone >= 0 && (size_t)tr->skeleton_bone < s->bone_count
                        ? tr->skeleton_bone
                        : ak_skeleton_find_name(w->doc, tr->bone);
        if (b >= 0 && !w->joints[b].track)
            w->joints[b].track = tr;
        else
            unmatched++;
    }
    if (unmatched)
        ak_warn(w->job, -1, "%zu tracks drive no bone of the skeleton (or one already driven) and are dropped",
                unmatched);
}

/* Children lists, depths and the depth-first order; parents must come first. */
static ak_status plan_hierarchy(writer *w)
{
    const ak_skeleton *s = &w->doc->skeleton;
    size_t n = s->bone_count;
    for (size_t b = 0; b < n; b++)
        w->joints[b].first_child = w->joints[b].next_sibling = -1;
    for (size_t b = n; b-- > 0;) {
        int32_t p = s->bones[b].parent;
        if (p >= (int32_t)b || p < -1)
            return ak_fail(w->job, AK_E_DATA, -1, "bone %zu ('%s') has parent %d, not an earlier bone", b,
                           s->bones[b].name, (int)p);
        if (p >= 0) {
            w->joints[b].next_sibling = w->joints[p].first_child;
            w->joints[p].first_child = (int32_t)b;
        }
    }
    size_t *stack = ak_job_alloc(w->job, n, sizeof *stack);
    if (!stack)
        return AK_E_NOMEM;
    size_t used = 0, top = 0;
    for (size_t root = 0; root < n; root++) {
        if (s->bones[root].parent >= 0)
            continue;
        stack[top++] = root;
        while (top) {
            size_t b = stack[--top];
            w->order[used++] = b;
            int32_t p = s->bones[b].parent;
            w->joints[b].depth = p < 0 ? 0 : w->joints[p].depth + 1;
            /* push children last-first so that the first is written first */
            size_t mark = top;
            for (int32_t c = w->joints[b].first_child; c >= 0; c = w->joints[c].next_sibling)
                stack[top++] = (size_t)c;
            for (size_t i = mark, k = top; top > mark && i < --k; i++) {
                size_t tmp = stack[i];
                stack[i] = stack[k];
                stack[k] = tmp;
            }
        }
    }
    ak_job_free(w->job, stack);
    return AK_OK;
}

static void put_indent(writer *w, int32_t depth)
{
    for (int32_t i = 0; i < depth && i < 64; i++)
        put_str(w, "\t");
}

/* A name BVH can hold: no spaces, braces or control bytes. */
static void put_name(writer *w, size_t b, int *renamed)
{
    const char *name = w->doc->skeleton.bones[b].name;
    char buf[BVH_MAX_NAME + 1];
    size_t n = 0, len = strlen(name);
    /* spaces around a name (" Pelvis" in GTA models) go, inner ones become '_' */
    while (len && (unsigned char)name[len - 1] <= ' ') {
        len--;
        *renamed = 1;
    }
    while (len && (unsigned char)*name <= ' ') {
        name++;
        len--;
        *renamed = 1;
    }
    for (const unsigned char *p = (const unsigned char *)name; n < len && n < BVH_MAX_NAME; p++, n++) {
        int bad = *p <= ' ' || *p == 0x7f || *p == '{' || *p == '}';
        buf[n] = bad ? '_' : (char)*p;
        *renamed |= bad;
    }
    buf[n] = '\0';
    if (!n) {
        snprintf(buf, sizeof buf, "bone%zu", b);
        *renamed = 1;
    }
    put_str(w, buf);
}

/* Bone b's OFFSET (or its End Site's). BVH has no NaN or infinity (its
 * reader refuses them): the first bone with one is kept for bvh_write to
 * fail on. */
static void put_offset(writer *w, size_t b, int32_t depth, const double v[3])
{
    put_indent(w, depth);
    put_str(w, "OFFSET");
    for (int i = 0; i < 3; i++) {
        double x = v[i] / w->scale;
        if (!isfinite(x) && !w->bad_offset)
            w->bad_offset = b + 1;
        put_str(w, " ");
        put_value(w, x);
    }
    put_str(w, w->eol);
}

static void put_end_site(writer *w, size_t b, int32_t depth)
{
    double v[3] = { 0, 0, 0 };
    const ak_prop *p = prop_of(&w->doc->skeleton.bones[b].props, BVH_P_END_SITE, AK_PROP_STRING);
    if (p) {
        const char *s = (const char *)p->data, *end = s + p->size;
        for (int i = 0; i < 3 && s < end; i++) {
            size_t n = ak_parse_number(s, (size_t)(end - s), &v[i]);
            s += n;
            while (s < end && *s == ' ')
                s++;
        }
    }
    put_indent(w, depth);
    put_str(w, "End Site");
    put_str(w, w->eol);
    put_indent(w, depth);
    put_str(w, "{");
    put_str(w, w->eol);
    put_offset(w, b, depth + 1, v);
    put_indent(w, depth);
    put_str(w, "}");
    put_str(w, w->eol);
}

static void put_joint_head(writer *w, size_t b, int *renamed)
{
    const wjoint *j = &w->joints[b];
    put_indent(w, j->depth);
    put_str(w, j->depth ? "JOINT " : "ROOT ");
    put_name(w, b, renamed);
    put_str(w, w->eol);
    put_indent(w, j->depth);
    put_str(w, "{");
    put_str(w, w->eol);
    put_offset(w, b, j->depth + 1, w->doc->skeleton.bones[b].translation);
    put_indent(w, j->depth + 1);
    char count[16];
    snprintf(count, sizeof count, "CHANNELS %u", (unsigned)j->nch);
    put_str(w, count);
    for (int c = 0; c < j->nch; c++) {
        put_str(w, " ");
        put_str(w, bvh_channel_name(j->ch[c]));
    }
    put_str(w, w->eol);
    if (j->first_child < 0 || prop_of(&w->doc->skeleton.bones[b].props, BVH_P_END_SITE, AK_PROP_STRING))
        put_end_site(w, b, j->depth + 1);
}

/* Closes the blocks of `b` and of its ancestors it is the last descendant of. */
static void put_closings(writer *w, size_t b)
{
    int32_t cur = (int32_t)b;
    for (;;) {
        put_indent(w, w->joints[cur].depth);
        put_str(w, "}");
        put_str(w, w->eol);
        if (w->joints[cur].next_sibling >= 0)
            return;
        cur = w->doc->skeleton.bones[cur].parent;
        if (cur < 0)
            return;
    }
}

static void put_hierarchy(writer *w)
{
    const ak_prop *text = prop_of(&w->doc->props, BVH_P_HIERARCHY, AK_PROP_BYTES);
    const ak_prop *digest = prop_of(&w->doc->props, BVH_P_DIGEST, AK_PROP_INT);
    if (w->native && text && digest && (uint64_t)digest->i == bvh_skeleton_digest(w->doc)) {
        ak_put(w->out, text->data, text->size);
        return;
    }
    int renamed = 0;
    put_str(w, "HIERARCHY");
    put_str(w, w->eol);
    size_t n = w->doc->skeleton.bone_count;
    for (size_t i = 0; i < n; i++) {
        size_t b = w->order[i];
        put_joint_head(w, b, &renamed);
        if (w->joints[b].first_child < 0)
            put_closings(w, b);
    }
    if (renamed)
        ak_warn(w->job, -1, "bone names with spaces, braces or control bytes (or none) were changed to fit BVH");
}

static void put_motion_header(writer *w)
{
    const ak_prop *text = prop_of(&w->doc->props, BVH_P_MOTION, AK_PROP_BYTES);
    const ak_prop *frames = prop_of(&w->clip->props, BVH_P_FRAMES, AK_PROP_INT);
    const ak_prop *ft = prop_of(&w->clip->props, BVH_P_FRAME_TIME, AK_PROP_FLOAT);
    if (w->native && text && frames && ft && (uint64_t)frames->i == w->frames && ft->f == w->frame_time) {
        ak_put(w->out, text->data, text->size);
        return;
    }
    char buf[96], num[32];
    ak_format_number(w->frame_time, 0, num, sizeof num);
    snprintf(buf, sizeof buf, "MOTION%sFrames: %zu%sFrame Time: %s%s", w->eol, w->frames, w->eol, num, w->eol);
    put_str(w, buf);
}

/* The frame rate and count to write. */
static ak_status plan_frames(writer *w)
{
    const ak_clip *clip = w->clip;
    const ak_prop *ft = prop_of(&clip->props, BVH_P_FRAME_TIME, AK_PROP_FLOAT);
    double fps = ak_job_param_number(w->job, "fps", 0);
    if (ak_job_failed(w->job))
        return AK_E_USAGE;
    if (ak_job_param(w->job, "fps") && (!(fps > 0) || !isfinite(fps)))
        return ak_fail(w->job, AK_E_USAGE, -1, "parameter fps must be a positive number");
    if (fps > 0)
        w->frame_time = 1 / fps;
    else if (ft && ft->f > 0 && clip->frame_rate == 1 / ft->f)
        w->frame_time = ft->f;
    else if (clip->frame_rate > 0 && isfinite(clip->frame_rate))
        w->frame_time = 1 / clip->frame_rate;
    else {
        w->frame_time = 1.0 / 30;
        ak_warn(w->job, -1, "the clip has no frame rate: sampled at 30 frames per second (set parameter fps)");
    }
    double span = clip->duration > 0 && isfinite(clip->duration) ? clip->duration / w->frame_time : 0;
    if (span >= 1e6) /* nine hours at 30 fps: a longer clip is a mistake, not mocap */
        return ak_fail(w->job, AK_E_UNSUPPORTED, -1,
                       "the clip would need %.0f frames at %g frames per second; BVH output is limited to a million",
                       span + 1, 1 / w->frame_time);
    w->frames = (size_t)llround(span) + 1;
    const ak_prop *stored = prop_of(&clip->props, BVH_P_FRAMES, AK_PROP_INT);
    if (w->native && stored && stored->i == 0 && span == 0)
        w->frames = 0; /* a BVH with no frames stays one */
    return AK_OK;
}

static int keys_on_frames(const ak_channel *ch, size_t frames, double frame_time)
{
    if (ch->count != frames)
        return 0;
    for (size_t f = 0; f < frames; f++)
        if (fabs(ch->keys[f].time - (double)f * frame_time) > 1e-9 * (1 + (double)f * frame_time))
            return 0;
    return 1;
}

/* 1 if the joint's keys in frame f are untouched and hold the same text. */
static const ak_key *reusable(const writer *w, const wjoint *j, size_t f)
{
    if (!w->native || !j->direct)
        return NULL;
    const ak_key *rot = j->track->channel[AK_ROTATION].count ? &j->track->channel[AK_ROTATION].keys[f] : NULL;
    const ak_key *pos = j->track->channel[AK_TRANSLATION].count ? &j->track->channel[AK_TRANSLATION].keys[f] : NULL;
    const ak_key *any = rot ? rot : pos;
    if (!any || (rot && ak_key_changed(rot)) || (pos && ak_key_changed(pos)))
        return NULL;
    if (rot && pos && (rot->raw_size != pos->raw_size || memcmp(rot->raw, pos->raw, rot->raw_size) != 0))
        return NULL;
    return any;
}

static ak_status joint_values(writer *w, size_t b, size_t f, double *vals)
{
    const wjoint *j = &w->joints[b];
    const ak_bone *bone = &w->doc->skeleton.bones[b];
    double q[4] = { bone->rotation[0], bone->rotation[1], bone->rotation[2], bone->rotation[3] };
    double t[4] = { bone->translation[0], bone->translation[1], bone->translation[2], 0 };
    if (j->track) {
        const ak_channel *rot = &j->track->channel[AK_ROTATION], *pos = &j->track->channel[AK_TRANSLATION];
        double time = (double)f * w->frame_time;
        if (rot->count)
            j->direct ? memcpy(q, rot->keys[f].v, sizeof q) : (void)ak_channel_sample(rot, AK_ROTATION, time, q);
        if (pos->count)
            j->direct ? memcpy(t, pos->keys[f].v, sizeof t) : (void)ak_channel_sample(pos, AK_TRANSLATION, time, t);
    }
    uint8_t axes[BVH_MAX_CHANNELS];
    int nrot = 0, slot[BVH_MAX_CHANNELS];
    for (int c = 0; c < j->nch; c++) {
        if (j->ch[c] < BVH_XROT) {
            vals[c] = t[j->ch[c]] / w->scale;
        } else {
            slot[nrot] = c;
            axes[nrot++] = (uint8_t)(j->ch[c] - BVH_XROT);
        }
    }
    if (nrot == 1) {
        vals[slot[0]] = bvh_quat_to_angle(q, axes[0]);
    } else if (nrot == 3 && axes[0] != axes[1] && axes[1] != axes[2] && axes[0] != axes[2]) {
        double deg[3];
        bvh_quat_to_euler(q, axes, deg);
        for (int i = 0; i < 3; i++)
            vals[slot[i]] = deg[i];
    } else if (nrot) {
        return ak_fail(w->job, AK_E_UNSUPPORTED, -1,
                       "bone '%s': its %d rotation channels cannot express a changed rotation; BVH needs one axis "
                       "or three different ones",
                       bone->name, nrot);
    }
    for (int c = 0; c < j->nch; c++)
        if (!isfinite(vals[c])) /* BVH has no NaN or infinity: its reader refuses them */
            return ak_fail(w->job, AK_E_DATA, -1,
                           "bone '%s': frame %zu: its %s is not a finite number, which BVH cannot store", bone->name,
                           f, bvh_channel_name(j->ch[c]));
    return AK_OK;
}

static ak_status put_frames(writer *w, const ak_prop *tail)
{
    size_t n = w->doc->skeleton.bone_count, last = n;
    for (size_t i = 0; i < n; i++)
        if (w->joints[w->order[i]].nch)
            last = i;
    for (size_t f = 0; f < w->frames; f++) {
        for (size_t i = 0; i < n; i++) {
            size_t b = w->order[i];
            const wjoint *j = &w->joints[b];
            if (!j->nch)
                continue;
            const ak_key *k = reusable(w, j, f);
            if (k) {
                ak_put(w->out, k->raw, k->raw_size);
                continue;
            }
            double vals[BVH_MAX_CHANNELS];
            ak_status st = joint_values(w, b, f, vals);
            if (st != AK_OK)
                return st;
            for (int c = 0; c < j->nch; c++) {
                if (c)
                    put_str(w, " ");
                put_value(w, vals[c]);
            }
            /* the stored tail starts with the last line's end */
            if (i != last)
                put_str(w, " ");
            else if (!(tail && f + 1 == w->frames))
                put_str(w, w->eol);
        }
    }
    return AK_OK;
}

static ak_status setup(writer *w)
{
    const ak_doc *doc = w->doc;
    size_t n = doc->skeleton.bone_count;
    if (!n)
        return ak_fail(w->job, AK_E_UNSUPPORTED, -1,
                       "BVH needs a skeleton (bones and their offsets) and this document has none; convert from "
                       "a format that stores one");
    w->scale = ak_job_param_number(w->job, "scale", 1);
    if (ak_job_failed(w->job))
        return AK_E_USAGE;
    if (!(w->scale > 0) || !isfinite(w->scale))
        return ak_fail(w->job, AK_E_USAGE, -1, "parameter scale must be a positive number");
    const ak_prop *scale = prop_of(&doc->props, BVH_P_SCALE, AK_PROP_FLOAT);
    const ak_prop *eol = prop_of(&doc->props, BVH_P_EOL, AK_PROP_STRING);
    w->native = strcmp(doc->format, "bvh") == 0 && scale && scale->f == w->scale;
    w->eol = w->native && eol && (!strcmp((const char *)eol->data, "\r\n") || !strcmp((const char *)eol->data, "\r"))
                 ? (const char *)eol->data
                 : "\n";
    w->joints = ak_job_alloc(w->job, n, sizeof *w->joints);
    w->order = ak_job_alloc(w->job, n, sizeof *w->order);
    if (!w->joints || !w->order)
        return AK_E_NOMEM;
    match_tracks(w);
    ak_status st;
    if ((st = plan_hierarchy(w)) != AK_OK || (st = plan_channels(w)) != AK_OK || (st = plan_frames(w)) != AK_OK)
        return st;
    for (size_t b = 0; b < n; b++) {
        wjoint *j = &w->joints[b];
        if (!j->track)
            continue;
        const ak_channel *rot = &j->track->channel[AK_ROTATION], *pos = &j->track->channel[AK_TRANSLATION];
        j->direct = (!rot->count || keys_on_frames(rot, w->frames, w->frame_time)) &&
                    (!pos->count || keys_on_frames(pos, w->frames, w->frame_time)) && (rot->count || pos->count);
    }
    return AK_OK;
}

ak_status bvh_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    writer w;
    memset(&w, 0, sizeof w);
    w.job = job;
    w.doc = doc;
    w.clip = doc->clips[0]; /* single-clip codec: exactly one */
    w.out = out;
    ak_status st = setup(&w);
    if (st != AK_OK)
        return st;
    put_hierarchy(&w);
    if (w.bad_offset)
        return ak_fail(job, AK_E_DATA, -1, "bone '%s': its offset is not a finite number, which BVH cannot store",
                       doc->skeleton.bones[w.bad_offset - 1].name);
    put_motion_header(&w);
    const ak_prop *tail = w.native ? prop_of(&doc->props, BVH_P_TAIL, AK_PROP_BYTES) : NULL;
    if ((st = put_frames(&w, tail)) != AK_OK)
        return st;
    if (tail)
        ak_put(out, tail->data, tail->size);
    return ak_sink_failed(out) ? AK_E_NOMEM : AK_OK;
}
