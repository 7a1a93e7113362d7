/* read.c - BVH text into a skeleton and one clip: the HIERARCHY section
 * into bones, the MOTION section into rotation and translation keys. */
#include "bvh.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What the frames need to know about each bone (indexed like the bones). */
typedef struct joint {
    uint8_t nch;
    uint8_t ch[BVH_MAX_CHANNELS];
    int has_offset, has_channels, has_end_site, has_rot, has_pos;
    ak_track *track;
} joint;

typedef struct reader {
    ak_job *job;
    ak_doc *doc;
    ak_text t;
    double scale;
    joint *joints; /* one per bone, job scratch */
    size_t cap;
    size_t channels; /* over all joints */
} reader;

static ak_status fail(reader *r, const char *fmt, const char *arg)
{
    return ak_text_fail(&r->t, AK_E_DATA, fmt, arg);
}

/* A token for a message: printable, cut short. */
static const char *shown(const char *tok, size_t len, char *buf, size_t size)
{
    size_t n = len < size - 1 ? len : size - 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = tok[i] < 0x20 || tok[i] >= 0x7f ? '?' : tok[i];
    buf[n] = '\0';
    return buf;
}

static ak_status read_vector(reader *r, const char *what, double v[3])
{
    for (int i = 0; i < 3; i++) {
        if (!ak_text_number(&r->t, what, &v[i]))
            return AK_E_DATA;
        v[i] *= r->scale;
    }
    return AK_OK;
}

/* "ROOT name {" or "JOINT name" then "{": a new bone under `parent`. The
 * name is the rest of the line (it may hold spaces), without a "{". */
static ak_status open_joint(reader *r, int32_t parent, int32_t *out)
{
    size_t len, last_len = 0;
    const char *first = ak_text_token(&r->t, &len), *last = first;
    if (!first)
        return fail(r, "expected the joint's name after %s", parent < 0 ? "ROOT" : "JOINT");
    last_len = len;
    int brace = 0;
    const char *tok;
    while ((tok = ak_text_token(&r->t, &len)) != NULL) {
        if (ak_text_is(tok, len, "{")) {
            brace = 1;
            if (!ak_text_at_line_end(&r->t))
                return fail(r, "%s", "expected the end of the line after '{'");
            break;
        }
        last = tok;
        last_len = len;
    }
    size_t name_len = (size_t)(last - first) + last_len;
    if (ak_text_is(first, 1, "{"))
        return fail(r, "%s", "the joint has no name");
    if (name_len > BVH_MAX_NAME)
        return fail(r, "%s", "joint name longer than 255 bytes");
    char name[BVH_MAX_NAME + 1];
    memcpy(name, first, name_len);
    name[name_len] = '\0';
    if (!brace && !ak_text_expect(&r->t, "{"))
        return AK_E_DATA;
    size_t index = r->doc->skeleton.bone_count;
    if (index >= r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 32;
        joint *j = ak_job_realloc(r->job, r->joints, cap, sizeof *j);
        if (!j)
            return AK_E_NOMEM;
        r->joints = j;
        r->cap = cap;
    }
    ak_bone *b = ak_bone_add(r->doc, name);
    if (!b)
        return AK_E_NOMEM;
    b->parent = parent;
    /* No CHANNELS line is no channels, which the writer must keep. */
    if (ak_prop_set_string(r->doc, &b->props, BVH_P_CHANNELS, "") != AK_OK)
        return AK_E_NOMEM;
    *out = (int32_t)index;
    return AK_OK;
}

static ak_status read_channels(reader *r, int32_t bone)
{
    joint *j = &r->joints[bone];
    double count;
    if (j->has_channels)
        return fail(r, "%s", "a second CHANNELS line for this joint");
    if (!ak_text_number(&r->t, "the channel count", &count))
        return AK_E_DATA;
    if (count != floor(count) || count < 0 || count > BVH_MAX_CHANNELS)
        return fail(r, "%s", "the channel count is not a whole number from 0 to 16");
    char text[BVH_MAX_CHANNELS * 10 + 1] = "";
    size_t used = 0;
    j->has_channels = 1;
    j->nch = (uint8_t)count;
    for (int c = 0; c < j->nch; c++) {
        size_t len;
        const char *tok = ak_text_word(&r->t, &len);
        int code = tok ? bvh_channel_of(tok, len) : -1;
        char buf[40];
        if (code < 0)
            return fail(r, "unknown channel '%s' (BVH has X/Y/Z position and rotation)",
                        tok ? shown(tok, len, buf, sizeof buf) : "");
        j->ch[c] = (uint8_t)code;
        j->has_rot |= code >= BVH_XROT;
        j->has_pos |= code < BVH_XROT;
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", c ? " " : "", bvh_channel_name(code));
    }
    r->channels += j->nch;
    return ak_prop_set_string(r->doc, &r->doc->skeleton.bones[bone].props, BVH_P_CHANNELS, text);
}

static ak_status read_end_site(reader *r, int32_t bone)
{
    double v[3];
    joint *j = &r->joints[bone];
    if (j->has_end_site)
        return fail(r, "%s", "a second End Site in one joint");
    j->has_end_site = 1;
    if (!ak_text_expect(&r->t, "{") || !ak_text_expect(&r->t, "OFFSET") ||
        read_vector(r, "an End Site offset", v) != AK_OK || !ak_text_expect(&r->t, "}"))
        return AK_E_DATA;
    char text[3 * 32 + 3];
    char x[32], y[32], z[32];
    ak_format_number(v[0], 0, x, sizeof x);
    ak_format_number(v[1], 0, y, sizeof y);
    ak_format_number(v[2], 0, z, sizeof z);
    snprintf(text, sizeof text, "%s %s %s", x, y, z);
    return ak_prop_set_string(r->doc, &r->doc->skeleton.bones[bone].props, BVH_P_END_SITE, text);
}

/* Before a joint gets children or closes, its OFFSET must have come. */
static ak_status need_offset(reader *r, int32_t bone)
{
    if (bone >= 0 && !r->joints[bone].has_offset)
        return fail(r, "joint '%s' has no OFFSET before its children or '}'", r->doc->skeleton.bones[bone].name);
    return AK_OK;
}

/* HIERARCHY up to MOTION; ROOT blocks may follow each other. */
static ak_status read_hierarchy(reader *r)
{
    if (!ak_text_expect(&r->t, "HIERARCHY"))
        return AK_E_DATA;
    int32_t current = -1; /* the joint whose block is open */
    for (;;) {
        size_t len;
        const char *w = ak_text_word(&r->t, &len);
        ak_status st = AK_OK;
        char buf[40];
        if (!w)
            return fail(r, "%s", "the input ends inside the hierarchy (MOTION is missing)");
        if (ak_text_is(w, len, "ROOT") || ak_text_is(w, len, "JOINT")) {
            if ((w[0] == 'R') != (current < 0))
                return fail(r, "%s", current < 0 ? "JOINT outside a ROOT block" : "ROOT inside another joint");
            if ((st = need_offset(r, current)) == AK_OK)
                st = open_joint(r, current, &current);
            if (st == AK_OK)
                memset(&r->joints[current], 0, sizeof r->joints[current]);
        } else if (ak_text_is(w, len, "OFFSET") && current >= 0) {
            if (r->joints[current].has_offset)
                return fail(r, "%s", "a second OFFSET for this joint");
            r->joints[current].has_offset = 1;
            st = read_vector(r, "an OFFSET value", r->doc->skeleton.bones[current].translation);
        } else if (ak_text_is(w, len, "CHANNELS") && current >= 0) {
            st = read_channels(r, current);
        } else if (ak_text_is(w, len, "End") && current >= 0) {
            if (!ak_text_expect(&r->t, "Site"))
                return AK_E_DATA;
            if ((st = need_offset(r, current)) == AK_OK)
                st = read_end_site(r, current);
        } else if (ak_text_is(w, len, "}") && current >= 0) {
            if ((st = need_offset(r, current)) == AK_OK)
                current = r->doc->skeleton.bones[current].parent;
        } else if (ak_text_is(w, len, "MOTION") && current < 0 && r->doc->skeleton.bone_count) {
            return AK_OK;
        } else if (ak_text_is(w, len, "MOTION")) {
            return fail(r, "%s", current >= 0 ? "MOTION inside a joint: a '}' is missing" : "MOTION before any ROOT");
        } else {
            return fail(r, "expected ROOT, JOINT, OFFSET, CHANNELS, End Site, '}' or MOTION, found '%s'",
                        shown(w, len, buf, sizeof buf));
        }
        if (st != AK_OK)
            return st;
    }
}

/* "Frames: N" and "Frame Time: T", each on its own line. */
static ak_status read_motion_header(reader *r, double *frames, double *frame_time)
{
    size_t len;
    ak_text_next_line(&r->t);
    if (!ak_text_expect(&r->t, "Frames:") || !ak_text_number(&r->t, "the frame count", frames))
        return AK_E_DATA;
    if (*frames != floor(*frames) || *frames < 0 || *frames > 1e15)
        return fail(r, "%s", "the frame count is not a whole number of frames");
    if (ak_text_token(&r->t, &len))
        return fail(r, "%s", "expected the end of the line after the frame count");
    if (!ak_text_expect(&r->t, "Frame") || !ak_text_expect(&r->t, "Time:") ||
        !ak_text_number(&r->t, "the frame time", frame_time))
        return AK_E_DATA;
    if (!(*frame_time > 0) || !isfinite(*frame_time))
        return fail(r, "%s", "the frame time is not a positive number of seconds");
    if (ak_text_token(&r->t, &len))
        return fail(r, "%s", "expected the end of the line after the frame time");
    ak_text_next_line(&r->t);
    return AK_OK;
}

static ak_status make_tracks(reader *r, ak_clip *clip, size_t frames)
{
    for (size_t b = 0; b < r->doc->skeleton.bone_count; b++) {
        joint *j = &r->joints[b];
        if (!j->nch)
            continue;
        j->track = ak_track_add(clip, r->doc->skeleton.bones[b].name);
        if (!j->track)
            return AK_E_NOMEM;
        j->track->skeleton_bone = (int32_t)b;
        if ((j->has_rot && ak_channel_reserve(j->track, AK_ROTATION, frames) != AK_OK) ||
            (j->has_pos && ak_channel_reserve(j->track, AK_TRANSLATION, frames) != AK_OK))
            return AK_E_NOMEM;
    }
    return AK_OK;
}

/* The keys of one joint in one frame from its channel values. */
static ak_status set_keys(reader *r, size_t bone, const double *vals, size_t frame, double frame_time)
{
    joint *j = &r->joints[bone];
    uint8_t axes[BVH_MAX_CHANNELS];
    double deg[BVH_MAX_CHANNELS];
    int nrot = 0;
    double pos[3];
    memcpy(pos, r->doc->skeleton.bones[bone].translation, sizeof pos);
    for (int c = 0; c < j->nch; c++) {
        if (j->ch[c] >= BVH_XROT) {
            axes[nrot] = (uint8_t)(j->ch[c] - BVH_XROT);
            deg[nrot++] = vals[c];
        } else {
            pos[j->ch[c]] = vals[c] * r->scale;
        }
    }
    if (j->has_rot) {
        ak_key *k = ak_key_add(j->track, AK_ROTATION);
        if (!k)
            return AK_E_NOMEM;
        k->time = (double)frame * frame_time;
        k->tick = (int64_t)frame;
        bvh_euler_to_quat(axes, deg, nrot, k->v);
    }
    if (j->has_pos) {
        ak_key *k = ak_key_add(j->track, AK_TRANSLATION);
        if (!k)
            return AK_E_NOMEM;
        k->time = (double)frame * frame_time;
        k->tick = (int64_t)frame;
        memcpy(k->v, pos, sizeof pos);
    }
    return AK_OK;
}

/* Gives the keys of `bone` in `frame` their text: [start, end). */
static ak_status set_raw(reader *r, size_t bone, size_t frame, size_t start, size_t end)
{
    joint *j = &r->joints[bone];
    const unsigned char *text = r->t.data + start;
    for (int kind = AK_ROTATION; kind <= AK_TRANSLATION; kind++) {
        if (kind == AK_ROTATION ? !j->has_rot : !j->has_pos)
            continue;
        ak_key *k = &j->track->channel[kind].keys[frame];
        if (ak_key_set_raw(j->track, k, text, end - start) != AK_OK)
            return AK_E_NOMEM;
    }
    return AK_OK;
}

static ak_status read_frames(reader *r, size_t frames, double frame_time, size_t *values_end)
{
    size_t nbones = r->doc->skeleton.bone_count;
    size_t pending_bone = 0, pending_frame = 0, pending_start = 0;
    int pending = 0;
    *values_end = r->t.pos;
    for (size_t f = 0; f < frames; f++) {
        while (ak_text_at_line_end(&r->t)) { /* blank lines between frames */
            if (ak_text_at_end(&r->t))
                return ak_text_fail(&r->t, AK_E_DATA, "the file ends after %zu of its %zu frames", f, frames);
            ak_text_next_line(&r->t);
        }
        size_t seen = 0;
        for (size_t b = 0; b < nbones; b++) {
            joint *j = &r->joints[b];
            double vals[BVH_MAX_CHANNELS];
            for (int c = 0; c < j->nch; c++, seen++) {
                size_t len;
                const char *tok = ak_text_token(&r->t, &len);
                if (!tok)
                    return ak_text_fail(&r->t, AK_E_DATA, "frame %zu has %zu values, the hierarchy has %zu channels",
                                        f, seen, r->channels);
                if (ak_parse_number(tok, len, &vals[c]) != len || !isfinite(vals[c])) {
                    char buf[40];
                    return ak_text_fail(&r->t, AK_E_DATA, "frame %zu: %s of joint '%s' is not a number: '%s'", f,
                                        bvh_channel_name(j->ch[c]), r->doc->skeleton.bones[b].name,
                                        shown(tok, len, buf, sizeof buf));
                }
                size_t at = (size_t)(tok - (const char *)r->t.data);
                if (c == 0) {
                    if (pending && set_raw(r, pending_bone, pending_frame, pending_start, at) != AK_OK)
                        return AK_E_NOMEM;
                    pending = 1;
                    pending_bone = b;
                    pending_frame = f;
                    pending_start = at;
                }
                *values_end = at + len;
            }
            if (j->nch && set_keys(r, b, vals, f, frame_time) != AK_OK)
                return AK_E_NOMEM;
        }
        size_t len;
        if (ak_text_token(&r->t, &len))
            return ak_text_fail(&r->t, AK_E_DATA, "frame %zu has more values than the %zu channels of the hierarchy",
                                f, r->channels);
        ak_text_next_line(&r->t);
    }
    if (pending && set_raw(r, pending_bone, pending_frame, pending_start, *values_end) != AK_OK)
        return AK_E_NOMEM;
    return AK_OK;
}

static int only_whitespace(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
            return 0;
    return 1;
}

static const char *line_end_of(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] == '\n' || p[i] == '\r')
            return p[i] == '\n' ? "\n" : i + 1 < n && p[i + 1] == '\n' ? "\r\n" : "\r";
    return "\n";
}

static ak_status keep_text(reader *r, size_t motion, size_t first_value, size_t values_end)
{
    ak_doc *doc = r->doc;
    const unsigned char *d = r->t.data;
    if (ak_prop_set_bytes(doc, &doc->props, BVH_P_HIERARCHY, d, motion) != AK_OK ||
        ak_prop_set_bytes(doc, &doc->props, BVH_P_MOTION, d + motion, first_value - motion) != AK_OK ||
        ak_prop_set_bytes(doc, &doc->props, BVH_P_TAIL, d + values_end, r->t.size - values_end) != AK_OK ||
        ak_prop_set_int(doc, &doc->props, BVH_P_DIGEST, (int64_t)bvh_skeleton_digest(doc)) != AK_OK ||
        ak_prop_set_float(doc, &doc->props, BVH_P_SCALE, r->scale) != AK_OK ||
        ak_prop_set_string(doc, &doc->props, BVH_P_EOL, line_end_of(d, r->t.size)) != AK_OK)
        return AK_E_NOMEM;
    return AK_OK;
}

ak_status bvh_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.job = job;
    r.doc = doc;
    r.scale = ak_job_param_number(job, "scale", 1);
    if (!(r.scale > 0) || !isfinite(r.scale))
        return ak_fail(job, AK_E_USAGE, -1, "parameter scale must be a positive number");
    size_t bom = size >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    ak_text_init(&r.t, job, bytes, size);
    r.t.pos = r.t.line_start = bom;
    ak_status st = read_hierarchy(&r);
    if (st != AK_OK)
        return st;
    size_t motion = r.t.token;
    double frames, frame_time;
    if ((st = read_motion_header(&r, &frames, &frame_time)) != AK_OK)
        return st;
    /* Each frame needs a byte per value and one between: check before reserving. */
    size_t left = size - r.t.pos;
    if (r.channels && frames > (double)(left / 2 + 1) / (double)r.channels)
        return ak_fail(job, AK_E_DATA, (int64_t)r.t.pos,
                       "Frames says %.0f frames of %zu values, more than the %zu bytes left can hold", frames,
                       r.channels, left);
    size_t nframes = r.channels ? (size_t)frames : 0;
    char stem[128];
    ak_path_stem(ak_job_filename(job), stem, sizeof stem);
    ak_clip *clip = ak_clip_add(doc, stem);
    if (!clip)
        return AK_E_NOMEM;
    clip->frame_rate = clip->tick_rate = 1 / frame_time;
    clip->duration = frames > 0 ? (frames - 1) * frame_time : 0;
    if (ak_prop_set_int(doc, &clip->props, BVH_P_FRAMES, (int64_t)frames) != AK_OK ||
        ak_prop_set_float(doc, &clip->props, BVH_P_FRAME_TIME, frame_time) != AK_OK ||
        make_tracks(&r, clip, nframes) != AK_OK)
        return AK_E_NOMEM;
    size_t first_value = r.t.pos, values_end;
    if ((st = read_frames(&r, nframes, frame_time, &values_end)) != AK_OK)
        return st;
    if (nframes) { /* the motion header runs up to the first value */
        while (first_value < values_end && only_whitespace(bytes + first_value, 1))
            first_value++;
    } else {
        values_end = first_value;
    }
    if (!only_whitespace(bytes + values_end, size - values_end))
        ak_warn(job, (int64_t)values_end, "%zu bytes after the last of the %zu frames are kept but not read",
                size - values_end, nframes);
    return keep_text(&r, motion, first_value, values_end);
}
